"""``docs/bot-protocol.md`` says what the code does (issue 54, "The document").

A bot's author writes from the document alone, so each of its examples is checked here, as the
rules pages' are (tests/test_rules_docs.py):

- every JSON line of its examples is compared with the lines of that type the protocol sends
  over played games of each ruleset (no field the code lacks, none it always sends left out
  unless the example elides with ``"…"``, each value of a type and, for the names, of a value
  the code sends); ``hello`` is a real server's, exactly;
- the example request's actions, texts and ``default`` agree, and each example answer decodes,
  by the table's own parser, to the same action;
- the tables of events, error codes and limits name what the code sends and the defaults it has;
- the ``arena`` examples run (the Node one where ``node`` is installed), and the ``bot join``
  command lines of the ``ssh`` examples parse.
"""

from __future__ import annotations

import json
import re
import shlex
import shutil
from collections import defaultdict
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from cli.main import main
from engine.actions import Action, ActionType
from engine.botproto import (
    ANSWER_ERRORS,
    COMMANDS,
    HELPERS,
    MELD_NAMES,
    AnswerError,
    BotSeat,
    Request,
    command_of,
    handshake_of,
    welcome,
)
from engine.bots import make_player
from engine.game import Game
from engine.rulesets import RULESETS, find_ruleset
from engine.table import Phase
from engine.tiles import parse_tile
from engine.view import build_view
from host.table_info import SeatInfo, TableInfo, TableState
from net.commands import parse_command
from net.front.plain_session import table_line
from net.front.server import MahjongServer
from net.limits import Limits
from net.runtime.config import TableConfig
from testkit.ssh import BotClient, new_key

ROOT = Path(__file__).resolve().parent.parent
DOC = (ROOT / "docs" / "bot-protocol.md").read_text(encoding="utf-8")
FENCE = re.compile(r"^ *```(\w*)\n(.*?)^ *```$", re.M | re.S)
ELIDED = "…"
# names whose values the document lists: an example's must be one the code sends
NAMED = {"type", "phase", "how", "a", "code", "why", "state"}
ELSEWHERE = {"hello", "cancel", "played_for_you", "error", "resync", "welcome"}  # made apart


def blocks(kind: str) -> list[str]:
    return [body for lang, body in FENCE.findall(DOC) if lang == kind]


def json_examples() -> list[dict[str, Any]]:
    """Every JSON object of the document's ``json`` blocks (one may span lines)."""
    decoder = json.JSONDecoder()
    out = []
    for body in blocks("json"):
        text = body.strip()
        while text:
            obj, end = decoder.raw_decode(text)
            out.append(obj)
            text = text[end:].strip()
    return out


def examples_of(kind: str) -> list[dict[str, Any]]:
    return [e for e in json_examples() if e.get("type") == kind]


# --- what the code sends ------------------------------------------------------------------
def _played_lines(rules: str, seed: int, hands: int) -> Iterator[dict[str, Any]]:
    """Every seat's lines over a game of computer players, a session joining mid-hand
    (``resync``) and the lines a request ends with (cancel, played_for_you, error)."""
    game = Game(rules, seed, {"hands_per_game": hands})
    seats = [BotSeat() for _ in range(4)]
    players = [make_player("normal") for _ in range(4)]
    for s in range(4):
        yield seats[s].game_start(s, rules, hands)
    for _ in range(hands):
        hand = game.new_hand()
        moves = 0
        while True:
            for s in range(4):
                yield from seats[s].update(build_view(hand, s), 9.5)
            if moves == 20:  # a session comes in mid-hand
                late = BotSeat()
                late.joined(hands)
                yield from late.update(build_view(hand, 1), 9.5)
            if hand.is_over:
                break
            seat = hand.to_act()[0]
            view = build_view(hand, seat)
            action = players[seat].choose(view)
            pending = seats[seat].pending
            assert pending is not None
            # the helpers a program may ask meanwhile (a win's value where it may win)
            yield seats[seat].helper({"command": "waits"})
            if action.type is ActionType.WIN or moves % 11 == 5:
                yield seats[seat].helper({"command": "value"})
            if moves % 7 == 3:  # refused, or timed out: the table plays the default
                with pytest.raises(AnswerError) as refused:
                    seats[seat].decode("not json")
                yield BotSeat.error_event(pending.number, refused.value)
                yield BotSeat.timeout_event(pending.number, pending.default, "refused")
                action = pending.default
            seats[seat].answered()
            game.apply(seat, action)
            moves += 1
    for s in range(4):
        yield BotSeat.game_end(game.scores)
        yield {"type": "cancel", "request": seats[s].request_no}


