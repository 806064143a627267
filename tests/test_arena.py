"""``mahjong-ssh arena``: programs over the bot protocol against the computer levels."""

from __future__ import annotations

import json
import shutil
import sys
import textwrap
from pathlib import Path

import pytest

from cli.main import main

ROOT = Path(__file__).resolve().parent.parent

# a bot in Python: wins when it may, else the first legal action (a discard or a pass)
GOOD_BOT = textwrap.dedent("""
    import json, sys
    seen = set()
    for line in sys.stdin:
        msg = json.loads(line)
        seen.add(msg["type"])
        if msg["type"] == "hello":
            print(json.dumps({"command": "start"}), flush=True)  # a server's: dropped here
        if msg["type"] == "request":
            legal = msg["legal"]
            win = [x for x in legal if x["action"]["a"] == "win"]
            pick = (win or legal)[0]
            # answer by the action's text half the time, by id the other half
            if msg["request"] % 2:
                print(json.dumps({"request": msg["request"], "action": pick["text"]}))
            else:
                print(json.dumps({"request": msg["request"], "choice": pick["id"]}))
            sys.stdout.flush()
    assert {"hello", "game_start", "hand_start", "deal", "hand_end", "game_end"} <= seen, seen
""")

# answers garbage, then illegal actions, then nothing at all for one request, then well
BAD_BOT = textwrap.dedent("""
    import json, sys
    n = 0
    for line in sys.stdin:
        msg = json.loads(line)
        if msg["type"] != "request":
            continue
        n += 1
        r = msg["request"]
        if n == 1:
            print("this is not json")
        elif n == 2:
            print("x" * 100000)
        elif n == 3:
            print(json.dumps({"request": r, "action": "peng 9s"}))
        elif n == 4:
            print(json.dumps({"request": r, "choice": 12345}))
        elif n == 5:
            pass  # no answer: the timeout plays
        else:
            print(json.dumps({"request": r, "choice": 0}))
        sys.stdout.flush()
""")

DYING_BOT = textwrap.dedent("""
    import json, sys
    n = 0
    for line in sys.stdin:
        msg = json.loads(line)
        if msg["type"] == "request":
            n += 1
            if n == 3:
                sys.exit(3)
            print(json.dumps({"request": msg["request"], "choice": 0}), flush=True)
""")


# answers every request twice, and one late (after its time-out): the spare answers are stale
TWICE_BOT = textwrap.dedent("""
    import json, sys, time
    n = 0
    told = []
    for line in sys.stdin:
        msg = json.loads(line)
        if msg["type"] == "error":
            told.append(msg["code"])
        if msg["type"] != "request":
            continue
        n += 1
        answer = json.dumps({"request": msg["request"], "choice": 0})
        if n == 3:
            time.sleep(1.0)
            print(answer, flush=True)
        else:
            print(answer + "\\n" + answer, flush=True)
    with open(sys.argv[1], "w") as f:
        json.dump(told, f)
""")


def _bot(tmp_path: Path, name: str, source: str) -> str:
    path = tmp_path / f"{name}.py"
    path.write_text(source)
    return f"{sys.executable} {path}"


def _arena(capsys: pytest.CaptureFixture[str], *args: str) -> tuple[int, dict, str]:
    code = main(["arena", *args, "--json"])
    out = capsys.readouterr()
    return code, json.loads(out.out), out.err


def test_python_bots_play_a_duplicate_match(tmp_path: Path,
                                            capsys: pytest.CaptureFixture[str]) -> None:
    good = _bot(tmp_path, "good", GOOD_BOT)
    code, data, err = _arena(capsys, "--rules", "yichun", "--seat", good, "--seat", good,
                             "--deals", "2", "--duplicate", "--seed", "5")
    assert code == 0, err
    assert data["duplicate"]["deals"] == 2 and data["hands"] == 8
    names = [level["name"] for level in data["levels"]]
    assert names == ["prog1 x1", "prog2 x1", "normal x2"]
    for prog in data["programs"]:
        assert prog["decisions"] > 0 and prog["answered"] == prog["decisions"]
        assert prog["exited"] is None and prog["timeouts"] == 0 and prog["refused"] == 0
        assert prog["commands"] == 1 and prog["stale"] == 0
    # the same seed plays the same match
    again = _arena(capsys, "--rules", "yichun", "--seat", good, "--seat", good,
                   "--deals", "2", "--duplicate", "--seed", "5")[1]
    assert again["levels"] == data["levels"] and again["seat_net"] == data["seat_net"]


