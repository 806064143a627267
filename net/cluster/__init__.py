"""Between the workers of a server spread over several processes or machines, joined by NATS:
which worker owns which table (:mod:`.directory`), a worker's part (:mod:`.node`), a session's
seat at a table another worker runs (:mod:`.remote`), the messages (:mod:`.wire`) and a local
NATS server (:mod:`.natsd`). ``serve --workers N`` itself is :mod:`net.supervisor`."""
