"""Two GRPO steps with MindPower's Mind-Reward and Format-Reward, on a tiny randomly initialised model.

Nothing is downloaded: the tokenizer is a word-level vocabulary built from the prompts and gold annotations, and
the model a two-layer Llama with random weights, both made here. The point is the plumbing — ``mindpower-sim``
rows with their gold atoms as a dataset column, :class:`mindloop.systems.mindpower.rewards.MindReward` and
:class:`~mindloop.systems.mindpower.rewards.FormatReward` as TRL reward functions (R = R_Mind + R_Format, Eq. 2, through
GRPO's equal reward weights) — not learning anything. docs/mindpower.md shows the real run on a GPU.

    pip install 'mindloop[train]'          # trl (torch==2.13.0 first, see the README)
    python examples/grpo_mind_reward.py [--steps 2] [--out DIR]
"""

from __future__ import annotations

import argparse
import json
import sys
import tempfile
import time
from collections.abc import Sequence
from typing import Any


def build_rows(n_train: int, seed: int = 0) -> list[dict[str, Any]]:
    """Prompt (Fig. 15 with the narration), gold atoms, gold text and the gold written as atoms per layer, of the
    first ``n_train`` mindpower-sim train scenarios."""
    from mindloop.systems.mindpower import LAYERS, TAGS, build_messages, scenario_input
    from mindloop.worlds.household.scenarios import mindpower_sim

    scenarios = mindpower_sim("train", seed=seed, n=max(10, (n_train * 5 + 3) // 4))[:n_train]
    return [
        {
            "prompt": build_messages("hierarchy", scenario_input(s))[0]["content"],
            "gold_atomic": list(s.gold.atomic.all()),
            "gold_text": s.gold.to_text(),
            "gold_symbolic": "\n".join(f"{TAGS[x]} {', '.join(s.gold.atomic.layer(x))}" for x in LAYERS),
        }
        for s in scenarios
    ]


def build_tokenizer(texts: Sequence[str]) -> Any:
    """A word-level tokenizer over ``texts`` (punctuation split off, so tags and calls are sequences of words)."""
    from tokenizers import Tokenizer, models, pre_tokenizers
    from transformers import PreTrainedTokenizerFast

    special = ["[PAD]", "[UNK]", "[BOS]", "[EOS]"]
    pre = pre_tokenizers.Whitespace()
    words = sorted({w for t in texts for w, _ in pre.pre_tokenize_str(t)})
    vocab = {w: i for i, w in enumerate(special + words)}
    tok = Tokenizer(models.WordLevel(vocab, unk_token="[UNK]"))
    tok.pre_tokenizer = pre
    return PreTrainedTokenizerFast(
        tokenizer_object=tok, pad_token="[PAD]", unk_token="[UNK]", bos_token="[BOS]", eos_token="[EOS]"
    )


def build_model(tokenizer: Any, seed: int = 0) -> Any:
    """A two-layer Llama with random weights sized to the tokenizer."""
    import torch
    from transformers import LlamaConfig, LlamaForCausalLM

    torch.manual_seed(seed)
    config = LlamaConfig(
        vocab_size=len(tokenizer),
        hidden_size=64,
        intermediate_size=128,
        num_hidden_layers=2,
        num_attention_heads=4,
        num_key_value_heads=4,
        max_position_embeddings=4096,
        pad_token_id=tokenizer.pad_token_id,
        bos_token_id=tokenizer.bos_token_id,
        eos_token_id=tokenizer.eos_token_id,
    )
    return LlamaForCausalLM(config)


def main(argv: Sequence[str] | None = None) -> int:
    """Run the GRPO steps and print one JSON object: steps, per-step rewards and the time taken."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--steps", type=int, default=2)
    parser.add_argument("--out", default=None, help="output folder (default: a temporary one)")
    args = parser.parse_args(argv)
    try:
        from datasets import Dataset
        from trl import GRPOConfig, GRPOTrainer
    except ImportError as exc:
        print(f"this example needs trl and datasets ({exc.name} is missing): pip install 'mindloop[train]'")
        return 1

    from mindloop.systems.mindpower.rewards import FormatReward, MindPowerReward, MindReward

    start = time.perf_counter()
    rows = build_rows(8)
    # sanity check of the rewards: the gold written as atoms, layer by layer, earns R = R_Mind + R_Format = 2
    gold_reward = MindPowerReward()(
        prompts=[""], completions=[rows[0]["gold_symbolic"]], gold_atomic=[rows[0]["gold_atomic"]]
    )[0]
    tokenizer = build_tokenizer([r["prompt"] for r in rows] + [r["gold_text"] for r in rows])
    model = build_model(tokenizer)
    with tempfile.TemporaryDirectory() as tmp:
        config = GRPOConfig(
            output_dir=args.out or tmp,
            max_steps=args.steps,
            per_device_train_batch_size=4,
            num_generations=4,
            max_completion_length=24,
            learning_rate=1e-4,
            logging_steps=1,
            save_strategy="no",
            report_to=[],
            use_cpu=True,
            bf16=False,
            seed=0,
            disable_tqdm=True,
        )
        trainer = GRPOTrainer(
            model=model,
            processing_class=tokenizer,
            reward_funcs=[MindReward("gold_atomic"), FormatReward()],
            args=config,
            train_dataset=Dataset.from_list(rows),
        )
        result = trainer.train()
        logs = [h for h in trainer.state.log_history if "reward" in h]
    summary = {
        "steps": int(result.global_step),
        "rewards": [{k: v for k, v in h.items() if k.startswith("reward") or k in ("step", "loss")} for h in logs],
        "gold_reward": gold_reward,
        "seconds": round(time.perf_counter() - start, 2),
    }
    print(json.dumps(summary))
    return 0 if summary["steps"] == args.steps else 1


if __name__ == "__main__":
    sys.exit(main())
