"""The SSH command line: what a client types after ``ssh HOST`` (``join NAME --rules R
--option KEY=VALUE …``, ``watch NAME``, ``lobby``, ``stats``, ``help``, ``replay [ID]``,
``rename NEWNAME``, ``--lang zh|en``), read
into a :class:`Command` or refused with a :class:`CommandError`.

The server reads the channel's command with it and the lobby reads what its player types, so
both import it from here, and neither imports the other for it.
"""

from __future__ import annotations

import difflib
import shlex
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from rich.cells import cell_len

from engine.bots import LEVELS as COMPUTER_LEVELS
from engine.rulesets import DEFAULT_RULES, RULESETS, OptionError, find_ruleset, parse_option_pairs
from engine.tournament import TournamentError, parse_start
from net.game_id import LENGTH as ID_LENGTH
from net.game_id import parse_game_id
from net.limits import (
    TOURNAMENT_NAME_CELLS,
    TOURNAMENT_ROUND_MINUTES_MAX,
    TOURNAMENT_ROUNDS_MAX,
)
from net.runtime.config import parse_levels
from net.runtime.privacy import Privacy, parse_invites
from net.sanitize import TABLE_NAME_RULE, table_name, valid_table_name
from words import both, tr

COLUMN = " " * 42  # where the help says what a command does


def _row(command: str, text: str) -> str:
    """A command of the help, then what it does from :data:`COLUMN` (each line of ``text``
    there); on a line of its own below a command wider than the column."""
    lead, text = f"  {command}", text.replace("\n", "\n" + COLUMN)
    return f"{lead:<42}{text}" if len(lead) < len(COLUMN) else f"{lead}\n{COLUMN}{text}"


HELP_TEXT = "\n".join((
    "mahjong-ssh: Chinese regional mahjong ("
    + ", ".join(f"{cls.zh} {cls.en}" for cls in RULESETS.values()) + ") over SSH",
    "",
    _row("ssh -t -p PORT NAME@HOST", both("help_lobby")),
    _row("ssh -t -p PORT NAME@HOST join NAME [--rules yichun|shangrao|gejiu]\n"
         + " " * 27 + "[--option KEY=VALUE ...] [--bots easy|normal|hard|expert|L,L,L,L]\n"
         + " " * 27 + "[--private] [--invite NICK,NICK,SHA256:...] [--watchers yes|no]",
         both("help_join")),
    f"  --private {tr('zh', 'form_private')}: only you (its host) and those you invite may sit;"
    " strangers may\n    watch only with --watchers yes. At the table, in the chat (/): /invite"
    " NAME,\n    /uninvite NAME, /watchers on|off. --invite or --watchers alone make it private"
    " too.",
    f"  {tr('zh', 'help_close')}: {tr('en', 'help_close')}",
    f"  {both('help_options')}: base_point, hands_per_game, turn_seconds, claim_seconds,\n"
    "    time_bank (all; time_bank=20: 20 s a hand to think past the timers);\n"
    "    coach (all; coach=on: e asks the expert about your decision, never rated);\n"
    "    discarder_pays_double, max_lighters, spectator_stakes (yichun); discard_wins\n"
    "    (shangrao); first_roller (gejiu).  e.g. --option hands_per_game=4",
    _row("ssh -t -p PORT NAME@HOST watch NAME", both("help_watch")),
    _row("ssh -t -p PORT NAME@HOST lobby --lang zh",
         both("help_lang") + " (default: Chinese when your\nssh sends a zh_* LANG, as SendEnv "
         "LANG LC_* does)"),
    "  --plain after join NAME, watch NAME or lobby: "
    + both("help_plain").replace("\n", "\n" + COLUMN) + " (each move a sentence)",
    _row("ssh -p PORT NAME@HOST bot join NAME [--rules R] [--option KEY=VALUE ...] [--bots L]",
         both("help_bot")),
    _row("ssh -t -p PORT NAME@HOST join NAME --ambiwidth wide", both("help_ambiwidth", sep="\n")),
    _row("ssh -p PORT HOST stats", both("help_stats")),
    _row("ssh -t -p PORT NAME@HOST replay", both("help_replay")),
    _row("ssh -t -p PORT NAME@HOST replay ID", both("help_replay_id")),
    _row("ssh -t -p PORT NAME@HOST review [ID]", both("help_review")),
    _row("ssh -t -p PORT NAME@HOST puzzles [ID]", both("help_puzzles")),
    _row("ssh -p PORT NAME@HOST rename NEWNAME", both("help_rename")),
    _row("ssh -p PORT NAME@HOST report NAME REASON", both("help_report")),
    _row("ssh -p PORT NAME@HOST tournament new NAME --rounds K [--duplicate]\n"
         + " " * 27 + "[--minutes M] [--rules R] [--option KEY=VALUE ...]\n"
         + " " * 27 + "[--at HH:MM|2026-12-24T19:30+08:00] [--private --invite NICK,...]",
         both("help_tournament_new")),
    _row("ssh -p PORT NAME@HOST tournament join|start NAME", both("help_tournament_join")),
    _row("ssh -p PORT NAME@HOST tournament add NAME LEVEL", both("help_tournament_add")),
    _row("ssh -p PORT NAME@HOST tournament invite NAME NICK,...",
         both("help_tournament_invite")),
    _row("ssh -p PORT NAME@HOST tournament [NAME [--json]]", both("help_tournament")),
    _row("ssh -p PORT HOST help", both("help_help")),
    "",
    both("help_names", sep="\n"),
    both("help_start", sep="\n"),
    "",
))


