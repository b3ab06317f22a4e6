"""Where can each object be? A constraint solver over grid cells, and the reference's information gain.

Each variable (an object, a door, ``initial_pos``) has a *domain*: the set of cells, relative to the start, it may
occupy, within ``[-g, g]²`` for grid size ``g``. A never-constrained variable has no domain yet (counted as
``g²`` cells, as in the reference). Relation triples (:mod:`mindloop.systems.tos.world.relations`) become binary
constraints on the offset between two variables, all triples about the same two variables (either way round)
conjoined into one, as the reference's undirected ``_constraints_between`` does; arc consistency (AC-3) removes
every cell that no cell of a neighbour supports. This is the reference's ``SpatialSolver`` semantics, with domains
as boolean arrays and each constraint as an *offset kernel*, so a revision is a few array operations instead of a
double loop.

:func:`information_gain` is the reference's exploration quality: ``Σ_i log2(M / C_i) / (N · log2 M)`` over the
N objects and doors, with ``M = g²`` and ``C_i`` the domain size of object *i*.
"""

from __future__ import annotations

import math
from collections import deque
from collections.abc import Iterable, Mapping
from functools import lru_cache

import numpy as np

from mindloop.errors import InvalidArgumentError
from mindloop.systems.tos.world.geometry import DISTANCE_BINS, EGO_BINS, Vec
from mindloop.systems.tos.world.relations import INITIAL, Relation, RelationTriple


@lru_cache(maxsize=4096)
def relation_kernel(relation: Relation, orientation: Vec, reach: int) -> np.ndarray:
    """Boolean array over offsets ``d = p_subject - p_anchor`` in ``[-reach, reach]²`` (indexed
    ``[dx + reach, dy + reach]``) marking where ``relation`` holds. Read-only; memoised."""
    size = 2 * reach + 1
    k = np.zeros((size, size), dtype=bool)
    if relation.kind == "exact":
        dx, dy = relation.direction, relation.distance
        if abs(dx) <= reach and abs(dy) <= reach:
            k[dx + reach, dy + reach] = True
        k.setflags(write=False)
        return k
    r = np.arange(-reach, reach + 1, dtype=float)
    dx, dy = np.meshgrid(r, r, indexing="ij")
    d = np.hypot(dx, dy)
    lo, hi = DISTANCE_BINS[relation.distance]
    ok = (d > lo) & (d < hi)
    ax, ay = float(orientation[0]), float(orientation[1])
    norm = math.hypot(ax, ay) or 1.0
    ax, ay = ax / norm, ay / norm
    dot = ax * dx + ay * dy
    cross = ax * dy - ay * dx
    deg = -np.degrees(np.arctan2(cross, dot))
    deg = np.where((np.abs(dx) > 1e-6) | (np.abs(dy) > 1e-6), deg, 0.0)
    if relation.kind == "ego":
        lo_d, hi_d = EGO_BINS[relation.direction]
        if relation.direction == len(EGO_BINS) - 1:
            inside = ~np.any([(deg > a) & (deg < b) for a, b in EGO_BINS[:-1]], axis=0)
        else:
            inside = (deg > lo_d) & (deg < hi_d)
        ok &= inside
    else:  # proximity: cardinal bins with the observer's heading as north, within 2
        w = np.mod(deg + 360.0, 360.0)
        idx = np.mod(np.floor((w + 22.5) / 45.0), 8).astype(int)
        ok &= idx == relation.direction
        ok &= d * d <= 4.0 + 1e-6
    k[ok] = True
    k.setflags(write=False)
    return k


