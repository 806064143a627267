"""A server spread over several worker processes or machines, joined by NATS: which worker
owns which table (:mod:`.directory`), a worker's part (:mod:`.node`), a session's seat at a
table another worker runs (:mod:`.remote`), and ``serve --workers N`` (:mod:`.supervisor`)."""
