"""An SFT cold start on the gold text, then GRPO steps with MindPower's rewards, on a tiny randomly initialised model.

Nothing is downloaded: the tokenizer is a word-level vocabulary built from the prompts and gold annotations, and
the model a two-layer Llama with random weights, both made here. The point is the plumbing of the paper's two
stages (Sec. 4: SFT "to establish base reasoning alignment", then GRPO) — ``mindpower-sim`` rows with the prompt,
the gold text (SFT's completion) and the gold atoms, TRL's ``SFTTrainer`` for ``--sft-steps`` steps, then
``GRPOTrainer`` with a reward preset (``--preset``, :data:`mindloop.systems.mindpower.rewards.REWARD_PRESETS`:
``paper`` = R_Mind + R_Format, Eq. 2, atoms by the offline prose extractor; ``released`` = the authors' script's
0.1 x format + 0.9 x word ROUGE) — not learning anything. docs/mindpower.md shows the real run on a GPU.

``--released-config`` prints the authors' released script's GRPO hyperparameters as this TRL builds them
(:func:`released_grpo_config`: LoRA r = 16, lr 5e-6, 8 generations, 512 completion tokens, ``dr_grpo`` loss,
reward weights 0.1/0.9, ...) and exits without training.

    pip install 'mindloop[train]'          # trl (torch==2.13.0 first, see the README)
    python examples/grpo_mind_reward.py [--steps 2] [--sft-steps 2] [--preset paper] [--out DIR]
    python examples/grpo_mind_reward.py --released-config
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


RELEASED_LORA: dict[str, Any] = {"r": 16, "lora_alpha": 16, "lora_dropout": 0.0, "bias": "none"}
"""The released script's LoRA adapter (Unsloth ``get_peft_model``: language layers, attention and MLP modules)."""

RELEASED_GRPO: dict[str, Any] = {
    "learning_rate": 5e-6,
    "adam_beta1": 0.9,
    "adam_beta2": 0.99,
    "weight_decay": 0.1,
    "warmup_steps": 0.1,  # the script's warmup_ratio = 0.1 (a float below 1 is a ratio in this transformers)
    "lr_scheduler_type": "cosine",
    "optim": "adamw_8bit",
    "per_device_train_batch_size": 8,  # the script says 1 (Unsloth raises it to num_generations); TRL needs 8
    "gradient_accumulation_steps": 2,
    "num_generations": 8,
    "max_completion_length": 512,
    "max_steps": 3000,
    "save_steps": 200,
    "max_grad_norm": 0.1,
    "importance_sampling_level": "sequence",
    "mask_truncated_completions": True,
    "loss_type": "dr_grpo",
}
"""The released script's ``GRPOConfig`` (``train-mind.py``), reward weights aside (they come with the preset)."""


def released_grpo_config(output_dir: str, **overrides: Any) -> Any:
    """``GRPOConfig`` with :data:`RELEASED_GRPO` and the ``released`` preset's reward weights (0.1 format, 0.9
    mind); ``overrides`` win (e.g. ``use_cpu=True``)."""
    from trl import GRPOConfig

    from mindloop.systems.mindpower.rewards import reward_preset

    params = {**RELEASED_GRPO, "reward_weights": list(reward_preset("released").weights), "report_to": [], **overrides}
    return GRPOConfig(output_dir=output_dir, **params)


def released_peft_config() -> Any:
    """The LoRA adapter of :data:`RELEASED_LORA` as a ``peft.LoraConfig`` (``None`` when peft is not installed)."""
    try:
        from peft import LoraConfig
    except ImportError:
        return None
    return LoraConfig(task_type="CAUSAL_LM", target_modules="all-linear", **RELEASED_LORA)


