"""``mahjong-ssh arena``: programs over the bot protocol against the computer levels."""

from __future__ import annotations

import json
import shutil
import sys
import textwrap
from pathlib import Path
from typing import Any

import pytest

from cli.main import main
from engine.actions import Action
from engine.botproto import ANSWER_ERRORS

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


# --- issue 54, what bot authors expect: --strict, per-code counts, mixed levels, records and
# bot-check ---------------------------------------------------------------------------------

SILENT_BOT = textwrap.dedent("""
    import sys
    for line in sys.stdin:
        pass
""")

# the last legal action every time: a deterministic bot that plays otherwise than GOOD_BOT
LAST_BOT = textwrap.dedent("""
    import json, sys
    for line in sys.stdin:
        msg = json.loads(line)
        if msg["type"] == "request":
            print(json.dumps({"request": msg["request"], "choice": len(msg["legal"]) - 1}),
                  flush=True)
""")


def test_refused_lines_are_counted_by_code(tmp_path: Path,
                                          capsys: pytest.CaptureFixture[str]) -> None:
    """Every refused line counted by its code in --json (the document's error table), zeros
    included; an unknown command is refused as ``bad_command`` and costs no decision."""
    bad = _bot(tmp_path, "bad", BAD_BOT)
    code, data, err = _arena(capsys, "--rules", "shangrao", "--seat", bad, "--deals", "1",
                             "--timeout", "0.5", "--seed", "3")
    assert code == 0, err
    errors = data["programs"][0]["errors"]
    assert set(errors) == set(ANSWER_ERRORS)
    assert {k: v for k, v in errors.items() if v} == {"too_long": 1, "not_json": 1,
                                                      "unknown_id": 1, "illegal": 1}
    assert data["stopped"] is None
    unknown = _bot(tmp_path, "unknown", GOOD_BOT.replace('{"command": "start"}',
                                                         '{"command": "begin"}'))
    code, data, err = _arena(capsys, "--rules", "gejiu", "--seat", unknown, "--deals", "1")
    prog = data["programs"][0]
    assert code == 0 and prog["errors"]["bad_command"] == 1 and prog["commands"] == 0, prog
    assert prog["answered"] == prog["decisions"] and "bad_command" in err


