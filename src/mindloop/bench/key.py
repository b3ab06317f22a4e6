"""The comparability key of a run: what must be equal for two runs' numbers to be ranked against each other.

A key (:class:`RunKey`) names the benchmark and its declaration's version
(:attr:`~mindloop.bench.declaration.BenchmarkSpec.version`), its options as validated (defaults filled in, so
``--opt n_agents=2`` and no option are one setting; the ``data`` path left out), the content hash of a ``--data``
file or folder, the sample set (how many, and a SHA-256 over every sample's id, group, input, target and choices as
the store reads them back), the protocol of a model run (format retries, generation settings, any ``judge*``
option; a run with no model has none), and the team in canonical form (``cobel`` on a two-agent C-WAH is
``cobel,cobel``, as :func:`~mindloop.systems.cobel.episode.parse_team` reads it). The runner stores it with the run
(layout 9 of the store); the store's step to layout 9 derives it for every older run it can
(:func:`derive_key`) and marks the rest ``unknown`` with the reason.

Two runs are *comparable* when their keys agree on every field of :data:`KEY_FIELDS` (the team and the model are
what a leaderboard compares, so they may differ); :func:`key_differences` names the fields that do not, in that
order, and :func:`apart_reason` says in a word why a run is not ranked beside a leaderboard's key.
"""

from __future__ import annotations

import hashlib
import json
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

KEY_FIELDS = ("benchmark", "declaration", "options", "data", "samples", "protocol")
"""The fields two runs must share to be ranked together, in the order a difference is named."""

REASONS = {
    "declaration": "other declaration",
    "options": "other options",
    "data": "other data",
    "samples": "other sample set",
    "protocol": "other protocol",
}
"""The word a leaderboard lists a complete run apart with, by the first key field it differs in."""


@dataclass(frozen=True)
class RunKey:
    """A run's comparability key (see the module). ``unknown`` says why it could not be derived (a run stored
    before keys whose ``--data`` content was not recorded, or whose benchmark is not installed); the other fields
    are then whatever could be read, and the run is never ranked."""

    benchmark: str
    declaration: int | None = None
    options: Mapping[str, Any] = field(default_factory=dict)
    data: str | None = None
    samples: Mapping[str, Any] = field(default_factory=dict)
    protocol: Mapping[str, Any] | None = None
    team: str | None = None
    unknown: str | None = None

    def to_json(self) -> dict[str, Any]:
        """The key as stored and as ``runs --json``, ``board --json`` and ``compare --json`` print it, with ``id``:
        a short hash of the fields of :data:`KEY_FIELDS` (equal ids: comparable runs)."""
        out = {name: self.comparable(name) for name in (*KEY_FIELDS, "team")}
        out["id"] = None if self.unknown else self.id
        return out | ({"unknown": self.unknown} if self.unknown else {})

    @property
    def id(self) -> str:
        """``k-`` and 12 hex digits of the SHA-256 of the comparable fields (the team and model left out)."""
        comparable = {name: self.comparable(name) for name in KEY_FIELDS}
        return "k-" + hashlib.sha256(_canonical(comparable).encode()).hexdigest()[:12]

    def comparable(self, name: str) -> Any:
        """Field ``name`` as a JSON-ready value (mappings as plain dicts), for comparing keys."""
        value = getattr(self, name)
        return dict(value) if isinstance(value, Mapping) else value

    @classmethod
    def from_json(cls, data: Mapping[str, Any]) -> RunKey:
        """A key read back from the store (an unreadable one reads as unknown)."""
        try:
            got: dict[str, Any] = {name: data.get(name) for name in ("declaration", "data", "protocol", "team")}
            got["unknown"] = data.get("unknown")
            got |= {name: dict(data.get(name) or {}) for name in ("options", "samples")}
            return cls(benchmark=str(data["benchmark"]), **got)
        except (KeyError, TypeError, ValueError):
            return cls(benchmark=str(data.get("benchmark", "?")), unknown="the stored key cannot be read")


def key_differences(a: RunKey, b: RunKey) -> list[str]:
    """The fields of :data:`KEY_FIELDS` in which ``a`` and ``b`` differ, in that order."""
    return [name for name in KEY_FIELDS if _canonical(a.comparable(name)) != _canonical(b.comparable(name))]


def describe_difference(name: str, a: RunKey, b: RunKey) -> str:
    """How ``a``'s field ``name`` differs from ``b``'s, in a few words (``a``'s value first)."""
    if name == "samples":
        na, nb = a.samples.get("n"), b.samples.get("n")
        if na != nb:
            return f"sample set ({na} vs {nb} samples)"
        return f"sample set (both {na} samples, but not the same ones)"
    if name == "declaration":
        return f"declaration (version {a.declaration} vs {b.declaration})"
    if name == "data":
        return f"--data content ({_short(a.data)} vs {_short(b.data)})"
    if name == "benchmark":
        return f"benchmark ({a.benchmark} vs {b.benchmark})"
    mine, theirs = a.comparable(name) or {}, b.comparable(name) or {}
    if name == "protocol" and (not mine or not theirs):
        return f"protocol ({_protocol_text(a.protocol)} vs {_protocol_text(b.protocol)})"
    parts = [
        f"{k} {_canonical(mine.get(k))} vs {_canonical(theirs.get(k))}"
        for k in sorted({*mine, *theirs})
        if _canonical(mine.get(k)) != _canonical(theirs.get(k))
    ]
    return f"{name} ({'; '.join(parts)})"


