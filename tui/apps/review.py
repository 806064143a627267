"""The review of one's own play in a finished game, by the ``expert`` computer player.

:class:`ReviewScreen` steps through one seat's decisions (``engine.review``): the table as that
seat saw it (its own concealed tiles only, never another seat's, although the record holds
them), the action it played, the expert's choice and each weighed action's expected points for
the seat with its 95% interval, and why the expert plays what its figures alone do not explain
(:func:`tui.words.review_text.why_lines`). Its first page (and ``s``) is the summary: the
biggest losses first, Enter opens one.

The assessments cost 50–400 ms of CPU each, so they never run on the event loop or in a thread
of it: the screen hands them to a ``submit`` function (a process pool's, see
:mod:`host.review_pool`), the decision shown first and then the rest in order, at most
:data:`IN_FLIGHT` at a time (a pool shared by several reviews serves them in turn), and shows
"assessing 12/87" as the answers come in. Leaving the screen cancels what is still queued.

The screen opens in its own app (``mahjong-ssh review FILE``, ``ssh host review ID``:
:class:`ReviewApp`) or over a game's game-over screen (``r``), where a
:class:`ReviewSource` gives the game's record and the pool.
"""

from __future__ import annotations

import asyncio
import contextlib
import itertools
from collections.abc import Callable, Sequence
from concurrent.futures import Executor, Future
from dataclasses import dataclass, field
from functools import partial
from pathlib import Path
from typing import Any, ClassVar, Protocol

from rich.cells import cell_len
from rich.markup import escape
from textual.binding import Binding, BindingType
from textual.containers import VerticalScroll

from engine.actions import Action
from engine.bots.expert import ActionValue
from engine.record import RecordError
from engine.replay import read_game
from engine.review import REVIEW_SAMPLES, Assessment, Decision, Kept, assess, decisions
from engine.tiles import Kind
from engine.view import View
from host.client import TableUpdate
from host.review_pool import niced_pool
from tui.apps.replay import ReplayGame, ViewerScreen
from tui.apps.standalone import StandaloneApp
from tui.compat import internals
from tui.settings import Settings
from tui.view.board_lines import event_markups, hand_items, seat_head, seat_lines, wall_line
from tui.view.faces import Face, small
from tui.words.review_text import (
    action_text,
    move_no,
    summary_lines,
    value_text,
    verdict,
    why_lines,
)
from tui.words.ruleset_title import rules_title
from words import relative_name, seat_wind, tr

IN_FLIGHT = 2  # assessments one review has queued at once: one running, the next ready
LOG_MOVES = 4  # the latest moves shown above the figures

Submit = Callable[[Decision, int], "Future[Assessment]"]


class ReviewUnavailable(Exception):
    """The review cannot open (no record kept, a spectator, a record that cannot be read):
    the message says why, in the player's language."""


class ReviewSource(Protocol):
    """Where a game-over screen's review comes from: the game's record, and the process pool
    the assessments run in."""

    @property
    def samples(self) -> int:
        """Sampled hidden hands per weighed action."""

    async def game(self, update: TableUpdate, lang: str) -> ReplayGame:
        """The finished game of ``update`` (its game-over view); :class:`ReviewUnavailable`
        saying why not."""

    def submit(self, decision: Decision, samples: int) -> Future[Assessment]:
        """Assess ``decision`` in another process."""


@dataclass(frozen=True)
class ReviewGame:
    """A game's record and the decisions of the reviewed seat in it."""

    game: ReplayGame
    seat: int
    decisions: tuple[Decision, ...] = field(default=())

    @classmethod
    def of(cls, game: ReplayGame, seat: int) -> ReviewGame:
        """The seat's decisions read from the record (a few ms per hand: off the loop on a
        server)."""
        return cls(game, seat, tuple(decisions(game.steps, seat)))


