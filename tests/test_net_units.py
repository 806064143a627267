"""The server's parts without sockets, and the eight pitfalls of serving Textual apps over
SSH in one process, each with a test here or in ``test_net.py``:

1. Textual wraps each app's life in ``redirect_stdout``/``stderr``; overlapping sessions
   restore them out of order, so the server neutralises the redirect.
2. ``active_app`` is a context variable: work across sessions goes through ``post_message``.
3. Ended apps leak through the xterm parser's class-level cache.
4. Nothing acts on the server: no command palette, screenshots, URLs, file delivery, suspend.
5. The colours follow the client's terminal, not the server's environment.
6. Esc timing: a lone Esc, and a sequence split across packets.
7. ``channel.write`` buffers without limit: a slow client's frames are dropped, then repainted.
8. One loop serves everyone: an unchanged view is not sent again.
"""

from __future__ import annotations

import asyncio
import gc
import re
import sys
from pathlib import Path
from typing import Any, ClassVar

import asyncssh
import pytest
from textual import events
from textual._xterm_parser import XTermParser

from net.commands import Command, CommandError, locale_lang, parse_command
from net.front.driver import DRAIN_POLL, SSHDriver
from net.front.remote_app import RemoteApp, color_system
from net.front.server import MahjongServer, neutralise_redirects
from net.runtime.registry import Registry
from net.runtime.shared_table import TableConfig
from net.sanitize import clean_line, clean_name, strip_controls
from net.store import Account, SqliteStore
from testkit.fakes import FakeApp, FakeChannel
from testkit.ssh import PtyClient
from tests.support.tui import record_notices
from tests.support.waiting import until
from tui.apps import room


# --- sanitising -------------------------------------------------------------------------------
@pytest.mark.parametrize("raw", [
    "\x1b[2J\x1b[H", "\x1b]0;title\x07", "\x1b]52;c;aGk=\x1b\\", "\x1bP+q544e\x1b\\",
    "\x9b31m", "\x07\x08\x7f", "\u202e", "\x1bc", "\x1b", "\r\n",
])
def test_control_and_escape_sequences_are_stripped(raw: str) -> None:
    out = clean_line(f"a{raw}b")
    assert out in ("ab", "a b") or (raw == "\x1b" and out == "a")  # Esc b is a sequence
    assert all(ch.isprintable() for ch in out)


def test_names_are_cleaned_and_never_empty() -> None:
    assert clean_name("bo\x1b[31mb") == "bob"
    assert clean_name("\x1b[2J") == "player"
    assert clean_name("a" * 40) == "a" * 16
    assert clean_name("[b]old") == "bold"
    assert strip_controls("东南西北") == "东南西北"


def test_combining_marks_stay_on_their_row() -> None:
    """Two combining marks a character at most ("Zalgo" towers would draw over the rows above
    and below in other players' terminals); none at the start; ordinary accents are kept."""
    acute = "\u0301"
    assert strip_controls("e" + acute * 40 + "x") == "e" + acute * 2 + "x"
    assert strip_controls(acute * 3 + "a") == "a"
    assert clean_line("café naïve Tiếng Việt") == "café naïve Tiếng Việt"
    assert clean_line("cafe\u0301 Vie\u0302\u0323t") == "cafe\u0301 Vie\u0302\u0323t"
    assert clean_name("z" + "\u0336" * 9 + "oe") == "z" + "\u0336" * 2 + "oe"


def test_commands_parse_and_everything_else_is_refused() -> None:
    assert parse_command(None).name == "lobby"
    assert parse_command("join friday --rules gejiu").rules == "gejiu"
    assert parse_command("join friday").table == "friday"
    assert parse_command("watch friday").name == "watch"
    for bad in ("rm -rf /", "join", "join ../x", "join a --rules poker", "stats x", "help me",
                "join a b", "join a --lang fr", "watch a --rules gejiu", "watch a --lang",
                "--lang", "--lang zh x", "--lang=de", "lobby zh", "lobby --lang", "lobby x y"):
        with pytest.raises(CommandError):
            parse_command(bad)