@dataclass(frozen=True)
class Command:
    name: str  # "lobby", "join", "watch", "stats", "help"
    table: str = ""
    rules: str | None = None
    options: tuple[tuple[str, Any], ...] = ()  # table options for a new table
    bots: tuple[str, str, str, str] | None = None  # computer levels per seat E,S,W,N
    lang: str | None = None  # --lang: the table's language (None: from the client's locale)
    plain: bool = False  # --plain: lines of text for a screen reader, not the drawn table
    private: Privacy | None = None  # --private (--invite, --watchers): a private new table
    bot: bool = False  # ``bot join``: a program plays the seat over the bot protocol
    game_id: str = ""  # replay ID: the finished game (canonical, net.game_id); "": the list
    # --ambiwidth: how the terminal draws East Asian ambiguous characters (None: probed)
    ambiwidth: str | None = None
    nickname: str = ""  # rename NEWNAME: the name asked for, as typed (checked when run)
    words: tuple[str, ...] = ()  # an operator's command (net/front/operators.py), as typed
    # ``tournament``: words[0] is what it does (new, join, start, show, list); a new one's
    # rounds and format; --json: the whole result
    rounds: int = 0
    duplicate: bool = False
    as_json: bool = False
    round_minutes: int = 0  # --minutes: a round's time limit (0: none)
    # --at: a new one's set start as typed (engine.tournament.parse_start read it once; the
    # server reads it again against its clock)
    starts: str = ""


class CommandError(ValueError):
    """A refused command. ``shown``: the session prints the message and exits with status 2
    (any mistyped command); otherwise the channel is refused (a file-transfer client's)."""

    def __init__(self, message: str, shown: bool = False) -> None:
        super().__init__(message)
        self.shown = shown


COMMANDS = ("join", "watch", "lobby", "stats", "help", "bot", "replay", "review", "puzzles",
            "rename",
            "report",
            "tournament")
# an operator's (net/front/operators.py): checked when run, after the key (from another, the
# unknown command's answer, so that they stay out of the suggestions too)
OPERATOR_COMMANDS = frozenset({"who", "tables", "announce", "close", "kick", "mute", "unmute",
                               "ban", "unban", "bans", "audit", "reports"})
# file-transfer and repository clients speak a protocol on the channel: text would only
# confuse them, so their requests are refused outright
PROTOCOL_COMMANDS = frozenset({"scp", "sftp", "sftp-server", "internal-sftp", "rsync",
                               "git-upload-pack", "git-receive-pack", "git-upload-archive"})


