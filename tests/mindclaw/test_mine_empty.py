"""``claw skills mine --model`` with a model whose replies give no skill is an error: exit 1, one line, no file
(it used to write an empty skills file and exit 0). Real HTTP to a FakeChatServer."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from mindloop.cli import main
from mindloop.models import FakeChatServer
from mindloop.systems.mindclaw.mining import NoSkillsError, require_skills
from mindloop.systems.mindclaw.skills import SkillSet


def test_mine_with_a_model_that_gives_no_skill_fails_without_a_file(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    out = tmp_path / "skills.yaml"

    def chatty(messages: list[dict[str, Any]], body: dict[str, Any]) -> str:
        return "Here are some thoughts.\nThe robot should help when needed."

    with FakeChatServer(reply=chatty) as server:
        args = ["claw", "skills", "mine", "--dataset-n", "20", "--model", "openai/fake"]
        code = main([*args, "--base-url", server.base_url, "--out", str(out)])
        asked = server.requests
    err = capsys.readouterr().err
    assert code == 1 and asked > 0
    assert not out.exists()
    lines = [line for line in err.splitlines() if line.strip()]
    assert len(lines) == 1, err
    assert "openai/fake gave no usable skill" in lines[0] and "no skills file written" in lines[0]
    assert f"{asked} unusable reply lines" in lines[0]  # one per reply: none has a SKILL line
    assert "no SKILL line in the reply: Here are some thoughts. The robot should help when needed." in lines[0]


def test_require_skills_passes_a_non_empty_set_through() -> None:
    with pytest.raises(NoSkillsError, match="the rule miner gave no usable skill; no skills file written"):
        require_skills(SkillSet([]), [], "the rule miner")
