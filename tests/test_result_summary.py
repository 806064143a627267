"""A hand's result at 80×24: its first screen shows every seat's change and new total and who
paid whom; the detail (hands, patterns, each payment's reason) scrolls below (issue 53).

The result once listed the hands, the patterns and the payments first and the totals last: at
80×24 two of the four totals and part of a four-payment hand's payments were below the first
screen until End was pressed."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from bench.bench_tui import ScriptedClient
from engine.view import build_view
from host.client import TableUpdate
from tui.apps.app import MahjongApp
from tui.settings import Settings
from tui.view.cells import fit_cells
from tui.view.faces import Face
from tui.view.result_text import NAME_CELLS, hand_result_lines, lines_content
from tui.view.table import TableView
from words import seat_label, tr

NAMES = ("ann", "龙" * 9, "bot 电脑", "wesley-the-long")


class NamedClient(ScriptedClient):
    """A scripted table whose updates carry the players' names (long ones, cut on screen)."""

    def publish(self) -> None:
        hand = self.game.hand
        assert hand is not None
        update = TableUpdate(view=build_view(hand, self.seat), hands_per_game=1000,
                             totals=tuple(self.game.scores),  # type: ignore[arg-type]
                             names=NAMES)
        for cb in self.callbacks:
            cb(update)


def four_payment_table(rules: str) -> NamedClient:
    """A table whose current hand is over with four payments or more."""
    client = NamedClient(rules, seed=1)
    for _ in range(40):
        hand = client.game.hand
        assert hand is not None
        while not hand.is_over:
            client.step()
        result = build_view(hand, 0).result
        if result is not None and len(result.settlement.transfers) >= 4:
            return client
        client.step()  # the next hand
    raise AssertionError(f"no {rules} hand with four payments")


def first_screen(app: MahjongApp) -> list[str]:
    view = app.screen.query_one(TableView)
    return [view.render_line(y).text for y in range(view.size.height)]


def check_summary(rows: list[str], update: TableUpdate, lang: str) -> None:
    """Each seat's change and total on its own row, and every payer → payee with the sum it
    paid, among ``rows``."""
    view = update.view
    assert view.result is not None
    settlement = view.result.settlement
    text = "\n".join(rows)
    for s in range(4):
        label = seat_label(view.viewer, s, lang)
        pattern = (re.escape(label) + r".*\s" + re.escape(f"{settlement.seats[s]:+d}")
                   + r"\s+→\s+" + re.escape(f"{update.totals[s]:+d}") + r"(\s|$)")
        assert any(re.search(pattern, row) for row in rows), (label, text)
    sums: dict[tuple[int | str, int | str], int] = {}
    for t in settlement.transfers:
        sums[t.payer, t.payee] = sums.get((t.payer, t.payee), 0) + t.amount

    def short(p: int | str) -> str:  # a seat by its label, a spectator by its name (cut)
        return seat_label(view.viewer, p, lang) if isinstance(p, int) else fit_cells(
            p, NAME_CELLS)

    for (payer, payee), amount in sums.items():
        paid = tr(lang, "res_paid", payer=short(payer), payee=short(payee), amount=amount)
        assert paid in text, (paid, text)
    for name, net in settlement.spectators.items():
        assert any(fit_cells(name, NAME_CELLS) in row and f"{net:+d}" in row for row in rows)


@pytest.mark.parametrize("lang", ["en", "zh"])
@pytest.mark.parametrize("rules", ["yichun", "shangrao", "gejiu"])
async def test_the_first_screen_shows_every_total_and_payment(rules: str, lang: str,
                                                              tmp_path: Path) -> None:
    client = four_payment_table(rules)
    settings = Settings.load(tmp_path / "s.json")
    settings.lang = lang
    app = MahjongApp(client, settings, table_ready=True)
    async with app.run_test(size=(80, 24)) as pilot:
        for _ in range(5):
            await pilot.pause()
        screen = app.table_screen
        assert screen is not None and screen.result is not None
        update = screen.result
        faces = set()
        for _ in range(len(Face)):  # every tile face (t: the next one)
            faces.add(app.face)
            rows = first_screen(app)
            assert tr(lang, "res_title", n=update.view.hand_no) in rows[0]
            check_summary(rows[:-1], update, lang)  # the last row: the keys
            # the detail is below, a scroll away
            page = screen.result_text
            assert tr(lang, "res_why") in page and tr(lang, "res_why") not in "\n".join(rows)
            await pilot.press("t")
            await pilot.pause()
        assert faces == set(Face)


def test_the_summary_comes_before_the_detail() -> None:
    """For any hand, viewer and spectator, in both languages: the totals and who paid whom
    (spectators' stakes too) before the hands; a long name cut; each line fits the width."""
    from rich.cells import cell_len

    from engine.bots.normal import NormalPlayer
    from engine.game import Game
    from engine.situation import Spectator

    player = NormalPlayer()
    for rules in ("yichun", "shangrao", "gejiu"):
        game = Game(rules, 3, {"hands_per_game": 8})
        if rules == "yichun":
            game.spectators = (Spectator("甲" * 20, 1), Spectator("乙", 2))
        for _ in range(3):
            hand = game.new_hand()
            while not hand.is_over:
                seat = hand.to_act()[0]
                game.apply(seat, player.choose(build_view(hand, seat)))
            for viewer in (0, 2, None):
                view = build_view(hand, viewer)
                update = TableUpdate(view=view, totals=tuple(game.scores),  # type: ignore[arg-type]
                                     names=NAMES)
                for lang in ("en", "zh"):
                    lines = lines_content(hand_result_lines(update, lang, Face.CJK, 76)
                                          ).plain.splitlines()
                    assert all(cell_len(line) <= 76 for line in lines)
                    if view.result is None:
                        continue
                    hands = lines.index(tr(lang, "res_hands"))
                    assert hands < 23
                    head = lines[:hands]
                    check_summary(head, update, lang)
                    if hand.wins:
                        assert tr(lang, "res_why") in lines[hands:]
