"""The coach's answer over the table (a coach table: the option ``coach=on``, host.coach): a
panel over the table's top rows, never over the player's own hand and keys at its bottom, so
the player reads the advice and plays on; it goes with the decision it is about, or on the
coach's key again.

A toast had the centre's 40 × 8 cells at 80 × 24, too few for the figures and the review's
"why" in words; the hand's result's page covers the whole table.
"""

from __future__ import annotations

from typing import ClassVar

from textual.widgets import Static

# the rows kept clear at the bottom of the screen: one's own hand, its melds, the action row,
# the log (the table's bottom rows at 80 × 24)
CLEAR_BELOW = 8
MAX_WIDTH = 80  # cells: the advice reads as lines, not as a banner across a wide terminal


class CoachPanel(Static):
    """The coach's lines, hidden until an answer comes (:meth:`say`)."""

    DEFAULT_CSS: ClassVar[str] = """
    CoachPanel {
        position: absolute;
        overlay: screen;
        display: none;
        height: auto;
        padding: 0 1;
        background: $panel;
        color: $text;
        border: round $accent;
    }
    """

    def __init__(self) -> None:
        super().__init__("", id="coach-panel", markup=False)
        self.text = ""

    def say(self, text: str) -> None:
        """Show ``text`` over the table's top rows, as wide and tall as leaves the hand clear."""
        width, height = self.screen.size
        self.text = text
        self.styles.width = min(width, MAX_WIDTH)
        self.styles.max_height = max(3, height - CLEAR_BELOW)
        self.styles.offset = (max(0, (width - MAX_WIDTH) // 2), 0)
        self.update(text)
        self.display = True

    def clear(self) -> None:
        self.text = ""
        self.display = False

    @property
    def shown(self) -> bool:
        return bool(self.display and self.text)
