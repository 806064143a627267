"""The bot protocol (``docs/bot-protocol.md``): a program plays one seat over JSON lines.

The table writes *events* (one JSON object a line: ``hello``, ``game_start``, ``hand_start``,
``deal``, ``draw``, ``discard``, the claims and kongs, ``ting`` 报听, ``wild`` 宝, ``hand_end``
with the settlement and every hand shown, ``game_end``) and, whenever the seat has a move, a
``request`` carrying the legal actions (each with a short id) and the seat's whole state. The
program answers each request with one line: ``{"request": N, "choice": ID}`` or
``{"request": N, "action": {...}}`` (an action's JSON, or its text such as ``"discard 5m"``).
A seat that comes into a game under way, or misses events that carried its own tiles, is
told one ``resync`` with its state instead of a made-up history.

Everything here is computed from the seat's own :class:`~engine.view.View` and nothing else, so
a bot learns exactly what a person in that seat sees (``tests/test_botproto.py`` re-deals the
hidden tiles with :func:`engine.leaks.view_leaks` after every action and requires identical
lines). :class:`BotSeat` is pure: no I/O, no clock. Its callers (``cli/arena.py``, the server's
``bot join``) carry the lines and the time limit, and apply the timer's action
(:func:`engine.expiry.expiry_action`) after a timeout or a refused answer
(:class:`AnswerError`).
"""

from __future__ import annotations

import json
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any, Final

from engine.actions import Action
from engine.bot_helpers import value_json, waits_json
from engine.expiry import expiry_action
from engine.melds import MeldType
from engine.situation import Settlement, Transfer
from engine.table import Event, EventType, Phase
from engine.tiles import Kind, kind_to_str
from engine.view import HandResult, MeldView, View

PROTOCOL: Final = 1
MAX_ANSWER_BYTES: Final = 4096  # an answer line longer than this is refused unread
EVENTS_KEPT: Final = 64  # events of the current hand remembered to tell new from seen
# the seat's own events that change its tiles: after the deal, a hand told from its first
# view on would need their tiles (earlier draws), so such a view is told by a ``resync``
_OWN_TILES: Final = frozenset({EventType.DRAW, EventType.REPLACEMENT, EventType.DISCARD,
                               EventType.CHI, EventType.PENG, EventType.MINGGANG,
                               EventType.ANGANG, EventType.BUGANG})


class AnswerError(ValueError):
    """An answer the table refuses; ``code`` is one of :data:`ANSWER_ERRORS`. The caller logs
    it, tells the bot (:meth:`BotSeat.error_event`) and plays the timer's action, except for a
    ``stale`` answer (to an earlier request), which is only dropped."""

    def __init__(self, code: str, message: str) -> None:
        super().__init__(message)
        self.code = code
        self.message = message


ANSWER_ERRORS: Final = ("too_long", "not_json", "not_object", "stale", "unknown_id",
                        "bad_action", "illegal", "no_request", "bad_command", "bad_hello")


def tiles_list(kinds: Sequence[Kind]) -> list[str]:
    """Tiles as a list of one-tile strings (``["1m", "2m", "E"]``): easy to read in any language."""
    return [kind_to_str(k) for k in kinds]


def _tile(kind: Kind | None) -> str | None:
    return kind_to_str(kind) if kind is not None else None


# a meld's type by the name its action and event have (``minggang``, not the game records'
# ``mgang``): one name for one thing across the protocol
MELD_NAMES: Final = {MeldType.CHI: "chi", MeldType.PENG: "peng", MeldType.MGANG: "minggang",
                     MeldType.BGANG: "bugang", MeldType.AGANG: "angang"}


def _meld(m: MeldView) -> dict[str, Any]:
    return {"type": MELD_NAMES[m.type],
            "tiles": tiles_list(m.tiles) if m.tiles is not None else None,
            "claimed": _tile(m.claimed), "from": m.source}