def test_an_option_without_limit_is_written_as_unlimited() -> None:
    """yichun.md §7.5: max_lighters may be "unlimited" — in a JSON situation, in --option and
    in the lobby's form, as well as null / empty; other options stay whole numbers."""
    from engine.rulesets import OptionError, find_ruleset
    from engine.rulesets.yichun import Yichun
    from net.commands import parse_options

    assert parse_options(["max_lighters=unlimited"]) == {"max_lighters": None}
    assert parse_options(["max_lighters=无限", "hands_per_game=4"]) == {
        "max_lighters": None, "hands_per_game": 4}
    ruleset = find_ruleset("yichun", {"max_lighters": "Unlimited"})
    assert ruleset.options["max_lighters"] is None and ruleset.max_lighters() == 4
    assert find_ruleset("yichun", {"max_lighters": 2}).max_lighters() == 2
    spec = next(s for s in Yichun.options_spec if s.key == "max_lighters")
    assert spec.parse_text(" unlimited ") is None and spec.parse_text("3") == 3
    for bad in ({"max_lighters": "lots"}, {"hands_per_game": "unlimited"}):
        with pytest.raises(OptionError, match="whole number"):
            find_ruleset("yichun", bad)


def test_table_names_in_any_script_within_24_cells() -> None:
    from net.sanitize import pad, valid_table_name

    assert parse_command("join 周五 --rules gejiu").table == "周五"
    assert parse_command("watch café").table == "café"
    # the same name typed composed or decomposed is the same table
    assert parse_command("join cafe\u0301").table == parse_command("join caf\u00e9").table
    assert valid_table_name("周五晚上的牌局一二三四五") and valid_table_name("x" * 24)
    for bad in ("周五晚上的牌局一二三四五六", "x" * 25, "a\u200bb", "\u0301", "a b", "x/y",
                "a\x1b[31m", "\u202eabc", ""):
        assert not valid_table_name(bad), bad
        with pytest.raises(CommandError, match=r"bad table name|usage"):
            parse_command(f"join {bad}")
    assert pad("周五", 6) == "周五  " and pad("abc", 2) == "abc"


def test_options_are_shown_as_players_read_them() -> None:
    from tui.apps.room import options_text

    assert options_text([("max_lighters", None), ("discarder_pays_double", False),
                         ("hands_per_game", 4)]) == (
        "max_lighters=unlimited 不限, discarder_pays_double=off, hands_per_game=4")
    assert options_text([]) == ""


def test_the_language_of_a_command_and_of_the_client_locale() -> None:
    assert parse_command("join friday --lang zh --rules gejiu").lang == "zh"
    assert parse_command("join friday -l=EN").lang == "en"
    assert parse_command("join friday").lang is None
    assert parse_command("watch friday --lang zh") == Command("watch", "friday", lang="zh")
    assert parse_command("--lang zh") == Command("lobby", lang="zh")
    assert parse_command("--lang=en") == Command("lobby", lang="en")
    assert parse_command("lobby --lang zh") == Command("lobby", lang="zh")
    assert parse_command("lobby") == Command("lobby")
    assert locale_lang(None) is None and locale_lang({}) is None
    assert locale_lang({"LANG": "zh_CN.UTF-8"}) == "zh"
    assert locale_lang({"LANG": "zh_TW.Big5"}) == "zh"
    assert locale_lang({"LANG": "de_DE.UTF-8"}) == "en"
    assert locale_lang({"LANG": "zh_CN.UTF-8", "LC_ALL": "C"}) == "en"  # LC_ALL wins
    assert locale_lang({"LANG": "en_US.UTF-8", "LC_MESSAGES": "zh_CN.UTF-8"}) == "zh"
    assert locale_lang({"LC_ALL": "", "LANG": "zh_SG"}) == "zh"  # an empty one is unset


# --- the store --------------------------------------------------------------------------------
def test_accounts_by_key_and_anonymous_nicknames_are_unique(tmp_path: Path) -> None:
    store = SqliteStore(tmp_path / "db.sqlite3")
    a = store.account_for_key("SHA256:aaa", "ann")
    assert store.account_for_key("SHA256:aaa", "other") == a
    b = store.account_for_key("SHA256:bbb", "ann")
    assert b.nickname != "ann" and b.id != a.id
    guest = store.guest_account("ann")
    assert guest.nickname not in ("ann", b.nickname) and guest.anonymous and guest.guest
    again = store.guest_account("ann")  # a guest is new each visit: never the same account
    assert again.id != guest.id and again.nickname not in ("ann", b.nickname, guest.nickname)
    store.close()
    text = (tmp_path / "db.sqlite3").read_bytes()
    assert b"ssh-ed25519" not in text  # only fingerprints, no key material


