"""The decisions the table asks for (claim, rob, buy, 塘子烂糊, kong) as prompts with choices:
the options of :mod:`tui.view.decisions` in the table's words, with a title and notes."""

from __future__ import annotations

from dataclasses import dataclass

from engine.actions import Action, ActionType
from engine.view import View
from tui.view.cells import Piece, pieces_width
from tui.view.decisions import Decision, Option, decision, kong_decision, must_buy
from tui.view.faces import Face
from tui.view.tile_pieces import tile_pieces
from words import seat_label, tr


@dataclass(frozen=True)
class Choice:
    """One option of a prompt. ``action`` None = cancel (close the prompt)."""

    action: Action | None
    label: tuple[Piece, ...]
    hotkey: str = ""  # binding id that picks it directly ("pass", "chi", …): the option's key


@dataclass(frozen=True)
class Prompt:
    kind: str  # "claim", "rob", "buy", "declare", "kong"
    title: tuple[Piece, ...]
    choices: tuple[Choice, ...]
    notes: tuple[tuple[Piece, ...], ...] = ()  # lines under the title that explain the choices


def claim_prompt(view: View, lang: str, face: Face) -> Prompt | None:
    """The prompt for a claim / rob / buy / 塘子烂糊 decision, or None."""
    d = decision(view)
    if d is None:
        return None
    choices = _choices(d, view, lang, face)
    if d.kind == "buy":
        notes = [((tr(lang, "buy_note"), "hint"),)]
        if any(o.action is not None and o.action.lighter for o in d.options):
            notes.append(((tr(lang, "lighter_note"), "hint"),))
        why = must_buy(view)  # no "No" to choose: the prompt says why
        if why is not None:
            notes.insert(0, ((tr(lang, f"buy_why_{why}", dice=view.dice), "hint"),))
        question = tr(lang, "buy_q" if why is None else "buy_q_must")
        return Prompt("buy", ((question, "prompt-title"),), choices, tuple(notes))
    if d.kind == "declare":
        return Prompt("declare", ((tr(lang, "declare_q"), "prompt-title"),), choices,
                      (((tr(lang, "declare_note"), "hint"),),))
    tile = view.window_tile
    who = (seat_label(view.viewer, view.window_from, lang)
           if view.window_from is not None else "?")
    head, _, tail = tr(lang, f"{d.kind}_on", who=who, tile="\0").partition("\0")
    title: list[Piece] = [(head, "prompt-title")]
    if tile is not None:
        title += tile_pieces([tile], face)
    title.append((tail, "prompt-title"))
    return Prompt(d.kind, tuple(title), choices)


def kong_prompt(view: View, lang: str, face: Face) -> Prompt | None:
    """The prompt of the concealed and added kongs the player may make now, or None."""
    d = kong_decision(view)
    if d is None:
        return None
    return Prompt("kong", ((tr(lang, "kong_q"), "prompt-title"),), _choices(d, view, lang, face))


def _choices(d: Decision, view: View, lang: str, face: Face) -> tuple[Choice, ...]:
    return tuple(Choice(o.action, _label(o, view, lang, face), o.key) for o in d.options)


def _label(o: Option, view: View, lang: str, face: Face) -> tuple[Piece, ...]:
    """An option's words (``opt_WORD``), its tiles where the words hold ``{tile}`` (a chow's
    run with the discard marked, a kong's tile) and the Gejiu kong tile a kong takes."""
    a = o.action
    style = "choice-win" if o.word in ("win", "rob") else "choice"
    text = tr(lang, f"opt_{o.word}", tile="\0")
    if a is not None and a.lighter:
        text += " " + tr(lang, "opt_lighter")
    head, mark, tail = text.partition("\0")
    pieces: list[Piece] = [(head, style)]
    if mark and a is not None and a.type is ActionType.CHI and view.window_tile is not None:
        tile = view.window_tile
        pieces += tile_pieces(sorted((*a.tiles, tile)), face, mark=tile, sep=" ")
    elif mark and a is not None and a.tile is not None:
        pieces += tile_pieces([a.tile], face)
    if tail:
        pieces.append((tail, style))
    if a is not None:
        pieces += _slot_pieces(view, a, lang, face)
    return tuple(pieces)


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


def choice_width(ch: Choice) -> int:
    """Cells a choice takes on the action row (brackets and the gap included)."""
    return pieces_width(ch.label) + 3


def prompt_rows(prompt: Prompt | None, width: int) -> int:
    """Rows the choices of ``prompt`` take at ``width`` (1, or 2 when they take the log's)."""
    if prompt is None:
        return 1
    return 1 if 1 + sum(choice_width(ch) for ch in prompt.choices) <= width - 1 else 2
