"""The tracker against the seeded generator, whose gold answers come from bookkeeping written separately."""

from __future__ import annotations

from pathlib import Path

import pytest

from mindloop.systems.tom import evaluate_file
from mindloop.worlds.stories import generate_tomi, to_numbered_text


@pytest.mark.parametrize(("seed", "hitom"), [(0, False), (1, False), (2, True), (3, True)])
def test_tracker_answers_every_generated_question(tmp_path: Path, seed: int, hitom: bool) -> None:
    examples = generate_tomi(
        600, seed=seed, max_order=4 if hitom else 2, hitom_questions=hitom, noise=0.2, reveal_on_entry=not hitom
    )
    path = tmp_path / "generated.txt"
    path.write_text(to_numbered_text(examples), encoding="utf-8")
    report = evaluate_file(path, "hitom" if hitom else "tomi")
    assert report.n == 600
    wrong = [(a.example.story_text, a.example.question.text, a.predicted) for a in report.wrong]
    assert wrong == []
