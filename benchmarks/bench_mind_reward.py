"""Does Mind-Reward give GRPO something to learn from? Sampled completions of a served model, scored per preset.

Run:  scripts/local-model.sh serve 0.5b 8090        # any OpenAI-compatible server works
      .venv/bin/python benchmarks/bench_mind_reward.py --base-url http://127.0.0.1:8090/v1 [--prompts 12] [--k 4]
      .venv/bin/python benchmarks/bench_mind_reward.py --completions FILE      # re-score saved completions
      .venv/bin/python benchmarks/bench_mind_reward.py --gguf .local-models/qwen2.5-coder-0.5b-instruct-q4_k_m.gguf
                         # no server: the same GGUF through transformers (needs the gguf package), sampled in-process

For ``--prompts`` MindPower train scenarios (``mindpower-sim`` train split, seed 0, after the first ``--first``) it
asks the model for ``--k`` completions of the Fig. 15 prompt at temperature 1 (512 tokens each, seeds 0..k-1 per
prompt), saves them with ``--save FILE`` (JSON, with each prompt's gold), and prints, per reward preset
(``mindloop.systems.mindpower.rewards.REWARD_PRESETS``):

* ``signal``: the share of prompt groups whose k rewards are not all equal (a group with equal rewards has zero
  advantage everywhere, so GRPO learns nothing from it);
* ``spread``: the mean within-group standard deviation of the reward;
* ``gold``: the mean reward of the gold answer written in the paper's prose (``Gold.to_text()``);
* ``spearman``: Spearman's rank correlation between the reward and the ``mindpower`` benchmark's own SR (the
  action line's SR when the reply parses as a hierarchy, else 0, as the benchmark scores it) over all sampled
  completions.

The reward of a preset is its GRPO total: the reward functions' values combined with the preset's weights (Eq. 2
for the paper's presets, 0.1·format + 0.9·mind for the released script's).
"""

from __future__ import annotations

import argparse
import asyncio
import json
import statistics
import sys
import time
from collections.abc import Sequence
from dataclasses import asdict, dataclass
from pathlib import Path
from typing import Any

from mindloop.systems.mindpower import build_messages, scenario_input
from mindloop.systems.mindpower.hierarchy import HierarchyParseError, parse_hierarchy
from mindloop.systems.mindpower.metrics import action_scores
from mindloop.systems.mindpower.rewards import REWARD_PRESETS, reward_preset
from mindloop.worlds.household.scenarios import Scenario, mindpower_sim


@dataclass(frozen=True)
class Row:
    """One prompt's gold (text, atoms, action steps) and its sampled completions."""

    id: str
    gold_text: str
    gold_atomic: list[str]
    gold_actions: list[str]
    completions: list[str]

    @classmethod
    def of(cls, scenario: Scenario, completions: Sequence[str]) -> Row:
        g = scenario.gold
        return cls(scenario.id, g.to_text(), g.atomic.all(), list(g.actions), list(completions))


def benchmark_sr(reply: str, gold_actions: Sequence[str]) -> float:
    """The ``mindpower`` benchmark's SR of one reply: 0 unless it parses as the six-layer hierarchy."""
    try:
        h = parse_hierarchy(reply, "hierarchy")
    except HierarchyParseError:
        return 0.0
    return action_scores([str(s) for s in h.actions], list(gold_actions)).sr


async def sample(base_url: str, model: str, scenarios: Sequence[Scenario], k: int, max_tokens: int) -> list[list[str]]:
    """``k`` completions per scenario at temperature 1 (seeds 0..k-1), one request at a time."""
    from mindloop.models.base import GenerationConfig, ModelOptions, load_model

    chat = load_model(f"openai/{model}", ModelOptions(base_url=base_url, cache="off", timeout_s=600, concurrency=1))
    out: list[list[str]] = []
    try:
        for i, s in enumerate(scenarios):
            msgs = build_messages("hierarchy", scenario_input(s))
            group = []
            for j in range(k):
                start = time.perf_counter()
                reply = await chat.generate(msgs, GenerationConfig(temperature=1.0, max_tokens=max_tokens, seed=j))
                group.append(reply.text)
                print(
                    f"  prompt {i + 1}/{len(scenarios)} sample {j + 1}/{k}: {time.perf_counter() - start:.1f} s",
                    file=sys.stderr,
                    flush=True,
                )
            out.append(group)
    finally:
        await chat.aclose()
    return out


