"""LAN discovery (``serve --lan``, ``mahjong-ssh find``, ``net/lan.py``): the TXT record and
its bounds, hostile records, the finder's report, and real announcements over loopback
multicast: in-process with a running server, and ``serve --lan`` and ``find`` as two
processes."""

from __future__ import annotations

import argparse
import asyncio
import base64
import contextlib
import dataclasses
import os
import re
import secrets
import signal
import socket
import subprocess
import sys
import time
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from cli.find import report, ssh_line, timeout_seconds
from host.table_info import SeatInfo, TableInfo, TableState
from net import lan, serve
from net.front.server import MahjongServer
from net.lan import (
    STRING_MAX,
    TABLES_MAX,
    TXT_BUDGET,
    Announcement,
    Announcer,
    BadAnnouncement,
    FindResult,
    Found,
    LanTable,
    decode_txt,
    encode_txt,
    found_of,
    host_label,
    instance_name,
    reach_of,
    txt_size,
)
from net.supervisor import worker_command
from testkit.ssh import PtyClient
from tests.support.waiting import until

ROOT = Path(__file__).resolve().parent.parent


def fake_fingerprint() -> str:
    return "SHA256:" + base64.b64encode(secrets.token_bytes(32)).decode().rstrip("=")


def info(name: str, people: int = 1, bots: int = 0, state: TableState = TableState.WAITING,
         watchers: int = 0, rules: str = "yichun", hand: int = 0) -> TableInfo:
    seats = tuple(SeatInfo(f"p{i}", True, True) if i < people
                  else SeatInfo("bot 电脑", False, True) if i < people + bots
                  else SeatInfo("", False, False) for i in range(4))
    assert len(seats) == 4
    return TableInfo(name, rules, (), seats, watchers, state, hand, 8)  # type: ignore[arg-type]


def as_received(record: dict[str, str]) -> dict[bytes, bytes | None]:
    return {k.encode(): v.encode() for k, v in record.items()}


GOOD = {b"v": b"1", b"fp": b"SHA256:" + b"A" * 43, b"sv": b"0.1.0", b"n": b"1",
        b"t0": b"friday;yichun;w;3;1;0;0;8;"}


# --- the record -----------------------------------------------------------------------------


def test_record_round_trip() -> None:
    fp = fake_fingerprint()
    infos = [info("friday", 2, watchers=3), info("周五", 1, rules="gejiu"),
             info("late", 3, 1, TableState.PLAYING, hand=2),
             dataclasses.replace(info("bets", 2), stakes_possible=True)]
    record = encode_txt(fp, "0.1.0", infos)
    got = decode_txt(as_received(record))
    assert got.fingerprint == fp and got.version == "0.1.0"
    assert got.total == 4 and got.more == 0 and got.unreadable == 0
    by_name = {t.name: t for t in got.tables}
    assert by_name["friday"] == LanTable("friday", "yichun", TableState.WAITING, 2, 2, 3, 0, 8)
    assert by_name["周五"].rules == "gejiu" and by_name["周五"].free == 3
    late = by_name["late"]
    assert (late.state, late.free, late.players, late.hand) == (TableState.PLAYING, 0, 3, 2)
    assert by_name["bets"].stakes and not late.stakes


def test_most_interesting_tables_first() -> None:
    infos = [info("over", 2, 2, TableState.OVER), info("empty", 0),
             info("busy", 3), info("played", 2, 2, TableState.PLAYING, watchers=5),
             info("full", 4)]
    names = [t.name for t in decode_txt(as_received(encode_txt(fake_fingerprint(), "1",
                                                                 infos))).tables]
    # seats to take (with people there first), then games to watch (the most people
    # first), finished ones last
    assert names == ["busy", "empty", "full", "played", "over"]