def mistyped(problem: str) -> CommandError:
    """A command line the server cannot read, refused with what was wrong and the commands,
    as ``help`` prints them (the session exits with status 2)."""
    return CommandError(f"{problem}\n\n{both('help_commands')}:\n\n{HELP_TEXT}", shown=True)


def unknown_command(head: str) -> CommandError:
    close = difflib.get_close_matches(head.lower(), COMMANDS, n=1)
    hint = f" ({both('did_you_mean', command=close[0])})" if close else ""
    return mistyped(both("unknown_command", command=head[:30]) + hint)


JOIN_USAGE = ("join NAME [--rules yichun|shangrao|gejiu] [--option KEY=VALUE ...] "
              "[--bots LEVEL|L,L,L,L] [--private] [--invite A,B] [--watchers yes|no] "
              "[--lang zh|en] [--ambiwidth narrow|wide] [--plain]")
WATCH_USAGE = "watch NAME [--lang zh|en] [--ambiwidth narrow|wide] [--plain]"
LOBBY_USAGE = both("usage", usage="lobby [--lang zh|en] [--ambiwidth narrow|wide] [--plain]")
YES = ("yes", "y", "on", "true", "1")
NO = ("no", "n", "off", "false", "0")


def watchers_value(value: str) -> bool:
    word = value.strip().lower()
    if word not in YES + NO:
        raise CommandError(both("bad_watchers", value=value[:10]), shown=True)
    return word in YES
LANGS = ("en", "zh")
AMBIWIDTHS = ("narrow", "wide")


def ambiwidth_value(value: str) -> str:
    width = value.strip().lower()
    if width not in AMBIWIDTHS:
        raise CommandError(both("bad_ambiwidth", value=value[:10]), shown=True)
    return width


def lang_value(value: str) -> str:
    lang = value.strip().lower()
    if lang not in LANGS:
        raise CommandError(both("bad_lang", value=value[:10]), shown=True)
    return lang


def locale_lang(env: Mapping[str, Any] | None) -> str | None:
    """The language of the client's locale, if its ssh sent one (``SendEnv LANG LC_*``, on by
    default in Debian's ssh_config): "zh" for zh_CN.UTF-8 and the like, "en" for any other,
    None when none came. LC_ALL, then LC_MESSAGES, then LANG, as POSIX orders them."""
    if not env:
        return None
    for name in ("LC_ALL", "LC_MESSAGES", "LANG"):
        value = str(env.get(name) or "").strip()
        if value:
            return "zh" if value.lower().startswith("zh") else "en"
    return None


def parse_options(pairs: list[str]) -> dict[str, Any]:
    """``--option key=value`` pairs (the engine's one parser); the ruleset checks them later."""
    try:
        return parse_option_pairs(pairs)
    except OptionError as exc:
        raise CommandError(str(exc), shown=True) from None


def check_table_settings(rules: str | None, options: dict[str, Any]) -> None:
    """Validate a new table's options with its ruleset: CommandError with the engine's
    message (``OptionError``)."""
    try:
        find_ruleset(rules or DEFAULT_RULES, options)
    except (OptionError, ValueError) as exc:
        raise CommandError(str(exc), shown=True) from None


REPLAY_USAGE = "replay [ID] [--lang zh|en]"
REVIEW_USAGE = "review [ID] [--lang zh|en]"
PUZZLES_USAGE = "puzzles [ID] [--plain] [--lang zh|en]"


