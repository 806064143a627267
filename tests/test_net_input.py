"""Bounded input (net/front/driver.py): whatever a client sends, the bytes waiting to be parsed, the
events waiting behind a key, a bracketed paste and the log lines it causes stay within
``net.limits.Limits``, one session's input is parsed a slice a turn of the event loop, and a
normal key typed afterwards still works. Unit tests drive ``SSHDriver`` with a fake channel
(a small real Textual app, or a fake one where only the driver's bookkeeping matters); one test
floods a real server's lobby session over SSH."""

from __future__ import annotations

import asyncio
import contextlib
import logging
import random
import time
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from itertools import pairwise
from pathlib import Path
from typing import Any

import pytest
from textual import events
from textual.app import App, ComposeResult
from textual.widget import Widget

from net.front.driver import DROP_NOTICE, SSHDriver
from net.limits import Limits
from testkit.fakes import FakeApp, FakeChannel, driver_factory
from testkit.ssh import PtyClient, fast_config, start_server
from tests.support.tui import record_notices
from tests.support.waiting import until

# small limits that show each bound with a few kilobytes
LIMITS = Limits(input_chunk=512, input_backlog=4096, input_events_backlog=32,
                input_events_per_turn=64)
PASTE_START, PASTE_END = b"\x1b[200~", b"\x1b[201~"


class QuickApp(FakeApp):
    """An app that takes every key at once (the table's ``key_now``): nothing is held, so
    every key parsed is counted as it is parsed."""

    def __init__(self) -> None:
        super().__init__()
        self.taken: list[str] = []

    def key_now(self, event: events.Key) -> bool:
        self.taken.append(event.key)
        return True


class Pad(Widget, can_focus=True):
    DEFAULT_CSS = "Pad { width: 1fr; height: 1fr; }"

    def __init__(self) -> None:
        super().__init__()
        self.keys: list[str] = []
        self.pastes: list[str] = []
        self.moves = 0

    def on_key(self, event: events.Key) -> None:
        self.keys.append(event.key)

    def on_paste(self, event: events.Paste) -> None:
        self.pastes.append(event.text)

    def on_mouse_move(self, event: events.MouseMove) -> None:
        self.moves += 1


class Small(App[None]):
    def compose(self) -> ComposeResult:
        yield Pad()

    def on_mount(self) -> None:
        self.query_one(Pad).focus()


def driver_for(app: Any, **kwargs: Any) -> SSHDriver:
    return SSHDriver(app, channel=FakeChannel(), limits=LIMITS, **kwargs)


@asynccontextmanager
async def small_app() -> AsyncIterator[tuple[Small, SSHDriver, Pad]]:
    """A real Textual app on an ``SSHDriver`` with ``LIMITS``, its pad focused."""
    app = Small()
    made: list[SSHDriver] = []
    app.driver_class = driver_factory(made, limits=LIMITS)  # type: ignore[assignment]
    task = asyncio.get_running_loop().create_task(app.run_async(size=(80, 24)))

    def ready() -> bool:
        return (app.is_running and bool(made)
                and bool(app.query(Pad)) and app.query_one(Pad).has_focus)

    await until(ready, what="the app to start")
    (driver,) = made
    try:
        yield app, driver, app.query_one(Pad)
    finally:
        app.exit()
        await task


def quiet(driver: SSHDriver) -> bool:
    return driver.backlog_bytes == 0 and not driver.events_held and not driver.holding


