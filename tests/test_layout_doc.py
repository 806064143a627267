"""docs/development.md's Layout block is the import graph between the top-level packages:
every arrow in it is a real import, no package imports another the block does not show, and
every package of the repository has a row. A row for a package this checkout does not have yet
(one another branch adds) is skipped, and checked once the package exists."""

from __future__ import annotations

import importlib.util
import re
from dataclasses import dataclass
from pathlib import Path

import grimp
import pytest

ROOT = Path(__file__).resolve().parent.parent
LAYOUT_DOC = ROOT / "docs" / "development.md"  # the developers' page, not the README

# ``name/   → dep dep   description``: the arrow and its targets (single spaces between them),
# then two spaces or more before the description. A row without an arrow is a folder that is
# not a package (tests, docs); a line starting with a space continues the row above.
ROW = re.compile(r"^(?P<name>[a-z_]+)/(?:\s+→(?P<deps>(?: [a-z_]+)*))?(?:\s{2,}.*)?$")


@dataclass(frozen=True)
class Row:
    name: str
    package: bool  # the row has an arrow: a Python package whose imports it lists
    deps: frozenset[str]


def layout_rows(text: str) -> list[Row]:
    """The rows of the first ``text`` block under the page's ``## Layout`` heading."""
    section = text.split("\n## Layout\n", 1)
    assert len(section) == 2, f"{LAYOUT_DOC.name} has no '## Layout' section"
    block = re.search(r"^```text\n(.*?)^```$", section[1], re.M | re.S)
    assert block is not None, "the Layout section has no ```text block"
    rows = []
    for line in block.group(1).splitlines():
        if not line.strip() or line[0].isspace():
            continue
        match = ROW.match(line)
        assert match is not None, f"a Layout row that does not read as 'name/ → deps': {line!r}"
        deps = match.group("deps")
        rows.append(Row(match.group("name"), deps is not None,
                        frozenset((deps or "").split())))
    return rows


ROWS = layout_rows(LAYOUT_DOC.read_text(encoding="utf-8"))
PACKAGES = {row.name: row for row in ROWS if row.package}


def exists(package: str) -> bool:
    return (ROOT / package / "__init__.py").is_file()


def absent(*names: str) -> str | None:
    """Why a check about ``names`` is skipped: the first that is not in this checkout yet."""
    for name in names:
        if not exists(name):
            return (f"{name}/ is in the Layout of {LAYOUT_DOC.name} but not in this checkout "
                    "yet (another "
                    "branch brings it): its row is checked once it exists")
    return None


@pytest.fixture(scope="module")
def graph() -> grimp.ImportGraph:
    present = [name for name in PACKAGES if exists(name)]
    for name in present:  # the graph must be of this checkout, not an installed copy
        spec = importlib.util.find_spec(name)
        where = Path(spec.origin).resolve().parent if spec and spec.origin else None
        assert where == ROOT / name, f"{name} is found in {where}, not in {ROOT}"
    return grimp.build_graph(*present, cache_dir=None)


def imports(graph: grimp.ImportGraph, importer: str, imported: str) -> bool:
    return graph.direct_import_exists(importer=importer, imported=imported, as_packages=True)


def test_the_block_names_its_targets_and_its_folders() -> None:
    assert {"engine", "tui", "net", "themes"} <= PACKAGES.keys()
    for row in ROWS:
        assert row.deps <= PACKAGES.keys(), f"{row.name}/ → {set(row.deps - PACKAGES.keys())}: " \
            "an arrow to a folder that has no row of its own"
        assert row.name not in row.deps, f"{row.name}/ → itself"
        if not row.package:
            assert (ROOT / row.name).is_dir(), f"{row.name}/ is in the Layout, not in the tree"


def test_every_package_has_a_row() -> None:
    packages = {p.parent.name for p in ROOT.glob("*/__init__.py") if p.parent.name[0] not in "._"}
    assert packages - PACKAGES.keys() == set(), "top-level packages the Layout does not show"


ARROWS = sorted((row.name, dep) for row in PACKAGES.values() for dep in row.deps)


@pytest.mark.parametrize(("importer", "imported"), ARROWS, ids=[f"{a}->{b}" for a, b in ARROWS])
def test_each_arrow_is_an_import(graph: grimp.ImportGraph, importer: str, imported: str) -> None:
    if (why := absent(importer, imported)) is not None:
        pytest.skip(why)
    assert imports(graph, importer, imported), \
        f"{LAYOUT_DOC.name} shows {importer}/ → {imported}/, but {importer} never imports " \
        f"{imported}"


@pytest.mark.parametrize("importer", sorted(PACKAGES))
def test_no_import_the_layout_does_not_show(graph: grimp.ImportGraph, importer: str) -> None:
    if (why := absent(importer)) is not None:
        pytest.skip(why)
    unshown = {name for name in PACKAGES if name != importer and exists(name)
               and name not in PACKAGES[importer].deps and imports(graph, importer, name)}
    assert unshown == set(), f"{importer} imports {sorted(unshown)}, which the Layout " \
        f"of {LAYOUT_DOC.name} does not show " \
        f"({importer}/ → {' '.join(sorted(PACKAGES[importer].deps))})"
