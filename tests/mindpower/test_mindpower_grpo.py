"""The GRPO example runs an SFT cold start and two GRPO steps with Mind-Reward and Format-Reward on a tiny local
model, and builds the released script's GRPO config (needs trl)."""

from __future__ import annotations

import importlib.util
import json
import subprocess
import sys
from pathlib import Path

import pytest

EXAMPLE = Path(__file__).resolve().parents[2] / "examples" / "grpo_mind_reward.py"


@pytest.mark.boundary  # the example as a user runs it
@pytest.mark.slow
@pytest.mark.train
def test_two_grpo_steps_with_mind_reward(tmp_path: Path) -> None:
    proc = subprocess.run(
        [sys.executable, str(EXAMPLE), "--steps", "2", "--out", str(tmp_path)],
        capture_output=True,
        text=True,
        timeout=300,
        check=False,
    )
    assert proc.returncode == 0, proc.stderr[-2000:]
    result = json.loads(proc.stdout.strip().splitlines()[-1])
    assert result["steps"] == 2
    assert result["preset"] == "paper"
    assert len(result["sft_losses"]) == 2  # the SFT cold start ran its two steps before GRPO
    assert [r["step"] for r in result["rewards"]] == [1, 2]
    for r in result["rewards"]:  # both reward functions were called by the trainer and logged
        assert 0.0 <= r["rewards/mind_reward/mean"] <= 1.0
        assert r["rewards/format_reward/mean"] in (0.0, 0.25, 0.5, 0.75, 1.0)
    assert result["gold_reward"] == 2.0


@pytest.mark.train
def test_released_hyperparameters_build_a_grpo_config(capsys: pytest.CaptureFixture[str]) -> None:
    pytest.importorskip("trl")
    spec = importlib.util.spec_from_file_location("grpo_mind_reward", EXAMPLE)
    assert spec is not None and spec.loader is not None
    example = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(example)  # the script's own main, in this process: it only builds the config
    assert example.main(["--released-config"]) == 0
    cfg = json.loads(capsys.readouterr().out.strip().splitlines()[-1])
    grpo = cfg["grpo"]
    # train-mind.py: lr 5e-6, 8 generations, 512 completion tokens, dr_grpo loss, reward weights 0.1 / 0.9, LoRA r 16
    assert grpo["learning_rate"] == 5e-6
    assert grpo["num_generations"] == 8
    assert grpo["max_completion_length"] == 512
    assert grpo["loss_type"] == "dr_grpo"
    assert grpo["reward_weights"] == [0.1, 0.9]
    assert cfg["lora"]["r"] == 16
