"""The ``mahjong-ssh`` command: its parser, and the dispatch to each sub-command.

The commands that need no network live beside this module (``score``, ``simulate``,
``records``); ``serve`` and ``backup`` run in ``net``, ``play`` in ``tui``. This package is
the process's edge: it reads arguments and files, prints, and times.
"""

from __future__ import annotations

import argparse
import contextlib
import os
import sys
from pathlib import Path

from cli import arena, botcheck, find, records, review, score, simulate
from cli.args import play_levels, port, positive, seat_levels, seconds, share, whole
from engine.rulesets import RULESETS
from themes import THEME_NAMES

NO_BAR = "no progress bar on stderr (there is none when stderr is not a terminal)"

# serve, backup and play import their packages inside their functions, on purpose: the
# offline commands (score above all) start without loading asyncssh, asyncio, SQLite or the
# Textual app.


def cmd_serve(args: argparse.Namespace) -> int:
    from net import serve  # here: asyncssh and Textual (see above)

    return int(serve.main(args))


def cmd_backup(args: argparse.Namespace) -> int:
    """``mahjong-ssh backup [--data DIR] [--force] FILE``: exit 0 with what it wrote, 1 with
    one line saying why not."""
    from host.local import default_data_dir  # here: asyncio
    from net.store import StorageError, backup  # here: SQLite (see above)

    data = Path(args.data) if args.data else default_data_dir()
    try:
        report = backup(data / "mahjong.sqlite3", Path(args.file), force=args.force)
    except StorageError as exc:
        print(f"mahjong-ssh backup: {exc}", file=sys.stderr)
        return 1
    print(report.describe())
    print(f"to restore: stop the server, copy {report.path} over {data / 'mahjong.sqlite3'}, "
          f"remove mahjong.sqlite3-wal and mahjong.sqlite3-shm beside it, start the server")
    return 0


