"""``serve --metrics`` and ``--log-format`` (issue 55, metrics and logs): the Prometheus figures
move during a played hand, the endpoint answers only ``/metrics`` and never needs the event
loop, and every log line names the account, address and table it is about."""

from __future__ import annotations

import asyncio
import json
import logging
import os
import signal
import subprocess
import sys
import urllib.error
import urllib.request
from pathlib import Path

import pytest
from prometheus_client.parser import text_string_to_metric_families

from engine.table import Phase
from net import metrics
from net.front.server import MahjongServer
from net.limits import Limits
from net.logfmt import JsonFormatter, TextFormatter
from net.runtime.shared_table import SharedTable
from net.serve import Metrics, metrics_address
from testkit.ssh import BotClient, MakeServer, PtyClient, new_key
from tests.support.waiting import until

ROOT = Path(__file__).resolve().parent.parent


Samples = dict[tuple[str, tuple[tuple[str, str], ...]], float]


def scrape(port: int, path: str = "/metrics") -> Samples:
    """The samples at ``path``: {(name, sorted labels): value}. A plain blocking read, made
    on the event loop's own thread on purpose: the endpoint answers without the loop."""
    with urllib.request.urlopen(f"http://127.0.0.1:{port}{path}", timeout=5) as reply:
        text = reply.read().decode()
    out: Samples = {}
    for family in text_string_to_metric_families(text):
        for s in family.samples:
            out[(s.name, tuple(sorted(s.labels.items())))] = s.value
    return out


def value(samples: Samples, name: str, **labels: str) -> float:
    return sum(v for (n, ls), v in samples.items()
               if n == name and all(dict(ls).get(k) == x for k, x in labels.items()))


async def test_figures_move_during_a_played_hand(server: MahjongServer) -> None:
    watching = Metrics(server, "127.0.0.1", 0, worker="7")
    try:
        before = scrape(watching.port)
        c = PtyClient(80, 24)
        await c.connect(server.port, "ann", new_key(), command="join m1 --rules gejiu")
        await c.wait_for("press S")
        c.send("s")
        await until(lambda: server.registry.tables["m1"].game is not None, 10.0, "the game")
        table: SharedTable = server.registry.tables["m1"]
        await c.wait_for("个旧")
        moves = 0
        game = table.game
        assert game is not None and game.hand is not None
        hand = game.hand
        while moves < 3 and not hand.is_over:
            await until(lambda: bool(hand.is_over or 0 in hand.to_act()), 10.0,
                        "seat 0's turn")
            if hand.is_over:
                break
            version = hand.version
            c.send("\r" if hand.phase in (Phase.TURN, Phase.BUY) else "x")
            await until(lambda v=version: hand.version != v, 5.0, "the key's move")
            moves += 1
        assert moves
        await until(lambda: value(scrape(watching.port), "mahjong_sessions",
                                  kind="screen") >= 1, 5.0, "the sessions gauge")
        await until(lambda: value(scrape(watching.port), "mahjong_key_to_screens_seconds_count")
                    > value(before, "mahjong_key_to_screens_seconds_count"), 5.0,
                    "a key's move measured on every screen")
        after = scrape(watching.port)
        assert value(after, "mahjong_actions_total", worker="7") \
            >= value(before, "mahjong_actions_total") + moves
        assert value(after, "mahjong_tables", rules="gejiu") == 1
        assert value(after, "mahjong_loop_lag_seconds_count") >= 1
        assert value(after, "mahjong_store_write_failures_total", kind="failed") == 0
        assert ("mahjong_gc_pause_seconds_count", (("generation", "0"), ("worker", "7"))) \
            in after
        await c.close()
    finally:
        watching.close()


async def test_only_the_metrics_path_is_answered(server: MahjongServer) -> None:
    watching = Metrics(server, "127.0.0.1", 0)
    try:
        for path in ("/", "/metrics/", "/metricsx", "/favicon.ico", "/../metrics"):
            with pytest.raises(urllib.error.HTTPError) as info:
                scrape(watching.port, path)
            assert info.value.code == 404, path
        request = urllib.request.Request(f"http://127.0.0.1:{watching.port}/metrics",
                                         data=b"x", method="POST")
        with pytest.raises(urllib.error.HTTPError) as info:
            urllib.request.urlopen(request, timeout=5)
        assert info.value.code == 404
        assert value(scrape(watching.port), "mahjong_actions_total") >= 0
    finally:
        watching.close()


