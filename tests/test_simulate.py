"""`mahjong-ssh simulate`: statistics, zero violations, and a violation names its seed and
action index."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from engine.actions import Action
from engine.simulate import SimulationViolation, simulate
from engine.view import View
from net.cli import main


@pytest.mark.parametrize("rules", ["yichun", "shangrao", "gejiu"])
def test_simulate_json(rules: str, capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["simulate", "--rules", rules, "--hands", "12", "--seed", "1", "--json"]) == 0
    data = json.loads(capsys.readouterr().out)
    assert data["hands"] == 12 and data["violations"] == 0
    wins = sum(data["wins_by_pattern"].values())
    assert wins >= 12 - data["draws"]  # several winners can share a hand (Yichun)
    assert sum(data["seat_net"]) == 0


def test_simulate_text(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["simulate", "--rules", "gejiu", "--hands", "5", "--seed", "3"]) == 0
    out = capsys.readouterr().out
    assert "0 violations" in out and "hands/s" in out and "wins by pattern" in out


def test_simulate_is_reproducible() -> None:
    a = simulate("yichun", 8, 42).to_json()
    b = simulate("yichun", 8, 42).to_json()
    assert a == b


class Cheater:
    """Answers with something illegal on its fifth decision."""

    def __init__(self) -> None:
        self.n = 0

    def choose(self, view: View) -> Action:
        self.n += 1
        if self.n == 5:
            return Action.parse("peng 1m")
        from engine.bots import BasicPlayer

        return BasicPlayer().choose(view)


def test_violation_names_seed_and_action_index() -> None:
    cheater = Cheater()
    with pytest.raises(SimulationViolation) as err:
        simulate("gejiu", 3, 17, players=[cheater] * 4)
    exc = err.value
    assert exc.seed == 17 and exc.hand_no == 1 and exc.action_index == 4
    assert "cannot peng" in exc.problem


def test_bad_option(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["simulate", "--rules", "gejiu", "--hands", "1", "--option", "nope=1"]) == 2
    assert "has no option 'nope'" in capsys.readouterr().err


def test_simulate_writes_records_that_replay(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    path = tmp_path / "sim.jsonl"
    assert main(["simulate", "--rules", "shangrao", "--hands", "4", "--seed", "6",
                 "--record", str(path)]) == 0
    capsys.readouterr()
    assert main(["replay", str(path)]) == 0
    assert capsys.readouterr().out.count("match the record") == 4


def test_simulate_beyond_one_game() -> None:
    """More hands than one game holds are played as consecutive games; the first hands are the
    same whatever the total."""
    from engine.simulate import GAME_LENGTH

    long = simulate("shangrao", GAME_LENGTH + 3, 2, check=False)
    assert long.hands == GAME_LENGTH + 3
    short = simulate("shangrao", 5, 2, check=False)
    assert long.seat_hand_net[0][:5] == short.seat_hand_net[0]
