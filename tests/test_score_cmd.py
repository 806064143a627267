"""The ``score`` sub-command glue (``cli/score.py``): single input, text and JSON output,
exit statuses, and a hand that does not win."""

from __future__ import annotations

import json
import sys
from pathlib import Path

import pytest

from tests.support.scoring import run

G01 = {"rules": "gejiu", "wins": [{"seat": "S", "hand": "123m 456p 789s EEE 5m", "tile": "5m",
                                   "how": "discard", "from": "W"}]}


def test_readable_table_in_both_languages(monkeypatch: pytest.MonkeyPatch) -> None:
    code, out, _ = run([], json.dumps(G01), monkeypatch)
    assert code == 0
    assert "平胡" in out and "Basic hand" in out and "Gejiu" in out and "个旧" in out
    assert "S +5" in out
    code, out_zh, _ = run(["--lang", "zh"], json.dumps(G01), monkeypatch)
    assert code == 0 and out_zh.index("个旧") < out_zh.index("Gejiu")


def test_json_output(tmp_path: Path) -> None:
    f = tmp_path / "g01.json"
    f.write_text(json.dumps(G01), encoding="utf-8")
    code, out, _ = run(["--file", str(f), "--json"])
    result = json.loads(out)
    assert code == 0
    assert result["net"] == {"E": -2, "S": 5, "W": -2, "N": -1}
    assert result["next_dealer"] == "S"
    assert {
        k: v for k, v in result["transfers"][1].items() if k != "why"
    } == {"from": "W", "to": "S", "amount": 2}
    assert result["wins"][0]["pattern"] == {"zh": "平胡", "en": "Basic hand"}


def test_a_hand_that_does_not_win_says_so(monkeypatch: pytest.MonkeyPatch) -> None:
    bad = json.loads(json.dumps(G01))
    bad["wins"][0]["tile"] = "6m"
    code, out, _ = run([], json.dumps(bad), monkeypatch)
    assert code == 1
    assert "does not win" in out and "6m" in out
    code, out, _ = run(["--json"], json.dumps(bad), monkeypatch)
    assert code == 1 and json.loads(out)["win"] is False


def test_malformed_input_exits_non_zero(monkeypatch: pytest.MonkeyPatch) -> None:
    code, out, err = run([], "{not json", monkeypatch)
    assert code == 2 and out == "" and "not JSON" in err
    code, _, err = run([], json.dumps({"rules": "gejiu", "dealer": "Q"}), monkeypatch)
    assert code == 2 and "dealer" in err


def test_batch_text_lines_and_errors(tmp_path: Path) -> None:
    f = tmp_path / "batch.jsonl"
    f.write_text("\n".join([json.dumps(G01), "", json.dumps({"rules": "x"})]) + "\n",
                 encoding="utf-8")
    code, out, _ = run(["--batch", str(f)])
    lines = out.splitlines()
    assert code == 0 and len(lines) == 3
    assert "S +5" in lines[0]
    assert "error" in json.loads(lines[1]) and "rules" in json.loads(lines[2])["error"]


@pytest.mark.parametrize("rules,how,extra", [
    ("yichun", "discard", {}),
    ("shangrao", "rob_kong", {"wild": "9m", "kongs": {"N": ["bgang 4444p"]}}),
])
def test_several_winners_are_settled_in_play_order_after_the_source(
        rules: str, how: str, extra: dict[str, object], monkeypatch: pytest.MonkeyPatch) -> None:
    """yichun.md §10: "for each winner w (in play order after the discarder / konger)": the
    wins and their transfers come in that order whatever the order of the input."""
    source = "N"
    wins = [{"seat": seat, "hand": hand, "tile": "4p", "how": how, "from": source}
            for seat, hand in (("S", "123m 567p 789s 11s 56p"), ("E", "123m 567p 789s 11s 23p"),
                               ("W", "123m 789p 789s 22s 35p"))]
    situation = {"rules": rules, "dealer": "E", "wins": wins, **extra}
    code, out, _ = run(["--json"], json.dumps(situation), monkeypatch)
    assert code == 0, out
    result = json.loads(out)
    assert [w["seat"] for w in result["wins"]] == ["E", "S", "W"]  # N's 下家 first
    assert [t["to"] for t in result["transfers"] if t["from"] == source][:3] == ["E", "S", "W"]


@pytest.mark.parametrize("rules", [["yichun"], {"a": 1}, 3, None])
def test_a_rules_field_of_the_wrong_type_is_malformed_input(
        rules: object, monkeypatch: pytest.MonkeyPatch) -> None:
    code, _, err = run([], json.dumps({"rules": rules, "wins": []}), monkeypatch)
    assert code == 2 and "rules" in err