def test_metrics_addresses() -> None:
    assert metrics_address(None, None) is None
    assert metrics_address("9100", None) == ("127.0.0.1", 9100)
    assert metrics_address("0.0.0.0:9100", None) == ("0.0.0.0", 9100)
    assert metrics_address("[::1]:9100", 3) == ("::1", 9102)  # worker 3: PORT + 2
    assert metrics_address("127.0.0.1:0", 2) == ("127.0.0.1", 0)
    for bad in ("x:y", "127.0.0.1:70000", "host:", ""):
        if bad:
            with pytest.raises(ValueError):
                metrics_address(bad, None)


async def test_limits_hit_are_counted_by_name(make_server: MakeServer) -> None:
    server = await make_server(limits=Limits(sessions_per_address=1))
    watching = Metrics(server, "127.0.0.1", 0)
    try:
        before = value(scrape(watching.port), "mahjong_limit_hits_total",
                       limit="sessions_per_address")
        first = PtyClient(80, 24)
        await first.connect(server.port, "bea", new_key(), command="join m2")
        await first.wait_for("press S")
        second = PtyClient(80, 24)
        await second.connect(server.port, "cal", new_key(), command="join m2")
        await until(lambda: value(scrape(watching.port), "mahjong_limit_hits_total",
                                  limit="sessions_per_address") == before + 1, 5.0,
                    "the refusal counted")
        await second.close()
        await first.close()
    finally:
        watching.close()


async def test_a_refused_bot_line_names_its_account_address_and_table(
        server: MahjongServer, caplog: pytest.LogCaptureFixture) -> None:
    caplog.set_level(logging.INFO)
    bot = BotClient()
    await bot.connect(server.port, "robo", "bot join t9 --rules gejiu", new_key())
    try:
        await bot.read_until("hello")
        bot.send(b"this is no answer\n")
        await until(lambda: any("bot answer refused" in r.getMessage()
                                for r in caplog.records), 5.0, "the refusal logged")
    finally:
        await bot.close()
    record = next(r for r in caplog.records if "bot answer refused" in r.getMessage())
    line = json.loads(JsonFormatter().format(record))
    assert line["account"] == "robo" and line["address"] == "127.0.0.1"
    assert line["table"] == "t9" and line["level"] == "INFO" and "msg" in line
    text = TextFormatter().format(record)
    assert " account=robo address=127.0.0.1 table=t9 msg=" in text
    sat = next(r for r in caplog.records if "sits at" in r.getMessage())
    assert json.loads(JsonFormatter().format(sat))["table"] == "t9"


def test_log_lines_carry_no_escape_and_stay_one_line() -> None:
    record = logging.LogRecord("net.front.server", logging.WARNING, __file__, 1,
                               "refused: %s", ("x\x1b[2J\ny \x9b31m",), None)
    record.account = "eve\x1b]0;t\x07"
    record.table = "a b"
    for formatter in (TextFormatter(), JsonFormatter()):
        out = formatter.format(record)
        assert "\n" not in out and "\x1b" not in out and "\x9b" not in out and "\x07" not in out
    text = TextFormatter().format(record)
    assert 'table="a b"' in text and "level=WARNING" in text
    assert json.loads(JsonFormatter().format(record))["msg"] == "refused: x\x1b[2J\ny \x9b31m"


def test_the_sampler_keeps_its_last_snapshot_when_a_read_fails() -> None:
    calls = []

    def read() -> metrics.Snapshot:
        calls.append(1)
        if len(calls) > 1:
            raise RuntimeError("changed under it")
        return metrics.Snapshot(sessions=(("screen", 2),))

    async def run() -> None:
        sampler = metrics.Sampler(read, period=0.01)
        sampler.start()
        await asyncio.sleep(0.05)
        sampler.stop()
        assert sampler.snapshot.sessions == (("screen", 2),) and len(calls) > 1

    asyncio.run(run())


