"""The ``mahjong-ssh`` command line: the parser and the commands that need no network.

``serve`` and ``backup`` are dispatched to ``net``; nothing in ``engine``, ``tui`` or ``net``
imports this package.
"""