def test_strict_stops_at_the_first_refusal_or_time_out(
        tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """``arena --strict``: the match stops at a program's first refused line or time-out,
    exit status 1, saying where in --json (and on the screen)."""
    bad = _bot(tmp_path, "bad", BAD_BOT)
    code, data, err = _arena(capsys, "--rules", "shangrao", "--seat", bad, "--deals", "3",
                             "--seed", "3", "--strict")
    assert code == 1
    assert data["stopped"] == {
        "program": "prog1", "command": bad, "play": 1, "hand": 1, "request": 1,
        "code": "not_json", "message": data["stopped"]["message"]}
    assert data["hands"] == 0
    prog = data["programs"][0]
    assert prog["decisions"] == 1 and prog["refused"] == 1 and prog["errors"]["not_json"] == 1
    assert "the match stops (--strict)" in err
    silent = _bot(tmp_path, "silent", SILENT_BOT)
    code, data, err = _arena(capsys, "--rules", "gejiu", "--seat", silent, "--deals", "2",
                             "--timeout", "0.2", "--strict")
    assert code == 1 and data["stopped"]["code"] == "timeout", data
    assert data["programs"][0]["timeouts"] == 1
    assert main(["arena", "--rules", "gejiu", "--seat", silent, "--timeout", "0.2",
                 "--strict"]) == 1
    out = capsys.readouterr().out
    assert "stopped (--strict)" in out and "timeout" in out
    # a program that makes no mistake plays the whole match
    good = _bot(tmp_path, "good", GOOD_BOT)
    code, data, err = _arena(capsys, "--rules", "gejiu", "--seat", good, "--deals", "2",
                             "--strict")
    assert code == 0 and data["stopped"] is None and data["hands"] == 2, err
    assert sum(data["programs"][0]["errors"].values()) == 0


def test_mixed_levels(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """``--bots hard,easy,normal``: a level for each seat after the programs', as ``bot join``
    takes them."""
    good = _bot(tmp_path, "good", GOOD_BOT)
    code, data, err = _arena(capsys, "--rules", "gejiu", "--seat", good, "--deals", "1",
                             "--bots", "hard,easy,normal")
    assert code == 0, err
    assert [s["name"] for s in data["seats"]] == ["E prog1", "S hard", "W easy", "N normal"]
    code, data, err = _arena(capsys, "--rules", "gejiu", "--seat", good, "--seat", good,
                             "--deals", "1", "--duplicate", "--bots", "Easy, hard")
    assert code == 0, err
    assert [lv["name"] for lv in data["levels"]] == ["prog1 x1", "prog2 x1", "easy x1",
                                                     "hard x1"]
    assert main(["arena", "--rules", "gejiu", "--seat", good, "--bots", "hard,easy"]) == 2
    assert "one for each of the 3 seats" in capsys.readouterr().err
    with pytest.raises(SystemExit):
        main(["arena", "--rules", "gejiu", "--seat", good, "--bots", "hard,wizard,easy"])
    assert "unknown level 'wizard'" in capsys.readouterr().err


def _action_lines(record: Path) -> list[dict[str, Any]]:
    hand = 0
    out = []
    for line in record.read_text().splitlines():
        obj = json.loads(line)
        hand = obj["hand_no"] if obj["type"] == "hand" else hand
        if obj["type"] == "action":
            out.append({**obj, "hand_no": hand})
    return out


def test_arena_records_replay_review_and_bot_check(tmp_path: Path,
                                                   capsys: pytest.CaptureFixture[str]) -> None:
    """``arena --records DIR``: each game a record that replay, the viewer's reader and review
    take as a server's; ``bot-check`` feeds one back to a program: a deterministic bot agrees
    with its own record, another differs at moves it names, protocol errors exit 1."""
    from cli.records import read_record

    good = _bot(tmp_path, "good", GOOD_BOT)
    folder = tmp_path / "records"
    code, data, err = _arena(capsys, "--rules", "yichun", "--seat", good, "--deals", "1",
                             "--duplicate", "--bots", "normal,easy,hard", "--records",
                             str(folder))
    assert code == 0, err
    assert data["records"] == {"folder": str(folder), "files": 4}
    files = sorted(folder.iterdir())
    assert [f.name for f in files] == [f"deal-001-play-{r}.jsonl" for r in (1, 2, 3, 4)]
    for r, f in enumerate(files):
        game = json.loads(f.read_text().splitlines()[0])
        seat = r  # play r seats the players rotated r times: the program sits at seat r
        assert game["levels"][seat] == "prog1" and game["names"][seat] == "prog1"
        assert sorted(game["names"]) == ["", "", "", "prog1"]
        assert main(["replay", str(f), "--quiet"]) == 0
        assert "check: final state and settlement match the record" in capsys.readouterr().out
        assert len(read_record(str(f)).hands) == 1  # what replay --view and review read
    record = files[1]
    assert main(["review", str(record), "--seat", "prog1", "--text", "--samples", "2",
                 "--quiet"]) == 0
    assert capsys.readouterr().out
    # a normal match: one file, the whole game
    code, data, err = _arena(capsys, "--rules", "gejiu", "--seat", good, "--deals", "2",
                             "--records", str(tmp_path / "game"))
    game_file = tmp_path / "game" / "game-001.jsonl"
    assert code == 0 and main(["replay", str(game_file), "--quiet"]) == 0
    assert capsys.readouterr().out.count("check: final state and settlement match") == 2

    # bot-check: the same bot agrees with its own play everywhere
    assert main(["bot-check", str(record), "--seat", "prog1", "--exact", "--json", "--",
                 *good.split()]) == 0
    same = json.loads(capsys.readouterr().out)
    mine = [a for a in _action_lines(record) if a["seat"] == "S"]
    assert same["seat"] == "S" and same["decisions"] == same["agreed"] == len(mine) > 0
    assert same["differed"] == [] and same["timeouts"] == same["refused"] == 0
    assert same["commands"] == 1  # the bot's start command, ignored as in the arena
    # another bot differs, at moves the record names; exit 0 unless --exact
    last = _bot(tmp_path, "last", LAST_BOT)
    assert main(["bot-check", str(record), "--seat", "S", "--json", "--", *last.split()]) == 0
    other = json.loads(capsys.readouterr().out)
    assert other["differed"] and other["agreed"] + len(other["differed"]) == len(mine)
    for d in other["differed"]:
        move = next(a for a in mine if a["i"] == d["move"] and a["hand_no"] == d["hand"])
        assert d["played"] == str(Action.from_json(move)) != d["answered"]
    assert main(["bot-check", str(record), "--seat", "S", "--exact", *last.split()]) == 1
    out = capsys.readouterr().out
    first = other["differed"][0]
    assert f"hand {first['hand']}, move {first['move']}: played {first['played']}" in out
    # protocol errors: exit 1, counted by code; the record's move is what is played
    bad = _bot(tmp_path, "bad", BAD_BOT)
    assert main(["bot-check", str(record), "--seat", "S", "--timeout", "0.3", "--json", "--",
                 *bad.split()]) == 1
    checked = json.loads(capsys.readouterr().out)
    assert checked["refused"] == 4 and checked["timeouts"] == 1
    assert checked["errors"]["not_json"] == 1 and checked["errors"]["illegal"] == 1
    # any record will do: a golden one, seat by letter
    golden = ROOT / "tests" / "golden" / "gejiu.jsonl"
    assert main(["bot-check", str(golden), "--seat", "W", "--", *good.split()]) == 0
    assert "differed" in capsys.readouterr().out
    assert main(["bot-check", str(tmp_path / "none.jsonl"), "--seat", "E", "--",
                 *good.split()]) == 2
    assert main(["bot-check", str(record), "--seat", "Q", "--", *good.split()]) == 2


# says who it is, asks both helpers before each answer and checks what it is told
HELPED_BOT = textwrap.dedent("""
    import json, sys
    told = {"welcome": 0, "waits": 0, "value": 0}
    for line in sys.stdin:
        msg = json.loads(line)
        if msg["type"] == "hello":
            print(json.dumps({"hello": {"name": "helped\\x1b[2J", "version": "0.1",
                                        "features": ["waits", "value", "more"]}}), flush=True)
        elif msg["type"] in told:
            told[msg["type"]] += 1
            if msg["type"] == "welcome":
                assert msg["name"] == "helped" and msg["features"] == ["waits", "value"], msg
            else:
                assert msg["request"] == pending["request"], (msg, pending)
                if msg["type"] == "value":  # the answer comes after both helpers
                    print(json.dumps({"request": pending["request"], "choice": 0}), flush=True)
        elif msg["type"] == "discard":
            assert isinstance(msg["tsumogiri"], bool), msg
        elif msg["type"] == "request":
            pending = msg
            print(json.dumps({"command": "waits"}), flush=True)
            print(json.dumps({"command": "value"}), flush=True)
    assert told["welcome"] == 1 and told["waits"] == told["value"] > 0, told
""")


def test_handshake_helpers_and_tsumogiri_in_the_arena(tmp_path: Path,
                                                      capsys: pytest.CaptureFixture[str]) -> None:
    """Issue 54, what bot authors expect: the program's handshake is cleaned and answered
    (``welcome``) and shown in the summary; its helpers are answered while its request waits
    and cost no decision; discards say ``tsumogiri``."""
    helped = _bot(tmp_path, "helped", HELPED_BOT)
    code, data, err = _arena(capsys, "--rules", "gejiu", "--seat", helped, "--deals", "2",
                             "--seed", "3")
    assert code == 0, err
    (prog,) = data["programs"]
    assert prog["hello"] == {"name": "helped", "version": "0.1", "features": ["waits", "value"]}
    assert prog["helpers"] == 2 * prog["decisions"] > 0
    assert prog["answered"] == prog["decisions"] and prog["timeouts"] == 0, prog
    assert not any(prog["errors"].values()), prog["errors"]
    assert main(["arena", "--rules", "gejiu", "--seat", helped, "--deals", "1"]) == 0
    assert "prog1 [bot: helped 0.1]:" in capsys.readouterr().out
