"""What a newcomer hit on the screens (issue 24): each test fails on the screens as they were."""

from __future__ import annotations

import dataclasses

import pytest

from tests.test_tui_layout import assert_fits, crowded_view
from tui.client import TableUpdate
from tui.i18n import tr
from tui.layout import build_rows
from tui.ui_state import UiState


def screen_lines(rows: list[tuple[tuple[int, str, str], ...]]) -> list[str]:
    """The rows as the terminal shows them (spans placed at their columns)."""
    from rich.cells import cell_len

    out = []
    for row in rows:
        line, end = "", 0
        for x, text, _style in row:
            line += " " * (x - end) + text
            end = x + cell_len(text)
        out.append(line)
    return out


@pytest.mark.parametrize("rules", ["yichun", "shangrao", "gejiu"])
@pytest.mark.parametrize("lang", ["en", "zh"])
def test_a_side_seat_never_loses_its_flags_at_80x24(rules: str, lang: str) -> None:
    """Item 3: a dealer who declared 报听, with ten tiles, at the side of an 80×24 screen
    still reads as the dealer and ready; with every flag at once, none is dropped."""
    view = crowded_view(rules)
    left = 3  # the viewer is E: N sits on the left, S on the right
    plain = tuple(dataclasses.replace(p, melds=p.melds[:1], concealed_count=10, ting=False,
                                      lighter=False, bought=None, flown=0) for p in view.seats)
    plain = tuple(dataclasses.replace(p, ting=p.seat == left) for p in plain)
    for seats, dealer in ((plain, left), (view.seats, 1), (view.seats, left)):
        v = dataclasses.replace(view, seats=seats, dealer=dealer)
        update = TableUpdate(view=v, deadline=10.0, timer_seconds=30.0, hands_per_game=8,
                             names=("", "x" * 40, "bot 电脑", "wes (away)"))
        rows = build_rows(update, UiState(lang=lang, now=5.0), 80, 24)
        assert_fits(rows, 80)
        for seat, side in ((left, range(0, 18)), (1, range(62, 80))):
            flags_row = "".join(t for x, t, _ in rows[3] if x in side)
            p = v.seats[seat]
            want: list[tuple[str, str]] = []  # (the flag's word, its one-character form)
            if seat == dealer:
                want.append((tr(lang, "flag_dealer"), tr(lang, "flag_dealer_short")))
            if p.ting:
                want.append((tr(lang, "flag_ting"), tr(lang, "flag_ting_short")))
            if p.lighter:
                want.append((tr(lang, "flag_lighter"),) * 2)
            if p.flown:
                want.append((tr(lang, "flag_flown", n=p.flown),
                             tr(lang, "flag_flown_short", n=p.flown)))
            if rules == "yichun" and p.bought is not None:
                want.append((tr(lang, "flag_buy"),) * 2)
            assert want or seat != left
            for long, short in want:
                assert long in flags_row or short in flags_row, (seat, long, flags_row)
