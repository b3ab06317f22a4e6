"""Layer-by-layer text scores (Sec. 5.1, Levels 1–3) and the Table 2 layout of a MindPower report.

Every text layer is compared with its gold by BERTScore F1 ("B") and Sentence-Transformer cosine ("S"), batched
over all samples and layers at once (:class:`~mindloop.metrics.text.TextSimilarity`). Reports put both on 0–100,
SR and AC on 0–100 and BPC on 0–10, as Table 2 does.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from mindloop.bench.declaration import Column, PaperTable, Row
from mindloop.bench.tables import grid, markdown
from mindloop.errors import InvalidArgumentError
from mindloop.metrics.text import PairSimilarity, TextSimilarity
from mindloop.systems.mindpower.hierarchy import LAYERS
from mindloop.worlds.household.scenarios.taxonomy import FALSE_BELIEF, IMPLICIT_GOAL

__all__ = ["LAYERS", "TABLE2_LAYERS", "TABLE_2", "layer_similarity", "table2"]

TABLE2_LAYERS: tuple[str, ...] = ("perception", "belief", "desire", "intention", "decision")
"""The layers Table 2 scores with B and S (the action layer gets SR and AC instead)."""


TABLE_2 = PaperTable(
    "mindpower",
    "MindPower",
    "Table 2: BERTScore (B) and Sentence-Transformer (S) per layer, Action SR and AC (0–100), BPC (0–10)",
    "mindpower",
    (
        *(
            Column(kind, (metric, layer), group=layer.capitalize())
            for layer in LAYERS[:-1]
            for kind, metric in (("B", "bertscore"), ("S", "st"))
        ),
        Column("SR", ("sr",), group="Action"),
        Column("AC", ("ac",), group="Action"),
        Column("BPC", ("bpc",), filled_by="a judge fills it"),
        Column("n", ("n",), digits=0),
    ),
    (
        Row("{method}"),
        Row("False-Belief Correction", ("by_task", FALSE_BELIEF)),
        Row("Implicit Goal Inference & Completion", ("by_task", IMPLICIT_GOAL)),
    ),
    "BPC is a judge model's score (–, a judge fills it: the run had no --opt "
    "mindpower.judge=BACKEND/NAME); B and S need the metrics extra, and use all-MiniLM-L6-v2 offline, so "
    "absolute values differ from the paper's encoders.",
)
"""The paper's Table 2 as the ``mindpower`` benchmark declares it (its paper table)."""


def layer_similarity(
    predictions: Sequence[Mapping[str, str]],
    golds: Sequence[Mapping[str, str]],
    similarity: TextSimilarity,
    layers: Sequence[str] = LAYERS,
) -> list[dict[str, PairSimilarity]]:
    """``[{layer: PairSimilarity}]`` per sample for ``layers``; a layer missing from a prediction scores 0.

    All ``len(predictions) × len(layers)`` pairs go through the encoder in one batched call.
    """
    if len(predictions) != len(golds):
        raise InvalidArgumentError(f"{len(predictions)} prediction(s) but {len(golds)} gold annotation(s)")
    cands: list[str] = []
    refs: list[str] = []
    for pred, gold in zip(predictions, golds, strict=True):
        for layer in layers:
            if layer not in gold:
                raise InvalidArgumentError(f"the gold annotation has no {layer!r} layer")
            cands.append(pred.get(layer, "") or "")
            refs.append(gold[layer])
    flat = similarity.score(cands, refs)
    k = len(layers)
    return [dict(zip(layers, flat[i * k : (i + 1) * k], strict=True)) for i in range(len(predictions))]


def table2(rows: Mapping[str, Mapping[str, Any]]) -> str:
    """The paper's Table 2 (as declared: :data:`~mindloop.systems.mindpower.benchmarks.MindPowerBenchmark`'s paper
    table, its count left out) as Markdown: one row per method, columns Perception B/S … Decision B/S, Action SR/AC
    and BPC, from ``mindpower`` benchmark metrics (``{"bertscore": {layer: x}, "st": {...}, "sr": x, "ac": x,
    "bpc": x}``; ``bpc`` may be ``{"mean": x}``). Missing values print as ``-``.

    >>> print(table2({"symbolic": {"bertscore": {"belief": 100.0}, "st": {}, "sr": 100.0, "ac": 100.0}}))
    ... # doctest: +NORMALIZE_WHITESPACE
    | Method | Perception B | Perception S | Belief B | Belief S | Desire B | Desire S | Intention B | Intention S |
    Decision B | Decision S | Action SR | Action AC | BPC |
    |---|---|---|---|---|---|---|---|---|---|---|---|---|---|
    | symbolic | - | - | 100.00 | - | - | - | - | - | - | - | 100.00 | 100.00 | - |
    """
    spec = TABLE_2
    flat = {k: {**m, "bpc": m["bpc"].get("mean")} if isinstance(m.get("bpc"), Mapping) else m for k, m in rows.items()}
    columns = [c for c in spec.columns if c.path != ("n",)]
    return markdown(grid(spec, flat, columns=columns, rows=spec.rows[:1], missing="-", grouped=True))
