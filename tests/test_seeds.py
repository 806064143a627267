"""A game's seed comes from the operating system's entropy (``secrets``), never from the
process's shared Mersenne Twister: every kept game shows its seed, and 624 of the twister's
outputs rebuild its state, so seeds drawn from it would tell the walls of the next tables.
A seed given on purpose (``--seed``, a test's) still makes the game, and is still recorded."""

from __future__ import annotations

import ast
import random
from pathlib import Path

from engine.game import Game
from host.local import LocalTable
from net.runtime.registry import Registry
from net.runtime.shared_table import TableConfig
from net.store import Account

ROOT = Path(__file__).resolve().parent.parent
PRODUCT = ("net", "host", "tui", "cli")


def shared_table_seed() -> int:
    reg = Registry(TableConfig(bot_delay=0, bot_level="easy"))
    table = reg.get_or_create("t", "gejiu")
    table.join(Account(1, "ann"))
    assert table.start() is None and table.game_seed is not None
    seed = table.game_seed
    reg.close()
    return seed


def local_table_seed() -> int:
    table = LocalTable(bot_delay=0, timers=False)
    assert table.new_game("gejiu", {}, None) is None
    assert table.game is not None
    seed = table.game.seed
    table.close()
    return seed


async def test_a_tables_seed_does_not_follow_the_random_module() -> None:
    """The same state of ``random`` twice: the seeds differ (they agreed before, each being
    the twister's next output), and they are not that output either."""
    for draw in (shared_table_seed, local_table_seed):
        random.seed(1)
        twister = random.randrange(1 << 31)
        random.seed(1)
        first = draw()
        random.seed(1)
        second = draw()
        assert first != second, draw.__name__
        assert twister not in (first, second), draw.__name__
        assert 0 <= first < 1 << 31 and 0 <= second < 1 << 31  # the seeds' range as before


async def test_a_given_seed_still_makes_the_game_and_is_recorded() -> None:
    reg = Registry(TableConfig(bot_delay=0, bot_level="easy"))
    table = reg.get_or_create("t", "gejiu")
    table.join(Account(1, "ann"))
    assert table.start(seed=1234) is None
    assert table.game_seed == 1234 and table.game is not None
    hand = table.game.hand
    assert hand is not None
    assert hand.seed == Game("gejiu", 1234).new_hand().seed  # the same deal as its seed's
    reg.close()
    local = LocalTable(bot_delay=0, timers=False)
    assert local.new_game("gejiu", {}, 1234) is None and local.game is not None
    assert local.game.seed == 1234
    local.close()


def _uses_random(node: ast.AST, names: set[str]) -> bool:
    """Whether the expression reads the ``random`` module (or a name imported from it)."""
    for sub in ast.walk(node):
        if isinstance(sub, ast.Name) and sub.id in names:
            return True
        if isinstance(sub, ast.Attribute) and isinstance(sub.value, ast.Name) \
                and sub.value.id in names:
            return True
    return False


def random_seeds(source: str) -> list[int]:
    """The lines of ``source`` that make a seed (a name, attribute or argument called
    ``*seed*``) from the ``random`` module."""
    tree = ast.parse(source)
    names: set[str] = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            names |= {a.asname or a.name for a in node.names if a.name == "random"}
        elif isinstance(node, ast.ImportFrom) and node.module == "random":
            names |= {a.asname or a.name for a in node.names}
    if not names:
        return []
    found = []
    for node in ast.walk(tree):
        targets: list[ast.AST] = []
        value: ast.AST | None = None
        if isinstance(node, ast.Assign):
            targets, value = list(node.targets), node.value
        elif isinstance(node, ast.AnnAssign | ast.AugAssign):
            targets, value = [node.target], node.value
        elif isinstance(node, ast.keyword) and node.arg and "seed" in node.arg.lower():
            if _uses_random(node.value, names):
                found.append(node.value.lineno)
            continue
        if value is None:
            continue
        called = {t.id for t in targets if isinstance(t, ast.Name)} | {
            t.attr for t in targets if isinstance(t, ast.Attribute)}
        if any("seed" in n.lower() for n in called) and _uses_random(value, names):
            found.append(node.lineno)
    return found


def test_the_scan_finds_a_seed_drawn_from_random() -> None:
    assert random_seeds("import random\nseed = random.randrange(1 << 31)\n") == [2]
    assert random_seeds("from random import getrandbits as g\nx.game_seed = g(31)\n") == [2]
    assert random_seeds("import random\nGame(r, seed=random.random())\n") == [2]
    assert random_seeds("import secrets\nseed = secrets.randbits(31)\n") == []
    assert random_seeds("import random\ndelay = random.random()\n") == []


def test_no_product_module_draws_a_seed_from_random() -> None:
    bad = []
    for folder in PRODUCT:
        for path in sorted((ROOT / folder).rglob("*.py")):
            for line in random_seeds(path.read_text(encoding="utf-8")):
                bad.append(f"{path.relative_to(ROOT)}:{line}")
    assert bad == []
