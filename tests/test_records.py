"""Game records: golden files per ruleset (seed + actions -> the recorded final state and
settlement), a record round trip, and precise errors for broken records."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from cli.main import main
from engine.bots import BasicPlayer
from engine.game import Game
from engine.record import (
    dumps,
    final_state,
    hand_lines,
    parse_lines,
    replay_lines,
)
from engine.simulate import play_hand

GOLDEN = Path(__file__).parent / "golden"


@pytest.mark.parametrize("rules", ["yichun", "shangrao", "gejiu"])
def test_golden_records_replay_exactly(rules: str) -> None:
    text = (GOLDEN / f"{rules}.jsonl").read_text(encoding="utf-8")
    hands = replay_lines(parse_lines(text))
    assert len(hands) == 3
    for r in hands:
        assert r.hand.is_over
        assert r.recorded_final is not None and r.matches, f"hand {r.hand.hand_no} differs"
    assert any(r.hand.wins for r in hands)


def test_record_round_trip_every_ruleset() -> None:
    for rules in ("yichun", "shangrao", "gejiu"):
        game = Game(rules, 99, {"hands_per_game": 2})
        lines = []
        while not game.is_over:
            hand = game.new_hand()
            play_hand(hand, [BasicPlayer()] * 4)
            game.finish_hand()
            lines += hand_lines(hand)
        replayed = replay_lines(parse_lines(dumps(lines)))
        assert [final_state(r.hand) for r in replayed] == [
            line["final"] for line in lines if line["type"] == "result"
        ]
        assert all(r.matches for r in replayed)


def test_tampered_record_is_caught(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    lines = (GOLDEN / "gejiu.jsonl").read_text(encoding="utf-8").splitlines()
    # change one recorded net amount: the replay must say it differs
    for i, raw in enumerate(lines):
        obj = json.loads(raw)
        if obj["type"] == "result" and obj["settlement"]["transfers"]:
            obj["settlement"]["transfers"][0][2] += 1
            lines[i] = json.dumps(obj, ensure_ascii=False)
            break
    bad = tmp_path / "bad.jsonl"
    bad.write_text("\n".join(lines) + "\n", encoding="utf-8")
    assert main(["replay", str(bad)]) == 1
    assert "CHECK FAILED" in capsys.readouterr().out


def test_illegal_action_in_record(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    lines = (GOLDEN / "yichun.jsonl").read_text(encoding="utf-8").splitlines()
    for i, raw in enumerate(lines):
        obj = json.loads(raw)
        if obj["type"] == "action" and obj["a"] == "discard":
            obj["seat"] = "ESWN"[("ESWN".index(obj["seat"]) + 1) % 4]
            lines[i] = json.dumps(obj)
            break
    bad = tmp_path / "bad.jsonl"
    bad.write_text("\n".join(lines) + "\n", encoding="utf-8")
    assert main(["replay", str(bad)]) == 1
    err = capsys.readouterr().err
    assert "cannot discard" in err and "line" in err


@pytest.mark.parametrize(
    ("content", "message"),
    [
        ("not json\n", "line 1: not JSON"),
        ('{"type": "action", "seat": "E", "a": "pass"}\n', "before any hand line"),
        ('{"type": "hand", "version": 9}\n', "record version 9"),
        ('{"type": "hand", "version": 1, "rules": "riichi", "seed": 1, "dealer": "E"}\n',
         "unknown ruleset"),
        # fields of the wrong type, as a hand-edited record may have them
        ('{"type": "hand", "version": 1, "rules": -1, "seed": 1, "dealer": "E"}\n',
         "bad hand header"),
        ('{"type": "hand", "version": 1, "rules": "gejiu", "seed": 1, "dealer": "E", '
         '"options": "x"}\n', "bad hand header"),
        ('{"type": "hand", "version": 1, "rules": "gejiu", "seed": 1, "dealer": "E"}\n'
         '{"type": "action", "i": 0, "seat": ["E"], "a": "discard", "tile": "E"}\n',
         "line 2: action 0"),
        ('{"type": "hand", "version": 1, "rules": "gejiu", "seed": 1, "dealer": "E"}\n'
         '{"type": "action", "i": 0, "seat": "E", "a": "discard", "tile": 5}\n',
         "line 2: action 0"),
    ],
)
def test_bad_records(tmp_path: Path, capsys: pytest.CaptureFixture[str], content: str,
                     message: str) -> None:
    path = tmp_path / "r.jsonl"
    path.write_text(content, encoding="utf-8")
    assert main(["replay", str(path)]) == 1
    assert message in capsys.readouterr().err


def test_missing_file(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["replay", "/nonexistent/record.jsonl"]) == 2
    assert "cannot read" in capsys.readouterr().err


def test_replay_reports_golden(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["replay", str(GOLDEN / "shangrao.jsonl")]) == 0
    out = capsys.readouterr().out
    assert out.count("check: final state and settlement match the record") == 3
