"""The calculator refuses situations no table can reach (issue 24), naming the contradiction,
instead of settling and paying them."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from engine.calculator import score_json
from tests.support.scoring import run, win

S11 = {"rules": "shangrao", "dealer": "E", "wild": "5m",
       "wins": [win("S", "5m 123p 456p 789s EEE", "5m", baodiao="touji")]}
FOUR_WILDS = {"rules": "shangrao", "dealer": "E", "wild": "5m",
              "wins": [win("S", "555m 123p 456p 789s E", "5m")]}


def refused(obj: dict[str, Any], monkeypatch: pytest.MonkeyPatch) -> str:
    """The calculator's message for ``obj``, which must be refused as malformed (exit 2)."""
    code, out, err = run([], json.dumps(obj), monkeypatch)
    assert code == 2, out
    assert out == ""
    return err


@pytest.mark.parametrize("rules", ["yichun", "gejiu", "shangrao"])
def test_a_kong_elsewhere_and_the_winners_tiles_make_five_copies(
        rules: str, monkeypatch: pytest.MonkeyPatch) -> None:
    obj = {"rules": rules, "wins": [win("S", "123m 456p 789s EEE 5m", "5m")],
           "kongs": {"W": ["agang 5555m"]}}
    if rules == "shangrao":
        obj["wild"] = "9p"
    err = refused(obj, monkeypatch)
    assert "6 copies of 5m" in err and "kongs" in err


def test_two_winners_of_one_discard_hold_five_copies(monkeypatch: pytest.MonkeyPatch) -> None:
    wins = [win("S", "123m 456m 789s 55p 66p", "5p", "discard", "N"),
            win("W", "234m 678m 789s 55p 66s", "5p", "discard", "N")]
    err = refused({"rules": "yichun", "wins": wins}, monkeypatch)
    assert "5 copies of 5p" in err
    # one of them alone is fine: the shared discard is counted once
    code, _, _ = run([], json.dumps({"rules": "yichun", "wins": wins[:1]}), monkeypatch)
    assert code == 0


def test_the_robbed_kong_tile_is_the_konger_s_fourth_copy(
        monkeypatch: pytest.MonkeyPatch) -> None:
    robbers = [win("S", "123m 567p 789s 11s 56p", "4p", "rob_kong", "N"),
               win("E", "123m 567p 789s 11s 23p", "4p", "rob_kong", "N")]
    obj = {"rules": "shangrao", "wild": "9m", "wins": robbers, "kongs": {"N": ["bgang 4444p"]}}
    code, out, _ = run([], json.dumps(obj), monkeypatch)
    assert code == 0, out
    robbers[1]["hand"] = "123m 456p 789s 11s 23p"  # a fifth 4p
    assert "5 copies of 4p" in refused(obj, monkeypatch)


def test_more_than_four_wilds_in_play(monkeypatch: pytest.MonkeyPatch) -> None:
    obj = {**S11, "flown": {"W": 2}, "got": {"S": 2, "W": 2}}
    code, out, _ = run([], json.dumps(obj), monkeypatch)
    assert code == 0, out
    obj["flown"] = {"W": 3}
    obj["got"] = {"S": 1, "W": 3}
    err = refused(obj, monkeypatch)
    assert "only four wilds" in err and "flown" in err


def test_a_hand_with_more_wilds_than_it_received(monkeypatch: pytest.MonkeyPatch) -> None:
    err = refused({**S11, "got": {"S": 1}}, monkeypatch)
    assert "got.S" in err and "holds 2 wild(s) 5m" in err and "received 1" in err
    err = refused({**S11, "got": {"S": 2}, "flown": {"S": 1}}, monkeypatch)
    assert "flew 1" in err and "received 2" in err


def test_four_wilds_held_need_got_four_so_the_bonus_is_paid(
        monkeypatch: pytest.MonkeyPatch) -> None:
    err = refused(FOUR_WILDS, monkeypatch)
    assert "got.S" in err and "四个宝" in err
    code, out, _ = run(["--json"], json.dumps({**FOUR_WILDS, "got": {"S": 4}}), monkeypatch)
    assert code == 0, out
    assert any("四个宝" in t["why"] for t in json.loads(out)["transfers"])


@pytest.mark.parametrize("how,seat,frm", [("heavenly", "E", None), ("earthly", "S", "E")])
def test_yichun_heavenly_and_earthly_come_before_any_kong(
        how: str, seat: str, frm: str | None, monkeypatch: pytest.MonkeyPatch) -> None:
    obj: dict[str, Any] = {"rules": "yichun", "dealer": "E", "buyers": [],
                           "wins": [win(seat, "123m 456m 789p 111s 9s", "9s", how, frm)]}
    code, out, _ = run([], json.dumps(obj), monkeypatch)
    assert code == 0, out
    obj["kongs"] = {"W": ["mgang 2222p"]}
    err = refused(obj, monkeypatch)
    assert "kongs.W" in err and how in err and "before any claim or kong" in err


def test_a_declared_win_that_does_not_win_is_an_error_line_in_a_batch(tmp_path: Path) -> None:
    bad = {"id": 7, "rules": "gejiu",
           "wins": [win("S", "123m 456p 789s EEE 5m", "6m", "discard", "W")]}
    f = tmp_path / "batch.jsonl"
    f.write_text(json.dumps(bad) + "\n", encoding="utf-8")
    code, out, _ = run(["--batch", str(f), "--json"])
    line = json.loads(out)
    assert code == 0
    assert line["id"] == 7 and "does not win" in line["error"] and line["win"] is False
    assert score_json(bad)["error"] == line["error"]
    code, out, _ = run(["--batch", str(f)])  # the text batch keeps its readable sentence
    assert out.startswith("This hand does not win")
