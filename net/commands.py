"""The SSH command line: what a client types after ``ssh HOST`` (``join NAME --rules R
--option KEY=VALUE …``, ``watch NAME``, ``lobby``, ``stats``, ``help``, ``--lang zh|en``), read
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

from engine.rulesets import DEFAULT_RULES, RULESETS, OptionError, find_ruleset, parse_option_pairs
from net.runtime.shared_table import parse_levels
from net.sanitize import TABLE_NAME_RULE, table_name, valid_table_name

HELP_TEXT = """\
mahjong-ssh: Chinese regional mahjong (宜春 Yichun, 上饶 Shangrao, 个旧 Gejiu) over SSH

  ssh -t -p PORT HOST                     the lobby: tables, create, join, watch 大厅
  ssh -t -p PORT HOST join NAME [--rules yichun|shangrao|gejiu] [--option KEY=VALUE ...]
                      [--bots easy|normal|hard|L,L,L,L]
                                          sit at table NAME (created if new, with these
                                          options and computer levels) 入座／建桌
  options 选项: base_point, hands_per_game, turn_seconds, claim_seconds (all);
    discarder_pays_double, max_lighters, spectator_stakes (yichun); discard_wins
    (shangrao); first_roller (gejiu).  e.g. --option hands_per_game=4
  ssh -t -p PORT HOST watch NAME          watch table NAME without seeing any hand 旁观
  ssh -t -p PORT HOST lobby --lang zh     --lang zh|en also after join NAME / watch NAME: the
                                          table's language 语言 (default: Chinese when your
                                          ssh sends a zh_* LANG, as SendEnv LANG LC_* does)
  ssh -t -p PORT HOST join NAME --ambiwidth wide
                                          --ambiwidth narrow|wide also after watch NAME:
                                          whether your terminal draws ambiguous-width
                                          characters (box lines, dots, arrows) one cell
                                          or two (found by itself when not given)
                                          歧义宽度字符：窄（单格）或宽（双格）
  ssh -p PORT HOST stats                  the leaderboard 排行榜
  ssh -p PORT HOST help                   this text 帮助

Your SSH key is your account; your SSH user name (NAME@HOST) is your nickname.
The hand starts when four people sit, or when a seated player presses S
(computer players take the empty seats). 四人入座即开始，或按 S 由电脑补位开始。
"""


@dataclass(frozen=True)
class Command:
    name: str  # "lobby", "join", "watch", "stats", "help"
    table: str = ""
    rules: str | None = None
    options: tuple[tuple[str, Any], ...] = ()  # table options for a new table
    bots: tuple[str, str, str, str] | None = None  # computer levels per seat E,S,W,N
    lang: str | None = None  # --lang: the table's language (None: from the client's locale)
    # --ambiwidth: how the terminal draws East Asian ambiguous characters (None: probed)
    ambiwidth: str | None = None


class CommandError(ValueError):
    """A refused command. ``shown``: the session prints the message and exits with status 2
    (any mistyped command); otherwise the channel is refused (a file-transfer client's)."""

    def __init__(self, message: str, shown: bool = False) -> None:
        super().__init__(message)
        self.shown = shown


COMMANDS = ("join", "watch", "lobby", "stats", "help")
# file-transfer and repository clients speak a protocol on the channel: text would only
# confuse them, so their requests are refused outright
PROTOCOL_COMMANDS = frozenset({"scp", "sftp", "sftp-server", "internal-sftp", "rsync",
                               "git-upload-pack", "git-receive-pack", "git-upload-archive"})


def mistyped(problem: str) -> CommandError:
    """A command line the server cannot read, refused with what was wrong and the commands,
    as ``help`` prints them (the session exits with status 2)."""
    return CommandError(f"{problem}\n\nThe commands 命令:\n\n{HELP_TEXT}", shown=True)


def unknown_command(head: str) -> CommandError:
    close = difflib.get_close_matches(head.lower(), COMMANDS, n=1)
    hint = f" (did you mean {close[0]}? 是不是 {close[0]}？)" if close else ""
    return mistyped(f"unknown command {head[:30]!r} 未知命令{hint}")


JOIN_USAGE = ("join NAME [--rules yichun|shangrao|gejiu] [--option KEY=VALUE ...] "
              "[--bots LEVEL|L,L,L,L] [--lang zh|en] [--ambiwidth narrow|wide]")
WATCH_USAGE = "watch NAME [--lang zh|en] [--ambiwidth narrow|wide]"
LANGS = ("en", "zh")
AMBIWIDTHS = ("narrow", "wide")


def ambiwidth_value(value: str) -> str:
    width = value.strip().lower()
    if width not in AMBIWIDTHS:
        raise CommandError(f"--ambiwidth takes narrow or wide, not {value[:10]!r} "
                           "歧义宽度只能是 narrow 或 wide", shown=True)
    return width


def lang_value(value: str) -> str:
    lang = value.strip().lower()
    if lang not in LANGS:
        raise CommandError(f"--lang takes zh or en, not {value[:10]!r} 语言只能是 zh 或 en",
                           shown=True)
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


def parse_command(text: str | None) -> Command:
    if text is None or not text.strip():
        return Command("lobby")
    try:
        words = shlex.split(text)
    except ValueError as exc:
        raise mistyped(f"cannot read the command line: {exc} 命令无法解析") from None
    head, rest = words[0], words[1:]
    if head.rsplit("/", 1)[-1] in PROTOCOL_COMMANDS:
        raise CommandError("not a file server")
    if head in ("stats", "help"):
        if rest:
            raise mistyped(f"{head} takes no arguments, got {' '.join(rest)[:30]!r} 不带参数")
        return Command(head)
    if head == "lobby" or head.partition("=")[0] in ("--lang", "-l"):
        # the lobby, perhaps in a language: "lobby --lang zh" (ssh reads a --lang right after
        # the host as its own option: "ssh HOST -- --lang zh" passes it on)
        args = rest if head == "lobby" else words
        if not args:
            return Command("lobby")
        flag, eq, value = args[0].partition("=")
        if flag not in ("--lang", "-l") or (not eq and len(args) != 2) or (eq and len(args) != 1):
            raise CommandError("usage: lobby [--lang zh|en] 用法", shown=True)
        return Command("lobby", lang=lang_value(value if eq else args[1]))
    if head not in ("join", "watch"):
        raise unknown_command(head)
    if not rest:
        raise CommandError(f"usage: {JOIN_USAGE} · {WATCH_USAGE}", shown=True)
    name, extra = table_name(rest[0]), rest[1:]
    if not valid_table_name(name):
        raise CommandError(f"bad table name {name[:30]!r}: {TABLE_NAME_RULE}", shown=True)
    usage = JOIN_USAGE if head == "join" else WATCH_USAGE
    shared = ("--lang", "-l", "--ambiwidth")
    flags = ("--rules", "-r", "--option", "-o", "--bots", "-b", *shared)
    rules: str | None = None
    pairs: list[str] = []
    bots: tuple[str, str, str, str] | None = None
    lang: str | None = None
    ambiwidth: str | None = None
    i = 0
    while i < len(extra):
        word = extra[i]
        flag, eq, value = word.partition("=")
        if flag not in (flags if head == "join" else shared):
            raise CommandError(f"unknown argument {word[:30]!r}; usage: {usage}", shown=True)
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
        return Command(head, name, lang=lang, ambiwidth=ambiwidth)
    options = parse_options(pairs)
    if options:
        check_table_settings(rules, options)
    return Command(head, name, rules, tuple(sorted(options.items())), bots, lang, ambiwidth)
