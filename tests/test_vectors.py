"""Every worked vector of ``rules/vectors.md`` through the ``score`` path:
JSON object -> parse_situation -> score -> net, key transfers and next dealer."""

from __future__ import annotations

import copy
import json
from pathlib import Path
from typing import Any

import pytest

from engine.calculator import parse_situation, settlement_to_json
from engine.rulesets import score
from engine.tiles import parse_tile
from tests.support.scoring import run

DATA = Path(__file__).parent / "data" / "vectors.jsonl"
EXPECT_KEYS = ("expect_net", "expect_transfers", "expect_next_dealer")


def _load() -> list[dict[str, Any]]:
    with DATA.open(encoding="utf-8") as fh:
        return [json.loads(line) for line in fh if line.strip()]


VECTORS = _load()
EXPECTED_IDS = (
    [f"Y-{i:02d}" for i in range(1, 19)]
    + [f"S-{i:02d}" for i in range(1, 21)]
    + [f"G-{i:02d}" for i in range(1, 14)]
)


def _input(vector: dict[str, Any]) -> dict[str, Any]:
    return {k: v for k, v in vector.items() if k not in EXPECT_KEYS and k != "id"}


def test_every_vector_is_present_once() -> None:
    ids = [v["id"] for v in VECTORS]
    assert ids == EXPECTED_IDS
    assert len(ids) == 51


@pytest.mark.parametrize("vector", VECTORS, ids=[v["id"] for v in VECTORS])
def test_vector(vector: dict[str, Any]) -> None:
    situation = parse_situation(_input(vector))
    result = settlement_to_json(score(situation), situation)
    assert result["net"] == vector["expect_net"]
    assert sum(result["net"].values()) == 0
    moves = [(t["from"], t["to"], t["amount"]) for t in result["transfers"]]
    for frm, to, amount in vector.get("expect_transfers", []):
        assert (frm, to, amount) in moves
    if "expect_next_dealer" in vector:
        assert result["next_dealer"] == vector["expect_next_dealer"]


def _vector(vid: str) -> dict[str, Any]:
    return copy.deepcopy(_input(next(v for v in VECTORS if v["id"] == vid)))


def test_s01_indicator_to_wild() -> None:
    pairs = {"1m": "2m", "9m": "1m", "5p": "6p", "9s": "1s", "E": "S", "N": "E", "W": "N",
             "Z": "F", "F": "B", "B": "Z"}
    for indicator, wild in pairs.items():
        situation = parse_situation({"rules": "shangrao", "indicator": indicator})
        assert situation.wild == parse_tile(wild)


def test_y03_with_compulsory_dealer_buy() -> None:
    obj = _vector("Y-03")
    del obj["buyers"]
    obj["dice"] = 5
    net = settlement_to_json(score(parse_situation(obj)))["net"]
    assert net == {"E": -10, "S": -6, "W": -6, "N": 22}


def test_y17_two_winners_on_the_dealers_first_discard() -> None:
    obj = _vector("Y-17")
    obj["wins"].append(
        {"seat": "W", "hand": "234p 567p 789m SSS 5p", "tile": "5p", "how": "earthly", "from": "E"}
    )
    result = settlement_to_json(score(parse_situation(obj)))
    assert result["net"] == {"E": -96, "S": 48, "W": 48, "N": 0}
    assert result["next_dealer"] == "E"


def test_y18_robbed_kong_earns_no_kong_points() -> None:
    result = settlement_to_json(score(parse_situation(_vector("Y-18"))))
    assert all("杠分" not in t["why"] for t in result["transfers"])


def test_score_batch_reproduces_every_net(tmp_path: Path) -> None:
    batch = tmp_path / "vectors.jsonl"
    lines = [json.dumps({k: v for k, v in vec.items() if k not in EXPECT_KEYS}) for vec in VECTORS]
    lines.insert(3, "{not json")
    lines.insert(7, json.dumps({"rules": "yichun", "wins": [{"seat": "Q"}]}))
    batch.write_text("\n".join(lines) + "\n", encoding="utf-8")
    code, out, _ = run(["--batch", str(batch), "--json"])
    assert code == 0
    results = [json.loads(line) for line in out.splitlines()]
    assert len(results) == len(lines)
    assert "error" in results[3] and "error" in results[7]
    assert "wins[0].seat" in results[7]["error"]
    good = [r for i, r in enumerate(results) if i not in (3, 7)]
    for vec, res in zip(VECTORS, good, strict=True):
        assert res["id"] == vec["id"]
        assert res["net"] == vec["expect_net"]
