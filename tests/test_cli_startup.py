"""The command line's offline commands start light: ``cli.main`` imports the server, SQLite,
the Textual app and multiprocessing only inside the commands that need them."""

from __future__ import annotations

import json
import subprocess
import sys

import pytest

HEAVY = ("net", "asyncssh", "sqlite3", "textual.app", "tui", "multiprocessing")


@pytest.mark.parametrize("argv", [
    ["score", "--json"],
    ["simulate", "--rules", "gejiu", "--hands", "4"],
    ["replay", "game.jsonl"],
    ["record", "--rules", "yichun"],
    ["arena", "--rules", "gejiu", "--seat", "node examples/simple-bot.js"],
])
def test_an_offline_command_loads_no_server_database_or_app(argv: list[str]) -> None:
    code = (
        "import json, sys\n"
        "from cli.main import build_parser\n"
        f"build_parser().parse_args({argv!r})\n"
        f"print(json.dumps([m for m in {HEAVY!r} if m in sys.modules]))\n"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                         check=True).stdout
    assert json.loads(out) == []


def test_a_data_folder_given_with_a_tilde_is_in_the_home_folder() -> None:
    """`make serve DATA=~/x` runs under sh, which leaves the ~ to the program."""
    import os

    from cli.main import build_parser

    home = os.path.expanduser("~")
    for argv in (["serve", "--data", "~/mj"], ["play", "--data", "~/mj"],
                 ["backup", "--data", "~/mj", "out.sqlite3"]):
        assert build_parser().parse_args(argv).data == os.path.join(home, "mj")