def state_json(view: View) -> dict[str, Any]:
    """The seat's whole state as the view shows it (carried by every ``request``)."""
    return {
        "hand_no": view.hand_no,
        "dealer": view.dealer,
        "seat": view.viewer,
        "phase": view.phase.value,
        "current": view.current,
        "hand": tiles_list(view.hand),
        "drawn": _tile(view.drawn),
        "remaining": view.remaining,
        "dice": view.dice,
        "wild_indicator": _tile(view.wild_indicator),
        "wild": _tile(view.wild),
        "kong_tiles": [_tile(k) for k in view.kong_tiles],
        "last_discard": ({"seat": view.last_discard[0], "tile": _tile(view.last_discard[1])}
                         if view.last_discard is not None else None),
        "window": ({"tile": _tile(view.window_tile), "from": view.window_from}
                   if view.window_tile is not None else None),
        "doudizhu": tiles_list(view.doudizhu),
        "seats": [
            {
                "seat": p.seat,
                "concealed": p.concealed_count,
                "has_drawn": p.has_drawn,
                "melds": [_meld(m) for m in p.melds],
                "pond": [kind_to_str(d.kind) for d in p.pond],
                "pond_claimed": [d.claimed_by for d in p.pond],
                "ting": p.ting,
                "bought": p.bought,
                "lighter": p.lighter,
                "flown": p.flown,
                "score": p.score,
            }
            for p in view.seats
        ],
    }


def event_json(event: Event, view: View) -> dict[str, Any]:
    """One public event; the seat's own draw carries its tile when the view still shows it."""
    out: dict[str, Any] = {"type": event.type.value}
    if event.seat is not None:
        out["seat"] = event.seat
    if event.type in (EventType.DRAW, EventType.REPLACEMENT):
        out["type"] = "draw"
        out["replacement"] = event.type is EventType.REPLACEMENT
        if event.tile is not None:  # a Gejiu kong tile, face up before it was taken
            out["tile"] = kind_to_str(event.tile)
    elif event.tile is not None:
        out["tile"] = kind_to_str(event.tile)
    if event.tiles:
        out["tiles"] = tiles_list(event.tiles)
    if event.source is not None:
        out["from"] = event.source
    if event.type is EventType.DISCARD:  # every seat's: whether it was the tile just drawn
        out["tsumogiri"] = event.tsumogiri
    if event.type is EventType.WILD:
        out["indicator"] = _tile(view.wild_indicator)
        out["wild"] = _tile(view.wild)
    return out


def _without_win_tile(result: HandResult) -> list[tuple[Kind, ...]]:
    """Every seat's concealed tiles at the hand's end, a winner's without its winning tile
    (``win_tile``, told beside them), however it won: a self-draw's tile is in the hand, a
    discard's or a robbed kong's is not, so one rule for a program. A winner holding a whole
    hand (3n+2 tiles: the tile came to it) gives one ``win_tile`` back; the view's own
    hands, which the result screen shows, stay as they are."""
    out = []
    for seat, tiles in enumerate(result.hands):
        if seat in result.winners and result.win_tile is not None \
                and len(tiles) % 3 == 2 and result.win_tile in tiles:
            rest = list(tiles)
            rest.remove(result.win_tile)
            tiles = tuple(rest)
        out.append(tiles)
    return out


def _transfer(t: Transfer) -> dict[str, Any]:
    return {"payer": t.payer, "payee": t.payee, "amount": t.amount, "why": t.why}


def settlement_json(s: Settlement) -> dict[str, Any]:
    return {
        "net": list(s.seats),
        "spectators": dict(s.spectators),
        "next_dealer": s.next_dealer,
        "wins": [{"seat": w.seat, "pattern_zh": w.pattern_zh, "pattern_en": w.pattern_en,
                  "value": w.value,
                  "items": [{"zh": i.zh, "en": i.en, "value": i.value} for i in w.items]}
                 for w in s.wins],
        "transfers": [_transfer(t) for t in s.transfers],
    }


@dataclass(frozen=True)
class Request:
    """A pending decision: its number, the legal actions in id order, the timer's action."""

    number: int
    legal: tuple[Action, ...]
    default: Action


