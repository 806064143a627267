"""`mahjong-ssh simulate`: statistics, zero violations, and a violation names its seed and
action index."""

from __future__ import annotations

import json
from pathlib import Path
from typing import ClassVar

import pytest

from cli.main import main
from engine.actions import Action
from engine.bots import make_player
from engine.simulate import SimulationReport, SimulationViolation, simulate
from engine.view import View


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


# --- duplicate mode ----------------------------------------------------------------------------


def test_rotation_levels() -> None:
    from engine.simulate import rotation_levels

    levels = ["hard", "normal", "easy", "normal"]
    assert rotation_levels(levels, 0) == ("hard", "normal", "easy", "normal")
    assert rotation_levels(levels, 1) == ("normal", "hard", "normal", "easy")
    for i, level in enumerate(levels):  # entrant i sits in seat (i + r) % 4
        assert [rotation_levels(levels, r)[(i + r) % 4] for r in range(4)] == [level] * 4


class Spy:
    """A computer player of ``level`` that notes the seat of every view it is asked about."""

    made: ClassVar[list[Spy]] = []

    def __init__(self, level: str) -> None:
        self.level = level
        self.inner = make_player(level)
        self.viewers: set[int | None] = set()
        Spy.made.append(self)

    def choose(self, view: View) -> Action:
        self.viewers.add(view.viewer)
        return self.inner.choose(view)


