"""No import circles in python/lossrec (issue 28 item 13): every ``import`` and ``from …
import`` of every module — at the top, inside functions (lazy) and under ``TYPE_CHECKING``
alike — is an edge of a graph that must have no cycle. A circle that only lazy imports
keep from failing today fails the day one of them moves to the top.

Importing one's own parent package (``from .. import _core``) is not an edge: Python
imports the parents first, whatever the child does. Pure: it reads the sources with
``ast`` and imports nothing."""

from __future__ import annotations

import ast
from pathlib import Path
from typing import Dict, List, Set

PKG = Path(__file__).resolve().parents[1] / "lossrec"


def modules() -> Dict[str, Path]:
    out = {}
    for p in PKG.rglob("*.py"):
        parts = list(p.relative_to(PKG.parent).with_suffix("").parts)
        if parts[-1] == "__init__":
            parts = parts[:-1]
        out[".".join(parts)] = p
    return out


def edges(mods: Dict[str, Path]) -> Dict[str, Set[str]]:
    """Module → the lossrec modules it imports (a name imported from a package counts
    as the submodule when it is one, else as the package)."""
    graph: Dict[str, Set[str]] = {}
    for name, path in mods.items():
        here = name.split(".") if path.name == "__init__.py" else name.split(".")[:-1]
        out: Set[str] = set()
        for node in ast.walk(ast.parse(path.read_text(), str(path))):
            if isinstance(node, ast.ImportFrom):
                if node.level:
                    base = here[: len(here) - node.level + 1]
                    target = ".".join(base + ([node.module] if node.module else []))
                else:
                    target = node.module or ""
                for a in node.names:
                    sub = f"{target}.{a.name}"
                    out.add(sub if sub in mods else target)
            elif isinstance(node, ast.Import):
                out.update(a.name for a in node.names)
        ancestors = {".".join(name.split(".")[:i]) for i in range(1, len(name.split(".")))}
        graph[name] = {m for m in out if m in mods and m != name and m not in ancestors}
    return graph


def cycles(graph: Dict[str, Set[str]]) -> List[List[str]]:
    """The strongly connected components of more than one module (Tarjan)."""
    index: Dict[str, int] = {}
    low: Dict[str, int] = {}
    stack: List[str] = []
    on: Set[str] = set()
    found: List[List[str]] = []

    def visit(v: str) -> None:
        index[v] = low[v] = len(index)
        stack.append(v)
        on.add(v)
        for w in sorted(graph[v]):
            if w not in index:
                visit(w)
                low[v] = min(low[v], low[w])
            elif w in on:
                low[v] = min(low[v], index[w])
        if low[v] == index[v]:
            comp = []
            while True:
                w = stack.pop()
                on.discard(w)
                comp.append(w)
                if w == v:
                    break
            if len(comp) > 1:
                found.append(sorted(comp))

    for v in sorted(graph):
        if v not in index:
            visit(v)
    return found


def test_the_checker_finds_a_circle():
    assert cycles({"a": {"b"}, "b": {"c"}, "c": {"a"}, "d": {"a"}}) == [["a", "b", "c"]]
    assert cycles({"a": {"b"}, "b": set()}) == []


def test_the_graph_sees_lazy_and_type_checking_imports():
    g = edges(modules())
    # lossrec.lab.runner imports the Dask module only inside dispatch().
    assert "lossrec.lab.cluster" in g["lossrec.lab.runner"]
    # lossrec.lab.report names Study for the type checker only.
    assert "lossrec.lab.study" in g["lossrec.lab.report"]


def test_no_import_circles_in_lossrec():
    g = edges(modules())
    assert len(g) > 50
    found = cycles(g)
    detail = ["; ".join(f"{m} -> {sorted(g[m] & set(c))}" for m in c) for c in found]
    assert not found, "import circles:\n" + "\n".join(detail)