class BotSeat:
    """One bot's side of the protocol, for one seat at a time (the seat may change between
    games: ``game_start`` and ``hand_start`` name it). Feed it every view the seat gets
    (:meth:`update`); it answers with the lines to write. Views may skip actions (a table
    coalesces updates): the events then cover what the view's recent events still show, and a
    ``request``'s ``state`` is always complete."""

    def __init__(self) -> None:
        self.request_no = 0
        self.pending: Request | None = None
        self._hand_key: tuple[int, int, int | None] | None = None  # (game, hand_no, seat)
        self._seen: list[Event] = []
        self._ended = False
        self._count = 0  # events of the hand told so far
        self._game = 0
        self._asked: tuple[tuple[int, int, int | None], int, tuple[Action, ...]] | None = None
        self._hands = 0  # the game's hands (game_start's, or joined's)
        self._joining = False  # the next view is told by a resync (joined a game under way)
        self._expired = False  # this update: the pending request's timer has run out
        self.view: View | None = None  # the seat's newest view (the helpers answer from it)

    # --- the table's side ---------------------------------------------------------------
    @staticmethod
    def hello(rules: str, options: Mapping[str, Any], name: str = "",
              seconds: float | None = None) -> dict[str, Any]:
        """The first line of a session."""
        return {"type": "hello", "protocol": PROTOCOL, "rules": rules,
                "options": dict(sorted(options.items())), "name": name,
                "max_answer_bytes": MAX_ANSWER_BYTES, "seconds": seconds}

    def game_start(self, seat: int, rules: str, hands: int,
                   scores: Sequence[int] = (0, 0, 0, 0)) -> dict[str, Any]:
        """A game begins (each deal of an arena is a one-hand game)."""
        self._game += 1
        self._hand_key = None
        self._hands = hands
        self._joining = False
        return {"type": "game_start", "game": self._game, "seat": seat, "rules": rules,
                "hands": hands, "scores": list(scores)}

    @staticmethod
    def game_end(scores: Sequence[int]) -> dict[str, Any]:
        return {"type": "game_end", "scores": list(scores)}

    def joined(self, hands: int) -> None:
        """The session comes into a game under way (a reconnect, a seat taken mid-game, a
        table whose game is over): no ``game_start``; the next update is told by one
        ``resync`` with the seat's whole state instead of a history it did not see."""
        self._game += 1
        self._hand_key = None
        self._hands = hands
        self._joining = True

    def resync(self, view: View) -> dict[str, Any]:
        """What is, in place of what happened: the game, the hand and the seat's whole state
        (as a ``request`` carries it). A program that keeps its own picture of the hand
        starts it again from here: its tiles are ``state.hand`` and ``state.drawn``."""
        return {"type": "resync", "game": self._game, "hands": self._hands,
                "seat": view.viewer, "rules": view.rules, "hand_no": view.hand_no,
                "dealer": view.dealer, "scores": [p.score for p in view.seats],
                "state": state_json(view)}

    def update(self, view: View, seconds: float | None = None,
               ask: bool = True, expired: bool = False) -> list[dict[str, Any]]:
        """The lines for ``view`` (the seat's newest): new events, the hand's end, and a
        ``request`` when the seat has a move it was not asked about yet (``seconds``: its
        time left, if it has a timer). ``ask`` False: a new move is not asked about yet (a
        server's timer for it has not started: :mod:`net.front.botsession`); a later update
        asks. A request whose move is gone unanswered is cancelled, whatever replaces it;
        ``expired``: its timer had run out, so the timer played it (``played_for_you``).

        A hand is told by its events when they are all seen from its deal (or its buy
        round); where they cannot be (the session came in mid-hand, or more happened
        between two views than they show, the seat's own draws among it), a ``resync``
        says the state instead, and the events go on from there."""
        out: list[dict[str, Any]] = []
        self._expired = expired
        self.view = view
        key = (self._game, view.hand_no, view.viewer)
        events = [e for e in view.events
                  if e.type is not EventType.FOUR_WILDS or e.seat == view.viewer]
        if key != self._hand_key:
            self._cancel(out)
            self._hand_key = key
            self._seen = []
            self._ended = False
            self._count = 0
            self._asked = None
            self.pending = None
            if self._joining or not told_from_start(view):
                self._joining = False
                out.append(self.resync(view))
                self._seen = events[-EVENTS_KEPT:]
                self._count = len(events)
            else:
                out.append({"type": "hand_start", "hand_no": view.hand_no,
                            "dealer": view.dealer, "seat": view.viewer, "rules": view.rules,
                            "scores": [p.score for p in view.seats], "dice": view.dice})
        new, whole = _new_events(self._seen, events)
        told = len(out)
        for e in new:
            if e.type is EventType.DEAL:
                out.append({"type": "deal", "dealer": view.dealer,
                            "hand": tiles_list(sorted([*view.hand, *(
                                [view.drawn] if view.drawn is not None else [])])),
                            "wild_indicator": _tile(view.wild_indicator),
                            "wild": _tile(view.wild),
                            "kong_tiles": [_tile(k) for k in view.kong_tiles],
                            "remaining": view.remaining})
            else:
                out.append(event_json(e, view))
        if new:
            self._own_draw(out, view)
            _own_kongs(out[told:], view)
        self._seen = (self._seen + new)[-EVENTS_KEPT:]
        self._count += len(new)
        if not whole or any(line["type"] == "draw" and line.get("seat") == view.viewer
                            and "tile" not in line for line in out[told:]):
            out.append(self.resync(view))  # events missed, or a draw of its own untold
        if view.phase is Phase.ENDED:
            if not self._ended and view.result is not None:
                self._ended = True
                self._cancel(out)
                r = view.result
                out.append({
                    "type": "hand_end", "hand_no": view.hand_no,
                    "winners": list(r.winners), "win_tile": _tile(r.win_tile),
                    "how": r.how.value if r.how is not None else None,
                    "from": r.from_seat,
                    "hands": [tiles_list(h) for h in _without_win_tile(r)],
                    "melds": [[_meld(m) for m in ms] for ms in r.melds],
                    "settlement": settlement_json(r.settlement),
                })
            return out
        if view.my_move and view.legal:
            asked = (key, self._count, view.legal)
            if asked != self._asked or self.pending is None:
                self._cancel(out)  # another move now: the one asked about went meanwhile
                if ask:
                    self._asked = asked
                    out.append(self.request(view, seconds))
        else:  # the move went (a claim window closed without it, the timer played it)
            self._cancel(out)
        return out

    def _cancel(self, out: list[dict[str, Any]]) -> None:
        """The pending request's move is gone unanswered: ``cancel`` it, or, where its timer
        ran out, say what the timer played (``played_for_you``, its default)."""
        pending = self.pending
        if pending is not None:
            out.append(self.timeout_event(pending.number, pending.default) if self._expired
                       else {"type": "cancel", "request": pending.number})
        self.pending = None
        self._asked = None

    @staticmethod
    def _own_draw(out: list[dict[str, Any]], view: View) -> None:
        if view.drawn is None or view.current != view.viewer:
            return
        for line in reversed(out):
            if line["type"] == "draw" and line.get("seat") == view.viewer:
                line["tile"] = kind_to_str(view.drawn)
                return
            if line["type"] in ("discard", "chi", "peng", "minggang"):
                return

    def request(self, view: View, seconds: float | None = None) -> dict[str, Any]:
        """A ``request`` for the seat's move in ``view``; remembered as :attr:`pending`."""
        self.request_no += 1
        self.view = view
        legal = tuple(view.legal)
        self.pending = Request(self.request_no, legal, expiry_action(view))
        return {
            "type": "request", "request": self.request_no, "phase": view.phase.value,
            "seconds": seconds,
            "legal": [{"id": i, "action": a.to_json(), "text": str(a)}
                      for i, a in enumerate(legal)],
            "default": str(self.pending.default),
            "state": state_json(view),
        }

    def decode(self, line: bytes | str) -> Action:
        """The action an answer line chooses for the pending request; :class:`AnswerError`
        for anything else (nothing is changed by a refused line)."""
        raw = line.encode("utf-8", "replace") if isinstance(line, str) else bytes(line)
        if len(raw) > MAX_ANSWER_BYTES:
            raise AnswerError("too_long", f"an answer line has at most {MAX_ANSWER_BYTES} "
                              f"bytes, this one {len(raw)}")
        try:
            obj = json.loads(raw.decode("utf-8"))
        except (UnicodeDecodeError, ValueError) as exc:
            raise AnswerError("not_json", f"not a JSON line: {str(exc)[:80]}") from None
        if not isinstance(obj, dict):
            raise AnswerError("not_object", "an answer is a JSON object "
                              '({"request": N, "choice": ID} or {"request": N, "action": ...})')
        pending = self.pending
        if pending is None:
            raise AnswerError("no_request", "no request is waiting for an answer")
        number = obj.get("request")
        if type(number) is not int:
            raise AnswerError("not_object", 'the answer must name its request: "request": N')
        if number != pending.number:
            raise AnswerError("stale", f"an answer to request {number}, but request "
                              f"{pending.number} is the one waiting (dropped)")
        if "choice" in obj:
            choice = obj["choice"]
            if type(choice) is not int or not 0 <= choice < len(pending.legal):
                raise AnswerError("unknown_id", f"choice {str(choice)[:20]!r} is not an id "
                                  f"of request {number} (0-{len(pending.legal) - 1})")
            return pending.legal[choice]
        if "action" not in obj:
            raise AnswerError("bad_action", 'an answer needs "choice" or "action"')
        try:
            given = obj["action"]
            if isinstance(given, str):
                action = Action.parse(given)
            elif isinstance(given, dict):
                action = Action.from_json(given)
            else:
                raise ValueError("an action is an object or a text")
        except (ValueError, KeyError, TypeError) as exc:
            raise AnswerError("bad_action", f"cannot read the action: {str(exc)[:120]}") from None
        if action not in pending.legal:
            raise AnswerError("illegal", f"{action} is not legal now (legal: "
                              f"{', '.join(str(a) for a in pending.legal)})"[:400])
        return action

    def helper(self, command: Mapping[str, Any]) -> dict[str, Any]:
        """The answer to a helper command (:data:`HELPERS`: ``waits``, ``value``) from the
        seat's newest view, naming the request waiting (null if none); it answers nothing."""
        number = self.pending.number if self.pending is not None else None
        if command.get("command") == "waits":
            return waits_json(self.view, number)
        return value_json(self.view, command, number)

    def answered(self) -> None:
        """The pending request was answered (or played for the bot): no answer is due."""
        self.pending = None

    @staticmethod
    def error_event(request: int | None, error: AnswerError) -> dict[str, Any]:
        return {"type": "error", "request": request, "code": error.code,
                "message": error.message}

    @staticmethod
    def timeout_event(request: int, played: Action, why: str = "timeout") -> dict[str, Any]:
        """The table played ``played`` for the bot (its time ran out, or its answer was
        refused: ``why`` is ``"timeout"`` or ``"refused"``)."""
        return {"type": "played_for_you", "request": request, "why": why,
                "action": played.to_json(), "text": str(played)}


