"""The words that tell a newcomer how to come in (issue 53, the smaller frictions): the help's
commands show ``NAME@`` where the name matters, and the help and the README say that S starts
the hand in the waiting room while s at the table opens the settings."""

from __future__ import annotations

import re
from pathlib import Path

from net.commands import HELP_TEXT
from words import both


def test_the_help_shows_the_name_where_it_matters() -> None:
    commands = [line.split("PORT ", 1)[1] for line in HELP_TEXT.splitlines()
                if line.startswith("  ssh ")]
    assert len(commands) >= 10
    for command in commands:
        host, *rest = command.split()
        if rest[:1] in (["stats"], ["help"]):  # the same for everyone
            assert host == "HOST", command
        else:
            assert host == "NAME@HOST", command


def test_s_starts_in_the_waiting_room_and_is_the_settings_at_the_table() -> None:
    start = " ".join(both("help_start").split())
    assert "presses S in the waiting room" in start and "s opens the settings" in start
    assert "等候室按 S" in start and "s 打开设置" in start
    readme = " ".join((Path(__file__).parent.parent / "README.md").read_text("utf-8").split())
    assert "presses `S` in the waiting room" in readme
    assert "at the table `s` opens the settings" in readme
    assert not re.search(r"presses `s`", readme)


def test_every_key_the_help_lists_says_what_it_does_in_both_languages() -> None:
    """The help lists the table's keys and the shared table's own by their descriptions: each
    one in Chinese too (a newcomer's second tryout met Move left / Move right in English only)."""
    from tui.apps.room import SharedTableApp
    from tui.apps.table_screen import TABLE_BINDINGS

    cjk = re.compile(r"[\u3400-\u9fff]")
    for binding in (*TABLE_BINDINGS, *SharedTableApp.HELP_BINDINGS):
        assert cjk.search(binding.description), binding.description


def test_no_line_of_the_help_runs_past_its_columns() -> None:
    """The help is laid out for a terminal of about 95 columns (the commands on the left,
    what they do from column 43): a description whose Chinese was appended to a full English
    line ran to 119 (puzzles) and 104 (the waiting room's S)."""
    from rich.cells import cell_len

    wide = [line for line in HELP_TEXT.splitlines() if cell_len(line) > 96]
    assert wide == []