async def test_a_table_is_restored_at_its_last_action(tmp_path: Path) -> None:
    store = SqliteStore(tmp_path / "db.sqlite3")
    reg = Registry(TableConfig(bot_delay=0), store)
    t = reg.get_or_create("t1", "shangrao", {"hands_per_game": 2})
    t.join(Account(1, "ann", "SHA256:x"))
    t.start(seed=7)
    game = t.game
    assert game is not None and game.hand is not None
    for _ in range(30):
        hand = game.hand
        seat = hand.to_act()[0]
        from engine.expiry import expiry_action
        from engine.view import build_view

        assert t.apply(seat, expiry_action(build_view(hand, seat))) is None
    reg.close()
    reg2 = Registry(TableConfig(bot_delay=0), store)
    assert reg2.load() == 1
    t2 = reg2.tables["t1"]
    assert t2.game is not None and t2.game.hand is not None
    assert t2.game.hand.actions == game.hand.actions
    assert t2.game.scores == game.scores and t2.seats[0].occupant is not None
    assert t2.options == {"hands_per_game": 2}
    store.close()


# --- (1) stdout/stderr redirection -------------------------------------------------------
def test_no_stdout_redirect_for_ssh_apps() -> None:
    import textual.app as ta

    neutralise_redirects()

    class Target:
        app = RemoteApp.__new__(RemoteApp)

    before = sys.stdout
    with ta.redirect_stdout(Target()):  # type: ignore[attr-defined]
        assert sys.stdout is before
    with ta.redirect_stdout(None):  # other apps keep Textual's behaviour
        assert sys.stdout is None
    assert sys.stdout is before


# --- (3) the parser cache keeps apps alive ------------------------------------------------
async def test_driver_close_clears_the_parser_cache() -> None:
    app, chan = FakeApp(), FakeChannel()
    d = SSHDriver(app, channel=chan, size=(80, 24))
    d.start_application_mode()
    d.feed(b"\x1b[97;5u")  # a kitty key sequence goes through the cached method
    d.close()
    # the cache the driver clears (the internal tui.compat.internals guards: xterm_parser_cache)
    info = XTermParser._parse_extended_key.cache_info()  # type: ignore[attr-defined]
    assert info.currsize == 0


# --- (4) nothing acts on the server --------------------------------------------------------
def test_palette_suspend_urls_files_disabled() -> None:
    from net.front.lobby import LobbyApp

    d = SSHDriver.__new__(SSHDriver)
    assert d.can_suspend is False
    for cls in (RemoteApp, LobbyApp):  # the table and the lobby alike
        assert cls.ENABLE_COMMAND_PALETTE is False
        assert cls.ALLOW_SELECT is False  # Textual's selection raised on a click mid-switch
        app = cls.__new__(cls)
        assert app.open_url("https://example.org") is None
        assert app.deliver_binary(b"x") is None
        assert app.save_screenshot() == ""
        assert app.deliver_screenshot() is None


# --- (5) colours from the client's terminal ----------------------------------------------
def test_colour_system_follows_the_client() -> None:
    assert color_system("xterm", "") == "standard"
    assert color_system("xterm-256color", "") == "256"
    assert color_system("tmux-256color", "") == "256"
    assert color_system("xterm", "truecolor") == "truecolor"


# --- (6) Esc timing ---------------------------------------------------------------
async def test_lone_esc_and_split_sequences() -> None:
    app, chan = FakeApp(), FakeChannel()
    d = SSHDriver(app, channel=chan, size=(80, 24))
    d.start_application_mode()
    d.feed(b"\x1b[")
    d.feed(b"A")
    assert app.pressed() == ["up"]
    d.feed(b"\x1b")
    assert app.pressed() == ["up"]  # not yet: it may start a sequence
    await until(lambda: "escape" in app.pressed(), 1.0, "the lone Esc")
    assert app.pressed() == ["up", "escape"]
    d.feed("一x".encode()[:2])  # a character split across packets
    d.feed("一x".encode()[2:])
    await until(lambda: app.pressed()[-2:] == ["一", "x"], 1.0,
                "x, once the app has dispatched 一")
    d.close()