def _own_kongs(lines: list[dict[str, Any]], view: View) -> None:
    """The seat's own concealed kongs among ``lines`` (new events, oldest first) get their
    tile where the event hides it (Yichun's lie face down): the seat chose the tile, and its
    own melds in the view show it. Each 暗杠 event adds one ``angang`` meld, in order, so
    the last such line is the last such meld, and so on back; the other seats' stay hidden."""
    own = [m.tiles for m in view.seats[view.viewer].melds
           if m.type is MeldType.AGANG] if view.viewer is not None else []
    for line in reversed(lines):
        if line["type"] == "angang" and line.get("seat") == view.viewer:
            if not own:
                return
            tiles = own.pop()
            if "tile" not in line and tiles:
                line["tile"] = kind_to_str(tiles[0])


def told_from_start(view: View) -> bool:
    """Whether the hand in ``view``, seen first now, can be told by its events from its
    start: it has not ended, and its deal is among the view's events with nothing of the
    seat's own tiles after it (or it is not dealt yet: Yichun's buy round). Else the seat's
    earlier draws would be missing their tiles, and the deal would be the hand as it is."""
    if view.phase is Phase.ENDED:
        return False
    deals = [i for i, e in enumerate(view.events) if e.type is EventType.DEAL]
    if not deals:
        return view.phase is Phase.BUY
    return not any(e.seat == view.viewer and e.type in _OWN_TILES
                   for e in view.events[deals[-1] + 1:])