class SpatialSolver:
    """Domains of named variables on the grid ``[-g, g]²`` relative to the start, pruned by AC-3.

    ``origin`` names the variable pinned at ``(0, 0)`` from the start (as :meth:`set_position` pins one later).

    >>> from mindloop.systems.tos.world.relations import query_triple
    >>> s = SpatialSolver(["chair"], grid_size=8)
    >>> s.set_position(INITIAL, (0, 0))
    >>> s.add([query_triple("chair", (2, -1))])
    True
    >>> s.cells("chair")
    [(2, -1)]
    """

    def __init__(self, names: Iterable[str], grid_size: int, *, origin: str | None = None) -> None:
        if grid_size < 1:
            raise InvalidArgumentError(f"grid size must be positive, got {grid_size}")
        self.grid_size = int(grid_size)
        self._n = 2 * self.grid_size + 1
        self.domains: dict[str, np.ndarray | None] = {name: None for name in names}
        # (x, y) -> kernel over p_x - p_y, the conjunction of every constraint between them
        self._kernels: dict[tuple[str, str], np.ndarray] = {}
        self._adjacent: dict[str, set[str]] = {name: set() for name in self.domains}
        self.consistent = True
        if origin is not None:  # the variable every position is relative to, pinned at (0, 0)
            self.set_position(origin, (0, 0))

    # ---- inspection ------------------------------------------------------------------------------------------
    def copy(self) -> SpatialSolver:
        """An independent copy (for simulating what an observation would add)."""
        other = SpatialSolver.__new__(SpatialSolver)
        other.grid_size, other._n = self.grid_size, self._n
        other.domains = {k: (None if v is None else v.copy()) for k, v in self.domains.items()}
        other._kernels = dict(self._kernels)
        other._adjacent = {k: set(v) for k, v in self._adjacent.items()}
        other.consistent = self.consistent
        return other

    def count(self, name: str) -> int:
        """Domain size (``g²`` for a variable never constrained, as the reference counts it)."""
        dom = self.domains[name]
        return self.grid_size**2 if dom is None else int(dom.sum())

    def counts(self) -> dict[str, int]:
        """Domain sizes of every variable."""
        return {name: self.count(name) for name in self.domains}

    def cells(self, name: str) -> list[Vec]:
        """The cells a variable may occupy (relative to the start), sorted; all cells if unconstrained."""
        dom = self.domains[name]
        if dom is None:
            dom = np.ones((self._n, self._n), dtype=bool)
        g = self.grid_size
        return [(int(i) - g, int(j) - g) for i, j in np.argwhere(dom)]

    def resolved(self, name: str) -> Vec | None:
        """The variable's cell when its domain is a single cell."""
        dom = self.domains[name]
        if dom is None or int(dom.sum()) != 1:
            return None
        return self.cells(name)[0]

    # ---- updates -------------------------------------------------------------------------------------------
    def set_position(self, name: str, pos: Vec) -> None:
        """Pin ``name`` (added if new) to one cell."""
        dom = np.zeros((self._n, self._n), dtype=bool)
        g = self.grid_size
        if abs(pos[0]) <= g and abs(pos[1]) <= g:
            dom[pos[0] + g, pos[1] + g] = True
        if name not in self.domains:
            self._adjacent[name] = set()
        self.domains[name] = dom

    def _ensure(self, name: str) -> np.ndarray:
        dom = self.domains[name]
        if dom is None:
            dom = np.ones((self._n, self._n), dtype=bool)
            self.domains[name] = dom
        return dom

    def add(self, triples: Iterable[RelationTriple]) -> bool:
        """Add the constraints of some relation triples (unknown names are skipped) and propagate.

        Returns ``False`` when some domain became empty (contradictory evidence), ``True`` otherwise.
        """
        work: set[tuple[str, str]] = set()
        reach = 2 * self.grid_size
        for t in triples:
            if t.subject not in self.domains or t.anchor not in self.domains or t.subject == t.anchor:
                continue
            kern = relation_kernel(t.relation, (int(t.orientation[0]), int(t.orientation[1])), reach)
            key = (t.subject, t.anchor)
            old = self._kernels.get(key)
            new = kern if old is None else (old & kern)
            if old is not None and np.array_equal(old, new):
                continue
            self._kernels[key] = new
            self._kernels[(t.anchor, t.subject)] = new[::-1, ::-1]
            self._adjacent[t.subject].add(t.anchor)
            self._adjacent[t.anchor].add(t.subject)
            self._ensure(t.subject)
            self._ensure(t.anchor)
            work.add(key)
            work.add((t.anchor, t.subject))
        return self._propagate(work)

    def _support(self, other: np.ndarray, kernel: np.ndarray) -> np.ndarray:
        """Cells p with some q in ``other`` and ``kernel[p - q]``."""
        n, reach = self._n, 2 * self.grid_size
        out = np.zeros((n, n), dtype=bool)
        cells = np.argwhere(other)
        offsets = np.argwhere(kernel) - reach
        if len(cells) <= len(offsets):
            for i, j in cells:
                x0, x1 = max(0, i - reach), min(n, i + reach + 1)
                y0, y1 = max(0, j - reach), min(n, j + reach + 1)
                out[x0:x1, y0:y1] |= kernel[x0 - i + reach : x1 - i + reach, y0 - j + reach : y1 - j + reach]
        else:
            for dx, dy in offsets:
                sx0, sx1 = max(0, -dx), min(n, n - dx)
                sy0, sy1 = max(0, -dy), min(n, n - dy)
                if sx0 >= sx1 or sy0 >= sy1:
                    continue
                out[sx0 + dx : sx1 + dx, sy0 + dy : sy1 + dy] |= other[sx0:sx1, sy0:sy1]
        return out

    def _propagate(self, work: set[tuple[str, str]]) -> bool:
        # First in, first out from a sorted start, never a set's pop(): the order of names in a set follows the
        # hash seed, and when evidence contradicts itself the domains left behind depend on the order.
        queue = deque(sorted(work))
        pending = set(queue)
        while queue:
            x, y = queue.popleft()
            pending.discard((x, y))
            dx_, dy_ = self.domains[x], self.domains[y]
            if dx_ is None or dy_ is None:
                continue
            support = self._support(dy_, self._kernels[(x, y)])
            new = dx_ & support
            if int(new.sum()) == int(dx_.sum()):
                continue
            self.domains[x] = new
            if not new.any():
                self.consistent = False
                return False
            for z in sorted(self._adjacent[x]):
                if z != y and (z, x) not in pending:
                    pending.add((z, x))
                    queue.append((z, x))
        return True


def information_gain(counts: Mapping[str, int], grid_size: int) -> float:
    """The reference's exploration quality ``Σ log2(M / max(1, C_i)) / (N log2 M)`` over objects and doors
    (``initial_pos`` excluded), ``M = grid_size²``. 0 before anything is known, 1 when every domain is a cell."""
    m = grid_size**2
    names = [n for n in counts if n != INITIAL]
    if m <= 1 or not names:
        return 0.0
    total = sum(math.log2(m / max(1, int(counts[n]))) for n in names)
    return total / (len(names) * math.log2(m))