def sample_gguf(path: str, scenarios: Sequence[Scenario], k: int, max_tokens: int) -> list[list[str]]:
    """The same sampling without a server: the GGUF model loaded by transformers (dequantised), ``k`` sequences
    per prompt at temperature 1 with no top-k/top-p cut (a llama.cpp server applies its own defaults there), seeded
    per prompt."""
    import torch
    from transformers import AutoModelForCausalLM, AutoTokenizer

    folder, name = str(Path(path).parent), Path(path).name
    tok = AutoTokenizer.from_pretrained(folder, gguf_file=name)
    model = AutoModelForCausalLM.from_pretrained(folder, gguf_file=name, dtype=torch.float32).eval()
    out: list[list[str]] = []
    for i, s in enumerate(scenarios):
        messages = build_messages("hierarchy", scenario_input(s))
        enc = tok.apply_chat_template(messages, add_generation_prompt=True, return_tensors="pt", return_dict=True)
        ids = enc["input_ids"]
        torch.manual_seed(i)
        start = time.perf_counter()
        with torch.no_grad():
            gen = model.generate(
                input_ids=ids,
                attention_mask=torch.ones_like(ids),
                do_sample=True,
                temperature=1.0,
                top_p=1.0,
                top_k=0,
                max_new_tokens=max_tokens,
                num_return_sequences=k,
                pad_token_id=tok.eos_token_id,
            )
        out.append([tok.decode(g[ids.shape[1] :], skip_special_tokens=True) for g in gen])
        print(f"  prompt {i + 1}/{len(scenarios)}: {time.perf_counter() - start:.0f} s", file=sys.stderr, flush=True)
    return out


def spearman(xs: Sequence[float], ys: Sequence[float]) -> float | None:
    """Spearman's rho (average ranks for ties); ``None`` when either side is constant."""
    from scipy.stats import spearmanr

    if len(set(xs)) < 2 or len(set(ys)) < 2:
        return None
    return float(spearmanr(xs, ys).statistic)


def score(presets: Sequence[str], rows: Sequence[Row]) -> dict[str, Any]:
    """Per preset: signal share, mean spread, gold reward and Spearman against SR (see the module docstring)."""
    srs = [benchmark_sr(c, r.gold_actions) for r in rows for c in r.completions]
    out: dict[str, Any] = {"sr_mean": statistics.fmean(srs), "sr_nonzero": sum(x > 0 for x in srs)}
    for name in presets:
        preset = reward_preset(name)
        rewards = [preset.total(r.completions, r.gold_atomic, r.gold_text) for r in rows]
        gold = [preset.total([r.gold_text], r.gold_atomic, r.gold_text)[0] for r in rows]
        flat = [r for g in rewards for r in g]
        rho = spearman(flat, srs)
        out[name] = {
            "signal": sum(len(set(g)) > 1 for g in rewards) / len(rewards),
            "spread": statistics.fmean(statistics.pstdev(g) for g in rewards),
            "mean": statistics.fmean(flat),
            "gold": statistics.fmean(gold),
            "spearman": rho,
        }
    return out


def main(argv: Sequence[str] | None = None) -> int:
    """Sample (or load) completions, score them with each preset and print one line per preset and a JSON line."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--base-url", default="http://127.0.0.1:8090/v1")
    parser.add_argument("--model", default="qwen")
    parser.add_argument("--prompts", type=int, default=12)
    parser.add_argument("--first", type=int, default=0, help="skip this many train prompts (to sample more later)")
    parser.add_argument("--k", type=int, default=4)
    parser.add_argument("--max-tokens", type=int, default=512)
    parser.add_argument("--save", default=None, help="write the sampled completions to this JSON file")
    parser.add_argument(
        "--completions", default=None, help="score completions saved by --save (comma-separated files) instead"
    )
    parser.add_argument("--gguf", default=None, help="sample from this GGUF file in-process instead of a server")
    parser.add_argument("--presets", default=",".join(REWARD_PRESETS))
    args = parser.parse_args(argv)
    presets = [p for p in args.presets.split(",") if p]
    for p in presets:
        reward_preset(p)  # unknown names fail before any sampling
    if args.completions:  # the saved rows carry their gold, so they score the same whatever the split is now
        files = [Path(f) for f in args.completions.split(",") if f]
        rows = [Row(**r) for f in files for r in json.loads(f.read_text(encoding="utf-8"))]
    else:
        scenarios = mindpower_sim("train", seed=0)[args.first : args.first + args.prompts]
        start = time.perf_counter()
        if args.gguf:
            groups = sample_gguf(args.gguf, scenarios, args.k, args.max_tokens)
        else:
            groups = asyncio.run(sample(args.base_url, args.model, scenarios, args.k, args.max_tokens))
        print(f"sampled {sum(map(len, groups))} completions in {time.perf_counter() - start:.0f} s", file=sys.stderr)
        rows = [Row.of(s, g) for s, g in zip(scenarios, groups, strict=True)]
        if args.save:
            Path(args.save).write_text(json.dumps([asdict(r) for r in rows]), encoding="utf-8")
    result = score(presets, rows)
    n = sum(len(r.completions) for r in rows)
    print(
        f"{len(rows)} prompts x {n // max(1, len(rows))} completions; benchmark SR mean "
        f"{result['sr_mean']:.3f}, {result['sr_nonzero']} of {n} completions with SR > 0"
    )
    print(f"{'preset':<16} {'signal':>7} {'spread':>7} {'mean':>6} {'gold':>6} {'spearman':>8}")
    for p in presets:
        r = result[p]
        rho = "-" if r["spearman"] is None else f"{r['spearman']:.3f}"
        print(f"{p:<16} {r['signal']:>7.0%} {r['spread']:>7.3f} {r['mean']:>6.3f} {r['gold']:>6.3f} {rho:>8}")
    print(json.dumps(result))
    return 0


if __name__ == "__main__":
    sys.exit(main())