class ReviewScreen(ViewerScreen):
    """One seat's decisions, the summary first; q / Esc leaves (the screen is dismissed)."""

    ID, BODY = "rv", "page"

    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("right", "step(1)", "Next decision", id="review-next", show=False,
                priority=True),
        Binding("left", "step(-1)", "Previous decision", id="review-prev", show=False,
                priority=True),
        Binding("home", "first", "First decision", id="review-first", show=False,
                priority=True),
        Binding("end", "last", "Last decision", id="review-last", show=False, priority=True),
        Binding("up", "cursor(-1)", "Summary: up", id="review-up", show=False, priority=True),
        Binding("down", "cursor(1)", "Summary: down", id="review-down", show=False,
                priority=True),
        Binding("enter", "open", "Summary: open", id="review-open", show=False, priority=True),
        Binding("s", "summary", "Summary", id="review-summary", show=False),
        Binding("q,escape", "leave", "Leave", id="review-quit", show=False),
    ]

    def __init__(self, review: ReviewGame, lang: str, face: Face, submit: Submit,
                 samples: int = REVIEW_SAMPLES) -> None:
        super().__init__(lang, face)
        self.review = review
        self.submit = submit
        self.samples = samples
        self.page = -1  # -1: the summary; else the index of the decision shown
        self.cursor = 0  # the summary's highlighted row
        self.results: dict[int, Assessment] = {}
        self.failed: dict[int, str] = {}
        self._pending: dict[int, asyncio.Future[Assessment]] = {}
        self._stopped = False

    @property
    def decisions(self) -> tuple[Decision, ...]:
        return self.review.decisions

    @property
    def done(self) -> int:
        """Decisions assessed (or given up on)."""
        return len(self.results) + len(self.failed)

    @property
    def pending(self) -> int:
        """Assessments queued or running for this screen now."""
        return len(self._pending)

    # --- the assessments, in another process ------------------------------------------------
    def _wanted(self) -> int | None:
        """The next decision to assess: the one shown, then those after it, then the rest."""
        n = len(self.decisions)
        start = max(self.page, 0)
        for i in itertools.chain(range(start, n), range(start)):
            if i not in self.results and i not in self.failed and i not in self._pending:
                return i
        return None

    def _pump(self) -> None:
        while not self._stopped and len(self._pending) < IN_FLIGHT:
            i = self._wanted()
            if i is None:
                return
            try:
                fut = asyncio.wrap_future(self.submit(self.decisions[i], self.samples))
            except Exception as exc:  # a pool shut down or broken: said on the page
                self.failed[i] = str(exc) or type(exc).__name__
                continue
            self._pending[i] = fut
            fut.add_done_callback(partial(self._arrived, i))  # in this app's context

    def _arrived(self, i: int, fut: asyncio.Future[Assessment]) -> None:
        self._pending.pop(i, None)
        if self._stopped or fut.cancelled():
            return
        try:
            exc = fut.exception()
            if exc is not None:
                self.failed[i] = str(exc) or type(exc).__name__
            else:
                self.results[i] = fut.result()
            self._pump()
            self.refresh_view()
        except Exception as error:  # as Textual does for an error in a handler
            internals.handle_exception(self.app, error)

    def stop(self) -> None:
        """Cancel what is still queued (a running assessment ends in its process and is
        dropped)."""
        self._stopped = True
        pending, self._pending = self._pending, {}
        for fut in pending.values():
            fut.cancel()

    def on_mount(self) -> None:
        self._pump()
        self.refresh_view()

    def on_unmount(self) -> None:
        self.stop()

    # --- what is shown ------------------------------------------------------------------------
    def seat_name(self, seat: int) -> str:
        """``E ann``; a seat without a name is a computer's, but for the reviewed one."""
        name = self.review.game.names[seat] or (
            "" if seat == self.review.seat else tr(self.lang, "bot_name"))
        return f"{seat_wind(seat, self.lang)} {name}".strip()

    def title_text(self) -> str:
        game, n = self.review.game, len(self.decisions)
        title = tr(self.lang, "rv_title", id=game.label, rules=rules_title(game.rules, self.lang),
                   seat=self.seat_name(self.review.seat))
        progress = (tr(self.lang, "rv_assessed", n=n) if self.done >= n
                    else tr(self.lang, "rv_assessing", done=self.done, n=n))
        return f"{title} · {progress}"

    def where_text(self, i: int) -> str:
        """Which decision ``i`` is: ``decision 12/40 · hand 2 move 43``."""
        d = self.decisions[i]
        return tr(self.lang, "rv_where", i=i + 1, n=len(self.decisions), hand=d.hand_no,
                  move=move_no(d))

    def keys_text(self) -> str:
        return tr(self.lang, "rv_summary_keys" if self.page < 0 else "rv_keys")

    def ranked(self) -> list[int]:
        """The summary's rows: the decisions that lost points, the biggest loss first."""
        lost = [i for i, a in self.results.items() if a.loss > 0]
        return sorted(lost, key=lambda i: (-self.results[i].loss, i))

    def body_lines(self, width: int) -> list[str]:
        if self.page < 0:
            return self._summary(width)
        return self._decision(self.page, width)

    def _summary(self, width: int) -> list[str]:
        done = [self.results[i] for i in sorted(self.results)]
        n = len(self.decisions)
        head = summary_lines(done, self.lang, n, rows=0, pending=n - self.done)
        lines = [f"[b]{escape(head[0])}[/]", *(escape(x) for x in head[1:])]
        rows = self.ranked()
        if rows:
            lines += ["", escape(tr(self.lang, "rv_summary_list"))]
        for n, i in enumerate(rows):
            a = self.results[i]
            d = a.decision
            text = tr(self.lang, "rv_summary_row", hand=d.hand_no, move=move_no(d),
                      taken=self._act(d.taken), choice=self._act(a.choice), loss=a.loss)
            if n == self.cursor:
                lines.append(f"[b $turn]▶ {escape(text)}[/]")
            else:
                lines.append(f"  {escape(text)}")
        for i, why in sorted(self.failed.items()):
            failed = tr(self.lang, "rv_failed", why=why)
            lines.append(f"[$error]{escape(self.where_text(i))}: {escape(failed)}[/]")
        return lines

    def _tile(self, kind: Kind) -> str:
        return small(kind, self.face).strip()

    def _act(self, action: Any) -> str:
        return action_text(action, self.lang, self._tile,
                           lambda ks: "".join(self._tile(k) for k in ks))

    def _decision(self, i: int, width: int) -> list[str]:
        """Where, the figures the labels speak of (the played action's, the expert's choice's
        and the better one a "why" names: at 80×24 they were below the fold under a long
        list), the table and its latest moves, then the other choices' figures."""
        d = self.decisions[i]
        named, rest = self._figures(i, width)
        lines = [f"[b]{escape(self.where_text(i))}[/]", *named, "", *self._table(d.view, width),
                 ""]
        lines += self._log(d.view)
        if rest:
            lines += ["", escape(tr(self.lang, "rv_values_rest")), *rest]
        return lines

    def _table(self, view: View, width: int) -> list[str]:
        """The table as the seat saw it: its own tiles; of the others only how many."""
        me = self.review.seat
        lines: list[str] = []
        for r in range(4):
            s = (me + r) % 4
            p = view.seats[s]
            head = seat_head(view.current == s, s == view.dealer,
                             f"{relative_name(me, s, self.lang)} {self.seat_name(s)}")
            if s == me:
                items = hand_items(view.hand, view.drawn, p.melds, self.face, self.lang,
                                   view.wild)
            else:
                hidden = tr(self.lang, "rv_hidden", n=p.concealed_count)
                items = [(f"[$tile-back]{escape(hidden)}[/]", cell_len(hidden)),
                         *hand_items((), None, p.melds, self.face, self.lang)]
            if p.ting:
                flag = tr(self.lang, "flag_ting")
                items.append((escape(flag), cell_len(flag)))
            lines += seat_lines(head, items, p, self.face, self.lang, width)
        lines.append(wall_line(view.wild, view.wild_indicator, view.remaining, self.face,
                               self.lang))
        return lines

    def _log(self, view: View) -> list[str]:
        shown = event_markups(view.events, self.review.seat, self.lang, self.face)
        if not shown:
            return ["  " + escape(tr(self.lang, "rp_start"))]
        return ["  " + " · ".join(shown[-LOG_MOVES:])]

    def _figures(self, i: int, width: int | None = None) -> tuple[list[str], list[str]]:
        """The decision's figures: the lines that name an action, with the rows of those
        actions; and the rows of the others. Rows wider than ``width`` are set closer (a long
        name such as a chow's, beside its figures and marks, would wrap its mark)."""
        d = self.decisions[i]
        lines = [f"[b]{escape(tr(self.lang, 'rv_played', action=self._act(d.taken)))}[/]"]
        a = self.results.get(i)
        if a is None:
            why = self.failed.get(i)
            text = tr(self.lang, "rv_failed", why=why) if why else tr(self.lang, "rv_waiting")
            lines.append(f"[$text-muted]{escape(text)}[/]" if why is None
                         else f"[$error]{escape(text)}[/]")
            return lines, []
        expert = tr(self.lang, "rv_expert", action=self._act(a.choice))
        said = verdict(a, self.lang) if a.weighed or a.agrees else ""
        lines.append(f"[b $turn]{escape(expert)}[/]" + (f"  · {escape(said)}" if said
                                                    else ""))
        lines += [escape(why) for why in why_lines(a, self.lang, self._act)]
        if not a.weighed:
            lines.append(escape(tr(self.lang, "rv_not_weighed", action=self._act(a.choice))))
            return lines, []
        samples = a.values[0].samples
        lines.append(escape(tr(self.lang, "rv_values_head", samples=samples)))
        names = [self._act(v.action) for v in a.values]
        col = max(cell_len(x) for x in names) + 2
        spoken = {d.taken, a.choice}
        if a.better is not None and a.kept is not Kept.BEST:  # named by a "why" line
            spoken.add(a.better.action)
        rest: list[str] = []
        figures = [value_text(v.mean, v.half) for v in a.values]
        texts = self._rows(a.values, names, figures, d.taken, a.choice, col, 14)
        if width is not None and max(cell_len(t) for t in texts) > width:
            texts = self._rows(a.values, names, figures, d.taken, a.choice, col - 1,
                               max(len(f) for f in figures) + 1)
        for v, text in zip(a.values, texts, strict=True):
            style = "b $turn" if v.action == a.choice else "b" if v.action == d.taken else ""
            (lines if v.action in spoken else rest).append(
                f"[{style}]{escape(text)}[/]" if style else escape(text))
        return lines, rest

    def _rows(self, values: Sequence[ActionValue], names: Sequence[str], figures: Sequence[str],
              taken: Action, choice: Action, col: int, figure_w: int) -> list[str]:
        """Each choice's row: its name in ``col`` cells, its figure right-aligned in
        ``figure_w``, its gain over the played one, and its marks."""
        texts = []
        for v, name, figure in zip(values, names, figures, strict=True):
            marks = []
            if v.action == taken:
                marks.append(tr(self.lang, "rv_mark_played"))
            if v.action == choice:
                marks.append(tr(self.lang, "rv_mark_expert"))
            lead = "▶ " if v.action == choice else "  "
            text = f"{lead}{name}{' ' * (col - cell_len(name))}{figure:>{figure_w}}"
            if v.action != taken:  # measured on the same samples: a narrow interval
                text += "  " + tr(self.lang, "rv_versus", gain=value_text(v.gain, v.gain_half))
            if marks:
                text += "  ← " + ", ".join(marks)
            texts.append(text)
        return texts

    def refresh_view(self) -> None:
        if not self._stopped:
            super().refresh_view()

    # --- keys ---------------------------------------------------------------------------------
    def _go(self, page: int) -> None:
        self.page = max(-1, min(page, len(self.decisions) - 1))
        self._pump()
        self.refresh_view()
        with contextlib.suppress(Exception):
            self.query_one("#rv-body", VerticalScroll).scroll_home(animate=False)

    def action_step(self, by: int) -> None:
        self._go(self.page + by)

    def action_first(self) -> None:
        self._go(0 if self.decisions else -1)

    def action_last(self) -> None:
        self._go(len(self.decisions) - 1)

    def action_summary(self) -> None:
        self._go(-1)

    def action_cursor(self, by: int) -> None:
        if self.page >= 0:
            body = self.query_one("#rv-body", VerticalScroll)
            body.scroll_relative(y=by, animate=False)
            return
        rows = self.ranked()
        self.cursor = max(0, min(self.cursor + by, len(rows) - 1))
        self.refresh_view()
        # keep the highlighted row in sight: the summary's head takes 3 lines
        body = self.query_one("#rv-body", VerticalScroll)
        row = self.cursor + 3
        if row >= body.scroll_y + body.size.height - 1:
            body.scroll_to(y=row - body.size.height + 2, animate=False)
        elif row < body.scroll_y:
            body.scroll_to(y=row, animate=False)

    def action_open(self) -> None:
        rows = self.ranked()
        if self.page < 0 and rows:
            self._go(rows[min(self.cursor, len(rows) - 1)])

    def action_leave(self) -> None:
        self.stop()
        if self.is_active:
            self.dismiss(None)