async def test_keys_the_app_takes_at_once_are_not_posted() -> None:
    """The driver offers each key to the app's ``key_now`` first (the table screen acts on it
    in the same loop turn); only what it declines is posted, in order."""

    class QuickApp(FakeApp):
        def __init__(self) -> None:
            super().__init__()
            self.taken: list[str] = []

        def key_now(self, event: events.Key) -> bool:
            if event.key in ("left", "x"):
                self.taken.append(event.key)
                return True
            return False

    app, chan = QuickApp(), FakeChannel()
    d = SSHDriver(app, channel=chan, size=(80, 24))
    d.start_application_mode()
    d.feed(b"\x1b[Dqx\x1b[200~x\x1b[201~")
    assert app.taken == ["left"] and app.pressed() == ["q"]  # x waits behind the posted q
    await until(lambda: app.taken == ["left", "x"], 1.0, "x behind the posted q")
    assert app.pressed() == ["q"]
    assert any(isinstance(m, events.Paste) for m in app.messages)  # a paste is not a key
    d.close()


async def test_keys_behind_a_posted_key_wait_until_the_app_has_dispatched_it() -> None:
    """Keys of one packet behind a key the app dispatches through its queues (Backspace in a
    text box, ``/`` opening the chat line) reach it only once its queues are empty, so each
    takes effect in the order typed; a key never waits more than ``SETTLE_MAX``."""
    from net.front import driver

    app, chan = FakeApp(), FakeChannel()
    d = SSHDriver(app, channel=chan, size=(80, 24))
    d.start_application_mode()
    app.busy()  # the app has yet to dispatch what it got
    d.feed(b"/hi")
    await asyncio.sleep(0.05)
    assert app.pressed() == ["slash"]
    app.busy(False)
    await until(lambda: app.pressed() == ["slash", "h", "i"] and not d.holding, 1.0,
                "the keys behind slash, and the driver holding none")
    app.busy()  # never emptied: the keys go on after the cap
    d.feed(b"ab")
    await until(lambda: app.pressed()[-2:] == ["a", "b"], driver.SETTLE_MAX + 0.1,
                "the keys behind a stuck queue, after the cap")
    d.close()


async def test_garbage_input_does_not_break_the_driver() -> None:
    app, chan = FakeApp(), FakeChannel()
    d = SSHDriver(app, channel=chan, size=(80, 24))
    d.start_application_mode()
    d.feed(b"\xff\xfe\x00\x9b\x1b[999999999999;;;;M\x1b]\x1bP")
    d.feed(b"q")
    await until(lambda: "q" in app.pressed(), 1.0, "q after the garbage")
    d.close()


# --- (7) slow clients ------------------------------------------------------------
async def test_frames_are_dropped_then_repainted() -> None:
    app, chan = FakeApp(), FakeChannel()
    d = SSHDriver(app, channel=chan, size=(80, 24), high_water=1000)
    for piece in ("<sync>", "frame 1", "</sync>"):  # as Textual writes a frame
        d.write(piece)
    assert chan.writes == 0
    d.flush()
    assert chan.writes == 1 and bytes(chan.out).endswith(b"<sync>frame 1</sync>")
    chan.buffered = 5000  # the client stopped reading
    for frame in ("frame 2", "frame 3"):
        d.write(frame)
        d.flush()
    assert b"frame 2" not in chan.out and d.dropping and d.frames_dropped == 2
    chan.buffered = 0
    d.drained()
    assert not d.dropping
    assert isinstance(app.messages[-1], events.Resize)  # a full repaint
    d.write("frame 4")
    await asyncio.sleep(0)  # no flush: the loop's next turn sends it
    await asyncio.sleep(0)
    assert bytes(chan.out).endswith(b"frame 4") and chan.writes == 2