class Shapes:
    """For each line type and path (``state.seats[].melds[].type``): the JSON types seen, the
    keys every dict there had and any had, and the texts seen."""

    def __init__(self) -> None:
        self.types: dict[tuple[str, str], set[str]] = defaultdict(set)
        self.always: dict[tuple[str, str], set[str]] = {}
        self.ever: dict[tuple[str, str], set[str]] = defaultdict(set)
        self.texts: dict[tuple[str, str], set[str]] = defaultdict(set)

    def add(self, line: dict[str, Any]) -> None:
        self._walk(line["type"], "", line)

    def _walk(self, kind: str, path: str, value: Any) -> None:
        key = (kind, path)
        self.types[key].add(_json_type(value))
        if isinstance(value, dict):
            keys = set(value)
            self.always[key] = self.always.get(key, keys) & keys
            self.ever[key] |= keys
            for k, v in value.items():
                self._walk(kind, f"{path}.{k}" if path else k, v)
        elif isinstance(value, list):
            for v in value:
                self._walk(kind, f"{path}[]", v)
        elif isinstance(value, str):
            self.texts[key].add(value)

    def check(self, example: dict[str, Any]) -> None:
        self._check(example["type"], "", example)

    def _check(self, kind: str, path: str, value: Any) -> None:
        key = (kind, path)
        where = f"{kind} example, {path or 'the line'}"
        if value == ELIDED:
            return
        assert key in self.types, f"{where}: the protocol never sends it"
        assert _json_type(value) in self.types[key], (where, value, self.types[key])
        if isinstance(value, dict):
            keys = set(value) - {ELIDED}
            assert keys <= self.ever[key], f"{where}: no such field {keys - self.ever[key]}"
            if ELIDED not in value:
                assert self.always[key] <= keys, f"{where}: leaves out {self.always[key] - keys}"
            for k in keys:
                self._check(kind, f"{path}.{k}" if path else k, value[k])
        elif isinstance(value, list):
            for v in value:
                self._check(kind, f"{path}[]", v)
        elif isinstance(value, str):
            name = path.rsplit(".", 1)[-1].removesuffix("[]")
            if name in NAMED:
                assert value in self.texts[key], (where, value, sorted(self.texts[key]))
            elif self.texts[key] and all(_is_tile(t) for t in self.texts[key]):
                assert _is_tile(value), (where, value)


def _json_type(value: Any) -> str:
    if value is None:
        return "null"
    if isinstance(value, bool):
        return "bool"
    if isinstance(value, int | float):
        return "number"
    return type(value).__name__


def _is_tile(text: str) -> bool:
    try:
        parse_tile(text)
    except ValueError:
        return False
    return True


@pytest.fixture(scope="module")
def shapes() -> Shapes:
    found = Shapes()
    for rules in RULESETS:
        for seed in (1, 2, 3):
            for line in _played_lines(rules, seed, 2):
                json.dumps(line)
                found.add(line)
    found.add(BotSeat.hello("gejiu", find_ruleset("gejiu").options, "prog1", 10.0)
              | {"table": "t1", "seat": 0, "state": "waiting"})
    for code in ANSWER_ERRORS:
        found.add({"type": "error", "request": 17, "code": code, "message": "…"})
    for example in json_examples():  # the table's answer to each handshake of the document
        handshake = handshake_of(json.dumps(example))
        if handshake is not None:
            found.add(welcome(handshake, handshake.name, handshake.version))
    return found