def _new_events(seen: Sequence[Event], events: Sequence[Event]) -> tuple[list[Event], bool]:
    """The events of ``events`` (a view's recent ones) after those already ``seen``, and
    whether they are all that happened since: the longest tail of ``seen`` that begins
    ``events`` is matched; none matching means every event shown is new and more happened
    than a view shows."""
    if not seen:
        return list(events), True
    top = min(len(seen), len(events))
    for k in range(top, 0, -1):
        if list(seen[-k:]) == list(events[:k]):
            return list(events[k:]), True
    return list(events), not events


COMMANDS: Final = ("start", "new_game")  # a server's table commands (an arena ignores them)
HELPERS: Final = ("waits", "value")  # answered from the seat's own view, server and arena


def command_line(line: bytes | str) -> dict[str, Any] | None:
    """A command line (a JSON object with a ``command`` field: ``{"command": "start"}``) as
    its object, ``command`` made a text (``""`` where it was none; a name in neither
    :data:`COMMANDS` nor :data:`HELPERS` is the caller's ``bad_command``); None for any other
    line. A command is never an answer, so a mistyped one costs no decision."""
    raw = line.encode("utf-8", "replace") if isinstance(line, str) else bytes(line)
    if b'"command"' not in raw or len(raw) > MAX_ANSWER_BYTES:
        return None
    try:
        obj = json.loads(raw)
    except ValueError:
        return None
    if not isinstance(obj, dict) or "command" not in obj:
        return None
    if not isinstance(obj["command"], str):
        obj["command"] = ""
    return obj