def test_mutated_situations_get_a_message_never_a_crash() -> None:
    """Every field of the spec's vectors replaced at random (wrong types, wrong tiles, absurd
    numbers): each input settles or is refused with a ValueError naming the problem."""
    import copy
    import random

    from engine.calculator import score_json
    from engine.rulesets import OptionError

    path = Path(__file__).parent / "data" / "vectors.jsonl"
    base = [{k: v for k, v in json.loads(line).items() if k != "id" and
             not k.startswith("expect")} for line in path.read_text().splitlines() if line]
    values: list[object] = [None, 0, -1, 7, 10**30, 1.5, True, "", "x", "E", "Q", "5m", "0m",
                            [], [1], ["E"], ["peng 111m"], {}, {"E": 1}, {"a": []}, [["1m"]],
                            "chi 135m", "agang EEEE", "void", "unlimited", "discard"]
    rng = random.Random(7)

    def mutate(obj: object, depth: int = 0) -> None:
        if isinstance(obj, dict) and obj:
            key: object = rng.choice(list(obj))
        elif isinstance(obj, list) and obj:
            key = rng.randrange(len(obj))
        else:
            return
        inner = obj[key]  # type: ignore[index]
        if isinstance(inner, (dict, list)) and depth < 3 and rng.random() < 0.5:
            mutate(inner, depth + 1)
        else:
            obj[key] = copy.deepcopy(rng.choice(values))  # type: ignore[index]

    for _ in range(3000):
        obj = copy.deepcopy(rng.choice(base))
        for _ in range(rng.randint(1, 3)):
            mutate(obj)
        try:
            score_json(obj)
        except (ValueError, OptionError) as exc:
            assert str(exc)


@pytest.mark.parametrize("argv", [
    ["play", "--bots", "easy,hard"],  # two levels: neither one nor three
    ["play", "--bots", "easy,hard,normal,hard"],
    ["play", "--bots", "genius"],
    ["play", "--theme", "nonsense"],
])
def test_play_refuses_bad_levels_and_themes_by_name(
        argv: list[str], capsys: pytest.CaptureFixture[str]) -> None:
    """``play`` checks its computer levels and theme before it starts: a message on stderr
    naming the argument (no Python error text, nothing saved to the settings)."""
    from cli.main import build_parser

    with pytest.raises(SystemExit) as exit_info:
        build_parser().parse_args(argv)
    assert exit_info.value.code == 2
    err = capsys.readouterr().err
    assert ("--bots" in err or "--theme" in err) and "zip()" not in err


def test_a_batch_whose_reader_stops_early_ends_quietly(tmp_path: Path) -> None:
    """``score --batch F | head -1``: the closed output is not reported as a bad input file
    and no traceback is printed."""
    import subprocess

    lines = []
    for line in (Path(__file__).parent / "data" / "vectors.jsonl").read_text().splitlines():
        case = json.loads(line)
        lines.append(json.dumps({k: v for k, v in case.items()
                                 if k != "id" and not k.startswith("expect")}))
    batch = tmp_path / "batch.jsonl"
    batch.write_text("\n".join(lines * 20) + "\n", encoding="utf-8")
    proc = subprocess.Popen([sys.executable, "-m", "cli.main", "score", "--batch", str(batch),
                             "--json"], stdout=subprocess.PIPE, stderr=subprocess.PIPE)
    assert proc.stdout is not None and proc.stderr is not None
    assert proc.stdout.readline().startswith(b"{")
    proc.stdout.close()  # as head does after its line
    err = proc.stderr.read().decode()
    proc.wait(timeout=60)
    assert "cannot read" not in err and "Traceback" not in err, err


def test_help_names_pages_that_exist_in_plain_text(capsys: pytest.CaptureFixture[str],
                                                   monkeypatch: pytest.MonkeyPatch) -> None:
    """``score --help`` (issue 53, bug 5): no literal backticks, every page it names exists,
    and its example settles."""
    import re

    from cli.main import main

    with pytest.raises(SystemExit):
        main(["score", "--help"])
    text = capsys.readouterr().out
    assert "`" not in text and "rules/README" not in text
    root = Path(__file__).resolve().parent.parent
    named = re.findall(r"docs/[\w/.-]+\.md", text)
    assert "docs/score.md" in named and all((root / page).is_file() for page in named), named
    for page in ("shangrao.en.md", "gejiu.en.md"):
        assert (root / "docs" / "rules" / page).is_file() and page in text
    example = text.split("echo '", 1)[1].split("' |", 1)[0]
    code, out, _ = run([], example, monkeypatch)
    assert code == 0 and "S +5" in out
