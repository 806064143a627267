"""Plain mode at the game's end (issue 53, D): the totals said once, the game's ID with the
replay line, a new game another player asked for, and whom it waits for before and after this
player presses Enter, as the game-over screen says them."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from engine.bots.normal import NormalPlayer
from engine.game import Game
from engine.view import build_view
from host.client import TableUpdate
from host.clock import ManualClock
from host.refusal import Refusal
from host.table_info import SeatInfo, TableInfo, TableState
from tests.support.waiting import until
from tui.plain.front import PlainTable


class Transcript:
    def __init__(self) -> None:
        self.lines: list[str] = []

    def say(self, lines: Sequence[str], prompt: str) -> None:
        self.lines.extend(lines)
        self.lines.append(f"PROMPT {prompt}")

    def close(self) -> None:
        pass

    @property
    def text(self) -> str:
        return "\n".join(self.lines)


class FakeSeat:
    """Seat 0 (East) at a shared table whose game is over: the test delivers the updates."""

    controls_pace = False
    chat_log: tuple[object, ...] = ()
    spectating = False
    seat = 0

    def __init__(self) -> None:
        self.clock = ManualClock()
        self.asked = 0
        self._callbacks: list[Any] = []

    def info(self) -> TableInfo:
        seats = tuple(SeatInfo(n, True, True) for n in ("ann", "bob", "cat", "dan"))
        return TableInfo("t", "gejiu", (), seats, 0, TableState.OVER, 1, 1)  # type: ignore[arg-type]

    def subscribe(self, callback: Any) -> None:
        self._callbacks.append(callback)

    def subscribe_info(self, callback: Any) -> None:
        callback(self.info())

    def deliver(self, update: TableUpdate) -> None:
        for cb in self._callbacks:
            cb(update)

    def poke(self) -> None:
        pass

    def new_game(self, rules: str, options: Mapping[str, Any],
                 seed: int | None) -> Refusal | None:
        self.asked += 1
        return None

    def close(self) -> None:
        pass


def game_over(**kw: Any) -> TableUpdate:
    game = Game("gejiu", 3, {"hands_per_game": 1})
    hand = game.new_hand()
    player = NormalPlayer()
    while not hand.is_over:
        seat = hand.to_act()[0]
        game.apply(seat, player.choose(build_view(hand, seat)))
    game.finish_hand()
    return TableUpdate(view=build_view(hand, 0), totals=tuple(game.scores),  # type: ignore[arg-type]
                       history=tuple(game.history), hands_per_game=1, game_over=True,
                       names=("ann", "bob", "cat", "dan"), **kw)


async def test_the_game_over_says_the_id_the_ask_and_whom_it_waits_for() -> None:
    seat = FakeSeat()
    out = Transcript()
    plain = PlainTable(seat, "en", out)  # type: ignore[arg-type]
    plain.start()
    seat.deliver(game_over(game_id="k7m2x9qd"))
    await until(lambda: plain.written, 5.0, "the game's end")
    text = out.text
    assert text.count("Totals:") == 1, text
    assert "Game ID k7m2-x9qd: watch it again (friends too) with ssh … replay k7m2-x9qd" in text
    assert out.lines[-1] == "PROMPT Press Enter for a new game, or type quit. > "

    # another player asks: this one is told, and whom else it waits for
    seat.deliver(game_over(game_id="k7m2x9qd", waiting_for=(0, 2)))
    await until(lambda: plain.written, 5.0, "the ask")
    assert "A new game is asked for: press Enter to play again (it also waits for " \
           "West cat (across))." in out.text, out.text

    # Enter: the table is asked; then it waits for the last player, and says so again on Enter
    plain.handle("")
    assert seat.asked == 1
    seat.deliver(game_over(game_id="k7m2x9qd", waiting_for=(2,)))
    await until(lambda: plain.written, 5.0, "the wait")
    mark = len(out.lines)
    assert "New game when all are ready: waiting for West cat (across)." in out.text
    assert out.lines[-1] == ("PROMPT Waiting for the others to start a new game; type quit to "
                             "leave. > ")
    plain.handle("")
    assert seat.asked == 1  # asked once
    assert out.lines[mark:] == ["New game when all are ready: waiting for West cat (across).",
                                out.lines[-1]]
    assert out.text.count("Totals:") == 1 and out.text.count("Game ID") == 1
    plain.close()
