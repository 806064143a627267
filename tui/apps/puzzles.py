"""Puzzles from one's own game (``ssh host puzzles [ID]``, issue 56): the decisions where the
expert's review found the player's choice costly become "what would you play?" positions.

:class:`PuzzleScreen` is the review (:class:`~tui.apps.review.ReviewScreen`: the same
assessments, asked of the same process pool, the decision shown first) with its answers held
back: its first page lists the puzzles found so far (where each is, never what was played nor
what it cost) as the game is assessed; a puzzle shows the table as the seat saw it (its own
tiles only) and the choices the expert weighed, in a fixed order that tells nothing (by their
names); the player picks one by its number, and then sees the expert's figures: its choice,
each choice's expected points, the answer's and the game's own action marked.
"""

from __future__ import annotations

from typing import Any, ClassVar

from rich.markup import escape
from textual.binding import Binding, BindingType

from engine.actions import Action
from engine.review import Assessment
from tui.apps.review import ReviewApp, ReviewScreen
from tui.words.review_text import move_no, value_text
from words import tr

CHOICES_MAX = 9  # the keys 1-9: a decision weighs at most a handful of actions


class PuzzleScreen(ReviewScreen):
    """The costly decisions of one seat as puzzles; q / Esc leaves."""

    ID, BODY = "pz", "page"

    BINDINGS: ClassVar[list[BindingType]] = [
        *(Binding(str(n), f"answer({n - 1})", f"Answer {n}", id=f"puzzle-{n}", show=False)
          for n in range(1, CHOICES_MAX + 1)),
    ]

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self.answers: dict[int, Action] = {}  # decision index -> the action the player chose

    # --- the puzzles: the decisions that lost points, the biggest loss first -------------------
    def puzzles(self) -> list[int]:
        return self.ranked()

    def choices(self, a: Assessment) -> list[Action]:
        """The actions the expert weighed, ordered by their names (not by their figures)."""
        return sorted((v.action for v in a.values), key=self._act)[:CHOICES_MAX]

    def _place(self) -> tuple[int, int]:
        """The puzzle shown: its place among the puzzles (1-based) and how many there are."""
        found = self.puzzles()
        return (found.index(self.page) + 1 if self.page in found else 0), len(found)

    # --- what is shown --------------------------------------------------------------------------
    def title_text(self) -> str:
        n = len(self.decisions)
        game = self.review.game
        progress = (tr(self.lang, "pz_found", n=len(self.puzzles())) if self.done >= n
                    else tr(self.lang, "pz_looking", done=self.done, n=n,
                            found=len(self.puzzles())))
        return f"{tr(self.lang, 'pz_title', id=game.label)} · {progress}"

    def keys_text(self) -> str:
        if self.page < 0:
            return tr(self.lang, "pz_list_keys")
        return tr(self.lang, "pz_keys" if self.page in self.answers else "pz_ask_keys")

    def _summary(self, width: int) -> list[str]:
        """The puzzles found so far: where each is, nothing of its answer."""
        found = self.puzzles()
        lines = [f"[b]{escape(tr(self.lang, 'pz_head'))}[/]", ""]
        if not found:
            lines.append(escape(tr(self.lang, "pz_none_yet" if self.done < len(self.decisions)
                                   else "pz_none")))
        for n, i in enumerate(found):
            d = self.decisions[i]
            text = tr(self.lang, "pz_row", n=n + 1, hand=d.hand_no, move=move_no(d))
            if i in self.answers:
                text += "  ✓"
            lines.append(f"[b $turn]▶ {escape(text)}[/]" if n == self.cursor
                         else f"  {escape(text)}")
        return lines

    def _decision(self, i: int, width: int) -> list[str]:
        a = self.results.get(i)
        place, count = self._place()
        d = self.decisions[i]
        head = tr(self.lang, "pz_where", n=place, of=count, hand=d.hand_no, move=move_no(d))
        lines = [f"[b]{escape(head)}[/]"]
        if a is None:  # not a puzzle (yet): nothing to ask
            return lines
        table = ["", *self._table(d.view, width), "", *self._log(d.view)]
        chosen = self.answers.get(i)
        if chosen is None:
            lines.append(f"[b $turn]{escape(tr(self.lang, 'pz_ask'))}[/]")
            lines += [f"  {n + 1}  {escape(self._act(action))}"
                      for n, action in enumerate(self.choices(a))]
            return lines + table
        mine, best = a.value_of(chosen), a.value_of(a.choice)
        said = tr(self.lang, "pz_right" if chosen == a.choice else "pz_wrong",
                  action=self._act(chosen), expert=self._act(a.choice))
        lines.append(f"[b]{escape(said)}[/]")
        if mine is not None and best is not None and chosen != a.choice:
            lines.append(escape(tr(self.lang, "pz_versus", mine=value_text(mine.mean, mine.half),
                                   expert=value_text(best.mean, best.half))))
        named, rest = self._figures(i)  # the review's own: the game's action marked played
        return lines + named + rest + table

    # --- keys ---------------------------------------------------------------------------------
    def action_answer(self, n: int) -> None:
        a = self.results.get(self.page)
        if a is None or self.page in self.answers:
            return
        choices = self.choices(a)
        if n < len(choices):
            self.answers[self.page] = choices[n]
            self.refresh_view()

    def action_step(self, by: int) -> None:
        """The next (previous) puzzle, from the list the first (last)."""
        found = self.puzzles()
        if not found:
            return
        at = found.index(self.page) if self.page in found else (-1 if by > 0 else len(found))
        self._go(found[max(0, min(len(found) - 1, at + by))])

    def action_first(self) -> None:
        found = self.puzzles()
        if found:
            self._go(found[0])

    def action_last(self) -> None:
        found = self.puzzles()
        if found:
            self._go(found[-1])

    def action_open(self) -> None:
        found = self.puzzles()
        if self.page < 0 and found:
            self._go(found[min(self.cursor, len(found) - 1)])


class PuzzleApp(ReviewApp):
    """The puzzles on their own: leaving them ends the app."""

    TITLE = "mahjong-ssh puzzles"
    SCREEN = PuzzleScreen