def test_many_tables_fit_the_budget_and_the_rest_is_counted() -> None:
    # the widest names there are: 12 CJK characters (24 cells, 36 bytes) each
    infos = [info(f"周{i:02d}" + "五" * 9, 1 + i % 3, watchers=99_999) for i in range(300)]
    record = encode_txt(fake_fingerprint(), "0.1.0", infos)
    assert txt_size(record) <= TXT_BUDGET
    assert all(len(f"{k}={v}".encode()) <= STRING_MAX for k, v in record.items())
    got = decode_txt(as_received(record))
    assert 0 < len(got.tables) <= TABLES_MAX
    assert got.total == 300 and got.more == 300 - len(got.tables)


def test_a_small_budget_still_names_the_server() -> None:
    record = encode_txt(fake_fingerprint(), "0.1.0", [info("friday")], budget=80)
    got = decode_txt(as_received(record))
    assert got.tables == () and got.more == 1


@pytest.mark.parametrize("change, why", [
    ({b"v": None}, "no v"),
    ({b"v": b"2"}, "version"),
    ({b"fp": b"MD5:aa:bb"}, "fingerprint"),
    ({b"fp": b"SHA256:" + b"A" * 42 + b"\x1b"}, "fingerprint"),
    ({b"fp": None}, "no fp"),
    ({b"n": b"-1"}, "count"),
    ({b"n": "３".encode()}, "count"),  # a full-width digit is a digit to isdigit()
    ({b"n": b"9" * 300}, "too long"),
    ({b"sv": b"\xff\xfe"}, "UTF-8"),
])
def test_a_malformed_announcement_is_refused(change: dict[bytes, bytes | None],
                                             why: str) -> None:
    record = {**GOOD, **change}
    with pytest.raises(BadAnnouncement):
        decode_txt(record)


def test_too_many_strings_are_refused() -> None:
    record = dict(GOOD)
    record.update({f"x{i}".encode(): b"1" for i in range(200)})
    with pytest.raises(BadAnnouncement):
        decode_txt(record)


@pytest.mark.parametrize("entry", [
    b"friday;yichun;w;3;1;0;0",  # a field short
    b"friday;yichun;w;3;1;0;0;8;s;x",  # a field more
    b";yichun;w;3;1;0;0;8;",  # no name
    b"fri day;yichun;w;3;1;0;0;8;",  # not a table name
    "x" * 30 + ";yichun;w;3;1;0;0;8;",  # wider than 24 cells
    b"friday;YICHUN!;w;3;1;0;0;8;",  # not a ruleset's name
    b"friday;yichun;q;3;1;0;0;8;",  # no such state
    b"friday;yichun;w;5;0;0;0;8;",  # five seats free
    b"friday;yichun;w;3;3;0;0;8;",  # six seats
    b"friday;yichun;w;-1;1;0;0;8;",
    b"friday;yichun;w;3;1;100001;0;8;",
    b"friday;yichun;w;3;1; 1;0;8;",
    b"friday;yichun;w;3;1;0;0;8;S!",  # not flags
    b"friday;yichun;w;3;1;0;0;8;" + b"s" * 9,
    b"friday;yichun;w;3;1;0;0;" + b"9" * 200 + b";",
    b"fri\xffday;yichun;w;3;1;0;0;8;",  # not UTF-8
    b"friday;yichun;w;3;1;0;0;8;" + b" " * 250,  # over 255 bytes
])
def test_a_malformed_table_is_skipped_alone(entry: bytes | str) -> None:
    raw = entry.encode() if isinstance(entry, str) else entry
    got = decode_txt({**GOOD, b"n": b"2", b"t1": raw})
    assert [t.name for t in got.tables] == ["friday"]
    assert got.unreadable == 1 and got.more == 1


def test_escape_sequences_never_reach_the_terminal() -> None:
    raw = "\x1b]0;pwned\x07fri\x1b[2Jday\u202e;yichun;w;3;1;0;0;8;".encode()
    got = decode_txt({**GOOD, b"t0": raw})
    assert [t.name for t in got.tables] == ["friday"]
    found = found_of("evil\x1b[31m\x07 box\u202e." + lan.SERVICE_TYPE, ["10.0.0.1"], 2222,
                     {**GOOD, b"t0": raw})
    assert found.name == "evil box"
    text = "\n".join(report(FindResult([found]), "en"))
    assert not re.search(r"[\x00-\x08\x0b-\x1f\x7f-\x9f\u202a-\u202e]", text)