def _replay_command(rest: list[str], name: str = "replay") -> Command:
    """``replay`` (the list of one's games) or ``replay ID``, perhaps ``--lang``; the same
    for ``review`` and ``puzzles`` (``name``; the puzzles also ``--plain``)."""
    usage = {"review": REVIEW_USAGE, "puzzles": PUZZLES_USAGE}.get(name, REPLAY_USAGE)
    lang: str | None = None
    plain = False
    ids: list[str] = []
    i = 0
    while i < len(rest):
        flag, eq, value = rest[i].partition("=")
        if flag in ("--lang", "-l"):
            if not eq:
                if i + 1 >= len(rest):
                    raise CommandError(f"--lang needs a value; usage: {usage}",
                                       shown=True)
                value = rest[i + 1]
                i += 1
            lang = lang_value(value)
        elif rest[i] == "--plain" and name == "puzzles":
            plain = True
        elif rest[i].startswith("-"):
            raise CommandError(f"unknown argument {rest[i][:30]!r}; usage: {usage}",
                               shown=True)
        else:
            ids.append(rest[i])
        i += 1
    if len(ids) > 1:
        # "k7m2 x9qd": an ID read aloud in two groups
        ids = [" ".join(ids)] if len("".join(ids)) == ID_LENGTH else ids
    if len(ids) > 1:
        raise CommandError(f"one game ID at a time; usage: {usage}", shown=True)
    if not ids:
        return Command(name, lang=lang, plain=plain)
    game_id = parse_game_id(ids[0])
    if game_id is None:
        raise CommandError(both("bad_game_id", id=ids[0][:30]), shown=True)
    return Command(name, lang=lang, game_id=game_id, plain=plain)


TOURNAMENT_USAGE = ("tournament [NAME [--json]] · tournament new NAME [--rules R] "
                    "[--option KEY=VALUE ...] --rounds K [--duplicate] [--minutes M] "
                    "[--at HH:MM|ISO-8601] [--private --invite NICK,...] · "
                    "tournament join NAME · tournament start NAME · "
                    "tournament add NAME LEVEL · tournament invite NAME NICK,...")
TOURNAMENT_VERBS = ("new", "join", "start", "add", "invite")


def _tournament_command(rest: list[str]) -> Command:
    """``tournament`` (the list), ``tournament NAME [--json]``, ``tournament new NAME ...``,
    ``tournament join NAME``, ``tournament start NAME``, ``tournament add NAME LEVEL`` (a
    computer entered), ``tournament invite NAME NICK,...``: names and options bounded as a
    table's, invitations as a private table's."""
    def usage(problem: str = "") -> CommandError:
        lead = f"{problem}; " if problem else ""
        return CommandError(f"{lead}{both('usage', usage=TOURNAMENT_USAGE)}", shown=True)

    if not rest:
        return Command("tournament", words=("list",))
    verb = rest[0] if rest[0] in TOURNAMENT_VERBS else "show"
    args = rest[1:] if verb != "show" else rest
    if not args or args[0].startswith("-"):
        raise usage()
    name, extra = table_name(args[0]), args[1:]
    if not valid_table_name(name) or (verb == "new" and cell_len(name) > TOURNAMENT_NAME_CELLS):
        raise CommandError(both("tournament_bad_name", name=name[:30], n=TOURNAMENT_NAME_CELLS),
                           shown=True)
    if verb in ("join", "start"):
        if extra:
            raise usage(f"unknown argument {extra[0][:30]!r}")
        return Command("tournament", name, words=(verb,))
    if verb == "add":
        if len(extra) != 1 or extra[0] not in COMPUTER_LEVELS:
            raise usage(f"LEVEL: {', '.join(COMPUTER_LEVELS)}")
        return Command("tournament", name, words=(verb, extra[0]))
    if verb == "invite":
        try:
            names = parse_invites(" ".join(extra))
        except ValueError as exc:
            raise CommandError(str(exc), shown=True) from None
        if not names:
            raise usage("whom to invite?")
        return Command("tournament", name, words=(verb, *names))
    if verb == "show":
        if extra and extra != ["--json"]:
            raise usage(f"unknown argument {extra[0][:30]!r}")
        return Command("tournament", name, words=(verb,), as_json=bool(extra))
    rules: str | None = None
    pairs: list[str] = []
    rounds = minutes = 0
    duplicate = private = False
    starts = ""
    invited: tuple[str, ...] = ()
    i = 0
    while i < len(extra):
        flag, eq, value = extra[i].partition("=")
        if flag in ("--duplicate", "--private") and not eq:
            if flag == "--duplicate":
                duplicate = True
            else:
                private = True
            i += 1
            continue
        if flag not in ("--rules", "-r", "--option", "-o", "--rounds", "--minutes", "--at",
                        "--invite"):
            raise usage(f"unknown argument {extra[i][:30]!r}")
        if not eq:
            if i + 1 >= len(extra):
                raise usage(f"{flag} needs a value")
            value = extra[i + 1]
            i += 1
        i += 1
        if flag in ("--rules", "-r"):
            rules = value.lower()
        elif flag in ("--option", "-o"):
            pairs.append(value)
        elif flag == "--at":
            try:  # its form now; the server checks it against its clock
                parse_start(value, 0.0)
            except TournamentError:
                raise CommandError(both("tournament_at_bad", at=value[:40]), shown=True) from None
            starts = value
        elif flag == "--invite":
            try:
                invited = parse_invites(value)
            except ValueError as exc:
                raise CommandError(str(exc), shown=True) from None
        elif flag == "--minutes":
            minutes = int(value) if value.isdigit() and len(value) <= 4 else -1
            if not 1 <= minutes <= TOURNAMENT_ROUND_MINUTES_MAX:
                raise CommandError(both("tournament_minutes", n=TOURNAMENT_ROUND_MINUTES_MAX),
                                   shown=True)
        else:
            rounds = int(value) if value.isdigit() and len(value) <= 3 else -1
            if not 1 <= rounds <= TOURNAMENT_ROUNDS_MAX:
                raise CommandError(both("tournament_rounds", n=TOURNAMENT_ROUNDS_MAX),
                                   shown=True)
    if rounds == 0:
        raise usage("--rounds K is needed")
    if rules is not None and rules not in RULESETS:
        raise CommandError(f"unknown ruleset {rules!r}: {', '.join(RULESETS)}", shown=True)
    options = parse_options(pairs)
    if options:
        check_table_settings(rules, options)
    if invited and not private:
        raise usage("--invite is for a --private one")
    return Command("tournament", name, rules, tuple(sorted(options.items())), words=("new",),
                   rounds=rounds, duplicate=duplicate, round_minutes=minutes, starts=starts,
                   private=Privacy(invited) if private else None)