def sft_cold_start(model: Any, tokenizer: Any, rows: Sequence[dict[str, Any]], steps: int, out: str) -> list[float]:
    """``steps`` SFT steps on the gold text (prompt -> gold six-layer answer, loss on the answer only); the losses."""
    from datasets import Dataset
    from trl import SFTConfig, SFTTrainer

    data = Dataset.from_list([{"prompt": r["prompt"], "completion": r["gold_text"]} for r in rows])
    config = SFTConfig(
        output_dir=out,
        max_steps=steps,
        per_device_train_batch_size=4,
        learning_rate=1e-4,
        logging_steps=1,
        save_strategy="no",
        report_to=[],
        use_cpu=True,
        bf16=False,
        seed=0,
        disable_tqdm=True,
        completion_only_loss=True,
    )
    trainer = SFTTrainer(model=model, processing_class=tokenizer, args=config, train_dataset=data)
    trainer.train()
    return [float(h["loss"]) for h in trainer.state.log_history if "loss" in h]


def main(argv: Sequence[str] | None = None) -> int:
    """Run the SFT and GRPO steps and print one JSON object: steps, SFT losses, per-step rewards and the time."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--steps", type=int, default=2, help="GRPO steps")
    parser.add_argument("--sft-steps", type=int, default=2, help="SFT cold-start steps before GRPO (0: none)")
    parser.add_argument("--preset", default="paper", help="reward preset: paper, paper-symbolic or released")
    parser.add_argument("--released-config", action="store_true", help="print the released GRPO config and exit")
    parser.add_argument("--out", default=None, help="output folder (default: a temporary one)")
    args = parser.parse_args(argv)
    try:
        from datasets import Dataset
        from trl import GRPOConfig, GRPOTrainer
    except ImportError as exc:
        print(f"this example needs trl and datasets ({exc.name} is missing): pip install 'mindloop[train]'")
        return 1

    from mindloop.errors import InvalidArgumentError
    from mindloop.systems.mindpower.rewards import MindPowerReward, reward_preset

    if args.released_config:
        with tempfile.TemporaryDirectory() as tmp:
            cfg = released_grpo_config(tmp, use_cpu=True, bf16=False)
        keys = [*RELEASED_GRPO, "reward_weights"]
        lora = released_peft_config()
        print(json.dumps({"grpo": {k: getattr(cfg, k) for k in keys}, "lora": RELEASED_LORA, "peft": lora is not None},
                         default=str))  # fmt: skip
        return 0
    try:
        preset = reward_preset(args.preset)
    except InvalidArgumentError as exc:
        print(f"grpo_mind_reward: error: {exc}", file=sys.stderr)
        return 1

    start = time.perf_counter()
    rows = build_rows(8)
    # sanity check of the rewards: the gold written as atoms, layer by layer, earns R = R_Mind + R_Format = 2
    gold_reward = MindPowerReward()(
        prompts=[""], completions=[rows[0]["gold_symbolic"]], gold_atomic=[rows[0]["gold_atomic"]]
    )[0]
    tokenizer = build_tokenizer([r["prompt"] for r in rows] + [r["gold_text"] for r in rows])
    model = build_model(tokenizer)
    with tempfile.TemporaryDirectory() as tmp:
        sft_losses = sft_cold_start(model, tokenizer, rows, args.sft_steps, f"{tmp}/sft") if args.sft_steps else []
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
            reward_weights=list(preset.weights),
        )
        trainer = GRPOTrainer(
            model=model,
            processing_class=tokenizer,
            reward_funcs=list(preset.funcs),
            args=config,
            train_dataset=Dataset.from_list(rows),
        )
        result = trainer.train()
        logs = [h for h in trainer.state.log_history if "reward" in h]
    summary = {
        "steps": int(result.global_step),
        "sft_losses": sft_losses,
        "preset": preset.name,
        "rewards": [{k: v for k, v in h.items() if k.startswith("reward") or k in ("step", "loss")} for h in logs],
        "gold_reward": gold_reward,
        "seconds": round(time.perf_counter() - start, 2),
    }
    print(json.dumps(summary))
    return 0 if summary["steps"] == args.steps else 1


if __name__ == "__main__":
    sys.exit(main())