# --- the tests ----------------------------------------------------------------------------
def test_every_json_example_is_a_line_the_protocol_sends_or_takes(shapes: Shapes) -> None:
    examples = json_examples()
    kinds = {e.get("type") for e in examples}
    assert {"hello", "game_start", "game_end", "resync", "hand_start", "deal", "hand_end",
            "request", "cancel", "played_for_you", "error", None} <= kinds
    for example in examples:
        if "type" in example:
            shapes.check(example)


def test_melds_are_named_as_their_actions_and_events(shapes: Shapes) -> None:
    """Issue 54: melds said ``mgang``/``agang`` while the actions and events said
    ``minggang``/``angang``; one set of names now, the actions'."""
    actions = {t.value for t in ActionType}
    assert set(MELD_NAMES.values()) <= actions
    for kind in ("request", "hand_end", "resync"):
        seen = set().union(*(texts for (k, path), texts in shapes.texts.items()
                             if k == kind and path.endswith(("melds[].type", "melds[][].type"))))
        assert seen and seen <= actions, (kind, seen)
    for name in ("minggang", "bugang", "angang", "chi", "peng"):
        assert f"`{name}`" in DOC


def test_the_request_example_agrees_with_itself_and_the_answers_decode() -> None:
    (request,) = examples_of("request")
    assert request["phase"] == request["state"]["phase"]
    legal = {}
    for entry in request["legal"]:
        action = Action.from_json(entry["action"])
        assert str(action) == entry["text"] and Action.parse(entry["text"]) == action
        legal[entry["id"]] = action
    default = Action.parse(request["default"])  # a text, as the document says
    assert default == Action.discard(parse_tile(request["state"]["drawn"]))  # the drawn tile
    # the table's parser takes each example answer to the action id 1 names
    filler = iter(Action.discard(k) for k in range(34))
    actions = [legal.get(i) or next(a for a in filler if a not in legal.values())
               for i in range(max(legal) + 1)]
    seat = BotSeat()
    answers = [e for e in json_examples() if "request" in e and "type" not in e]
    assert len(answers) == 3
    for answer in answers:
        seat.pending = Request(request["request"], tuple(actions), default)
        assert seat.decode(json.dumps(answer, ensure_ascii=False)) == legal[1], answer
    (played,) = examples_of("played_for_you")
    assert Action.from_json(played["action"]) == Action.parse(played["text"]) == default
    assert played["request"] == request["request"]


def test_the_request_examples_seats_count_their_tiles_as_defined() -> None:
    """Issue 54 (B10): the example showed a seat with a peng holding 13 concealed tiles; by
    the definition (13 less 3 a meld while it waits, the drawn tile counted) it holds 10."""
    (request,) = examples_of("request")
    state = request["state"]
    for seat in state["seats"]:
        if isinstance(seat, dict) and seat["seat"] != state["current"]:
            assert not seat["has_drawn"]
            assert seat["concealed"] + 3 * len(seat["melds"]) == 13, seat
    assert "`seats[].concealed`" in DOC and "`has_drawn`" in DOC


