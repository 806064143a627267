"""The decisions the table asks for (claim, rob, buy, 塘子烂糊, kong) as prompts with choices,
built from the view's legal actions so the screen offers exactly what the engine allows."""

from __future__ import annotations

from dataclasses import dataclass

from engine.actions import Action, ActionType
from engine.table import Phase
from engine.view import View
from tui.view.cells import Piece, pieces_width
from tui.view.faces import Face
from tui.view.tile_pieces import tile_pieces
from tui.words.i18n import seat_label, tr


@dataclass(frozen=True)
class Choice:
    """One option of a prompt. ``action`` None = cancel (close the prompt)."""

    action: Action | None
    label: tuple[Piece, ...]
    hotkey: str = ""  # binding id that picks it directly ("pass", "chi", …)


@dataclass(frozen=True)
class Prompt:
    kind: str  # "claim", "rob", "buy", "declare", "kong"
    title: tuple[Piece, ...]
    choices: tuple[Choice, ...]
    notes: tuple[tuple[Piece, ...], ...] = ()  # lines under the title that explain the choices


def claim_prompt(view: View, lang: str, face: Face) -> Prompt | None:
    """The prompt for a claim / rob / buy / 塘子烂糊 decision, or None."""
    if not view.my_move or not view.legal:
        return None
    legal = view.legal
    if view.phase is Phase.BUY:
        choices = []
        for a in sorted(legal, key=lambda a: (a.type is ActionType.BUY, a.lighter)):
            text = tr(lang, "opt_buy" if a.type is ActionType.BUY else "opt_nobuy")
            if a.lighter:
                text += " " + tr(lang, "opt_lighter")
            hot = "" if a.lighter else ("buy" if a.type is ActionType.BUY else "no-buy")
            choices.append(Choice(a, ((text, "choice"),), hot))
        notes = [((tr(lang, "buy_note"), "hint"),)]
        if any(c.action is not None and c.action.lighter for c in choices):
            notes.append(((tr(lang, "lighter_note"), "hint"),))
        return Prompt("buy", ((tr(lang, "buy_q"), "prompt-title"),), tuple(choices),
                      tuple(notes))
    if view.phase is Phase.DECLARE:
        choices = [Choice(Action.pass_(), ((tr(lang, "opt_pass"), "choice"),), "pass")]
        choices += [Choice(a, ((tr(lang, "opt_pond"), "choice"),), "pond-win")
                    for a in legal if a.type is ActionType.POND_WIN]
        return Prompt("declare", ((tr(lang, "declare_q"), "prompt-title"),), tuple(choices),
                      (((tr(lang, "declare_note"), "hint"),),))
    if view.phase not in (Phase.CLAIM, Phase.ROB):
        return None
    tile = view.window_tile
    who = (seat_label(view.viewer, view.window_from, lang)
           if view.window_from is not None else "?")
    key = "rob_on" if view.phase is Phase.ROB else "claim_on"
    head, _, tail = tr(lang, key, who=who, tile="\0").partition("\0")
    title: list[Piece] = [(head, "prompt-title")]
    if tile is not None:
        title += tile_pieces([tile], face)
    title.append((tail, "prompt-title"))
    choices = [Choice(Action.pass_(), ((tr(lang, "opt_pass"), "choice"),), "pass")]
    order = {ActionType.CHI: 0, ActionType.PENG: 1, ActionType.MINGGANG: 2, ActionType.WIN: 3}
    for a in sorted((a for a in legal if a.type is not ActionType.PASS),
                    key=lambda a: (order.get(a.type, 9), a.tiles)):
        if a.type is ActionType.CHI and tile is not None:
            pieces: list[Piece] = [("吃 " if lang == "zh" else "Chi 吃 ", "choice")]
            pieces += tile_pieces(sorted((*a.tiles, tile)), face, mark=tile, sep=" ")
            choices.append(Choice(a, tuple(pieces), "chi"))
        elif a.type is ActionType.PENG:
            choices.append(Choice(a, (("碰" if lang == "zh" else "Pung 碰", "choice"),), "peng"))
        elif a.type is ActionType.MINGGANG:
            pieces = [("杠" if lang == "zh" else "Kong 杠", "choice")]
            pieces += _slot_pieces(view, a, lang, face)  # Gejiu: which kong tile it takes
            choices.append(Choice(a, tuple(pieces), "kong"))
        elif a.type is ActionType.WIN:
            text = tr(lang, "opt_rob" if view.phase is Phase.ROB else "opt_win")
            choices.append(Choice(a, ((text, "choice-win"),), "win"))
    return Prompt("rob" if view.phase is Phase.ROB else "claim", tuple(title), tuple(choices))


def _slot_pieces(view: View, a: Action, lang: str, face: Face) -> list[Piece]:
    """`` (杠牌 1筒)``: the Gejiu kong tile a kong takes, or nothing."""
    if a.slot is None or a.slot >= len(view.kong_tiles):
        return []
    slot_tile = view.kong_tiles[a.slot]
    h2, _, t2 = tr(lang, "opt_slot", n="\0").partition("\0")
    pieces: list[Piece] = [(h2, "choice")]
    if slot_tile is not None:
        pieces += tile_pieces([slot_tile], face)
    pieces.append((t2, "choice"))
    return pieces


def kong_prompt(view: View, lang: str, face: Face) -> Prompt | None:
    """The prompt of the concealed and added kongs the player may make now, or None."""
    kongs = [a for a in view.legal if a.type in (ActionType.ANGANG, ActionType.BUGANG)]
    if not kongs:
        return None
    choices = []
    for a in kongs:
        assert a.tile is not None
        key = "opt_angang" if a.type is ActionType.ANGANG else "opt_bugang"
        head, _, tail = tr(lang, key, tile="\0").partition("\0")
        pieces: list[Piece] = [(head, "choice"), *tile_pieces([a.tile], face)]
        if tail:
            pieces.append((tail, "choice"))
        pieces += _slot_pieces(view, a, lang, face)
        choices.append(Choice(a, tuple(pieces), "kong"))
    choices.append(Choice(None, ((tr(lang, "opt_cancel"), "choice"),), "pass"))
    return Prompt("kong", ((tr(lang, "kong_q"), "prompt-title"),), tuple(choices))


def choice_width(ch: Choice) -> int:
    """Cells a choice takes on the action row (brackets and the gap included)."""
    return pieces_width(ch.label) + 3


def prompt_rows(prompt: Prompt | None, width: int) -> int:
    """Rows the choices of ``prompt`` take at ``width`` (1, or 2 when they take the log's)."""
    if prompt is None:
        return 1
    return 1 if 1 + sum(choice_width(ch) for ch in prompt.choices) <= width - 1 else 2
