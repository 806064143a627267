"""The decision bench's reshuffle moves only tiles nobody has seen, and judges a decision
against itself as no gain at all; its edges are summed and paired by deal."""

from __future__ import annotations

import copy
import json
import random
from dataclasses import asdict
from pathlib import Path

import pytest

from bench.bench_decisions import (
    Probe,
    compare,
    continuation_rng,
    deal_edges,
    main,
    read,
    reshuffle,
    true_gain,
)
from bench.bench_paired import player
from engine.bots.expert import ExpertPlayer
from engine.bots.hard import HardPlayer
from engine.game import Game
from engine.table import Hand
from engine.view import build_view


def mid_hand(rules: str, seed: int, moves: int) -> Hand:
    hard = HardPlayer()
    hand = Game(rules, seed, {"hands_per_game": 1}).new_hand()
    for _ in range(moves):
        if hand.is_over:
            break
        s = hand.to_act()[0]
        hand.apply(s, hard.choose(build_view(hand, s)))
    assert not hand.is_over
    return hand


@pytest.mark.parametrize("rules", ["yichun", "shangrao", "gejiu"])
def test_reshuffle_changes_the_wall_and_no_view(rules: str) -> None:
    hand = mid_hand(rules, 3, 20)
    before = [build_view(hand, s) for s in range(4)]
    undrawn = sorted(hand.wall.undrawn())
    order = list(hand.wall.seq)
    indicator = hand.wall.seq[hand.indicator_pos] if hand.indicator_pos is not None else None
    reshuffle(hand, random.Random(1))
    hand.check_invariants()
    assert sorted(hand.wall.undrawn()) == undrawn
    assert hand.wall.seq != order  # the undrawn tiles did move
    for i in hand.wall.taken:
        assert hand.wall.seq[i] == order[i]  # the drawn ones did not
    if indicator is not None:
        assert hand.indicator_pos is not None
        assert hand.wall.seq[hand.indicator_pos] == indicator
    assert [build_view(hand, s) for s in range(4)] == before


def test_an_action_against_itself_gains_nothing() -> None:
    hand = mid_hand("yichun", 5, 12)
    seat = hand.to_act()[0]
    action = HardPlayer().choose(build_view(hand, seat))
    kept = copy.deepcopy(hand)
    mean, half = true_gain(hand, seat, action, action, 3, random.Random(2), HardPlayer())
    assert (mean, half) == (0.0, 0.0)
    assert hand.actions == kept.actions and hand.wall.seq == kept.wall.seq  # not played on


def probe(deal: int, move: int, gain: float, taken: bool = True, action: str = "discard 1m"
          ) -> Probe:
    return Probe(deal, 0, "close", 2, 1.0, 0.5, taken, True, gain, 0.1,
                 best_action=action, move=move)


def test_edges_sum_the_taken_changes_a_seat_hand_and_pair_by_deal() -> None:
    a = [probe(0, 5, 2.0), probe(0, 9, -1.0), probe(1, 3, 4.0), probe(2, 7, 8.0, taken=False)]
    assert deal_edges(a, 3) == [0.25, 1.0, 0.0]  # (2 - 1) / 4, 4 / 4; a declined one: none
    b = [probe(0, 5, 2.0), probe(1, 3, 4.0), probe(2, 4, -2.0)]
    assert deal_edges(b, 3) == [0.5, 1.0, -0.5]
    lines = compare(a, b, 3)
    assert lines[2].split("deal")[1].split()[0] == "+0.083"  # mean of -0.25, 0, +0.5
    assert "(2 changes made alike)" in lines[2]
    assert "+0.000 ± 0.000" in compare(a, a, 3)[2]


def test_a_decision_is_judged_on_reshuffles_of_its_own() -> None:
    draws = continuation_rng(7, 12).getrandbits(64)
    assert continuation_rng(7, 12).getrandbits(64) == draws  # whatever was judged before
    assert continuation_rng(7, 13).getrandbits(64) != draws
    assert continuation_rng(8, 12).getrandbits(64) != draws


