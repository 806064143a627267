"""What the player types in plain mode, read against the view: the commands that say the
table again (``hand``, ``table``, ``waits``, ``scores``, ``log N``) and the answers to a
question (a turn's tile, a decision's choice). A reading changes nothing: the plain table
(:mod:`tui.plain.front`) says its lines, sends its action or asks which kong."""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import replace

from engine.actions import Action, ActionType
from engine.table import Phase
from engine.tiles import Kind, TileParseError, parse_tiles
from engine.view import View
from host.client import TableUpdate
from tui.plain.sentences import Answer, Sentences, held
from tui.view.decisions import KEYS, Decision, kong_decision
from tui.view.hints import waits_of

LOG_MAX = 24  # moves ``log N`` says at most (a view carries this many)
AGAIN = ("again", "repeat", "r")  # the question said again, and nothing else

# What a typed answer comes to: the action to send, the kongs to choose from, a sentence
# saying why nothing happened, or None (the question is asked again).
Reply = Action | Decision | str | None


def unknown(w: Sentences, text: str) -> str:
    return w.tr("p_unknown", what=text[:40])


# --- the table said again ---------------------------------------------------------------------
def _hand(w: Sentences, update: TableUpdate, rest: str) -> list[str]:
    view = update.view
    if view.viewer is None:
        return [w.tr("p_seat_spectating")]
    if not view.hand and view.phase is Phase.BUY:
        return [w.tr("p_not_dealt")]
    out = [w.hand_line(view), w.numbered_hand(view)]
    melds = view.seats[view.viewer].melds
    if melds:
        out.append(w.tr("p_melds_mine", melds=w.melds(melds)))
    return out


def _waits(w: Sentences, update: TableUpdate, rest: str) -> list[str]:
    view = update.view
    if view.viewer is None:
        return [w.tr("p_seat_spectating")]
    ready = w.ready_options(view) if view.drawn is not None else None
    if ready:
        return [ready]
    waits = waits_of(view, view.hand) if len(view.hand) % 3 == 1 else {}
    if waits:
        return [w.waits_line(view, tuple(waits))]
    return [w.tr("p_waits", tiles=w.tr("p_nothing"))]


def _log(w: Sentences, update: TableUpdate, rest: str) -> list[str]:
    n = LOG_MAX
    if rest:
        if not rest.isdigit():
            return [unknown(w, rest)]
        n = max(1, min(LOG_MAX, int(rest[:4])))
    view = update.view
    lines = [line for e in view.events if (line := w.event_line(e, view, live=False))][-n:]
    if not lines:
        return [w.tr("p_no_log")]
    return [w.tr("p_log_head", n=len(lines)), *("  " + line for line in lines)]


Look = Callable[[Sentences, TableUpdate, str], list[str]]
LOOKS: dict[str, Look] = {word: look for words, look in (
    (("hand", "手牌"), _hand),
    (("table", "look", "l", "牌桌"), lambda w, update, rest: w.look_lines(update)),
    (("waits", "ting?", "听"), _waits),
    (("scores", "score", "总分"), lambda w, update, rest: [w.totals_line(update.totals,
                                                                      "p_res_totals")]),
    (("log", "moves"), _log),
    # the prompt (the question) is said again after every line typed
    (AGAIN, lambda w, update, rest: []),
) for word in words}


def look(w: Sentences, update: TableUpdate | None, head: str, rest: str) -> list[str] | None:
    """The answer to a command that says the table again (``head``), or None where ``head``
    is not one. Every prompt answers them, the one before the first deal too (that nothing
    is dealt yet), so none is ever taken for an answer or left unanswered."""
    said = LOOKS.get(head)
    if said is None:
        return None
    if update is None:
        return [] if head in AGAIN else [w.tr("p_no_game_yet")]
    return said(w, update, rest)


# --- answers ----------------------------------------------------------------------------------
def one_tile(text: str) -> Kind | None:
    """One tile in notation (``5s``, ``E``, ``中``), or None."""
    try:
        kinds = parse_tiles(text.strip()[:8].upper() if len(text.strip()) == 1
                            else text.strip()[:8])
    except TileParseError:
        return None
    return kinds[0] if len(kinds) == 1 else None


def read_turn(w: Sentences, view: View, head: str, rest: str, text: str) -> Reply:
    """An answer in one's turn: win, a kong, or a tile to discard (by notation or number;
    ``b TILE`` declares 报听 with it)."""
    if not text:
        return None
    legal = view.legal
    wins = [a for a in legal if a.type is ActionType.WIN]
    # "w" wins while a win is possible (the question says so), else it is the west wind
    if head in ("win", "hu", "胡") or (head == "w" and wins and not rest):
        return wins[0] if wins else w.tr("p_no_win")
    if head in ("k", "kong", "gang", "杠"):
        offer = kong_decision(view)
        if offer is None:
            return w.tr("p_no_kong")
        if rest:
            kong_kind = one_tile(rest)
            if kong_kind is None:
                return unknown(w, rest)
            offer = replace(offer, options=tuple(
                o for o in offer.options if o.action is None or o.action.tile == kong_kind))
        kongs = [o.action for o in offer.options if o.action is not None]
        if not kongs:
            return w.tr("p_no_kong")
        return kongs[0] if len(kongs) == 1 else offer
    ting = head in ("b", "ting", "报听") and bool(rest)  # "b" alone: the white dragon
    target = rest if ting or head in ("d", "discard", "打") else text
    tiles = held(view)
    kind: Kind | None
    if target.isdigit():
        n = int(target[:6])
        if not 1 <= n <= len(tiles):
            return w.tr("p_no_number", n=n, most=len(tiles))
        kind = tiles[n - 1]
    else:
        kind = one_tile(target)
        if kind is None:
            return unknown(w, target)
    if kind not in tiles:
        return w.tr("p_no_such_tile", tile=w.tile(kind))
    action = next((a for a in legal if a.type is ActionType.DISCARD and a.tile == kind
                   and a.ting == ting), None)
    if action is None:
        return w.tr("p_no_ting", tile=w.tile(kind)) if ting else unknown(w, text)
    return action


def read_choice(w: Sentences, answers: Sequence[Answer], text: str) -> Reply:
    """An answer to a decision: an option by its number, key or words (Enter: pass)."""
    low = text.lower().replace(" ", "")
    for c in answers:
        if low in c.typed:
            return c.option.action
    if not low:
        return None  # the question again
    several = [c for c in answers if low in KEYS.get(c.option.key, ())]
    if several:  # a key several options share (the chows of a discard): which
        return w.tr("p_which_chow" if several[0].option.key == "chi" else "p_ask_kong",
                    choices=w.semi(c.words for c in several))
    if low.isdigit():
        return w.tr("p_no_number", n=low[:6],
                    most=sum(c.option.key != "pass" for c in answers) or 1)
    if any(low in KEYS[key] for key in ("chi", "peng", "kong", "win")):
        return w.tr("p_no_claim")
    return unknown(w, text)