def test_the_same_name_twice_counts_once() -> None:
    got = decode_txt({**GOOD, b"n": b"2", b"t1": GOOD[b"t0"]})
    assert len(got.tables) == 1 and got.unreadable == 1


TXT_KEYS = st.sampled_from([b"v", b"fp", b"sv", b"n", b"t0", b"t1", b"t15", b"t16", b"x"])


@settings(max_examples=300, deadline=None)
@given(st.dictionaries(st.one_of(TXT_KEYS, st.binary(max_size=8)),
                       st.one_of(st.none(), st.binary(max_size=300),
                                 st.sampled_from(list(GOOD.values()))), max_size=40),
       st.booleans())
def test_any_bytes_decode_or_are_refused(record: dict[bytes, bytes | None],
                                         base: bool) -> None:
    if base:
        record = {**GOOD, **record}
    try:
        got = decode_txt(record)
    except BadAnnouncement:
        return
    assert len(got.tables) <= TABLES_MAX and got.total >= len(got.tables)
    for t in got.tables:
        assert not re.search(r"[\x00-\x1f\x7f-\x9f;]", t.name)
        assert 0 <= t.free + t.players <= 4


# --- names, addresses, what the finder keeps ------------------------------------------------


@pytest.mark.parametrize("hostname, label", [
    ("box.example.org", "box"),
    ("my box\x1b[31m!", "my-box-31m"),
    ("周五", "mahjong"),
    ("", "mahjong"),
    ("a" * 200, "a" * 40),
])
def test_host_label(hostname: str, label: str) -> None:
    assert host_label(hostname) == label
    assert len(instance_name(65535, hostname).encode()) <= lan.INSTANCE_MAX


def test_where_it_announces() -> None:
    loop = reach_of("127.0.0.1")
    assert loop.loopback_only and loop.interfaces == ("127.0.0.1",)
    assert reach_of("localhost").loopback_only
    every = reach_of("0.0.0.0")
    assert every.interfaces is None and every.addresses and every.ipv4 and not every.ipv6
    assert all(":" not in a for a in every.addresses)


def test_found_keeps_only_usable_addresses() -> None:
    found = found_of("x." + lan.SERVICE_TYPE, ["224.0.0.251", "0.0.0.0", "nonsense",
                                               "127.0.0.1", "10.1.2.3", "10.1.2.3"],
                     2222, GOOD)
    assert found.addresses == ("127.0.0.1", "10.1.2.3") and found.address == "10.1.2.3"
    for port in (None, 0, 70000):
        with pytest.raises(BadAnnouncement):
            found_of("x." + lan.SERVICE_TYPE, ["10.1.2.3"], port, GOOD)
    with pytest.raises(BadAnnouncement):
        found_of("x." + lan.SERVICE_TYPE, ["0.0.0.0"], 2222, GOOD)


# --- what find prints -----------------------------------------------------------------------


def sample_found() -> Found:
    tables = (LanTable("friday", "yichun", TableState.WAITING, 2, 2, 1, 0, 8, stakes=True),
              LanTable("full", "gejiu", TableState.PLAYING, 0, 4, 0, 3, 8),
              LanTable("周五", "shangrao", TableState.OVER, 0, 2, 0, 8, 8))
    fp = "SHA256:" + "B" * 43
    return Found("mahjong-ssh on box port 2300", ("192.168.1.5",), 2300,
                 Announcement(fp, "0.1.0", tables, total=5))