def test_expert_labels_take_sizes_and_refuse_bad_ones() -> None:
    ex = player("expert:samples=64,max=192,recheck=0")
    assert isinstance(ex, ExpertPlayer)
    assert (ex.samples, ex.max_samples, ex.recheck_samples) == (64, 192, 0)
    wide = player("expert:gap=0.7,risk=0.15")
    assert isinstance(wide, ExpertPlayer)
    assert (wide.close, wide.risk_ready) == (0.7, 0.15)
    assert player("expert:z=none").recheck_z == {"yichun": None, "shangrao": None, "gejiu": None}
    assert player("expert:z=0.5").recheck_z["gejiu"] == 0.5
    assert player("expert:close=0").search_close == frozenset()
    assert player("expert:close=all").search_close == {"yichun", "shangrao", "gejiu"}
    assert player("expert").search_close == player("expert:close=1").search_close
    flags = {}
    for label in ("expert", "expert:bao=0", "expert:fly=1", "expert:fly=0",
                  "expert:read=0,claims=0"):
        ex = player(label)
        assert isinstance(ex, ExpertPlayer)
        flags[label] = (getattr(ex, "baodiao", True), getattr(ex, "flying", False),
                        getattr(ex, "search_claims", True))
    assert flags["expert"] == (True, False, True)
    assert flags["expert:bao=0"][0] is False
    assert flags["expert:fly=1"][1] is True and flags["expert:fly=0"][1] is False
    assert flags["expert:read=0,claims=0"][2] is False
    for bad in ("expert:samples=1", "expert:max=x", "expert:recheck=-1", "expert:size=3",
                "expert:samples", "wizard", "expert:gap=-1", "expert:risk=1.5",
                "expert:risk=nan", "expert:gap=wide", "expert:z=-1",
                "expert:z=nan", "expert:z=no", "expert:close=2", "expert:close=yichun",
                "expert:bao=2", "expert:fly=", "expert:read=no", "expert:claims=yes"):
        with pytest.raises(SystemExit):
            player(bad)


def test_files_read_together_keep_their_deals_apart(tmp_path: Path) -> None:
    files = []
    for i, gain in enumerate((4.0, -4.0)):
        f = tmp_path / f"{i}.jsonl"
        f.write_text("\n".join(json.dumps(x) for x in (
            {"run": {"rules": "yichun", "seed": i, "deals": 2}},
            asdict(probe(0, 3, gain)), {"deal_done": 1}, {"deal_done": 2})) + "\n")
        files.append(str(f))
    runs, probes, deals = read(files)
    assert deals == 4 and [r["seed"] for r in runs] == [0, 1]
    assert [p.deal for p in probes] == [0, 2]
    assert deal_edges(probes, deals) == [1.0, 0.0, -1.0, 0.0]


def _run_file(path: Path, seed: int, probes: list[Probe], deals: int) -> str:
    path.write_text("\n".join(json.dumps(x) for x in (
        {"run": {"rules": "gejiu", "seed": seed, "deals": deals, "continuations": 12}},
         *(asdict(p) for p in probes), *({"deal_done": i + 1} for i in range(deals))))
        + "\n")
    return str(path)


def test_compare_pairs_the_deals_both_finished_and_can_leave_out_kinds(
        tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    claim = Probe(0, 1, "claim", 2, 1.0, 0.5, True, True, 4.0, 0.1, best_action="pass", move=8)
    a = _run_file(tmp_path / "a.jsonl", 141, [probe(0, 5, -8.0), claim, probe(2, 3, 40.0)], 3)
    b = _run_file(tmp_path / "b.jsonl", 141, [claim], 2)  # stopped after two deals
    main(["--compare", a, b])
    out = capsys.readouterr().out
    assert "2 deals (of 3 and 2)" in out  # the third deal's +40 is not in it
    assert "first − second, paired by deal -1.000" in out  # (−8 / 4 + 0) over two deals
    main(["--compare", a, b, "--kinds", "risky,claim"])  # as if close discards went unsearched
    assert "first − second, paired by deal +0.000 ± 0.000  (1 changes made alike)" \
        in capsys.readouterr().out
    main(["--report", a, "--kinds", "close"])
    out = capsys.readouterr().out
    assert "close only" in out and "2 searched decisions" in out
    other = _run_file(tmp_path / "c.jsonl", 151, [claim], 2)
    for bad in (["--compare", a, other], ["--report", a, "--kinds", "close,folds"]):
        with pytest.raises(SystemExit):
            main(bad)
