"""The action row under the hand: the open prompt's choices, or the keys that act now."""

from __future__ import annotations

from rich.cells import cell_len

from engine.actions import ActionType
from engine.table import Phase
from engine.tiles import Kind
from engine.view import View
from tui.view.canvas import Canvas
from tui.view.cells import Piece, pieces_width
from tui.view.prompts import choice_width
from tui.view.tile_pieces import tile_pieces
from tui.view.ui_state import UiState
from words import tr


def draw_action_row(c: Canvas, view: View, ui: UiState, tiles: list[Kind], cursor: int,
                y_act: int) -> None:
    """The prompt's choices (the selected one bracketed), or the keys that act now."""
    prompt = ui.prompt
    if prompt is not None:
        x = 1
        for i, ch in enumerate(prompt.choices):
            sel = i == ui.selected
            if x > 1 and x + choice_width(ch) > c.width - 1:  # go on on the log's row
                if y_act + 1 >= c.height:
                    break
                x, y_act = 1, y_act + 1
            x = c.put(x, y_act, "[" if sel else " ", "choice-sel" if sel else "text")
            for text, style in ch.label:
                x = c.put(x, y_act, text, style + "+sel" if sel and style.startswith("tile")
                          else ("choice-sel" if sel else style))
            x = c.put(x, y_act, "]" if sel else " ", "choice-sel" if sel else "text")
            x = c.put(x, y_act, " ", "text")
    else:
        c.pieces(1, y_act, _action_hints(view, ui, tiles, cursor))


def _action_hints(view: View, ui: UiState, tiles: list[Kind], cursor: int) -> list[Piece]:
    """The keys that act now (discard, win, kong, 听) or why none do, then help and faces."""
    lang, face = ui.lang, ui.face
    out: list[Piece] = []

    def add(text: str, style: str = "keyhint") -> None:
        if out:
            out.append((" · ", "dim"))
        out.append((text, style))

    if view.my_move and view.phase is Phase.TURN and tiles:
        types = {a.type for a in view.legal}
        kind = tiles[cursor]
        h, _, tail = tr(lang, "k_discard", tile="\0").partition("\0")
        out.append((h.replace("Enter", ui.keys.get("confirm", "Enter")), "keyhint"))
        out += tile_pieces([kind], face)
        if tail:
            out.append((tail, "keyhint"))
        if kind == view.wild:  # Shangrao: a wild thrown doubles this player's win and payments
            out.append((" " + tr(lang, "k_fly"), "flag-em"))
        if ActionType.WIN in types:
            add(tr(lang, "k_win"), "keyhint-win")
        if types & {ActionType.ANGANG, ActionType.BUGANG}:
            add(tr(lang, "k_kong"))
        if any(a.ting for a in view.legal):
            add(tr(lang, "k_ting"))
    elif view.viewer is None:
        add(tr(lang, "watching"), "dim")
    elif not view.my_move and view.phase is not Phase.ENDED:
        add(tr(lang, "wait_others"), "dim")
    if out and view.viewer is not None:
        # the keys after it keep their place from the player's turn to the wait for the
        # others and back: only the words that change are sent (issue 57)
        room = cell_len(tr(lang, "wait_others")) - pieces_width(out)
        if room > 0:
            out.append((" " * room, "text"))
    if ui.coach and view.my_move:  # a coach table: its key, while a decision is there
        add(tr(lang, "k_coach"))
    add(tr(lang, "k_help"))
    add(tr(lang, "k_face"))
    return out