def test_serve_with_metrics_and_json_logs(tmp_path: Path) -> None:
    """The command line: ``--metrics 127.0.0.1:0 --log-format json``: the address printed,
    the figures served, and the log's lines JSON."""
    cmd = [sys.executable, "-m", "cli.main", "serve", "--data", str(tmp_path), "--port", "0",
           "--metrics", "127.0.0.1:0", "--log-format", "json"]
    env = {**os.environ, "PYTHONUNBUFFERED": "1"}
    proc = subprocess.Popen(cmd, cwd=ROOT, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                            text=True, env=env)
    try:
        assert proc.stdout is not None
        port = None
        for _ in range(20):
            line = proc.stdout.readline()
            if line.startswith("metrics: "):
                port = int(line.rsplit(":", 1)[1].split("/")[0])
            if line.startswith("mahjong-ssh serving"):
                break
        assert port is not None
        samples = scrape(port)
        assert ("mahjong_actions_total", (("worker", "0"),)) in samples
    finally:
        proc.send_signal(signal.SIGTERM)
        _out, err = proc.communicate(timeout=30)
    assert proc.returncode == 0, err
    for raw in err.splitlines():
        line = json.loads(raw)
        assert {"time", "level", "logger", "msg"} <= set(line)


def test_a_bad_metrics_address_stops_serve(tmp_path: Path) -> None:
    r = subprocess.run([sys.executable, "-m", "cli.main", "serve", "--data", str(tmp_path),
                        "--port", "0", "--metrics", "nowhere:port"], cwd=ROOT,
                       capture_output=True, text=True, timeout=60)
    assert r.returncode == 2 and r.stderr.startswith("mahjong-ssh serve: --metrics")
    assert len(r.stderr.splitlines()) == 1


def test_each_worker_is_given_the_metrics_address_and_log_format(tmp_path: Path) -> None:
    """``--workers N``: each worker's command carries ``--metrics`` and ``--log-format``; the
    worker adds its number less one to the port (:func:`net.serve.metrics_address`)."""
    from cli.main import build_parser
    from net.front.server import ServerConfig
    from net.supervisor import worker_command

    args = build_parser().parse_args(["serve", "--workers", "2", "--metrics", "127.0.0.1:9300",
                                      "--log-format", "json", "--data", str(tmp_path)])
    cmd = worker_command(args, ServerConfig(data_dir=tmp_path), 2, "nats://127.0.0.1:1")
    assert cmd[cmd.index("--metrics") + 1] == "127.0.0.1:9300"
    assert cmd[cmd.index("--log-format") + 1] == "json"
    assert metrics_address("127.0.0.1:9300", 2) == ("127.0.0.1", 9301)


async def test_the_sessions_and_tables_gauges_fall_to_zero(server: MahjongServer) -> None:
    """Issue 55, checked by hand: once the last player left, mahjong_sessions had no series
    at all (a scrape showed the last count going stale, never 0); a table's series the same
    once it closed."""
    watching = Metrics(server, "127.0.0.1", 0, worker="0")
    try:
        first = scrape(watching.port)
        for kind in ("screen", "plain", "bot"):  # each kind shown from the start, at 0
            assert first[("mahjong_sessions", (("kind", kind), ("worker", "0")))] == 0
        c = PtyClient(80, 24)
        await c.connect(server.port, "ann", new_key(), command="join z1 --rules shangrao")
        await c.wait_for("press S")
        table = (("rules", "shangrao"), ("state", "waiting"), ("worker", "0"))
        await until(lambda: scrape(watching.port).get(("mahjong_tables", table)) == 1
                    and value(scrape(watching.port), "mahjong_sessions", kind="screen") == 1,
                    5.0, "the table and the session counted")
        await c.close()
        server.registry.close_table("z1", None)
        await until(lambda: scrape(watching.port).get(("mahjong_tables", table)) == 0
                    and scrape(watching.port).get(
                        ("mahjong_sessions", (("kind", "screen"), ("worker", "0")))) == 0,
                    5.0, "both at 0")
    finally:
        watching.close()
