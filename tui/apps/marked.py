"""The settings screen's radio buttons and checkboxes with their state in text, not in colour
alone: Textual draws a radio button or checkbox as the same ``▐●▌`` or ``▐X▌`` on and off (only
its colour changes), and the button the cursor is on only by its background. Here the chosen
one reads ``(*)`` (the others ``( )``), a ticked box ``[X]`` (``[ ]``), and the one under the
cursor has ``>`` before it — ASCII, so of one cell on every terminal (Textual's half blocks
are of East Asian ambiguous width: two cells on some CJK terminals)."""

from __future__ import annotations

from typing import Any, ClassVar

from textual.content import Content
from textual.geometry import Size
from textual.widgets import Checkbox, RadioButton, RadioSet

CURSOR = ">"


class _Marked:
    """What the two share: ``render`` (the cursor's mark, the box) and the width."""

    ON: ClassVar[str]
    OFF: ClassVar[str]

    def under_cursor(self) -> bool:
        raise NotImplementedError

    def render(self: Any) -> Content:
        # the box in the label's colours: Textual's button style is made for a block glyph (its
        # "off" colour is the panel's, which the contrast theme's black panel makes unseen)
        label_style = self.get_visual_style("toggle--label")
        parts = [(CURSOR if self.under_cursor() else " ", label_style),
                 (self.ON if self.value else self.OFF, label_style)]
        if self.label:
            return Content.assemble(*parts, self.label.pad(1, 1).stylize_before(label_style))
        return Content.assemble(*parts)

    def get_content_width(self: Any, container: Size, viewport: Size) -> int:
        return 4 + (self.label.cell_length + 2 if self.label else 0)


class MarkedRadioButton(_Marked, RadioButton):
    ON, OFF = "(*)", "( )"

    def under_cursor(self) -> bool:
        parent = self.parent
        return (isinstance(parent, RadioSet) and parent.has_focus
                and self.has_class("-selected"))


class MarkedCheckbox(_Marked, Checkbox):
    ON, OFF = "[X]", "[ ]"

    def under_cursor(self) -> bool:
        return self.has_focus
