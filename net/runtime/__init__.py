"""The table runtime: the tables a process runs (engine, timers, computer players, stakes,
persistence through the store). It knows nothing of SSH."""
