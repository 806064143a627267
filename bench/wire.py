"""What one view costs between workers: encode + decode time and size of a seat's update in
``net.cluster.wire``'s form, against msgspec on the dataclasses as they are (named fields, no
bounds), pickle, and JSON of ``View.to_json()`` (what logs use; it drops most of a view, and reads
back as a dict, not a View).

The updates are seat 0's at the middle action of a fixed-seed hand of computer players, per
ruleset, and a hand's end (the settlement, every hand shown). Each figure is this process's
CPU time per call, the best of ``MJ_BENCH_REPEATS`` runs of ``MJ_BENCH_LOOPS`` calls (the
least disturbed by other load on the machine), with the median of those runs beside it.

Run: ``.venv/bin/python -m bench.wire``.
"""

from __future__ import annotations

import dataclasses
import json
import os
import pickle
import statistics
import time
import timeit
from collections.abc import Callable
from functools import partial
from typing import Any

import msgspec

from engine.bots import make_player
from engine.game import Game
from engine.view import build_view
from host.client import TableUpdate
from net.cluster import wire

SEEDS = {"yichun": 3, "shangrao": 3, "gejiu": 3}


def _hand_updates(rules: str, seed: int) -> list[TableUpdate]:
    """Seat 0's update after every action of the first hand."""
    game = Game(rules, seed, {"hands_per_game": 1})
    players = [make_player(level) for level in ("hard", "normal", "easy", "hard")]
    hand = game.new_hand()
    out: list[TableUpdate] = []
    while not hand.is_over:
        seat = hand.to_act()[0]
        game.apply(seat, players[seat].choose(build_view(hand, seat)))
        s = game.scores
        out.append(TableUpdate(build_view(hand, 0), deadline=1000.0 + len(out),
                               timer_seconds=30.0, totals=(s[0], s[1], s[2], s[3]),
                               history=tuple(game.history), hands_per_game=1,
                               names=("东", "bob", "", "ann")))
    return out


@dataclasses.dataclass(frozen=True)
class Codec:
    name: str
    encode: Callable[[TableUpdate], bytes]
    decode: Callable[[bytes], Any]


_NATIVE = msgspec.msgpack.Encoder()
_NATIVE_DECODER = msgspec.msgpack.Decoder(TableUpdate)

CODECS = (
    Codec("net.cluster.wire", lambda u: wire.encode(wire.Update(u), 999.0),
          lambda b: wire.decode(b, 999.0)),
    Codec("msgspec, dataclasses as they are", _NATIVE.encode, _NATIVE_DECODER.decode),
    Codec("pickle (protocol 5)", lambda u: pickle.dumps(u, 5), pickle.loads),
    Codec("json of View.to_json()", lambda u: json.dumps(u.view.to_json()).encode(),
          json.loads),
)


def _time(call: Callable[[], object], loops: int, repeats: int) -> tuple[float, float]:
    """Best and median µs of CPU per call."""
    runs = [t / loops * 1e6 for t in timeit.repeat(call, number=loops, repeat=repeats,
                                                    timer=time.process_time)]
    return min(runs), statistics.median(runs)


def measure(update: TableUpdate, loops: int, repeats: int) -> list[tuple[str, int, float, float,
                                                                          float]]:
    """Per codec: bytes, best encode µs, best decode µs, median encode + decode µs."""
    rows = []
    for codec in CODECS:
        data = codec.encode(update)
        if codec.name == "net.cluster.wire":
            assert wire.decode(data, 999.0) == wire.Update(update)
        enc, enc_med = _time(partial(codec.encode, update), loops, repeats)
        dec, dec_med = _time(partial(codec.decode, data), loops, repeats)
        rows.append((codec.name, len(data), enc, dec, enc_med + dec_med))
    return rows


def main() -> None:
    loops = int(os.environ.get("MJ_BENCH_LOOPS", "2000"))
    repeats = int(os.environ.get("MJ_BENCH_REPEATS", "7"))
    cases: list[tuple[str, TableUpdate]] = []
    for rules, seed in SEEDS.items():
        updates = _hand_updates(rules, seed)
        middle = updates[len(updates) // 2]
        cases.append((f"{rules} mid-hand (action {len(updates) // 2} of {len(updates)})",
                      middle))
        if rules == "shangrao":
            cases.append((f"{rules} hand's end (settlement)", updates[-1]))
    print("| update | codec | bytes | encode µs | decode µs | both µs | both µs (median) |")
    print("|---|---|---:|---:|---:|---:|---:|")
    for label, update in cases:
        for name, size, enc, dec, both_med in measure(update, loops, repeats):
            print(f"| {label} | {name} | {size} | {enc:.1f} | {dec:.1f} | {enc + dec:.1f} "
                  f"| {both_med:.1f} |", flush=True)


if __name__ == "__main__":
    main()