async def test_a_stalled_client_does_not_hold_up_the_others(
        server: MahjongServer, monkeypatch: pytest.MonkeyPatch) -> None:
    # each chat line its own toast without the 3 s between toasts (what is drawn is the same)
    monkeypatch.setattr(room, "CHAT_TOAST_GAP", 0.1)
    server.config.write_high_water = 4096
    slow = PtyClient()
    await slow.connect(server.port, "slow", None, command="join st", window=4096)
    fast = PtyClient()
    await fast.connect(server.port, "fast", None, command="join st")
    await slow.wait_for("fast")
    assert slow.chan is not None
    slow.chan.pause_reading()
    t = server.registry.tables["st"]
    fast.send("s")
    await fast.wait_for("宜春")
    # the fast client reads the chat's history, where each line stays (a toast of 0.2 s may
    # come and go in frames a loaded machine drops for the fast client too, and repaints
    # without it); the slow one's table toasts each line
    fast.send("v")
    await fast.wait_for("Chat at this table")
    for i in range(30):  # chat lines redraw both screens; only one client reads
        t.talk.chat("bot", f"line {i} " + "x" * 60)
        await fast.wait_for(lambda text, i=i: bool(re.search(rf"line {i}(?!\d)", text)))
    drivers = [s.driver for s in server.sessions if s.conn.account.nickname == "slow~"]
    assert drivers and drivers[0] is not None and drivers[0].frames_dropped > 0
    slow.chan.resume_reading()
    await slow.wait_for(lambda text: "宜春" in text and "Hand 1/" in text)
    await until(lambda: not drivers[0].dropping, 2.0,  # drained, repainted, writing again
                "the slow client's frames written again")
    await slow.close()
    await fast.close()


async def test_a_client_that_drains_gets_the_screen_without_a_new_frame() -> None:
    """The frame dropped last may be the app's last for a while (a chat toast, then nothing
    until someone acts): once the client has read its backlog it gets a repaint anyway."""
    channel, app = FakeChannel(), FakeApp()
    driver = SSHDriver(app, channel=channel, high_water=100)  # type: ignore[arg-type]
    channel.buffered = 1000
    driver.write("a frame the client is too slow for")
    driver.flush()
    assert driver.dropping and app.messages == []
    await asyncio.sleep(3 * DRAIN_POLL)
    assert driver.dropping and app.messages == []  # still behind: no repaint yet
    channel.buffered = 10  # it reads; the app draws nothing new
    await until(lambda: not driver.dropping, 2.0, "the repaint once drained")
    assert [type(m) for m in app.messages] == [events.Resize]
    driver.close()


# --- (2 and 8) cross-session work goes through messages; one update per action
async def test_chat_lands_on_each_sessions_own_app(
        server: MahjongServer, monkeypatch: pytest.MonkeyPatch) -> None:
    notices = record_notices(monkeypatch)
    a = await PtyClient().connect(server.port, "amy", None, command="join p2")
    b = await PtyClient().connect(server.port, "bob", None, command="join p2")
    await b.wait_for("amy")
    a.send("/")
    await a.wait_for("Enter: send 发送")
    a.send("ping\r")
    await b.wait_for("amy~: ping")  # guests: their names carry the guest's mark
    await a.wait_for("amy~: ping")
    apps = [s.app for s in server.sessions]
    assert len(apps) == 2
    for app in apps:
        assert notices(app) == ["amy~: ping"]
    await a.close()
    await b.close()