def test_the_tables_name_what_the_code_sends(shapes: Shapes) -> None:
    # the events of a hand: each row's fields are the event's, and every event sent is told
    rows = re.findall(r"^\| ((?:`\w+`,? ?)+) \| ([^|]*) \|", DOC.split("### What happens")[1]
                      .split("###")[0], re.M)
    told: set[str] = set()
    for names, fields in rows:
        kinds = re.findall(r"`(\w+)`", names)
        told |= set(kinds)
        documented = set(re.findall(r"`(\w+)`", fields))
        for kind in kinds:
            if (kind, "") in shapes.ever:
                sent = shapes.ever[(kind, "")] - {"type"}
                assert sent <= documented <= sent | {"tile"}, (kind, sent, documented)
    sent_kinds = {kind for kind, path in shapes.ever if path == ""}
    headed = set(re.findall(r"`(\w+)`", " ".join(re.findall(r"^### (.*)$", DOC, re.M))))
    assert sent_kinds <= told | headed, sent_kinds - told - headed
    # the codes of refused lines: each one the code has, and no other
    codes = set(re.findall(r"^\| `(\w+)` \|", DOC.split("## Time limits and errors")[1]
                           .split("### Session errors")[0], re.M))
    assert set(ANSWER_ERRORS) <= codes <= set(ANSWER_ERRORS) | {"too_fast", "refused"}
    # the phases and the table states, as sent
    phases = set(re.findall(r"^  \| `(\w+)` \|", DOC, re.M)) - {"phase"}  # less the heading
    assert phases == {p.value for p in Phase} - {"ended"}
    for state in TableState:
        assert f"`{state.value}`" in DOC
    assert "`between`" not in DOC and "`over`" not in DOC


def test_the_limits_are_named_with_their_defaults() -> None:
    limits, config = Limits(), TableConfig()
    gejiu = find_ruleset("gejiu").options
    section = DOC.split("### Limits")[1].split("\n## ")[0]
    rows = dict(re.findall(r"^\| `?(\w+)`? \| (\d+) \|", section, re.M))
    assert rows, "no limits table"
    for name, default in rows.items():
        if name == "grace":
            want: Any = config.grace_seconds
        elif name == "max_answer_bytes":
            want = BotSeat.hello("gejiu", {})["max_answer_bytes"]
        elif name in gejiu:
            want = gejiu[name]
            assert all(find_ruleset(r).options[name] == want for r in RULESETS)
        else:
            want = getattr(limits, name)
        assert int(default) == want, (name, default, want)
    assert "net/limits.py" not in DOC and "Action.parse" not in DOC and "tests/" not in DOC


async def test_hello_is_the_example_exactly(server: MahjongServer) -> None:
    (example,) = examples_of("hello")
    options = " ".join(f"--option {k}={v}" for k, v in example["options"].items()
                       if v != find_ruleset(example["rules"]).options[k])
    bot = BotClient()
    await bot.connect(server.port, example["name"],
                      f"bot join {example['table']} --rules {example['rules']} {options}",
                      new_key())
    try:
        assert await bot.read() == example
    finally:
        await bot.close()
    # every option, defaults included
    assert set(example["options"]) == set(find_ruleset(example["rules"]).options)


def test_the_marks_say_a_program() -> None:
    """Issue 54: one mark for a program, ``[bot]``; the plain lobby showed none."""
    seats = (SeatInfo("robo", True, True, bot=True), SeatInfo("ann", True, False),
             SeatInfo("", False, False), SeatInfo("", False, False))
    info = TableInfo("t1", "gejiu", (), seats, 0, TableState.PLAYING, 1, 4)
    line = table_line(1, info, "en")
    assert "robo [bot]" in line and "ann (away)" in line and "ann [bot]" not in line
    assert "robo [bot]" in table_line(1, info, "zh")
    for mark in ("[bot]", "(computer)", "(away)", "(idle)"):
        assert f"| `{mark}` |" in DOC
    assert "(bot)" not in DOC


def test_pattern_names_are_the_rules_pages() -> None:
    """Issue 54: the arena said "Knitted" where the rules say "Rotten" (烂牌)."""
    page = (ROOT / "docs" / "rules" / "gejiu.en.md").read_text(encoding="utf-8")
    table = RULESETS["gejiu"].patterns
    names = {p.zh: p.en for p in (*table.patterns, *table.modifiers)}
    for zh in ("烂牌", "一般高"):
        assert f"| {zh} {names[zh]} |" in page
    assert not [en for en in names.values() if "Knitted" in en]