def test_report_lists_servers_and_the_lines_to_type() -> None:
    text = "\n".join(report(FindResult([sample_found()], skipped=1), "en"))
    assert "mahjong-ssh on box port 2300  192.168.1.5:2300" in text
    assert "SHA256:" + "B" * 43 in text
    assert "ssh -t -p 2300 192.168.1.5\n" in text
    assert "ssh -t -p 2300 192.168.1.5 join friday" in text
    assert "1 server found:" in text
    assert "2 free of 4, 2 players, 1 watching, 压鸽子 stakes on" in text
    assert "ssh -t -p 2300 192.168.1.5 watch full" in text  # no seat: watch it
    assert "ssh -t -p 2300 192.168.1.5 watch 周五" in text
    assert "hand 3/8, 4 players" in text and "周五  shangrao  game over: game over" in text
    assert "2 more tables" in text
    assert "1 announcement skipped" in text


def test_report_in_chinese_and_when_nothing_is_found() -> None:
    zh = "\n".join(report(FindResult([sample_found()]), "zh"))
    assert "主机密钥" in zh and "空位 2/4" in zh and "另有 2 张牌桌" in zh
    assert "周五  shangrao  已结束" in zh
    none = report(FindResult(), "en")
    assert none[0] == "No server found." and "5353" in none[1] and "--timeout" in none[1]
    assert "没有找到服务器" in report(FindResult(), "zh")[0]


def test_ssh_line_of_an_ipv6_server() -> None:
    found = Found("x", ("fd00::5",), 2222, sample_found().announcement)
    assert ssh_line(found, "join", "friday") == "ssh -t -p 2222 fd00::5 join friday"


@pytest.mark.parametrize("text", ["0", "0.1", "61", "nan", "inf", "soon"])
def test_find_timeout_is_bounded(text: str) -> None:
    with pytest.raises(argparse.ArgumentTypeError):
        timeout_seconds(text)


def test_one_worker_announces_for_the_machine(tmp_path: Path) -> None:
    from net.front.server import ServerConfig

    args = argparse.Namespace(lan=True, workers=3)
    config = ServerConfig(host="0.0.0.0", port=2300, data_dir=tmp_path)
    commands = [worker_command(args, config, k, "nats://127.0.0.1:4222") for k in (1, 2, 3)]
    assert ["--lan" in c for c in commands] == [True, False, False]
    args.lan = False
    assert "--lan" not in worker_command(args, config, 1, "nats://127.0.0.1:4222")


# --- real announcements over loopback multicast ---------------------------------------------


def loopback_multicast() -> str | None:
    """Why multicast on the loopback interface does not work here, or None when it does."""
    group = "224.0.0.251"
    try:
        with socket.socket(socket.AF_INET, socket.SOCK_DGRAM) as rx, \
                socket.socket(socket.AF_INET, socket.SOCK_DGRAM) as tx:
            rx.bind(("", 0))
            port = rx.getsockname()[1]
            rx.setsockopt(socket.IPPROTO_IP, socket.IP_ADD_MEMBERSHIP,
                          socket.inet_aton(group) + socket.inet_aton("127.0.0.1"))
            tx.setsockopt(socket.IPPROTO_IP, socket.IP_MULTICAST_IF,
                          socket.inet_aton("127.0.0.1"))
            tx.setsockopt(socket.IPPROTO_IP, socket.IP_MULTICAST_LOOP, 1)
            rx.settimeout(2.0)
            token = secrets.token_bytes(8)
            tx.sendto(token, (group, port))
            while rx.recv(64) != token:
                pass
    except OSError as exc:
        return (f"multicast on loopback is unavailable here ({exc}); as root: "
                "ip link set lo multicast on")
    return None


@pytest.fixture(scope="module")
def multicast() -> None:
    why = loopback_multicast()
    if why:
        pytest.skip(why)


async def find_ours(fingerprint: str, present: bool = True) -> Found | None:
    """Browse loopback until the server of ``fingerprint`` is there (or gone)."""
    for _ in range(5):
        result = await lan.find(1.5, interfaces=["127.0.0.1"])
        ours = [f for f in result.servers if f.announcement.fingerprint == fingerprint]
        if bool(ours) == present:
            return ours[0] if ours else None
    raise AssertionError(f"server {fingerprint} {'never found' if present else 'still found'}")


