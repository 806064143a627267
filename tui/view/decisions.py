"""The decisions the table asks a player for (a claim, the robbing of a kong, 买, 塘子烂糊,
which kong): their options in order, each with its key and the name of its words, from the
view's legal actions. Both front ends render these, so they offer what the engine allows in one
order under the same keys: the table as a prompt (:mod:`tui.view.prompts`, words ``opt_WORD``
of :mod:`words.screen`, short labels on a table of cells), plain mode as a numbered question
(:mod:`tui.plain.front`, words ``p_c_WORD`` of :mod:`words.plain`, sentences read aloud)."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Final

from engine.actions import Action, ActionType
from engine.table import Phase
from engine.view import View
from engine.wall import count_seat

# What picks an option, by its key (the id of the table's binding, TABLE_BINDINGS in
# tui/apps/table_screen.py, where a player may remap it): the binding's letter, then the words
# plain mode also takes typed.
KEYS: Final = {"pass": ("x", "pass"), "chi": ("c", "chow", "chi"), "peng": ("p", "pong", "peng"),
               "kong": ("k", "kong", "gang"), "win": ("w", "win", "hu"), "pond-win": ("d",),
               "buy": ("m", "buy"), "no-buy": ("n", "no")}

# a claim's key (and words), the weakest first: the order they are offered in
_CLAIMS: Final = {ActionType.CHI: "chi", ActionType.PENG: "peng", ActionType.MINGGANG: "kong",
                  ActionType.WIN: "win"}


@dataclass(frozen=True)
class Option:
    """One option of a decision: its action (None: cancel the kong menu), the name of its words
    and its key (of :data:`KEYS`; "" none, as a 买 with the lighter). Several options may share
    a key (the chows of a discard): the table moves among them, plain mode ranks them (c1, c2)."""

    action: Action | None
    word: str
    key: str


@dataclass(frozen=True)
class Decision:
    kind: str  # "claim", "rob", "buy", "declare", "kong"
    options: tuple[Option, ...]


_PASS: Final = Option(Action.pass_(), "pass", "pass")


def decision(view: View) -> Decision | None:
    """The claim / rob / buy / 塘子烂糊 decision the view asks its player for, or None."""
    if not view.my_move or not view.legal:
        return None
    legal = view.legal
    if view.phase is Phase.BUY:
        # not buying first, where the table's highlight starts
        return Decision("buy", tuple(
            Option(a, "buy", "" if a.lighter else "buy") if a.type is ActionType.BUY
            else Option(a, "nobuy", "" if a.lighter else "no-buy")
            for a in sorted(legal, key=lambda a: (a.type is ActionType.BUY, a.lighter))))
    if view.phase is Phase.DECLARE:
        return Decision("declare", (_PASS, *(Option(a, "pond", "pond-win") for a in legal
                                             if a.type is ActionType.POND_WIN)))
    if view.phase not in (Phase.CLAIM, Phase.ROB):
        return None
    rob = view.phase is Phase.ROB
    # pass first (Enter passes), then the claims; a chow needs the discard
    claims = sorted((a for a in legal if a.type in _CLAIMS
                     and (a.type is not ActionType.CHI or view.window_tile is not None)),
                    key=lambda a: (tuple(_CLAIMS).index(a.type), a.tiles))
    return Decision("rob" if rob else "claim", (_PASS, *(
        Option(a, "rob" if rob and a.type is ActionType.WIN else _CLAIMS[a.type],
               _CLAIMS[a.type]) for a in claims)))


def kong_decision(view: View) -> Decision | None:
    """Which of the concealed and added kongs to make now (then cancel), or None."""
    kongs = [Option(a, "angang" if a.type is ActionType.ANGANG else "bugang", "kong")
             for a in view.legal if a.type in (ActionType.ANGANG, ActionType.BUGANG)]
    if not kongs:
        return None
    return Decision("kong", (*kongs, Option(None, "cancel", "pass")))


def buying_now(view: View) -> int | None:
    """Yichun's buy phase: the seat choosing now, or None outside it. The seats choose in
    turn, openly, from the dealer's right and the dealer last (yichun.md §7.3, [A-Y6]): the
    first of them still undecided (a seat's ``bought`` is None until it has chosen)."""
    if view.phase is not Phase.BUY:
        return None
    order = [(view.dealer + k) % 4 for k in (1, 2, 3, 0)]
    return next((s for s in order if view.seats[s].bought is None), None)


def must_buy(view: View) -> str | None:
    """Why the viewer, asked to buy, may not decline (yichun.md §7.3): "dealer" (庄家必买)
    or "wall" (the break roll starts the deal at his wall, whose owner must buy); None where
    he may decline or is not asked now. Such a seat is asked only for the lighter (without
    one to throw the table buys for him)."""
    if view.phase is not Phase.BUY or not view.my_move or view.viewer is None \
            or any(a.type is ActionType.NO_BUY for a in view.legal):
        return None
    if view.viewer == view.dealer:
        return "dealer"
    return "wall" if view.viewer == count_seat(view.dealer, view.dice) else None