def _short(digest: str | None) -> str:
    return "none" if digest is None else digest[:15]


def _protocol_text(protocol: Mapping[str, Any] | None) -> str:
    if protocol is None:
        return "no model"
    return f"format_retries {protocol.get('format_retries')}"


def _canonical(value: Any) -> str:
    return json.dumps(value, sort_keys=True, ensure_ascii=False, separators=(",", ":"), default=str)


def sample_digest(
    samples: Iterable[tuple[str, str, Any, Any, Sequence[str]]], data: str | None = None
) -> dict[str, Any]:
    """``{"n", "sha256"}`` of a sample set: each sample's ``(id, group, input, target, choices)`` as JSON with sorted
    keys, one line each, in order of id (the order samples were drawn in does not change the set). ``data``: the
    run's ``--data`` path, written ``<data>`` wherever an input names it (as given or resolved), so the same file
    read from another place is the same sample set (its bytes are the key's ``data``)."""
    paths = sorted({data, str(Path(data).resolve())}, key=len, reverse=True) if data else []
    quoted = [json.dumps(p)[1:-1] for p in paths]  # as the path appears inside the canonical JSON

    def line(sample: tuple[str, str, Any, Any, Sequence[str]]) -> str:
        sid, group, inp, target, choices = sample
        text = _canonical([sid, group, inp, target, list(choices)])
        for path in quoted:
            text = text.replace(path, "<data>")
        return text

    lines = sorted(line(s) for s in samples)
    digest = hashlib.sha256()
    for text in lines:
        digest.update(text.encode("utf-8", errors="replace") + b"\n")
    return {"n": len(lines), "sha256": digest.hexdigest()}


def data_digest(path: str | Path) -> str:
    """``sha256:HEX`` of a ``--data`` file's bytes, or of a folder's files (relative path and bytes of each, in
    order of path); a path that cannot be read is an :class:`OSError` (the benchmark reports it first)."""
    root = Path(path)
    digest = hashlib.sha256()
    if root.is_dir():
        for file in sorted(p for p in root.rglob("*") if p.is_file()):
            digest.update(file.relative_to(root).as_posix().encode() + b"\0")
            digest.update(hashlib.sha256(file.read_bytes()).digest())
    else:
        digest.update(root.read_bytes())
    return f"sha256:{digest.hexdigest()}"


def _protocol(model: str | None, config: Mapping[str, Any], options: Mapping[str, Any]) -> dict[str, Any] | None:
    """How a model run's replies were asked for (``None``: no model, nothing asked)."""
    judge = {k: v for k, v in sorted(options.items()) if k.startswith("judge")}
    if model is None and not any(v is not None for v in judge.values()):
        return None
    return {
        "format_retries": int(config.get("format_retries", 0)),
        "generation": dict(sorted((config.get("generation") or {}).items())) if model is not None else None,
        "judge": judge or None,
    }


def run_key(
    benchmark: Any,
    *,
    agent: str,
    model: str | None,
    config: Mapping[str, Any],
    samples: Mapping[str, Any],
    data: str | None = None,
) -> RunKey:
    """The key of a run of ``benchmark`` (a :class:`~mindloop.bench.api.Benchmark`) with ``config`` as the runner
    stores it, ``samples`` (:func:`sample_digest`) and ``data`` (:func:`data_digest` of its ``--data``)."""
    from mindloop.bench.agents import canonical_team
    from mindloop.bench.options import validate_options

    options = validate_options(benchmark, dict(config.get("options") or {}))
    dumped = options.model_dump(mode="json")
    protocol = _protocol(model, config, dumped)
    kept = {k: v for k, v in sorted(dumped.items()) if k != "data" and not k.startswith("judge")}
    team = canonical_team(benchmark, agent, options)
    return RunKey(benchmark.name, benchmark.spec.version, kept, data, samples, protocol, team)


def derive_key(
    benchmark: str,
    agent: str,
    model: str | None,
    config: Mapping[str, Any],
    samples: Mapping[str, Any],
) -> RunKey:
    """The key of a run recorded without one (stored before layout 9, or made through the Python API without a
    key): as :func:`run_key` would have made it, or ``unknown`` with the reason: a ``--data`` run (its file's
    content was not recorded), a benchmark not installed now, options it no longer accepts."""
    from mindloop.bench.registry import get_benchmark
    from mindloop.errors import MindloopError

    if (config.get("options") or {}).get("data") is not None:
        why = "the content of its --data file was not recorded"
        return RunKey(benchmark, samples=samples, unknown=why)
    try:
        bench = get_benchmark(benchmark)
        return run_key(bench, agent=agent, model=model, config=config, samples=samples)
    except MindloopError as exc:
        return RunKey(benchmark, samples=samples, unknown=f"it cannot be derived: {exc}")