async def test_a_running_server_announced_then_withdrawn(multicast: None,
                                                         server: MahjongServer) -> None:
    assert server.host_key is not None
    fingerprint = server.host_key.get_fingerprint("sha256")
    announcer = Announcer(server.registry.listing, host="127.0.0.1", port=server.port,
                          fingerprint=fingerprint, interval=0.1)
    await announcer.start()
    try:
        assert "loopback only" in announcer.note()
        found = await find_ours(fingerprint)
        assert found is not None and found.port == server.port
        assert found.addresses == ("127.0.0.1",) and found.announcement.tables == ()

        player = PtyClient(100, 30)
        await player.connect(server.port, "alice", command="join lanparty --rules gejiu")
        try:
            await until(lambda: "lanparty" in server.registry.tables, 5.0, "the table")
            await until(lambda: announcer.updates >= 1, 5.0, "the record rewritten")
            found = await find_ours(fingerprint)
            assert found is not None
            tables = found.announcement.tables
            assert [(t.name, t.rules, t.players) for t in tables] == [("lanparty", "gejiu", 1)]
            assert not await announcer.refresh()  # nothing changed: nothing sent
            assert "join lanparty" in "\n".join(report(FindResult([found]), "en"))
        finally:
            await player.close()
    finally:
        await announcer.close()
    assert await find_ours(fingerprint, present=False) is None


async def test_serve_says_when_it_cannot_announce(server: MahjongServer,
                                                  monkeypatch: pytest.MonkeyPatch,
                                                  capsys: pytest.CaptureFixture[str]) -> None:
    async def refused(self: Announcer) -> None:
        raise lan.LanError("no multicast socket: [Errno 19] No such device")

    monkeypatch.setattr(Announcer, "start", refused)
    assert await serve.announce(server) is None
    err = capsys.readouterr().err
    assert "--lan: not announced on the network: no multicast socket" in err


def run_find(*args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, "-m", "cli.main", "find", *args], cwd=ROOT,
                          capture_output=True, text=True, timeout=60,
                          env={**os.environ, "LANG": "C.UTF-8"})