# --- the backlog, the events behind a key, the notice --------------------------------------------
async def test_a_flood_is_dropped_past_the_backlogs_and_the_player_told_once(
        monkeypatch: pytest.MonkeyPatch) -> None:
    notices = record_notices(monkeypatch)
    async with small_app() as (app, d, pad):
        cap = LIMITS.input_events_backlog

        def bounded() -> None:
            assert d.events_held <= cap
            # one event of ours at a time (+ notices) in the app's queue (Textual's: the internal
            # tui.compat.internals guards, message_queues)
            assert app._message_queue.qsize() <= 4
            assert d.backlog_bytes <= LIMITS.input_backlog

        flood = bytes(random.Random(3).choice(b"abcdefgh") for _ in range(64 * 1024))
        for i in range(0, len(flood), 16 * 1024):  # four packets in one turn of the loop
            d.feed(flood[i:i + 16 * 1024])
            bounded()
        await until(lambda: quiet(d), what="the flood to be dealt with", each_turn=bounded)
        assert d.bytes_dropped == len(flood) - LIMITS.input_backlog
        assert d.events_dropped > 0
        got = len(pad.keys)
        assert 0 < got <= LIMITS.input_backlog
        d.feed(b"z")  # a normal key afterwards
        await until(lambda: pad.keys[-1:] == ["z"], what="z")
        d.feed("一".encode()[:2])  # a character split across packets
        d.feed("一".encode()[2:])
        await until(lambda: pad.keys[-1:] == ["一"], what="一")
        d.feed(b"\x1b")  # a lone Esc still times out into the Esc key
        await until(lambda: pad.keys[-1:] == ["escape"], what="escape")
        for i in range(0, len(flood), 16 * 1024):  # a second flood: no second notice
            d.feed(flood[i:i + 16 * 1024])
        await until(lambda: quiet(d), what="the second flood", each_turn=bounded)
        await until(lambda: len(notices(app)) >= 1, what="the notice")
        assert notices(app) == [DROP_NOTICE]
        assert d.told


async def test_parsing_is_sliced_across_turns_of_the_loop() -> None:
    """64 KB in one packet: the backlog keeps ``input_backlog`` bytes, and each turn of the
    loop parses at most ``input_chunk`` characters and ``input_events_per_turn`` events."""
    app = QuickApp()
    d = driver_for(app)
    d.start_application_mode()
    d.feed(b"k" * 64 * 1024)
    first = len(app.taken)
    assert 0 < first <= LIMITS.input_events_per_turn + 32
    assert d.chars_parsed <= LIMITS.input_chunk
    assert d.backlog_bytes <= LIMITS.input_backlog
    await asyncio.sleep(0)  # one turn
    assert first < len(app.taken) <= 2 * (LIMITS.input_events_per_turn + 32)
    await until(lambda: d.backlog_bytes == 0, what="the backlog to drain")
    assert len(app.taken) == LIMITS.input_backlog  # all that was kept, nothing more
    assert d.bytes_dropped == 64 * 1024 - LIMITS.input_backlog
    # while the events behind a posted key are full, the rest is shed, a chunk a turn
    slow = FakeApp()
    d2 = driver_for(slow)
    d2.start_application_mode()
    slow.busy()  # the app never settles in this test
    d2.feed(b"s" * LIMITS.input_backlog)
    parsed = [d2.chars_parsed]
    while d2.backlog_bytes:
        await asyncio.sleep(0)
        parsed.append(d2.chars_parsed)
    steps = [b - a for a, b in pairwise(parsed)]
    assert parsed[0] <= LIMITS.input_chunk and max(steps) <= LIMITS.input_chunk
    assert d2.events_held == LIMITS.input_events_backlog
    assert d2.events_dropped == LIMITS.input_backlog - 1 - LIMITS.input_events_backlog
    d.close()
    d2.close()


async def test_input_before_the_app_starts_is_bounded_too() -> None:
    app = QuickApp()
    d = driver_for(app)
    d.feed(b"e" * 10_000)  # before ``start_application_mode``
    assert d.backlog_bytes == LIMITS.input_backlog
    d.start_application_mode()
    await until(lambda: d.backlog_bytes == 0, what="the early input")
    assert len(app.taken) == LIMITS.input_backlog
    d.close()


# --- bracketed paste ------------------------------------------------------------------------------
def paste_buffered(driver: SSHDriver) -> int:
    """Characters Textual's parser holds of a paste in progress (its generator's local)."""
    parser = driver._parser
    frame = getattr(getattr(parser, "_gen", None), "gi_frame", None)
    if frame is None:
        return 0
    return len(frame.f_locals.get("paste_buffer", ()))


