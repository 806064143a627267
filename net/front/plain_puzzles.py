"""Puzzles in plain mode (``ssh -t HOST puzzles ID --plain``, or with the plain setting on): the
screen's puzzles (:mod:`tui.apps.puzzles`) as lines of text for a screen reader.

The game's decisions of the account's seat are assessed by the server's review process, two at
a time as the review screen asks (other reviews take their turns), a line saying how far it
is every :data:`PROGRESS_EVERY`; then each costly decision, the biggest loss first: where it
is, the table as the seat saw it (its own tiles only) in plain mode's sentences, the choices
the expert weighed by number in the order of their names; the player types a number, and
hears the answer against the expert's choice and the review's line of that decision (what was
played, the expert's choice, every choice's figures); Enter goes on, ``q`` leaves.
"""

from __future__ import annotations

import asyncio
from collections.abc import Callable

from engine.actions import Action
from engine.review import Assessment, Decision
from host.client import TableUpdate
from net.front.plain_session import PlainChannel
from net.front.reviewing import ReviewPool
from tui.apps.review import IN_FLIGHT, ReviewGame
from tui.plain.sentences import Sentences
from tui.words.review_text import action_text, decision_line, move_no, value_text
from words import tr

PROGRESS_EVERY = 10  # decisions assessed between two lines saying how far it is
QUIT = ("q", "quit", "exit", "退出", "离开")


async def assess_all(pool: ReviewPool, decisions: tuple[Decision, ...],
                     progress: Callable[[int], None]) -> dict[int, Assessment]:
    """Every decision's assessment (those that failed left out), :data:`IN_FLIGHT` at a time;
    ``progress`` told how many are done now and then."""
    results: dict[int, Assessment] = {}
    done = 0
    pending: set[asyncio.Future[tuple[int, Assessment]]] = set()

    async def one(i: int) -> tuple[int, Assessment]:
        return i, await asyncio.wrap_future(pool.submit(decisions[i], pool.samples))

    todo = list(range(len(decisions)))
    try:
        while todo or pending:
            while todo and len(pending) < IN_FLIGHT:
                pending.add(asyncio.ensure_future(one(todo.pop(0))))
            finished, pending = await asyncio.wait(pending,
                                                   return_when=asyncio.FIRST_COMPLETED)
            for f in finished:
                done += 1
                if f.exception() is None:
                    i, a = f.result()
                    results[i] = a
                if done % PROGRESS_EVERY == 0:
                    progress(done)
    finally:
        for f in pending:
            f.cancel()
    return results


async def plain_puzzles(channel: PlainChannel, pool: ReviewPool, review: ReviewGame,
                        lang: str) -> int:
    """The puzzles of ``review``'s seat, said and answered in lines; the exit status."""
    words = Sentences("zh" if lang == "zh" else "en")
    lang = words.lang
    out = channel.output
    n = len(review.decisions)
    out.say([tr(lang, "pz_title", id=review.game.label), tr(lang, "ppz_assessing", n=n)], "")
    results = await assess_all(pool, review.decisions,
                               lambda done: out.say([tr(lang, "ppz_progress", done=done, n=n)],
                                                    ""))
    found = sorted((i for i, a in results.items() if a.loss > 0),
                   key=lambda i: (-results[i].loss, i))
    if not found:
        out.say([tr(lang, "pz_none")], "")
        return 0

    def act(action: Action) -> str:
        return action_text(action, lang, words.tile, words.tiles)

    out.say([tr(lang, "pz_found", n=len(found))], "")
    for k, i in enumerate(found):
        a, d = results[i], review.decisions[i]
        view = d.view
        words.update = TableUpdate(view=view)
        choices = sorted((v.action for v in a.values), key=act)
        lines = [tr(lang, "pz_where", n=k + 1, of=len(found), hand=d.hand_no, move=move_no(d)),
                 *words.look_lines(words.update), words.hand_line(view),
                 tr(lang, "pz_ask"),
                 *(f"  {m + 1}: {act(c)}" for m, c in enumerate(choices))]
        out.say(lines, "> ")
        while True:
            line = await channel.next_line()
            if line is None or line.strip().lower() in QUIT:
                return 0
            typed = line.strip()
            if typed.isdigit() and 1 <= int(typed[:3]) <= len(choices):
                break
            out.say([tr(lang, "ppz_help", n=len(choices))], "> ")
        chosen = choices[int(typed[:3]) - 1]
        said = [tr(lang, "pz_right" if chosen == a.choice else "pz_wrong",
                   action=act(chosen), expert=act(a.choice))]
        mine, best = a.value_of(chosen), a.value_of(a.choice)
        if mine is not None and best is not None and chosen != a.choice:
            said.append(tr(lang, "pz_versus", mine=value_text(mine.mean, mine.half),
                           expert=value_text(best.mean, best.half)))
        said.append(decision_line(a, lang))
        last = k + 1 == len(found)
        out.say(said, tr(lang, "ppz_last" if last else "ppz_next") + " > ")
        line = await channel.next_line()
        if line is None or line.strip().lower() in QUIT:
            return 0
    return 0
