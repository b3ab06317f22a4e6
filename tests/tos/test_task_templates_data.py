"""The nine tasks' question templates ship as package data and are checked on load."""

from __future__ import annotations

from pathlib import Path

import pytest
from data_files import edited_copy, refusal

from mindloop.datafiles import DataFileError, package_file
from mindloop.systems.tos.world import tasks
from mindloop.systems.tos.world.tasks import TASKS, TEMPLATE_FIELDS, TEMPLATES, load_templates

SHIPPED = Path(str(package_file("mindloop.systems.tos.world", "task_templates.yaml")))


def test_the_shipped_templates_are_the_ones_the_code_held() -> None:
    # hand-copied from the templates as they were written in Python before they moved to data/task_templates.yaml
    assert list(TEMPLATES) == list(TASKS)
    assert TEMPLATES["direction"] == (
        "You return to your starting position and face north.\n"
        "From a Top-Down map, describe where {obj} is relative to {anchor}.\n"
        "Answer format: <cardinal direction>, <distance>\n"
        "Example: north-west, near\n"
    )
    assert TEMPLATES["view2act"].endswith(
        "What action sequence led to this final view? The action sequence must be valid and only contain move "
        "actions.\n\n"
        "Answer format: <sequence of move actions>\n"
        "Example: JumpTo(lamp), Rotate(90)\n"
    )
    assert TEMPLATES["loc2view"].startswith(
        "Treat {origin} as the origin (0, 0), and your starting facing direction is north.\n"
        "You move to ({x}, {y}) and face {facing}.\n"
    )
    # the module's old names still hold the same texts
    assert tasks.POV_TEMPLATE is TEMPLATES["persp.take"] and tasks.ROT_TEMPLATE is TEMPLATES["ment.rot"]
    filled = tasks.ALLOC_TEMPLATE.format(objects="lamp, sofa")
    assert "Objects: lamp, sofa.\n" in filled and filled.endswith("Example: (1, 0); (-2, 3); (0, -1)\n")
    assert load_templates() == TEMPLATES and load_templates(SHIPPED) == TEMPLATES


@pytest.mark.parametrize(
    ("old", "new", "expected"),
    [
        ("relative to {anchor}.", "relative to {anchr}.", r"direction: uses \{anchr\}, \{obj\}; expected exactly"),
        ("You observe that {observation}.", "You observe that.", r"perc\.dec: uses none; expected exactly"),
        ("  ment.rot: |", "  ment.rotation: |", r"templates: unknown task 'ment\.rotation'"),
        ("Example: (2, -1)\n", "Example: (2, -1\n    {)\n", r"view2loc: not a format string"),
        ("templates:\n", "templates:\n  version: two\n", r"unknown task 'version'"),
    ],
)
def test_a_malformed_templates_file_names_the_file_and_the_task(
    tmp_path: Path, old: str, new: str, expected: str
) -> None:
    refusal(load_templates, edited_copy(SHIPPED, old, new, tmp_path), expected)


def test_a_task_without_a_template_is_refused(tmp_path: Path) -> None:
    text = SHIPPED.read_text(encoding="utf-8")
    start = text.index("  view2loc: |")
    path = tmp_path / "task_templates.yaml"
    path.write_text(text[:start], encoding="utf-8")
    with pytest.raises(DataFileError, match="no template for task 'view2loc'"):
        load_templates(path)
    assert set(TEMPLATE_FIELDS) == set(TASKS)