def test_bad_answers_are_played_by_the_timer(tmp_path: Path,
                                             capsys: pytest.CaptureFixture[str]) -> None:
    bad = _bot(tmp_path, "bad", BAD_BOT)
    code, data, err = _arena(capsys, "--rules", "shangrao", "--seat", bad, "--deals", "1",
                             "--timeout", "0.5", "--seed", "3")
    assert code == 0, err
    prog = data["programs"][0]
    assert prog["refused"] == 4 and prog["timeouts"] == 1, prog
    assert prog["answered"] == prog["decisions"] - 5
    for code_name in ("not_json", "too_long", "illegal", "unknown_id"):
        assert code_name in err
    assert "no answer to request 5 within 0.5 s" in err


def test_stale_answers_are_told_and_counted_apart(tmp_path: Path,
                                                 capsys: pytest.CaptureFixture[str]) -> None:
    """Issue 54, bug 6: an answer to an earlier request (a second answer, or one after its
    time-out) was dropped silently, the program never told: it is logged on stderr, told
    (``error``, ``stale``) and counted as stale, apart from the time-outs."""
    told = tmp_path / "told.json"
    bot = _bot(tmp_path, "twice", TWICE_BOT) + f" {told}"
    code, data, err = _arena(capsys, "--rules", "gejiu", "--seat", bot, "--deals", "1",
                             "--timeout", "0.5", "--seed", "3")
    assert code == 0, err
    prog = data["programs"][0]
    assert prog["timeouts"] == 1 and prog["refused"] == 0, prog
    assert prog["stale"] >= prog["decisions"] - 2 and prog["answered"] == prog["decisions"] - 1
    assert err.count(": stale: ") == prog["stale"]
    assert json.loads(told.read_text()) == ["stale"] * prog["stale"]


def test_a_program_that_exits_is_reported(tmp_path: Path,
                                          capsys: pytest.CaptureFixture[str]) -> None:
    dying = _bot(tmp_path, "dying", DYING_BOT)
    code, data, err = _arena(capsys, "--rules", "gejiu", "--seat", dying, "--deals", "1",
                             "--seed", "2")
    assert code == 1
    prog = data["programs"][0]
    assert prog["exited"] and "exit status 3" in prog["exited"], prog
    assert "played by the timer's action" in err
    assert data["hands"] == 1  # the match was played to its end


def test_a_command_that_cannot_start(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["arena", "--rules", "gejiu", "--seat", "/no/such/program"]) == 2
    assert "cannot start" in capsys.readouterr().err
    assert main(["arena", "--rules", "gejiu"]) == 2
    assert "--seat" in capsys.readouterr().err


@pytest.mark.skipif(shutil.which("node") is None,
                    reason="node (Node.js) is not installed: the example bot is a Node script")
def test_the_example_bot_plays_against_normal(capsys: pytest.CaptureFixture[str]) -> None:
    bot = f"node {ROOT / 'examples' / 'simple-bot.js'}"
    code = main(["arena", "--rules", "gejiu", "--seat", bot, "--deals", "2", "--duplicate",
                 "--seed", "11"])
    out = capsys.readouterr()
    assert code == 0, out.err
    assert "prog1 x1" in out.out and "normal x3" in out.out
    assert "refused answers 0" in out.out and "timeouts 0" in out.out
    assert "points per hand (95% interval over the 2 deals" in out.out
