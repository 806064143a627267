"""The waiting room fits an 80-column terminal: each option's line (its value and its word in
both languages) and the key line, for every ruleset with every option set."""

from __future__ import annotations

import pytest
from rich.cells import cell_len

from engine.rulesets import RULESETS
from host.table_info import SeatInfo, TableInfo, TableState
from tui.apps.room import option_lines

INDENT = 4  # the room draws each option line under "options 选项:" indented so


def _set(value: object) -> object:
    """A value other than the default where one is easy to name: the longer line."""
    if isinstance(value, bool):
        return not value
    return value


@pytest.mark.parametrize("rules", sorted(RULESETS))
def test_every_option_line_fits_80_columns(rules: str) -> None:
    options = tuple((spec.key, _set(spec.default)) for spec in RULESETS[rules].options_spec)
    seats = (SeatInfo("ann", True, False),) + (SeatInfo("", False, False),) * 3
    info = TableInfo("practice", rules, options, seats, 0,  # type: ignore[arg-type]
                     TableState.WAITING, 0, 8)
    lines = option_lines(info)
    assert lines
    too_wide = [line for line in lines if INDENT + cell_len(line) > 80]
    assert not too_wide, too_wide


@pytest.mark.parametrize("spectating", [False, True])
def test_the_waiting_rooms_rows_fit_80_columns(spectating: bool) -> None:
    """Yichun with spectator stakes: the longest key line (a seated player's allows them).
    Prose wraps between words; a row of keys or options (parts joined by " · ") must not."""
    from types import SimpleNamespace

    from tui.apps.room import WaitingScreen

    seats = (SeatInfo("ann", True, False),) + (SeatInfo("", False, False),) * 3
    info = TableInfo("practice", "yichun", (("coach", True),), seats, 0,  # type: ignore[arg-type]
                     TableState.WAITING, 0, 8, stakes_possible=True)
    room = SimpleNamespace(info=info, client=SimpleNamespace(spectating=spectating,
                                                            nickname="ann"))
    text = WaitingScreen._body(room)  # type: ignore[arg-type]
    wide = [row for row in text.plain.splitlines() if " · " in row and cell_len(row) > 80]
    assert "a: allow spectators" in text.plain or spectating
    assert not wide, wide