async def test_an_enter_for_a_chat_line_closed_under_it_pops_nothing(
        server: MahjongServer) -> None:
    """Found by a monkey over SSH: the chat line is open on the waiting screen, the game
    starts (the waiting screen and the chat line go), and the Enter typed into the line arrives
    after. Textual's ``dismiss`` pops whatever is on top: it took the table screen away
    ("Can't pop screen") and ended the session."""
    from textual.widgets import Input

    from tui.apps.chat import ChatScreen

    a = await PtyClient().connect(server.port, "cat", None, command="join race")
    await a.wait_for("press S")
    a.send("/")
    await a.wait_for("Enter: send 发送")
    (session,) = server.sessions
    app = session.app
    chat = app.screen
    assert isinstance(chat, ChatScreen)
    line = chat.query_one(Input)
    a.send("s")  # starts nothing: the S goes into the chat line
    await until(lambda: line.value == "s", what="the S in the chat line")
    app.seat_client.start()  # the game starts under the line: the table replaces both
    await a.wait_for("宜春")
    stack = list(app.screen_stack)
    assert chat not in stack
    said: list[str] = []
    app.seat_client.chat = said.append  # type: ignore[method-assign]
    done = asyncio.Event()
    app.call_next(chat.on_input_submitted, Input.Submitted(line, "late"))  # an Enter, late
    app.call_next(chat.action_close)  # and an Esc
    app.call_next(done.set)
    await asyncio.wait_for(done.wait(), 5.0)
    assert app.screen_stack == stack and app.is_running and not said
    await a.close()


async def test_an_unchanged_view_is_not_sent_again(tmp_path: Path) -> None:
    reg = Registry(TableConfig(bot_delay=0))
    t = reg.get_or_create("p8", "gejiu")
    client = t.join(Account(1, "ann"))
    got: list[Any] = []
    client.subscribe(got.append)
    t.start(seed=3)
    n = len(got)
    t.publish()
    t.publish()
    assert len(got) == n  # nothing changed: nothing sent
    from tui.apps.app import TableUpdated

    assert TableUpdated(got[-1]).can_replace(TableUpdated(got[0]))  # bursts render once
    reg.close()


async def test_fifty_sessions_keep_gc_and_stdout_clean(server: MahjongServer) -> None:
    before = sys.stdout
    clients = [await PtyClient().connect(server.port, f"g{i}", None,
                                         command=f"join g{i % 3}") for i in range(6)]
    for c in clients:
        await c.wait_for("Table")
    for c in clients:
        await c.close()
    await until(lambda: not server.sessions, 2.0, "the sessions to end")
    assert sys.stdout is before
    gc.collect()
    assert not [o for o in gc.get_objects() if isinstance(o, RemoteApp)]


def test_keys_are_not_stored(tmp_path: Path) -> None:
    key = asyncssh.generate_private_key("ssh-ed25519")
    store = SqliteStore(tmp_path / "k.sqlite3")
    store.account_for_key(key.get_fingerprint("sha256"), "kim")
    store.close()
    blob = (tmp_path / "k.sqlite3").read_bytes() + b"".join(
        p.read_bytes() for p in tmp_path.glob("k.sqlite3*"))
    assert key.export_public_key() not in blob


# --- the server benchmark's reading of the screens ----------------------------------------------
class ScreenClient:
    """What ``bench.bench_server.TableDriver`` needs of a client: a light screen and keys."""

    def __init__(self) -> None:
        from testkit.ssh import LightScreen

        self.screen = self.stream = LightScreen(80, 24)
        self.sent: list[str] = []
        self.on_data: Any = None

    def show(self, row0: str) -> None:
        self.stream.feed(b"\x1b[H\x1b[2K" + row0.encode())
        if self.on_data is not None:
            self.on_data(self)

    def send(self, keys: str) -> None:
        self.sent.append(keys)


async def test_bench_times_a_key_until_each_screen_shows_its_effect() -> None:
    from bench.bench_server import Pending, TableDriver, status_row

    head = " 宜春 Yichun │ Hand 1/8 │ Dealer E │ Wall {} │ {}"
    cs = [ScreenClient() for _ in range(4)]
    d = TableDriver(cs, [])  # type: ignore[arg-type]
    turns = ["Your turn", "Left E to play", "Across E to play", "Right E to play"]
    for c, turn in zip(cs, turns, strict=True):
        c.show(head.format(80, turn) + " ⏱ ██████ 30s")
    assert status_row(cs[0]) == head.format(80, "Your turn")  # the timer is not part of it
    assert d.mover() is cs[0]
    cs[3].show(head.format(81, "Right E to play"))  # one screen lags: no key yet
    assert d.mover() is None
    cs[3].show(head.format(80, "Right E to play"))
    p = Pending(0.0, [status_row(c) for c in cs], [None] * 4)
    d.pending = p
    cs[0].show(head.format(80, "Your turn") + " ⏱ █████ 29s")  # only the timer moved
    assert p.done[0] is None
    for c in cs:
        c.show(head.format(80, "Claim window"))
    assert all(t is not None for t in p.done) and p.finished.is_set()