async def test_a_paste_that_never_ends_is_cut_at_the_backlog() -> None:
    async with small_app() as (_app, d, pad):
        cap = LIMITS.input_backlog
        d.feed(PASTE_START[:3])  # the start marker split across packets
        d.feed(PASTE_START[3:])
        sent = 0
        for _ in range(12):  # 3 x the limit, a packet at a time as the backlog drains
            d.feed(b"x" * 1024)
            sent += 1024
            assert paste_buffered(d) <= cap + 1
            await until(lambda: d.backlog_bytes == 0, what="the paste's packet")
        assert paste_buffered(d) <= cap + 1
        await until(lambda: len(pad.pastes) == 1, what="the cut paste")
        assert pad.pastes == ["x" * cap]
        assert d.paste_dropped == sent - cap
        d.feed(PASTE_END[:4])  # the end marker, split too, ends the dropping
        d.feed(PASTE_END[4:] + b"k")
        await until(lambda: pad.keys[-1:] == ["k"], what="k after the paste")
        assert "x" not in pad.keys  # nothing of the paste was typed as keys
        assert pad.pastes == ["x" * cap]
        d.feed(PASTE_START + "你好, hello".encode() + PASTE_END[:2])  # a paste within the limit
        d.feed(PASTE_END[2:])
        await until(lambda: len(pad.pastes) == 2, what="the short paste")
        assert pad.pastes[-1] == "你好, hello"


async def test_a_paste_cut_by_an_overflow_is_given_as_it_stands() -> None:
    """A paste larger than the backlog in one packet: what fit is the paste; the parser then
    starts afresh, so the next keys are keys, not more paste."""
    async with small_app() as (_app, d, pad):
        d.feed(PASTE_START + b"y" * 20_000 + PASTE_END)
        await until(lambda: len(pad.pastes) == 1 and quiet(d), what="the paste")
        assert pad.pastes[0] == "y" * (LIMITS.input_backlog - len(PASTE_START))
        assert d.bytes_dropped > 0
        d.feed(b"j")
        await until(lambda: pad.keys[-1:] == ["j"], what="j")


# --- mouse, focus, huge parameters, bad sequences, sizes ------------------------------------------
async def test_mouse_and_focus_floods_are_bounded_like_keys() -> None:
    async with small_app() as (app, d, pad):
        cap = LIMITS.input_events_backlog

        def bounded() -> None:
            assert d.events_held <= cap
            assert app._message_queue.qsize() <= 4  # Textual's (guarded: message_queues)

        reports = b"".join(b"\x1b[<35;%d;%dM\x1b[I\x1b[O" % (1 + i % 70, 1 + i % 20)
                           for i in range(1500))
        for i in range(0, len(reports), 4096):
            d.feed(reports[i:i + 4096])
            bounded()
        await until(lambda: quiet(d), what="the mouse flood", each_turn=bounded)
        assert pad.moves > 0 and d.events_dropped > 0
        assert len(d._down_buttons) <= 8  # Textual's Driver's, which SSHDriver bounds
        d.feed(b"\x1b[<0;5;5M" * 500)  # presses never released
        await until(lambda: quiet(d), what="the presses", each_turn=bounded)
        assert len(d._down_buttons) <= 8  # Textual's Driver's, which SSHDriver bounds
        d.feed(b"m")
        await until(lambda: pad.keys[-1:] == ["m"], what="m after the mouse")


async def test_huge_csi_parameters_are_not_accumulated() -> None:
    """``ESC [`` and 64 KB of digits: the parser gives up a sequence after 32 characters, and
    the digits that follow are keys, bounded as any."""
    async with small_app() as (_app, d, pad):

        def bounded() -> None:
            assert d.events_held <= LIMITS.input_events_backlog
            parser = d._parser
            assert parser is None or len(parser._tokens) <= 64

        d.feed(b"\x1b[")
        for _ in range(16):
            d.feed(b"7" * 4096)
            bounded()
        await until(lambda: quiet(d), what="the digits", each_turn=bounded)
        d.feed(b"\x1b[A")
        await until(lambda: pad.keys[-1:] == ["up"], what="up")


async def test_a_hundred_bad_sequences_log_one_line(caplog: pytest.LogCaptureFixture) -> None:
    """Each ``ESC [ 9999999 u`` (a code point past Unicode) breaks Textual's parser: a fresh
    one, and one line at INFO for them all, with no traceback."""
    caplog.set_level(logging.INFO, logger="net.front.driver")
    app = FakeApp()
    d = driver_for(app)
    d.start_application_mode()
    for _ in range(100):
        d.feed(b"\x1b[9999999u")  # one a packet, as the client sent them
        await asyncio.sleep(0)
    lines = [r for r in caplog.records if r.name == "net.front.driver"]
    assert len(lines) == 1 and lines[0].exc_info is None
    assert d.parser_errors == 100
    d.feed(b"q")
    await until(lambda: "q" in app.pressed(), what="q")
    d.close()


