"""The systemd unit in the repository (``contrib/mahjong-ssh.service``, issue 55): it runs
``serve`` with flags the command line takes, its data in the state directory, under a dynamic
user with its hardening options; and ``systemd-analyze verify`` finds nothing to say of it
where systemd's tools are installed."""

from __future__ import annotations

import shlex
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from cli.main import build_parser

ROOT = Path(__file__).resolve().parent.parent
UNIT = ROOT / "contrib" / "mahjong-ssh.service"

HARDENING = {
    "DynamicUser": "yes",
    "StateDirectory": "mahjong-ssh",
    "NoNewPrivileges": "yes",
    "ProtectSystem": "strict",
    "ProtectHome": "yes",
    "PrivateTmp": "yes",
    "PrivateDevices": "yes",
    "RestrictAddressFamilies": "AF_INET AF_INET6 AF_UNIX",
    "CapabilityBoundingSet": "",
    "RestrictSUIDSGID": "yes",
    "LockPersonality": "yes",
    "SystemCallArchitectures": "native",
}


def settings() -> dict[str, dict[str, list[str]]]:
    """The unit's sections, each key's values in order (a key may be given more than once)."""
    out: dict[str, dict[str, list[str]]] = {}
    section: dict[str, list[str]] | None = None
    for line in UNIT.read_text(encoding="utf-8").splitlines():
        line = line.strip()
        if not line or line.startswith(("#", ";")):
            continue
        if line.startswith("["):
            section = out.setdefault(line.strip("[]"), {})
            continue
        assert section is not None, f"a setting before any section: {line!r}"
        key, eq, value = line.partition("=")
        assert eq, f"not KEY=VALUE: {line!r}"
        section.setdefault(key, []).append(value)
    return out


def test_unit_runs_serve_hardened() -> None:
    unit = settings()
    service = unit["Service"]
    for key, value in HARDENING.items():
        assert service.get(key) == [value], key
    assert "~@privileged" in service["SystemCallFilter"]
    # SIGTERM to the supervisor alone (it stops the workers, then NATS); SIGHUP reloads
    assert service["KillMode"] == ["mixed"]
    assert "-HUP $MAINPID" in service["ExecReload"][0]
    argv = shlex.split(service["ExecStart"][0])
    assert Path(argv[0]).is_absolute() and Path(argv[0]).name == "mahjong-ssh"
    args = build_parser().parse_args(argv[1:])  # the flags are the command line's own
    assert args.command == "serve" and args.data == "/var/lib/mahjong-ssh"
    assert unit["Install"]["WantedBy"] == ["multi-user.target"]


def test_systemd_analyze_verify(tmp_path: Path) -> None:
    tool = shutil.which("systemd-analyze")
    if tool is None:
        pytest.skip("systemd-analyze is not installed here (apt-get install systemd): the "
                    "unit's keys are checked by test_unit_runs_serve_hardened only")
    # the program where this checkout has it (verify checks that ExecStart's exists)
    program = shutil.which("mahjong-ssh", path=str(Path(sys.executable).parent)) or "/bin/true"
    text = UNIT.read_text(encoding="utf-8").replace("/opt/mahjong-ssh/bin/mahjong-ssh", program)
    unit = tmp_path / "mahjong-ssh.service"
    unit.write_text(text, encoding="utf-8")
    out = subprocess.run([tool, "verify", str(unit)], capture_output=True, text=True,
                         timeout=60)
    # an unknown key or a bad value is only a warning: any line at all is a failure here
    assert out.returncode == 0 and not out.stderr.strip() and not out.stdout.strip(), (
        out.stdout + out.stderr)