def test_serve_lan_and_find_in_two_processes(multicast: None, tmp_path: Path) -> None:
    proc = subprocess.Popen(
        [sys.executable, "-m", "cli.main", "serve", "--host", "127.0.0.1", "--port", "0",
         "--data", str(tmp_path), "--lan"],
        cwd=ROOT, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
    try:
        assert proc.stdout is not None
        lines = []
        deadline = time.monotonic() + 60
        while not any(line.startswith("LAN: announced") for line in lines):
            line = proc.stdout.readline()
            assert line and time.monotonic() < deadline, "".join(lines)
            lines.append(line)
        out = "".join(lines)
        port = re.search(r"serving on 127\.0\.0\.1:(\d+)", out)
        fp = re.search(r"fingerprint: (SHA256:\S+)", out)
        assert port and fp, out
        assert "loopback only" in proc.stdout.readline()
        for _ in range(5):
            found = run_find("--timeout", "2")
            if fp.group(1) in found.stdout:
                break
        assert fp.group(1) in found.stdout, found.stdout + found.stderr
        assert found.returncode == 0
        assert f"ssh -t -p {port.group(1)} 127.0.0.1" in found.stdout
        assert "Looking for mahjong-ssh servers" in found.stderr
        proc.send_signal(signal.SIGTERM)
        assert proc.wait(30) == 0
        gone = run_find("--timeout", "1", "--lang", "zh")
        assert fp.group(1) not in gone.stdout
        assert "正在局域网中查找" in gone.stderr
    finally:
        if proc.poll() is None:
            proc.kill()
            proc.wait()
        if proc.stdout is not None:
            proc.stdout.close()




def mdns_answer(name: str, port: int, txt: bytes, server: str) -> list[bytes]:
    """A raw mDNS response announcing ``name`` with the TXT record's bytes as they are: what a
    hostile host can send (zeroconf itself would refuse to announce such a name)."""
    from zeroconf import DNSAddress, DNSOutgoing, DNSPointer, DNSService, DNSText
    from zeroconf.const import (
        _CLASS_IN,
        _CLASS_UNIQUE,
        _FLAGS_AA,
        _FLAGS_QR_RESPONSE,
        _TYPE_A,
        _TYPE_PTR,
        _TYPE_SRV,
        _TYPE_TXT,
    )

    out = DNSOutgoing(_FLAGS_QR_RESPONSE | _FLAGS_AA)
    unique = _CLASS_IN | _CLASS_UNIQUE
    out.add_answer_at_time(DNSPointer(lan.SERVICE_TYPE, _TYPE_PTR, _CLASS_IN, 120, name), 0)
    out.add_answer_at_time(DNSService(name, _TYPE_SRV, unique, 120, 0, 0, port, server), 0)
    out.add_answer_at_time(DNSText(name, _TYPE_TXT, unique, 120, txt), 0)
    out.add_answer_at_time(DNSAddress(server, _TYPE_A, unique, 120,
                                      socket.inet_aton("127.0.0.1")), 0)
    return list(out.packets())


def txt_bytes(*strings: bytes) -> bytes:
    return b"".join(bytes([len(x)]) + x for x in strings)


async def test_find_skips_hostile_announcements(multicast: None) -> None:
    token = secrets.token_hex(4)
    good = [b"v=1", b"fp=SHA256:" + b"A" * 43, b"sv=0.1.0"]
    packets = [
        # a name and a record that try to drive the terminal, no fingerprint
        *mdns_answer(f"evil-{token}\x1b[2J\x07.{lan.SERVICE_TYPE}".encode().decode(
            "unicode_escape"), 2222,
            txt_bytes(b"v=1", b"fp=\x1b]0;x\x07", b"n=1", b"t0=" + b"\xff" * 250),
            f"evil-{token}.local."),
        # a TXT record whose last length byte runs past its end, in the fingerprint
        *mdns_answer(f"short-{token}.{lan.SERVICE_TYPE}", 2224,
                     txt_bytes(b"v=1", b"n=0") + b"\xf0fp=SHA256:AAAA", f"short-{token}.local."),
        # readable, with a bad table beside a good one, and in its name what zeroconf lets
        # through: a bidirectional override and an 8-bit CSI (ASCII controls it refuses)
        *mdns_answer(f"odd\u202e\x9b31m-{token}.{lan.SERVICE_TYPE}", 2223,
            txt_bytes(*good, b"n=2", b"t0=friday;yichun;w;3;1;0;0;8;",
                      "t1=\x1b[31m坏;;".encode() + b"\x00" * 40),
            f"odd-{token}.local."),
    ]

    async def shout(tx: socket.socket) -> None:
        while True:
            for packet in packets:
                tx.sendto(packet, ("224.0.0.251", 5353))
            await asyncio.sleep(0.3)

    with socket.socket(socket.AF_INET, socket.SOCK_DGRAM) as tx:
        tx.setsockopt(socket.IPPROTO_IP, socket.IP_MULTICAST_IF, socket.inet_aton("127.0.0.1"))
        tx.setsockopt(socket.IPPROTO_IP, socket.IP_MULTICAST_LOOP, 1)
        task = asyncio.get_running_loop().create_task(shout(tx))
        try:
            result = await lan.find(2.0, interfaces=["127.0.0.1"])
        finally:
            task.cancel()
            with contextlib.suppress(asyncio.CancelledError):
                await task
    names = [f.name for f in result.servers]
    assert not any(f"evil-{token}" in n or f"short-{token}" in n for n in names), names
    assert result.skipped >= 2  # the evil one and the short one, counted, not raised
    odd = [f for f in result.servers if f.port == 2223 and token in f.name]
    assert len(odd) == 1, names
    assert odd[0].name == f"odd-{token}"  # the escape sequence removed
    assert [t.name for t in odd[0].announcement.tables] == ["friday"]
    assert odd[0].announcement.unreadable == 1
    text = "\n".join(report(result, "en"))
    assert "\x1b" not in text and "\x07" not in text