def test_packets_are_logged_only_at_asyncssh_debug_level_3() -> None:
    """The server skips asyncssh's per-packet log formatting unless packets are logged."""
    from asyncssh.logging import SSHLogger, logger
    from asyncssh.packet import SSHPacketLogger

    from net.front.server import quiet_packet_log

    quiet_packet_log()
    quiet_packet_log()  # once per process, whatever the calls

    class Handler(SSHPacketLogger):
        _handler_names: ClassVar[dict[int, str]] = {94: "MSG_CHANNEL_DATA"}

        def __init__(self) -> None:
            self.logged: list[tuple[object, ...]] = []

        @property
        def logger(self) -> Any:
            handler = self

            class Log:
                def packet(self, *args: object) -> None:
                    handler.logged.append(args)

            return Log()

    h = Handler()
    level = SSHLogger._debug_level  # asyncssh has no reading of it: put back as found
    try:
        asyncssh.set_debug_level(1)
        h.log_sent_packet(94, 7, b"abc")
        assert h.logged == []
        asyncssh.set_debug_level(3)
        h.log_sent_packet(94, 7, b"abc")
        assert len(h.logged) == 1 and "MSG_CHANNEL_DATA (94)" in h.logged[0]
    finally:
        logger.set_debug_level(level)


async def test_an_empty_table_closes_after_a_while_even_with_a_game_in_progress(
        tmp_path: Path) -> None:
    """A table nobody sits at or watches leaves the lobby and the database
    ``table_unattended_seconds`` after the last person left, before its game, after it or
    during it; someone coming back in time keeps it; a restored empty table closes too, the
    time counted from the restart (tests/test_net_abandoned.py: the limits it frees)."""
    from host.clock import ManualClock
    from net.limits import Limits

    clock = ManualClock()
    store = SqliteStore(tmp_path / "db.sqlite3")
    config = TableConfig(bot_delay=0, bot_level="easy", clock=clock)
    limits = Limits(table_unattended_seconds=600)
    reg = Registry(config, store, limits=limits)
    ann, bob = Account(1, "ann"), Account(2, "bob")
    t = reg.get_or_create("quiet", "gejiu")
    c = t.join(ann)
    t.leave(c)
    await clock.advance(300)
    c = t.join(bob, spectate=True)  # back in time: the table stays
    await clock.advance(900)
    assert "quiet" in reg.tables
    t.leave(c)
    await clock.advance(599)
    assert "quiet" in reg.tables
    await clock.advance(1)
    assert "quiet" not in reg.tables
    assert "quiet" not in [row.name for row in store.load_tables()]

    g = reg.get_or_create("busy", "gejiu")
    c = g.join(ann)
    assert g.start() is None and g.game is not None
    g.leave(c)  # dropped mid-game: the seat waits for ann
    await clock.advance(599)
    c = g.join(ann)  # back in time: her seat, her table
    assert c.seat_index == 0 and reg.tables["busy"] is g
    g.leave(c)
    await clock.advance(599)
    assert "busy" in reg.tables
    reg.get_or_create("stale", "yichun")  # made, never sat at
    reg.close()

    reg2 = Registry(config, store, limits=limits)
    assert reg2.load() == 2
    reg2.resume()
    await clock.advance(599)
    assert sorted(reg2.tables) == ["busy", "stale"]
    await clock.advance(1)
    assert sorted(reg2.tables) == []
    assert store.load_tables() == []
    reg2.close()


