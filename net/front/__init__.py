"""The SSH front: the listener and its login policy, each session's screens (lobby, table)
and the terminal driver under them. It reaches tables through the runtime
(:mod:`net.runtime`) or a seat of another worker (:mod:`net.cluster`), and the store only
through its protocol (:mod:`net.store.base`)."""
