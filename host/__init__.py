"""Hosting a table: the seat's client protocol and its updates, the table's info and
refusals, the clock, the one table loop that lets computers act and timers run, the pools where
computer players think and reviews are computed, and the local table (you against three
computers) with its data folder. No screen, no SSH, no store: ``tui/`` draws what a host
publishes, ``net/`` hosts shared tables over SSH, and both import this."""