def _shell_commands(text: str = DOC) -> list[list[str]]:
    out = []
    for lang, body in FENCE.findall(text):
        if lang != "sh":
            continue
        for command in body.replace("\\\n", " ").splitlines():
            if command.strip():
                out.append(shlex.split(command))
    return out


def test_the_ssh_examples_parse() -> None:
    sources = {p.name: p.read_text(encoding="utf-8") for p in (ROOT / "examples").iterdir()}
    joins = 0
    for argv in _shell_commands():
        if "ssh" not in argv:
            continue
        at = argv.index("ssh")
        words = argv[at + 1:]
        words = words[:next((i for i, w in enumerate(words) if w[0] in "<>|"), len(words))]
        head = words.index("bot")
        command = parse_command(shlex.join(words[head:]))
        assert command.name == "bot" and command.table == "t1"
        joins += 1
        for word in argv[:at]:
            if word.startswith("--"):  # the example bot's own flags
                assert any(f'"{word}"' in source for source in sources.values()), word
    assert joins == 2


@pytest.mark.parametrize("index", [0, 1])
def test_the_arena_examples_run(index: int, monkeypatch: pytest.MonkeyPatch,
                                capsys: pytest.CaptureFixture[str]) -> None:
    arenas = [argv for argv in _shell_commands() if argv[:2] == ["mahjong-ssh", "arena"]
              and "--records" not in argv]
    assert len(arenas) == 2
    argv = arenas[index]
    seats = [argv[i + 1] for i, w in enumerate(argv) if w == "--seat"]
    for seat in seats:
        if shutil.which(seat.split()[0]) is None:
            pytest.skip(f"{seat.split()[0]} is not installed")
    monkeypatch.chdir(ROOT)
    assert main(argv[1:]) == 0, capsys.readouterr().err
    out = capsys.readouterr().out
    assert "drawn hands (荒牌)" in out and "refused answers 0" in out and "timeouts 0" in out
    assert out.count("decisions ") == len(seats)


def test_the_examples_for_a_bots_author_run(tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
                                            capsys: pytest.CaptureFixture[str]) -> None:
    """The arena's records, then replay, review and bot-check of one, in the document's
    order (``replay --view`` is a screen: only its record is checked, by ``replay``)."""
    if shutil.which("python3") is None:
        pytest.skip("python3 is not installed")
    section = DOC.split("## The arena for a bot's author")[1].split("\n## ")[0]
    commands = _shell_commands(section)
    assert [argv[:2] for argv in commands][:1] == [["mahjong-ssh", "arena"]]
    (tmp_path / "examples").symlink_to(ROOT / "examples")
    monkeypatch.chdir(tmp_path)
    ran = 0
    for argv in commands:
        assert argv[0] == "mahjong-ssh", argv
        if "--view" in argv:
            continue
        assert main(argv[1:]) == 0, (argv, capsys.readouterr())
        ran += 1
    assert ran >= 4
    assert "0 differed" in capsys.readouterr().out


def test_the_handshake_and_helper_examples_are_taken() -> None:
    """Issue 54, what bot authors expect: the document's ``hello`` is a handshake the table
    takes, answered by its ``welcome`` exactly; each command example names a command or a
    helper the table knows."""
    hellos = [e for e in json_examples() if "hello" in e]
    (welcomed,) = examples_of("welcome")
    assert len(hellos) == 1
    handshake = handshake_of(json.dumps(hellos[0]))
    assert handshake is not None
    assert welcome(handshake, handshake.name, handshake.version) == welcomed
    commands = [e for e in json_examples() if "command" in e]
    assert {e["command"] for e in commands} == set(HELPERS)  # start, new_game: in the text
    for example in commands:
        assert command_of(json.dumps(example)) in (*COMMANDS, *HELPERS)
    for name in (*COMMANDS, *HELPERS):
        assert f'{{"command": "{name}"}}' in DOC
