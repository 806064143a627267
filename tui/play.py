"""``mahjong-ssh play``: you against three computer players in this terminal (the table is
:class:`host.local.LocalTable`; this is the screen's side: settings, plain mode or the Textual
app, the terminal's probe)."""

from __future__ import annotations

import argparse
import asyncio
from pathlib import Path

from engine.bots import Player, make_player
from host.coach import Coach
from host.local import LocalTable, default_data_dir
from host.thinking import POOLED_LEVELS, PooledPlayer, ThinkingPool
from tui.settings import Settings
from words import computer_name


def main(args: argparse.Namespace) -> int:
    """Entry point of ``mahjong-ssh play``."""
    settings = Settings.load()
    for name in ("lang", "tiles", "theme"):  # given on the command line: for this game
        if getattr(args, name, None):
            setattr(settings, name, getattr(args, name))
    bots = getattr(args, "bots", None)
    levels = bots if isinstance(bots, tuple) else ("normal",) * 3  # checked by the parser
    # expert thinks in a worker process (one: a game of one player shares the machine with
    # nothing else of its own, and its seats think in turn), made lazily at the first decision
    thinking = ThinkingPool(1) if POOLED_LEVELS.intersection(levels) else None
    players: dict[int, Player] = {
        seat: PooledPlayer(thinking, level) if thinking is not None and level in POOLED_LEVELS
        else make_player(level) for seat, level in zip((1, 2, 3), levels, strict=True)}
    data = getattr(args, "data", None)
    record_dir = (Path(data) if data else default_data_dir()) / "records"
    table = LocalTable(bot_delay=settings.bot_delay, players=players, record_dir=record_dir,
                       bot_names={seat: computer_name(settings.lang, level)
                                  for seat, level in zip((1, 2, 3), levels, strict=True)},
                       thinking=thinking)
    if thinking is not None:
        thinking.warm()
    # the coach at a coach table (the option coach=on): the experts' pool, else one of its
    # own made at the first ask
    coach = Coach(thinking)
    if getattr(args, "plain", False) or settings.plain:  # lines of text (tui.plain.front)
        from tui.plain.terminal import run_local

        rules = getattr(args, "rules", None) or settings.rules
        try:
            return asyncio.run(run_local(table, settings.lang, rules,
                                         getattr(args, "seed", None),
                                         settings.options.get(rules, {}), settings=settings,
                                         coach=coach))
        except KeyboardInterrupt:
            return 130
        finally:
            coach.close()
            table.close()
    # here, not at the top: the rest of this module (the server's and backup's data directory,
    # the local table, plain mode) loads without Textual
    from tui.apps.app import MahjongApp
    from tui.compat.local_terminal import narrowing_driver, probe_tty

    early = b""
    if getattr(args, "ambiwidth", None):  # told: no need to ask the terminal
        settings.ambiwidth = args.ambiwidth
    else:  # East Asian ambiguous width: asked of the terminal before the first frame
        settings.detected, early = probe_tty()
    from tui.apps.review import FileReviews

    app = MahjongApp(
        table,
        settings,
        rules=getattr(args, "rules", None),
        seed=getattr(args, "seed", None),
    )
    reviews = FileReviews(lambda: table.record_path)  # r on the game-over screen
    app.review_source = reviews
    app.coach = coach
    app.driver_class = narrowing_driver(app.driver_class, wide=settings.ambiwide(),
                                        early=early)
    try:
        app.run()
    finally:
        reviews.close()
        coach.close()
    table.close()
    return 0