def cmd_play(args: argparse.Namespace) -> int:
    from tui import play
    from tui.compat import compat_textual  # here: Textual

    compat_textual.apply()
    return int(play.main(args))


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="mahjong-ssh",
        description="Chinese regional mahjong (宜春 Yichun, 上饶 Shangrao, 个旧 Gejiu) "
        "for four players over SSH.",
    )
    sub = parser.add_subparsers(dest="command", required=True)
    rules = sorted(RULESETS)

    p = sub.add_parser("serve", help="run the SSH server")
    p.add_argument("--host", default="127.0.0.1")
    p.add_argument("--port", type=port, default=2222)
    p.add_argument("--data", default=None, type=os.path.expanduser,
                   help="data directory (host key, database; ~ is your home)")
    p.add_argument("--no-anonymous", action="store_true",
                   help="refuse clients without an SSH key")
    p.add_argument("--motd", type=os.path.expanduser, default=None, metavar="FILE",
                   help="a message of the day shown in the lobby (UTF-8 text, a few lines; "
                   "read again when it changes or on SIGHUP)")
    p.add_argument("--allow", type=os.path.expanduser, default=None, metavar="FILE",
                   help="admit only these public keys (one a line, as in authorized_keys; "
                   "keyless logins refused); read again when it changes or on SIGHUP")
    p.add_argument("--operators", type=os.path.expanduser, default=None, metavar="FILE",
                   help="the operators' public keys (one a line, as in authorized_keys): "
                   "who, announce, kick, mute, ban... over SSH; read again when it changes "
                   "or on SIGHUP")
    p.add_argument("--grace", type=seconds, default=None,
                   help="seconds a dropped player's seat waits before a computer player takes "
                   "it (default 20)")
    p.add_argument("--bot-delay", type=seconds, default=None,
                   help="computer players' pause before a move, seconds (default 0.5)")
    p.add_argument("--think-workers", type=whole(0, 256), default=None, metavar="N",
                   help="processes the expert computer players think in (default: one per "
                   "core but one; 0: a thread of the server instead)")
    p.add_argument("--think-share", type=share, default=None, metavar="F",
                   help="the CPU seconds of those processes one table's expert players may use "
                   "per second, on average (default 0.5); beyond it hard decides")
    p.add_argument("--max-per-address", type=positive, default=None,
                   help="connections allowed from one address (default 20)")
    p.add_argument("--limit", action="append", default=[], metavar="NAME=VALUE",
                   help="change one limit on what clients control (repeatable; the names are "
                   "net/limits.py's fields, e.g. chat_per_minute=10, tables_total=50)")
    p.add_argument("--limits", type=Path, default=None, metavar="FILE",
                   help="limits from a TOML file's [limits] table (--limit words win)")
    p.add_argument("--workers", type=positive, default=None, metavar="N",
                   help="run N worker processes sharing the port (any accepts any "
                   "connection; a table lives in one and survives it): a NATS server is "
                   "started for them unless --nats is given")
    p.add_argument("--nats", default=None, metavar="URL",
                   help="the NATS server the workers of every machine join "
                   "(nats://HOST:4222); alone, this process is one worker of that server")
    p.add_argument("--db", default=None, metavar="URL",
                   help="the database the workers share: postgresql://... for several "
                   "machines (default: the SQLite file in the data directory)")
    p.add_argument("--lan", action="store_true",
                   help="announce the server and its tables on the local network (multicast "
                   "DNS), for `mahjong-ssh find`; with --host 127.0.0.1 only this machine "
                   "sees it")
    p.add_argument("--metrics", default=None, metavar="HOST:PORT",
                   help="serve Prometheus figures at http://HOST:PORT/metrics (off by "
                   "default; a port alone binds 127.0.0.1; worker K of --workers N uses "
                   "PORT+K-1)")
    p.add_argument("--log-format", choices=("text", "json"), default=None,
                   help="the log's lines: key=value (text, the default) or one JSON object "
                   "each, naming the account, address and table they are about")
    p.add_argument("--worker", type=positive, default=None, help=argparse.SUPPRESS)
    p.set_defaults(func=cmd_serve)

    p = sub.add_parser("backup", help="copy the server's database while it runs (SQLite's "
                       "online backup); restore: stop the server, copy the file over "
                       "DATA/mahjong.sqlite3, remove its -wal and -shm files")
    p.add_argument("--data", default=None, type=os.path.expanduser,
                   help="the server's data directory")
    p.add_argument("--force", action="store_true", help="replace FILE if it exists")
    p.add_argument("file", help="the backup to write (refused if it exists, unless --force)")
    p.set_defaults(func=cmd_backup)

    p = sub.add_parser("play", help="play against three computer players in this terminal")
    p.add_argument("--rules", choices=rules, default=None)
    p.add_argument("--seed", type=int, default=None)
    p.add_argument("--lang", choices=["zh", "en"], default=None)
    p.add_argument("--tiles", choices=["cjk", "glyph", "ascii"], default=None)
    p.add_argument("--theme", choices=THEME_NAMES, default=None)
    p.add_argument("--ambiwidth", choices=["narrow", "wide"], default=None,
                   help="whether this terminal draws East Asian ambiguous-width characters "
                   "(box lines, dots, arrows) one cell or two; asked of the terminal when not "
                   "given")
    p.add_argument("--bots", type=play_levels, default=None, metavar="LEVEL[,LEVEL,LEVEL]",
                   help="computer players: easy, normal (default), hard or expert; one, or "
                   "one per seat S,W,N")
    p.add_argument("--data", default=None, type=os.path.expanduser,
                   help="data directory (game records go to DATA/records)")
    p.add_argument("--plain", action="store_true",
                   help="plain mode for screen readers: the table as lines of text on "
                   "standard input and output, each move a sentence (type help in it)")
    p.set_defaults(func=cmd_play)

    p = sub.add_parser("simulate", help="computer players play; every invariant is checked")
    p.add_argument("--rules", choices=rules, required=True)
    p.add_argument("--hands", type=positive, default=1000,
                   help="hands played (default 1000); with --duplicate a multiple of 4, "
                   "HANDS/4 deals each played 4 times")
    p.add_argument("--seed", type=int, default=1)
    p.add_argument("--option", action="append", metavar="KEY=VALUE")
    p.add_argument("--json", action="store_true")
    p.add_argument("--fast", action="store_true", help="skip the per-action checks")
    p.add_argument("--record", metavar="FILE", help="write every hand's game record to FILE")
    p.add_argument("--seats", type=seat_levels, metavar="L,L,L,L",
                   help="computer level per seat E,S,W,N (easy, normal, hard, expert); "
                   "default all easy")
    p.add_argument("--duplicate", action="store_true",
                   help="duplicate (1 vs 3 rotation): play every deal (a hand's seed, dealer "
                   "and zero scores) 4 times, seat s getting level L[(s - r) %% 4] in play r, "
                   "with fresh players each play; statistics per level, the 95%% interval "
                   "over deals. Needs --seats")
    p.add_argument("--jobs", type=whole(1, 256), default=1, metavar="N",
                   help="play in N processes (default 1): the same results, sooner on a "
                   f"machine with N cores (this one has {os.cpu_count()})")
    p.add_argument("--quiet", action="store_true", help=NO_BAR)
    p.set_defaults(func=simulate.cmd_simulate)

    p = sub.add_parser("replay", help="re-run a game record, check it, print the result "
                       "(--view: step through it in this terminal)")
    p.add_argument("file")
    p.add_argument("--view", action="store_true",
                   help="open the replay viewer: a hand at a time, move by move, every hand "
                   "open")
    p.add_argument("--lang", choices=["zh", "en"], default=None)
    p.add_argument("--tiles", choices=["cjk", "glyph", "ascii"], default=None)
    p.add_argument("--quiet", action="store_true", help=NO_BAR)
    p.set_defaults(func=records.cmd_replay)

    p = sub.add_parser("record", help="play a game with computer players and write its record")
    p.add_argument("--rules", choices=rules, required=True)
    p.add_argument("--seed", type=int, default=1)
    p.add_argument("--hands", type=positive, default=1)
    p.add_argument("--option", action="append", metavar="KEY=VALUE")
    p.add_argument("--out", default="-")
    p.add_argument("--quiet", action="store_true", help=NO_BAR)
    p.set_defaults(func=records.cmd_record)

    review.add_parser(sub)
    arena.add_parser(sub, rules)
    botcheck.add_parser(sub)
    score.add_parser(sub)
    find.add_parser(sub)
    return parser


def main(argv: list[str] | None = None) -> int:
    parser = build_parser()
    args = parser.parse_args(argv)
    try:
        return int(args.func(args))
    except KeyboardInterrupt:
        return 130
    except BrokenPipeError:  # the reader closed the output (| head): stop quietly
        with contextlib.suppress(OSError):
            sys.stdout = open(os.devnull, "w")  # noqa: SIM115 (no flush error at exit)
        return 0


if __name__ == "__main__":
    sys.exit(main())