def test_duplicate_rotation_gives_every_level_every_seat(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """Each deal is played four times on the same deal (hand seed, dealer, fresh players);
    play r seats levels[(s - r) % 4] in seat s, so every level sits in every seat."""
    import engine.simulate
    from engine.table import Hand

    monkeypatch.setattr(engine.simulate, "make_player", Spy)
    Spy.made = []
    levels = ["hard", "easy", "normal", "normal"]
    plays: list[tuple[int, int, list[Spy]]] = []  # hand seed, dealer, the seats' players

    def on_hand(hand: Hand) -> None:
        plays.append((hand.seed, hand.dealer, Spy.made[-4:]))

    report = simulate("gejiu", 12, 5, levels=levels, duplicate=True, on_hand=on_hand)
    assert report.hands == 12 and report.deals == 3 and len(plays) == 12
    assert len(Spy.made) == 12 * 4  # four fresh players every play
    assert len({id(p) for p in Spy.made}) == 48
    deals = [plays[d * 4:(d + 1) * 4] for d in range(3)]
    assert len({deal[0][0] for deal in deals}) == 3  # three different deals
    for deal in deals:
        assert len({(seed, dealer) for seed, dealer, _ in deal}) == 1  # ... each played 4 times
        for r, (_, _, seated) in enumerate(deal):
            assert [p.level for p in seated] == [levels[(s - r) % 4] for s in range(4)]
            for s, p in enumerate(seated):
                assert p.viewers <= {s}  # the player made for seat s is only asked for seat s
        for level in set(levels):
            seats = {s for _, _, seated in deal for s, p in enumerate(seated) if p.level == level}
            assert seats == {0, 1, 2, 3}


def test_duplicate_is_reproducible(capsys: pytest.CaptureFixture[str]) -> None:
    args = ["simulate", "--rules", "yichun", "--hands", "8", "--seed", "11", "--seats",
            "hard,normal,easy,normal", "--duplicate", "--json"]
    outs = []
    for _ in range(2):
        assert main(args) == 0
        data = json.loads(capsys.readouterr().out)
        del data["seconds"], data["hands_per_second"]
        outs.append(data)
    assert outs[0] == outs[1]
    assert outs[0]["duplicate"] == {"deals": 2, "plays_per_deal": 4, "interval_over": "deals"}
    assert [lv["name"] for lv in outs[0]["levels"]] == ["hard x1", "normal x2", "easy x1"]
    assert all(lv["deals"] == 2 and lv["hands"] == 8 for lv in outs[0]["levels"])
    assert outs[0]["seats"] == []  # a seat's player changes from play to play
    # the first deals do not depend on how many are played
    levels = ["hard", "normal", "easy", "normal"]
    short = simulate("yichun", 4, 11, levels=levels, duplicate=True, check=False)
    long = simulate("yichun", 8, 11, levels=levels, duplicate=True, check=False)
    assert short.seat_hand_net == [nets[:4] for nets in long.seat_hand_net]
    assert long.seat_net == outs[0]["seat_net"]


@pytest.mark.parametrize("rules", ["yichun", "shangrao", "gejiu"])
def test_duplicate_same_levels_play_identically(rules: str) -> None:
    """Identical players on an identical deal play identically: all four plays of a deal have
    the same actions and the same nets seat by seat, so every level's mean is exactly 0 with a
    zero-width interval."""
    from engine.table import Hand

    actions: list[list[tuple[int, Action]]] = []

    def on_hand(hand: Hand) -> None:
        actions.append(list(hand.actions))

    report = simulate(rules, 16, 3, levels=["normal"] * 4, duplicate=True, on_hand=on_hand)
    for d in range(4):
        plays = range(d * 4, d * 4 + 4)
        assert len({tuple(report.seat_hand_net[s][i] for s in range(4)) for i in plays}) == 1
        assert all(actions[i] == actions[d * 4] for i in plays)
    assert len({tuple(actions[d * 4]) for d in range(4)}) == 4  # the deals differ
    assert any(report.seat_hand_net[s][i] for s in range(4) for i in range(16))  # not all 0
    [st] = report.label_stats()
    assert (st.name, st.mean, st.ci95, st.deals, st.hands) == ("normal x4", 0.0, 0.0, 4, 16)


def _report(hard_nets: list[list[int]]) -> SimulationReport:
    """A duplicate report of hard against three normals, hard's net in play r of deal d being
    hard_nets[d][r] (it sits in seat r; seat (r + 1) % 4 pays it)."""
    rep = SimulationReport(rules="yichun", seed=0, labels=("hard", "normal", "normal", "normal"),
                           duplicate=True)
    for deal in hard_nets:
        for r, net in enumerate(deal):
            for s in range(4):
                rep.seat_hand_net[s].append(net if s == r else -net if s == (r + 1) % 4 else 0)
            rep.hands += 1
    return rep


def test_duplicate_interval_is_over_deals() -> None:
    """The interval comes from the spread of the DEALS' means: plays within a deal that vary
    but always average the same give a zero-width interval (over plays it would not be)."""
    rep = _report([[3, -3, 6, -6]] * 5)
    hard, normal = rep.label_stats()
    assert (hard.mean, hard.ci95, hard.deals) == (0.0, 0.0, 5)
    assert (normal.mean, normal.ci95) == (0.0, 0.0)
    # deal means 1, 2, 3, 6: sd over 4 deals, not over 16 plays
    rep = _report([[1, 1, 1, 1], [2, 0, 4, 2], [3, 3, 3, 3], [6, 6, 6, 6]])
    hard, normal = rep.label_stats()
    means = [1.0, 2.0, 3.0, 6.0]
    var = sum((m - 3.0) ** 2 for m in means) / 3
    assert hard.mean == pytest.approx(3.0) and hard.ci95 == pytest.approx(1.96 * (var / 4) ** 0.5)
    plays = [1, 1, 1, 1, 2, 0, 4, 2, 3, 3, 3, 3, 6, 6, 6, 6]
    var_plays = sum((x - 3.0) ** 2 for x in plays) / 15
    assert hard.ci95 != pytest.approx(1.96 * (var_plays / 16) ** 0.5)
    # the three normals lose what hard wins, spread over their 12 seat-plays
    assert normal.mean == pytest.approx(-1.0) and normal.ci95 == pytest.approx(hard.ci95 / 3)


def test_duplicate_interval_of_a_real_run() -> None:
    """Hard sits in seat r in play r of every deal: its sample per deal is the mean of those
    four nets, and the interval is over the six deals; the rates are per play it sat in."""
    from engine.table import Hand

    hands: list[Hand] = []
    report = simulate("gejiu", 24, 8, levels=["hard", "easy", "easy", "easy"], duplicate=True,
                      check=False, on_hand=hands.append)
    hard, easy = report.label_stats()
    means = [sum(report.seat_hand_net[r][d * 4 + r] for r in range(4)) / 4 for d in range(6)]
    mean = sum(means) / 6
    half = 1.96 * (sum((m - mean) ** 2 for m in means) / 5 / 6) ** 0.5
    assert hard.mean == pytest.approx(mean) and hard.ci95 == pytest.approx(half)
    assert len(set(means)) > 1
    nets = [report.seat_hand_net[i % 4][i] for i in range(24)]
    mean_plays = sum(nets) / 24
    half_plays = 1.96 * (sum((x - mean_plays) ** 2 for x in nets) / 23 / 24) ** 0.5
    assert hard.ci95 != pytest.approx(half_plays)
    assert easy.mean == pytest.approx(-mean / 3)
    wins = sum(1 for i, h in enumerate(hands) for w in h.wins if w.seat == i % 4)
    deal_ins = sum(1 for i, h in enumerate(hands) if any(w.from_seat == i % 4 for w in h.wins))
    assert wins > 0 and hard.win_rate == pytest.approx(wins / 24)
    assert hard.deal_in_rate == pytest.approx(deal_ins / 24)


def test_duplicate_needs_whole_deals(capsys: pytest.CaptureFixture[str]) -> None:
    with pytest.raises(ValueError, match="multiple of 4"):
        simulate("gejiu", 6, 1, levels=["easy"] * 4, duplicate=True)
    with pytest.raises(ValueError, match="needs levels"):
        simulate("gejiu", 4, 1, duplicate=True)
    assert main(["simulate", "--rules", "gejiu", "--hands", "6", "--seats",
                 "hard,easy,easy,easy", "--duplicate"]) == 2
    assert main(["simulate", "--rules", "gejiu", "--hands", "8", "--duplicate"]) == 2
    assert "--duplicate needs --seats" in capsys.readouterr().err


def test_duplicate_text(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["simulate", "--rules", "shangrao", "--hands", "8", "--seed", "2", "--seats",
                 "normal,easy,easy,easy", "--duplicate"]) == 0
    out = capsys.readouterr().out
    assert "8 hands, duplicate: 2 deals × 4 plays" in out
    assert "95% interval over the 2 deals" in out
    assert "normal x1" in out and "easy x3" in out and "E normal" not in out


def test_duplicate_keeps_the_checks(monkeypatch: pytest.MonkeyPatch) -> None:
    """The per-action invariant checks run in every play (unless ``check=False``, --fast); a
    violation names the play and its rotation."""
    from engine.table import Hand, InvariantError

    calls = []

    def broken(self: Hand) -> None:
        calls.append(self.seed)
        if len(calls) == 300:
            raise InvariantError("a tile went missing")

    monkeypatch.setattr(Hand, "check_invariants", broken)
    report = simulate("gejiu", 8, 17, levels=["easy", "hard", "easy", "easy"], duplicate=True,
                      check=False)
    assert report.hands == 8 and not calls
    with pytest.raises(SimulationViolation) as err:
        simulate("gejiu", 8, 17, levels=["easy", "hard", "easy", "easy"], duplicate=True)
    exc = err.value
    assert exc.problem == "a tile went missing" and exc.rotation is not None
    assert exc.hand_no > 1 and f"rotation {exc.rotation})" in str(exc)
    assert len(set(calls)) == (exc.hand_no - 1) // 4 + 1  # one deal seed per deal


@pytest.mark.parametrize("argv,field", [
    (["simulate", "--rules", "gejiu", "--hands", "-5"], "--hands"),
    (["simulate", "--rules", "gejiu", "--hands", "0"], "--hands"),
    (["record", "--rules", "gejiu", "--hands", "0"], "--hands"),
    (["serve", "--port", "99999"], "--port"),
    (["serve", "--grace", "-1"], "--grace"),
    (["serve", "--bot-delay", "nan"], "--bot-delay"),
    (["serve", "--max-per-address", "0"], "--max-per-address"),
])
def test_out_of_range_arguments_are_refused_by_name(
        argv: list[str], field: str, capsys: pytest.CaptureFixture[str]) -> None:
    with pytest.raises(SystemExit) as exc:
        main(argv)
    assert exc.value.code == 2
    err = capsys.readouterr().err
    assert f"argument {field}" in err and "Traceback" not in err


def test_record_with_an_option_of_another_ruleset_says_so(
        capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["record", "--rules", "gejiu", "--option", "max_lighters=2"]) == 2
    assert "no option 'max_lighters'" in capsys.readouterr().err


def test_jobs_give_the_same_report_and_records(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """``--jobs 3`` cuts the 6 deals into 6 one-deal chunks played in 3 processes; merged in
    order they make the one-process report and record, byte for byte."""
    out = []
    for jobs in ("1", "3"):
        path = tmp_path / f"jobs{jobs}.jsonl"
        assert main(["simulate", "--rules", "yichun", "--hands", "24", "--seed", "9", "--seats",
                     "hard,normal,easy,normal", "--duplicate", "--json", "--jobs", jobs,
                     "--record", str(path)]) == 0
        data = json.loads(capsys.readouterr().out)
        del data["seconds"], data["hands_per_second"]
        out.append((data, path.read_bytes()))
    assert out[0] == out[1]
    assert out[0][0]["hands"] == 24 and out[0][1].count(b"\n") > 24


def test_chunks_of_games_merge_into_the_run(monkeypatch: pytest.MonkeyPatch) -> None:
    import random

    import engine.simulate as sim

    monkeypatch.setattr(sim, "GAME_LENGTH", 3)
    chunks = sim.plan("gejiu", 8, 4, check=False)
    draw = random.Random(4)
    assert [(c.first, c.hands, c.seeds) for c in chunks] == [
        (0, 3, (4,)), (3, 3, (draw.getrandbits(63),)), (6, 2, (draw.getrandbits(63),))]
    parts = [sim.play_chunk(c) for c in chunks]
    whole = parts[0]
    for part in parts[1:]:
        whole.merge(part)
    assert whole.to_json() == simulate("gejiu", 8, 4, check=False).to_json()
    assert whole.seat_hand_net[0][3:6] == parts[1].seat_hand_net[0]
    empty = simulate("gejiu", 0, 4, levels=["easy"] * 4, duplicate=True, check=False)
    assert (empty.hands, empty.deals, empty.duplicate) == (0, 0, True)
    with pytest.raises(ValueError, match="not of one run"):
        whole.merge(sim.play_chunk(sim.plan("yichun", 1, 4, check=False)[0]))


def test_a_violation_crosses_a_process_boundary_whole() -> None:
    import pickle

    exc = SimulationViolation(7, 6, 123, 45, "a tile went missing", 1)
    back = pickle.loads(pickle.dumps(exc))
    assert (back.seed, back.hand_no, back.hand_seed, back.action_index, back.problem,
            back.rotation) == (7, 6, 123, 45, "a tile went missing", 1)
    assert str(back) == str(exc)
