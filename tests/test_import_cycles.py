"""No import cycle among the product's modules (engine, words, host, tui, net, cli, themes).

Every import counts, those inside functions and ``if TYPE_CHECKING:`` blocks too: a cycle
makes which module loads first matter, and one changed import line then stops the program
starting. Importing ``a.b.c`` also runs ``a/__init__`` and ``a/b/__init__`` first, so an import
counts as one of each package above the module imported too (unless the importer lies inside
that package, which is loaded already)."""

from __future__ import annotations

import importlib.util
from pathlib import Path

import grimp

ROOT = Path(__file__).resolve().parent.parent
PRODUCT = ("engine", "words", "host", "tui", "net", "cli", "themes")


def packages_above(module: str) -> list[str]:
    parts = module.split(".")
    return [".".join(parts[:i]) for i in range(1, len(parts))]


def import_edges(graph: grimp.ImportGraph) -> dict[str, set[str]]:
    """Each module's imports within ``graph``, with the packages that loading them runs."""
    modules = set(graph.modules)
    edges: dict[str, set[str]] = {module: set() for module in modules}
    for importer in modules:
        inside = set(packages_above(importer))
        for imported in graph.find_modules_directly_imported_by(importer) & modules:
            edges[importer].add(imported)
            edges[importer].update(p for p in packages_above(imported)
                                   if p not in inside and p != importer and p in modules)
    return edges


def cycles(graph: grimp.ImportGraph) -> list[list[str]]:
    """The strongly connected sets of modules (Tarjan's, iterative), each sorted."""
    edges = import_edges(graph)
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    on_stack: set[str] = set()
    found: list[list[str]] = []
    for root in sorted(edges):
        if root in index:
            continue
        work = [(root, iter(sorted(edges[root])))]
        index[root] = low[root] = len(index)
        stack.append(root)
        on_stack.add(root)
        while work:
            node, rest = work[-1]
            step = next(rest, None)
            if step is not None:
                if step not in index:
                    index[step] = low[step] = len(index)
                    stack.append(step)
                    on_stack.add(step)
                    work.append((step, iter(sorted(edges[step]))))
                elif step in on_stack:
                    low[node] = min(low[node], index[step])
                continue
            work.pop()
            if work:
                low[work[-1][0]] = min(low[work[-1][0]], low[node])
            if low[node] == index[node]:
                component = []
                while True:
                    member = stack.pop()
                    on_stack.discard(member)
                    component.append(member)
                    if member == node:
                        break
                if len(component) > 1:
                    found.append(sorted(component))
    return found


def describe(graph: grimp.ImportGraph, component: list[str]) -> str:
    """A cycle's imports, each with its line (or the package it loads)."""
    edges = import_edges(graph)
    lines = []
    for importer in component:
        for imported in sorted(edges[importer] & set(component)):
            details = graph.get_import_details(importer=importer, imported=imported)
            where = "; ".join(f"line {d['line_number']}: {d['line_contents']}" for d in details)
            lines.append(f"  {importer} -> {imported}  ({where or 'loads the package'})")
    return "\n".join(lines)


def test_no_cycle_among_product_modules() -> None:
    for name in PRODUCT:  # the graph must be of this checkout, not an installed copy
        spec = importlib.util.find_spec(name)
        where = Path(spec.origin).resolve().parent if spec and spec.origin else None
        assert where == ROOT / name, f"{name} is found in {where}, not in {ROOT}"
    graph = grimp.build_graph(*PRODUCT, cache_dir=None)
    found = cycles(graph)
    assert not found, "import cycles:\n" + "\n".join(describe(graph, c) for c in found)


def test_a_cycle_through_a_package_is_seen() -> None:
    graph = grimp.ImportGraph()
    for module in ("a", "a.x", "a.y", "b", "b.z"):
        graph.add_module(module)
    graph.add_import(importer="a", imported="a.x")  # a package loading its own: no cycle
    graph.add_import(importer="b", imported="b.z")
    graph.add_import(importer="a.x", imported="b.z")
    assert cycles(graph) == []
    graph.add_import(importer="b.z", imported="a.y")  # runs a/__init__, which loads a.x
    assert cycles(graph) == [["a", "a.x", "b", "b.z"]]