def test_the_leaderboard_is_one_per_ruleset(tmp_path: Path) -> None:
    """Points of different rulesets are on different scales (a Shangrao hand can pay
    thousands): ``stats`` ranks each ruleset's games on their own, with points a hand."""
    from types import SimpleNamespace

    from net.front.server import MahjongServer

    store = SqliteStore(tmp_path / "db.sqlite3")
    ann = store.account_for_key("SHA256:a", "ann")
    bob = store.account_for_key("SHA256:b", "bob")
    store.finish_game("t1", 1, "shangrao", [(ann.id, 0, 900, 3, 8), (bob.id, 1, -900, 1, 8)])
    store.finish_game("t2", 1, "gejiu", [(ann.id, 0, -12, 1, 4), (bob.id, 1, 12, 2, 4)])
    assert [r.nickname for r in store.leaderboard(rules="gejiu")] == ["bob", "ann"]
    assert [r.nickname for r in store.leaderboard(rules="shangrao")] == ["ann", "bob"]
    assert store.rulesets_played() == ["shangrao", "gejiu"]
    fake = SimpleNamespace(store=store, registry=Registry(TableConfig()), node=None)
    text = MahjongServer.stats_text(fake)  # type: ignore[arg-type]
    shangrao, gejiu = text.split("上饶 Shangrao")[1].split("个旧 Gejiu")
    assert shangrao.index("ann") < shangrao.index("bob") and "+112.50" in shangrao
    assert gejiu.index("bob") < gejiu.index("ann") and "+3.00" in gejiu
    store.close()


async def test_only_a_turns_timer_running_out_makes_a_player_idle(
        monkeypatch: pytest.MonkeyPatch) -> None:
    """A seated player who never answers: each time his turn's timer runs out counts toward
    idle; a claim window he lets run out is a pass and does not. Idle after two turns."""
    from engine.table import Phase
    from host import table_loop
    from host.clock import ManualClock

    clock = ManualClock()
    reg = Registry(TableConfig(bot_delay=0, bot_level="easy", clock=clock))
    t = reg.get_or_create("nap", "gejiu", {"turn_seconds": 1, "claim_seconds": 1,
                                          "hands_per_game": 8})
    seen: list[tuple[Phase, int]] = []  # (phase, the seat's count as it expires)
    original = table_loop.expiry_action

    def recording(view: Any) -> Any:
        if view.viewer == 0:
            seen.append((view.phase, t.runner.timeouts[0]))
        return original(view)

    monkeypatch.setattr(table_loop, "expiry_action", recording)
    client = t.join(Account(1, "napper"))
    assert t.start(seed=2) is None  # a deal where claim windows open for him between turns
    for _ in range(400):  # each second on the table's clock, one timer of his runs out
        if t.idle(0):
            break
        await clock.advance(1.0)
    assert t.idle(0) and not t.is_bot(0)  # his seat, played as his timer plays it
    turns = [p for p, _ in seen if p not in (Phase.CLAIM, Phase.ROB)]
    assert len(turns) == 2  # idle after exactly two of his turns ran out
    assert len(seen) > len(turns)  # and claim windows ran out too, uncounted
    counted = 0
    for phase, count in seen:  # a turn's expiry adds one; a claim window's never does
        if phase not in (Phase.CLAIM, Phase.ROB):
            counted += 1
        assert count == counted, (phase, count, counted)
    client.poke()
    assert not t.idle(0) and t.runner.timeouts[0] == 0
    reg.close()


def test_old_guests_that_left_nothing_are_forgotten(tmp_path: Path) -> None:
    from net.store import SavedSeat, SavedTable, TableRow

    store = SqliteStore(tmp_path / "db.sqlite3")
    idle, player, seated, _ = (store.guest_account(n) for n in ("gone", "won", "sat", "new"))
    store.finish_game("t", 1, "yichun", [(player.id, 0, 5, 1, 8)])
    store.save_table(TableRow("t", "yichun", {}, SavedTable(
        seats=(SavedSeat(seated.id, "sat"), None, None, None))))
    store.db.execute("UPDATE accounts SET last_seen = 0 WHERE id IN (?, ?, ?)",
                     (idle.id, player.id, seated.id))
    key = store.account_for_key("SHA256:k", "keyed")
    store.db.execute("UPDATE accounts SET last_seen = 0 WHERE id = ?", (key.id,))
    assert store.forget_guests(unseen_since=1000.0) == 1
    left = {n for (n,) in store.db.execute("SELECT nickname FROM accounts")}
    assert left == {"won", "sat", "new", "keyed"}
    assert store.free_nickname("gone") == "gone"  # the name is free again
    store.close()
