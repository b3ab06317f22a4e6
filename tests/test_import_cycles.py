"""No import circles: the module graph built from the source (every import statement, those inside functions and
under ``TYPE_CHECKING`` included) has no cycle, so no two modules import each other, however deferred."""

from __future__ import annotations

from collections.abc import Mapping, Set

import pytest

grimp = pytest.importorskip("grimp")  # import-linter's graph builder (a dev dependency)


def _cycles(graph: Mapping[str, Set[str]]) -> list[list[str]]:
    """The strongly connected components of ``graph`` with more than one module (or a module importing itself),
    each sorted (Tarjan's algorithm, iterative so a deep graph cannot hit the recursion limit)."""
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    on_stack: set[str] = set()
    found: list[list[str]] = []
    counter = 0
    for root in sorted(graph):
        if root in index:
            continue
        work = [(root, iter(sorted(graph[root])))]
        index[root] = low[root] = counter
        counter += 1
        stack.append(root)
        on_stack.add(root)
        while work:
            node, children = work[-1]
            child = next(children, None)
            if child is not None:
                if child not in index:
                    index[child] = low[child] = counter
                    counter += 1
                    stack.append(child)
                    on_stack.add(child)
                    work.append((child, iter(sorted(graph.get(child, ())))))
                elif child in on_stack:
                    low[node] = min(low[node], index[child])
                continue
            work.pop()
            if work:
                parent = work[-1][0]
                low[parent] = min(low[parent], low[node])
            if low[node] == index[node]:
                component = []
                while True:
                    member = stack.pop()
                    on_stack.discard(member)
                    component.append(member)
                    if member == node:
                        break
                if len(component) > 1 or node in graph.get(node, ()):
                    found.append(sorted(component))
    return found


def test_the_cycle_finder_finds_a_pair_a_ring_and_a_self_import() -> None:
    graph = {"a": {"b"}, "b": {"a"}, "c": {"d"}, "d": {"e"}, "e": {"c"}, "f": {"f"}, "g": {"a"}, "h": set()}
    assert sorted(_cycles(graph)) == [["a", "b"], ["c", "d", "e"], ["f"]]
    assert _cycles({"a": {"b"}, "b": {"c"}, "c": set()}) == []


def test_no_module_of_mindloop_imports_itself_back_through_any_chain() -> None:
    built = grimp.build_graph("mindloop", include_external_packages=False, cache_dir=None)
    graph = {m: set(built.find_modules_directly_imported_by(m)) for m in built.modules}
    assert len(graph) > 100  # the whole package was read, not an empty graph
    cycles = _cycles(graph)
    pairs = sorted(
        f"{a} <-> {b}" for a in graph for b in graph[a] if a < b and a in graph.get(b, ())
    )  # the two-module circles, named first: the usual mistake
    assert not cycles, f"import cycles: {cycles}; modules importing each other: {pairs}"