class ReviewApp(StandaloneApp):
    """The review on its own (``mahjong-ssh review FILE``): leaving it ends the app."""

    TITLE = "mahjong-ssh review"
    SCREEN: ClassVar[type[ReviewScreen]] = ReviewScreen  # the puzzles' is another

    def __init__(self, review: ReviewGame, submit: Submit, settings: Settings | None = None,
                 samples: int = REVIEW_SAMPLES) -> None:
        super().__init__(settings)
        self.review = review
        self.submit = submit
        self.samples = samples

    def on_mount(self) -> None:
        self.apply_settings_theme()
        self.push_screen(self.SCREEN(self.review, self.settings.lang, self.face, self.submit,
                                     self.samples), callback=lambda _: self.exit())


class FileReviews:
    """``play``'s :class:`ReviewSource`: the record the game wrote to its file, and a process
    pool of its own (made when the first review asks; :meth:`close` when the app ends)."""

    def __init__(self, path: Callable[[], Path | None], samples: int = REVIEW_SAMPLES) -> None:
        self.path = path
        self.samples = samples
        self._pool: Executor | None = None

    async def game(self, update: TableUpdate, lang: str) -> ReplayGame:
        path = self.path()
        if path is None:
            raise ReviewUnavailable(tr(lang, "rv_no_game"))
        try:
            text = await asyncio.to_thread(path.read_text, encoding="utf-8")
            steps = await asyncio.to_thread(read_game, text)
        except (OSError, UnicodeDecodeError, RecordError, RecursionError) as exc:
            raise ReviewUnavailable(tr(lang, "rv_not_found", why=exc)) from None
        return ReplayGame(steps, names=update.names, label=path.name)

    def submit(self, decision: Decision, samples: int) -> Future[Assessment]:
        if self._pool is None:
            self._pool = niced_pool()
        return self._pool.submit(assess, decision, samples)

    def close(self) -> None:
        pool, self._pool = self._pool, None
        if pool is not None:
            pool.shutdown(wait=False, cancel_futures=True)


def pool_submit(pool: Executor) -> Submit:
    """The ``submit`` of a review whose assessments run in ``pool`` (a process pool:
    :func:`host.review_pool.niced_pool`)."""
    def submit(decision: Decision, samples: int) -> Future[Assessment]:
        return pool.submit(assess, decision, samples)

    return submit

