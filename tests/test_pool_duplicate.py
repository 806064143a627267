"""`bench.pool_duplicate`: duplicate runs made in pieces, pooled."""

from __future__ import annotations

import json
import math
from pathlib import Path
from typing import Any

import pytest

from bench.pool_duplicate import main, pool
from cli.main import main as cli_main


def run(seed: int, deals: int, capsys: pytest.CaptureFixture[str]) -> dict[str, Any]:
    assert cli_main(["simulate", "--rules", "gejiu", "--seats", "normal,easy,easy,easy",
                     "--hands", str(4 * deals), "--seed", str(seed), "--duplicate", "--fast",
                     "--json", "--quiet"]) == 0
    data: dict[str, Any] = json.loads(capsys.readouterr().out)
    return data


def synthetic(seed: int, deals: int, mean: float, ci: float, win: float) -> dict[str, Any]:
    def level(name: str, m: float) -> dict[str, Any]:
        return {"name": name, "hands": 4 * deals, "deals": deals, "mean": m, "ci95": ci,
                "win_rate": win, "deal_in_rate": win / 2}
    return {"rules": "yichun", "seed": seed, "duplicate": {"deals": deals}, "violations": 0,
            "seconds": 1.0, "levels": [level("expert x1", mean), level("hard x3", -mean / 3)]}


def test_the_pool_weights_by_deals_and_narrows_the_interval() -> None:
    p = pool([synthetic(1, 100, 1.0, 0.2, 0.3), synthetic(2, 300, 0.0, 0.1, 0.2)])
    e = p.levels[0]
    assert p.deals == 400 and e.deals == 400 and e.hands == 1600
    assert e.mean == pytest.approx(0.25)
    assert e.ci95 == pytest.approx(math.hypot(0.25 * 0.2, 0.75 * 0.1))
    assert e.win_rate == pytest.approx(0.225) and e.deal_in_rate == pytest.approx(0.1125)
    # two equal pieces: the interval of one run of both, 1/sqrt(2) of each piece's
    two = pool([synthetic(1, 200, 0.5, 0.2, 0.3), synthetic(2, 200, 0.5, 0.2, 0.3)])
    assert two.levels[0].ci95 == pytest.approx(0.2 / math.sqrt(2))


def test_real_runs_pool_to_their_weighted_figures(capsys: pytest.CaptureFixture[str],
                                                   tmp_path: Path) -> None:
    a, b = run(11, 3, capsys), run(12, 5, capsys)
    alone = pool([a])
    for got, want in zip(alone.levels, a["levels"], strict=True):
        assert (got.mean, got.ci95, got.win_rate, got.hands) == pytest.approx(
            (want["mean"], want["ci95"], want["win_rate"], want["hands"]))
    both = pool([a, b])
    for got, x, y in zip(both.levels, a["levels"], b["levels"], strict=True):
        assert got.mean == pytest.approx((3 * x["mean"] + 5 * y["mean"]) / 8)
        assert got.hands == x["hands"] + y["hands"] == 32
    files = []
    for i, data in enumerate((a, b)):
        f = tmp_path / f"{i}.json"
        f.write_text(json.dumps(data))
        files.append(str(f))
    assert main(files) == 0
    out = capsys.readouterr().out
    assert "gejiu: 8 deals in 2 runs (seeds 11, 12)" in out and "intervals" in out


def test_pieces_that_cannot_be_pooled_are_refused(capsys: pytest.CaptureFixture[str],
                                                   tmp_path: Path) -> None:
    a = synthetic(1, 10, 0.1, 0.5, 0.25)
    with pytest.raises(ValueError, match="given twice"):
        pool([a, synthetic(1, 10, 0.1, 0.5, 0.25)])
    with pytest.raises(ValueError, match="rulesets differ"):
        pool([a, {**synthetic(2, 10, 0.1, 0.5, 0.25), "rules": "gejiu"}])
    other = synthetic(3, 10, 0.1, 0.5, 0.25)
    other["levels"][1]["name"] = "normal x3"
    with pytest.raises(ValueError, match="levels differ"):
        pool([a, other])
    with pytest.raises(ValueError, match="not a duplicate run"):
        pool([a, {"rules": "yichun", "seed": 4, "levels": []}])
    bad = tmp_path / "bad.json"
    bad.write_text("{not json")
    assert main([str(bad)]) == 2
    assert "bad.json" in capsys.readouterr().err
    listed = tmp_path / "list.json"
    listed.write_text("[1, 2]")
    assert main([str(listed)]) == 2
    assert "not a simulate --json output" in capsys.readouterr().err
    half = tmp_path / "half.json"
    half.write_text(json.dumps({"rules": "yichun", "seed": 5, "duplicate": {},
                                "levels": [{"name": "x"}]}))
    assert main([str(half)]) == 2
    assert "cannot pool" in capsys.readouterr().err
