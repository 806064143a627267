"""`mahjong-ssh play` writes every finished hand's game record, and the records replay."""

from __future__ import annotations

import asyncio
from pathlib import Path

from engine.bots import make_player
from engine.record import parse_lines, replay_lines
from engine.view import build_view
from host.local import LocalTable


async def test_local_table_writes_replayable_records(tmp_path: Path) -> None:
    table = LocalTable(bot_delay=0, timers=False, record_dir=tmp_path / "records")
    me = make_player("normal")
    table.new_game("yichun", {"hands_per_game": 2}, 11)
    game = table.game
    assert game is not None
    for _ in range(5000):
        await asyncio.sleep(0)
        hand = game.hand
        assert hand is not None
        if hand.is_over:
            if game.is_over:
                break
            table.next_hand()
        elif table.seat in hand.to_act():
            assert table.send(me.choose(build_view(hand, table.seat))) is None
    assert game.is_over
    table.close()
    files = list((tmp_path / "records").iterdir())
    assert len(files) == 1 and files[0].name.endswith(f"-yichun-{game.seed}.jsonl")
    replayed = replay_lines(parse_lines(files[0].read_text(encoding="utf-8")))
    assert [r.hand.hand_no for r in replayed] == [1, 2]
    assert all(r.matches for r in replayed)
