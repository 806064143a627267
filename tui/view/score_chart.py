"""The game-over screen's picture of the game: each player's running score after every hand as
a sparkline, the four on one scale so that the lines compare, in the colours the table gives
the suits (on the tiles' face, where those colours are made to be read), with each player's
final score beside it.

The Unicode tile faces draw it with block elements (▁ … █); the ASCII face, for terminals
without them, with characters that sit low to high on the line (``_ . - ~ ^``). A short game's
marks are up to three cells wide; a game longer than the room across shows one mark for
several hands (the score where it stood then).
Colours are theme variables only; this screen is not on the hot path.
"""

from __future__ import annotations

import math
from collections.abc import Sequence

from rich.cells import cell_len
from textual.markup import escape

from engine.game import HandSummary
from host.client import TableUpdate
from tui.view.cells import fit_name
from tui.view.faces import Face
from words import seat_label, tr

BLOCKS = "▁▂▃▄▅▆▇█"
ASCII_MARKS = "_.-~^"
SEAT_COLOURS = ("$tile-man", "$tile-pin", "$tile-sou", "$tile-dragon")  # E, S, W, N
STRETCH = 3  # the most cells a mark takes in a short game
LABEL_MAX = 20  # cells of a player's label before it is cut
def running_scores(history: Sequence[HandSummary]) -> list[list[int]]:
    """Each seat's score before the first hand (0) and after every hand."""
    out = [[0] for _ in range(4)]
    for h in history:
        for s in range(4):
            out[s].append(out[s][-1] + h.net[s])
    return out


def sample(values: Sequence[int], width: int) -> list[int]:
    """``values`` if they fit in ``width`` marks; else ``width`` of them evenly spread, the
    first and the last always among them (a running score's mark is where it stood then)."""
    n = len(values)
    if n <= width:
        return list(values)
    if width <= 1:
        return [values[-1]] if width == 1 else []
    return [values[round(i * (n - 1) / (width - 1))] for i in range(width)]


def sparkline(values: Sequence[int], low: int, high: int, marks: str = BLOCKS) -> str:
    """One mark per value, from ``marks[0]`` at ``low`` to ``marks[-1]`` at ``high`` (the
    middle mark for every value when ``low == high``: a level line)."""
    top = len(marks) - 1
    if high <= low:
        return marks[top // 2] * len(values)
    # halves round up, everywhere on the scale (round() would send them to the even mark)
    return "".join(marks[min(top, max(0, math.floor((v - low) * top / (high - low) + 0.5)))]
                   for v in values)


def score_chart_lines(update: TableUpdate, lang: str, face: Face, width: int = 76) -> list[str]:
    """The chart as markup lines no wider than ``width`` cells: a heading with the scale, then
    a line per player (label, sparkline, final score). No lines before a hand is booked."""
    if not update.history:
        return []
    me = update.view.viewer
    series = running_scores(update.history)
    marks = ASCII_MARKS if face is Face.ASCII else BLOCKS
    labels = []
    for s in range(4):
        label = seat_label(me, s, lang)
        name = update.names[s] if s < len(update.names) else ""
        if name:  # a computer's "normal (computer)" as "computer" rather than cut
            label = f"{label} · {fit_name(name, LABEL_MAX - cell_len(label) - 3)}"
        labels.append(_cut(label, LABEL_MAX))
    label_w = max(cell_len(x) for x in labels)
    finals = [f"{series[s][-1]:+d}" for s in range(4)]
    final_w = max(len(x) for x in finals)
    room = max(1, width - 1 - label_w - 2 - 2 - final_w)
    points = [sample(series[s], room) for s in range(4)]
    stretch = max(1, min(STRETCH, room // len(points[0])))  # a short game: wider marks
    low = min(min(p) for p in series)
    high = max(max(p) for p in series)
    hands = len(update.history)
    ascii_only = face is Face.ASCII
    dots, dot = (" .. ", " | ") if ascii_only else (" … ", " · ")
    scale = f"{marks[0]} {low:+d}{dots}{marks[-1]} {high:+d}"
    spans = [tr(lang, "chart_hands", n=hands)]
    if len(points[0]) < hands + 1:  # a mark for several hands: say about how many
        k = round(hands / max(1, len(points[0]) - 1))
        per_mark = tr(lang, "chart_per_mark", n=hands, per=tr(lang, "chart_hands", n=k))
        spans.insert(0, per_mark.replace("≈", "~") if ascii_only else per_mark)
    title = tr(lang, "chart_title")
    heading = [f"{scale}{dot}{span}" for span in spans] + [scale]
    tail = next((h for h in heading if cell_len(title) + 2 + cell_len(h) <= width), "")
    out = [f"[b]{escape(title)}[/]  [dim]{escape(tail)}[/]" if tail
           else f"[b]{escape(title)}[/]"]
    for s in range(4):
        line = "".join(m * stretch for m in sparkline(points[s], low, high, marks))
        pad = " " * (label_w - cell_len(labels[s]))
        out.append(f" {escape(labels[s])}{pad}  [{SEAT_COLOURS[s]} on $tile-face]"
                   f"{escape(line)}[/]  {finals[s]:>{final_w}}")
    return out


def _cut(text: str, cells: int) -> str:
    """``text`` cut to at most ``cells`` terminal cells (an ellipsis marks the cut)."""
    if cell_len(text) <= cells:
        return text
    out = ""
    for ch in text:
        if cell_len(out + ch) > cells - 1:
            break
        out += ch
    return out + "…"
