"""``mindloop.bench.tables``: the one renderer of declared paper tables, and the systems' tables drawn through it."""

from __future__ import annotations

from mindloop.bench import Column, PaperTable, Row
from mindloop.bench.tables import aligned, cell_text, grid, markdown

TABLE = PaperTable(
    "t",
    "Paper",
    "Table 1",
    "b",
    (Column("A", ("a",), group="G", scale=100, digits=1), Column("n", ("n",), digits=0)),
    (Row("{method}"), Row("Kind x", ("by_kind", "x"))),
)
RUNS = {"m1": {"a": 0.5, "n": 2, "by_kind": {"x": {"a": 0.25}}}, "m2": {"a": None, "n": True}}


def test_cells_are_the_suite_reports_and_a_missing_value_is_never_zero() -> None:
    assert cell_text(1234.5, 1.0, 1) == "1,234.5" and cell_text(1234.5, 1.0, 1, thousands="") == "1234.5"
    assert cell_text(None, 100, 2) == "–" and cell_text(None, 100, 2, missing="N/A") == "N/A"
    header, body = grid(TABLE, RUNS, grouped=True)
    assert header == ["Method", "G A", "n"]
    # a row that names its method gives a row per method; one that does not heads its methods' rows
    assert body == [["m1", "50.0", "2"], ["m2", "–", "–"], ["Kind x", "", ""], ["m1", "25.0", "–"], ["m2", "–", "–"]]
    assert markdown(grid(TABLE, RUNS, rows=TABLE.rows[:1], first="Model")).splitlines() == [
        "| Model | A | n |",
        "|---|---|---|",
        "| m1 | 50.0 | 2 |",
        "| m2 | – | – |",
    ]


def test_transposed_the_methods_are_the_columns() -> None:
    table = grid(TABLE, RUNS, columns=TABLE.columns[:1], first="Kind", missing="—", transpose=True)
    assert table == (["Kind", "m1", "m2"], [["{method}", "50.0", "—"], ["Kind x", "25.0", "—"]])
    assert aligned(table, 8, 6).splitlines()[2] == "Kind x    25.0     —"


def test_the_systems_tables_are_their_declarations() -> None:
    from mindloop.systems.mindpower.benchmarks import MindPowerBenchmark
    from mindloop.systems.mindpower.layers import table2
    from mindloop.systems.tos.benchmarks import TABLE_1, format_table

    (power,) = MindPowerBenchmark.spec.paper_tables
    head = table2({}).splitlines()[0].strip("| ").split(" | ")
    assert head == ["Method", *(f"{c.group} {c.label}".strip() for c in power.columns if c.label != "n")]
    assert format_table({}).split(" | ") == ["Methods", *(c.label for c in TABLE_1.columns if c.label != "n")]