async def test_tracebacks_only_at_debug_within_the_log_budget(
        caplog: pytest.LogCaptureFixture) -> None:
    caplog.set_level(logging.DEBUG, logger="net.front.driver")
    d = driver_for(FakeApp())
    d.start_application_mode()
    for _ in range(100):
        d.feed(b"\x1b[9999999u")
    tracebacks = [r for r in caplog.records if r.exc_info]
    assert tracebacks and all(r.levelno == logging.DEBUG for r in tracebacks)
    assert len(tracebacks) <= LIMITS.log_lines_per_connection
    d.close()


async def test_sizes_are_clamped_and_in_band_resizes_ignored() -> None:
    app = FakeApp()
    d = driver_for(app, size=(100_000, 50_000))
    assert d.size == (LIMITS.max_columns, LIMITS.max_rows)
    d.resize(5000, 0)
    assert d.size == (LIMITS.max_columns, 24)
    resizes = [m for m in app.messages if isinstance(m, events.Resize)]
    assert resizes[-1].size.width == LIMITS.max_columns
    d.start_application_mode()
    before = len([m for m in app.messages if isinstance(m, events.Resize)])
    d.feed(b"\x1b[48;5000;6000;1;1t")  # an in-band resize report: the size is SSH's
    await asyncio.sleep(0.05)
    assert len([m for m in app.messages if isinstance(m, events.Resize)]) == before
    d.close()


async def test_invalid_utf8_is_replaced_and_bounded() -> None:
    app = QuickApp()
    d = driver_for(app)
    d.start_application_mode()
    d.feed(b"\xff\xfe\xc3" * 3000)
    await until(lambda: d.backlog_bytes == 0, what="the bytes")
    assert 0 < len(app.taken) <= LIMITS.input_backlog
    d.feed(b"ok")
    await until(lambda: app.taken[-2:] == ["o", "k"], what="ok")
    d.close()


# --- end to end -----------------------------------------------------------------------------------
def junk(n: int, seed: int) -> bytes:
    """Random bytes a lobby session survives: no C0 control but Tab and a lone Esc (Esc Esc
    is the Esc key, which leaves the lobby; Enter would submit the line)."""
    data = bytearray(random.Random(seed).randbytes(n))
    for i, b in enumerate(data):
        if (b < 0x20 and b not in (0x09, 0x1B)) or b == 0x7F:
            data[i] = 0x2E
    for i in range(n):
        if data[i] == 0x1B and (i + 1 == n or data[i + 1] == 0x1B):
            data[i] = 0x2E
    return bytes(data)


async def wait_typed(client: PtyClient, keys: str, text: str, timeout: float = 20.0) -> None:
    """Type ``keys`` until ``text`` is on the screen (a key that arrives while a flood is
    being dropped is dropped with it: the player types it again)."""
    end = time.monotonic() + timeout
    while text not in client.text():
        if time.monotonic() > end or client.closed.is_set():
            raise AssertionError(f"{text!r} never shown:\n{client.text()}")
        client.send(keys)
        client.changed.clear()
        with contextlib.suppress(TimeoutError):
            await asyncio.wait_for(client.changed.wait(), 0.5)


async def test_a_flooded_lobby_session_still_answers(tmp_path: Path) -> None:
    server = await start_server(fast_config(tmp_path))
    flooder, calm = PtyClient(), PtyClient()
    try:
        await flooder.connect(server.port, "flood", None, command="lobby")
        await calm.connect(server.port, "calm", None, command="lobby")
        for c in (flooder, calm):
            await c.wait_for("welcome")
        flooder.send(junk(256 * 1024, seed=5))
        await asyncio.sleep(0.05)
        await wait_typed(calm, "\x15tranquil", "tranquil")  # the other session answers
        await wait_typed(flooder, "\x15still here", "still here")  # and so does this one
        assert b"Too much input" in bytes(flooder.raw)  # the player was told
        drivers = [s.driver for s in server.sessions if s.driver is not None]
        assert sum(d.bytes_dropped for d in drivers) > 0
        assert all(d.backlog_bytes <= server.limits.input_backlog for d in drivers)
    finally:
        for c in (flooder, calm):
            await c.close()
        await server.close()