def parse_command(text: str | None) -> Command:
    if text is None or not text.strip():
        return Command("lobby")
    try:
        words = shlex.split(text)
    except ValueError as exc:
        raise mistyped(both("bad_command_line", problem=exc)) from None
    head, rest = words[0], words[1:]
    if head.rsplit("/", 1)[-1] in PROTOCOL_COMMANDS:
        raise CommandError("not a file server")
    if head in ("stats", "help"):
        if rest:
            raise mistyped(both("no_arguments", command=head, got=" ".join(rest)[:30]))
        return Command(head)
    if head == "lobby" or head.partition("=")[0] in ("--lang", "-l"):
        # the lobby, perhaps in a language: "lobby --lang zh" (ssh reads a --lang right after
        # the host as its own option: "ssh HOST -- --lang zh" passes it on)
        args = rest if head == "lobby" else words
        lobby_lang: str | None = None
        lobby_width: str | None = None
        plain = False
        i = 0
        while i < len(args):
            flag, eq, value = args[i].partition("=")
            if flag == "--plain" and not eq:
                plain = True
            elif flag in ("--lang", "-l", "--ambiwidth"):
                if not eq:
                    if i + 1 >= len(args):
                        raise CommandError(LOBBY_USAGE, shown=True)
                    i += 1
                    value = args[i]
                if flag == "--ambiwidth":
                    lobby_width = ambiwidth_value(value)
                else:
                    lobby_lang = lang_value(value)
            else:
                raise CommandError(LOBBY_USAGE, shown=True)
            i += 1
        return Command("lobby", lang=lobby_lang, plain=plain, ambiwidth=lobby_width)
    if head == "bot":
        if len(rest) < 2 or rest[0] != "join":
            raise CommandError(both("bot_usage", usage=JOIN_USAGE.replace(" [--lang zh|en]", "")),
                               shown=True)
        inner = parse_command(shlex.join(rest))
        if inner.lang is not None:
            raise CommandError(both("bot_lang"), shown=True)
        return Command("bot", inner.table, inner.rules, inner.options, inner.bots,
                       private=inner.private, bot=True)
    if head in ("replay", "review", "puzzles"):
        return _replay_command(rest, head)
    if head in OPERATOR_COMMANDS:
        return Command("op", words=tuple(words))
    if head == "report":  # checked when run (net/front/players.py)
        if len(rest) < 2:
            raise CommandError(both("usage", usage="report NAME REASON"), shown=True)
        return Command("report", words=tuple(rest))
    if head == "tournament":
        return _tournament_command(rest)
    if head == "rename":
        if len(rest) != 1:
            raise CommandError(both("usage", usage="rename NEWNAME"), shown=True)
        return Command("rename", nickname=rest[0])
    if head not in ("join", "watch"):
        raise unknown_command(head)
    if not rest:
        raise CommandError(f"usage: {JOIN_USAGE} · {WATCH_USAGE}", shown=True)
    name, extra = table_name(rest[0]), rest[1:]
    if not valid_table_name(name):
        raise CommandError(f"bad table name {name[:30]!r}: {TABLE_NAME_RULE}", shown=True)
    usage = JOIN_USAGE if head == "join" else WATCH_USAGE
    shared = ("--lang", "-l", "--ambiwidth")
    flags = ("--rules", "-r", "--option", "-o", "--bots", "-b", *shared, "--private",
             "--invite", "--watchers")
    rules: str | None = None
    private = False
    invited: list[str] = []
    watchers: bool | None = None
    pairs: list[str] = []
    bots: tuple[str, str, str, str] | None = None
    lang: str | None = None
    plain = False
    ambiwidth: str | None = None
    i = 0
    while i < len(extra):
        word = extra[i]
        flag, eq, value = word.partition("=")
        if flag == "--plain" and not eq:
            plain = True
            i += 1
            continue
        if flag not in (flags if head == "join" else shared):
            raise CommandError(f"unknown argument {word[:30]!r}; usage: {usage}", shown=True)
        if flag == "--private":
            if eq:
                raise CommandError(f"--private takes no value; usage: {usage}", shown=True)
            private = True
            i += 1
            continue
        if not eq:
            if i + 1 >= len(extra):
                raise CommandError(f"{flag} needs a value; usage: {usage}", shown=True)
            value = extra[i + 1]
            i += 1
        i += 1
        if flag in ("--rules", "-r"):
            rules = value.lower()
        elif flag in ("--option", "-o"):
            pairs.append(value)
        elif flag in ("--lang", "-l"):
            lang = lang_value(value)
        elif flag == "--invite":
            try:
                invited += [n for n in parse_invites(value) if n not in invited]
                parse_invites(" ".join(invited))  # the count over every --invite
            except ValueError as exc:
                raise CommandError(str(exc), shown=True) from None
        elif flag == "--watchers":
            watchers = watchers_value(value)
        elif flag == "--ambiwidth":
            ambiwidth = ambiwidth_value(value)
        else:
            try:
                bots = parse_levels(value)
            except ValueError as exc:
                raise CommandError(str(exc), shown=True) from None
    if rules is not None and rules not in RULESETS:
        raise CommandError(f"unknown ruleset {rules!r}: {', '.join(RULESETS)}", shown=True)
    if head == "watch":
        return Command(head, name, lang=lang, plain=plain, ambiwidth=ambiwidth)
    options = parse_options(pairs)
    if options:
        check_table_settings(rules, options)
    privacy = None
    if private or invited or watchers is not None:  # --invite, --watchers: private too
        privacy = Privacy(tuple(invited), bool(watchers))
    return Command(head, name, rules, tuple(sorted(options.items())), bots, lang, plain, privacy,
                   ambiwidth=ambiwidth)
