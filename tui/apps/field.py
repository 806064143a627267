"""The text field of every form and typing line: Textual's ``Input`` with a steady cursor."""

from __future__ import annotations

from textual.reactive import reactive
from textual.widgets import Input


class Field(Input):
    """An ``Input`` whose cursor does not blink. A blinking cursor repaints its field twice a
    second for as long as it has the focus, and the lobby's typing line has it the whole visit:
    on a server, 100 sessions idle in the lobby took 40% of a core and their terminals a frame
    every half second each (``python -m bench.bench_churn --kind lobby --idle 100``)."""

    cursor_blink = reactive(False, init=False)