def command_of(line: bytes | str) -> str | None:
    """The name of the command ``line`` gives (:func:`command_line`), or None."""
    obj = command_line(line)
    return None if obj is None else str(obj["command"])


def bad_command() -> AnswerError:
    """The error for a command that is none of :data:`COMMANDS` and :data:`HELPERS`."""
    return AnswerError("bad_command", "unknown command: the commands are "
                       + ", ".join(f'{{"command": "{c}"}}' for c in (*COMMANDS, *HELPERS)))


# --- the program's handshake ------------------------------------------------------------
# what a program's ``hello`` may say it handles; the table answers with those it knows (none
# of them changes what is sent: every program gets the same lines)
FEATURES: Final = ("tsumogiri", "resync", "waits", "value")
HELLO_FEATURES_MAX: Final = 32  # features read from one hello; the rest are ignored


@dataclass(frozen=True)
class Handshake:
    """A program's ``{"hello": {"name", "version", "features"}}``, its texts as sent (the
    caller cleans them for showing: they come from the program)."""

    name: str
    version: str
    features: tuple[str, ...]  # the known ones it named, in :data:`FEATURES` order


def handshake_of(line: bytes | str) -> Handshake | None:
    """A program's handshake line → :class:`Handshake`; None for any other line (one with a
    ``request`` or a ``command`` is never a handshake). :class:`AnswerError` (``bad_hello``)
    for a ``hello`` that is not an object with texts. Unknown fields and features are
    ignored."""
    raw = line.encode("utf-8", "replace") if isinstance(line, str) else bytes(line)
    if b'"hello"' not in raw or len(raw) > MAX_ANSWER_BYTES:
        return None
    try:
        obj = json.loads(raw)
    except ValueError:
        return None
    if not isinstance(obj, dict) or "hello" not in obj or "request" in obj or "command" in obj:
        return None
    hello = obj["hello"]
    if not isinstance(hello, dict):
        raise AnswerError("bad_hello", 'a hello is {"hello": {"name": "...", "version": '
                          '"...", "features": [...]}}')
    name, version = hello.get("name", ""), hello.get("version", "")
    features = hello.get("features", [])
    if not isinstance(name, str) or not isinstance(version, str) \
            or not isinstance(features, list):
        raise AnswerError("bad_hello", "a hello's name and version are texts, its features "
                          "a list of texts")
    asked = {f for f in features[:HELLO_FEATURES_MAX] if isinstance(f, str)}
    return Handshake(name, version, tuple(f for f in FEATURES if f in asked))


def welcome(handshake: Handshake, name: str, version: str) -> dict[str, Any]:
    """The table's answer to a handshake: the name and version as it shows them (cleaned),
    and the features it knows of those named."""
    return {"type": "welcome", "name": name, "version": version,
            "features": list(handshake.features)}


def dumps(line: Mapping[str, Any]) -> bytes:
    """One protocol line as bytes, newline-terminated (UTF-8, compact)."""
    return (json.dumps(line, ensure_ascii=False, separators=(",", ":")) + "\n").encode("utf-8")
