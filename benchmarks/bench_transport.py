"""CoBel-World figures: Tables 1–2 layouts for the symbolic teams, the issue's targets, and world speed.

Run: ``.venv/bin/python benchmarks/bench_transport.py`` (about a minute on one core). Prints

* C-WAH (10 episodes): average steps and communication tokens per team (Table 2 layout), and the targets —
  CoBel uses ≥ 40% fewer tokens than the CoELA-style team at equal or fewer average steps, and both beat the
  no-message team on steps;
* TDW-MAT (24 episodes): transport rate and tokens per team (Table 1 layout);
* CoBel with 2, 3 and 4 agents on C-WAH (Table 4's question);
* first-order belief accuracy over time;
* environment speed: C-WAH steps per second on one core, replaying the actions real teams took, and with
  random actions.
"""

from __future__ import annotations

import random
import sys
import time
from typing import Any

from mindloop.models.tokens import TOKENIZER_NAME
from mindloop.systems.cobel.episode import make_agent, run_episode
from mindloop.systems.cobel.metrics import accuracy_curve, summarize_episodes, table_cwah, table_tdw
from mindloop.systems.cobel.worlds import Action, CwahEnv
from mindloop.systems.cobel.worlds.testsets import cwah_test_set, tdw_test_set

TEAMS = {"MHP-like (heuristic)": "heuristic", "CoELA-style": "coela", "CaPo-style": "capo", "CoBel": "cobel"}


def run_set(episodes: list[Any]) -> dict[str, list[dict[str, Any]]]:
    """Every team on every episode, as episode records."""
    return {label: [run_episode(ep, team).to_dict() for ep in episodes] for label, team in TEAMS.items()}


def recorded_actions(n_episodes: int = 10) -> list[tuple[Any, list[dict[str, Action]]]]:
    """The actions real teams took on the C-WAH set, per step, to replay against the bare world."""
    out = []
    for team in ("cobel", "heuristic"):
        for ep in cwah_test_set()[:n_episodes]:
            env = CwahEnv(ep)
            obs, _ = env.reset()
            names = tuple(env.possible_agents)
            agents = {n: make_agent(team, n, names, "cwah") for n in names}
            steps = []
            while env.agents:
                acts = {n: agents[n].act(obs[n]) for n in env.agents}
                steps.append(acts)
                obs, *_ = env.step(acts)
            out.append((ep, steps))
    return out


def env_speed(replays: list[tuple[Any, list[dict[str, Action]]]], seconds: float = 2.0) -> float:
    """Environment steps per second of CPU time (one process, one core) replaying recorded episodes, resets included."""
    env = CwahEnv()
    steps = 0
    start = time.process_time()
    while time.process_time() - start < seconds:
        for ep, actions in replays:
            env.reset(options={"episode": ep})
            for acts in actions:
                env.step(acts)
            steps += len(actions)
    return steps / (time.process_time() - start)


def random_speed(seconds: float = 2.0) -> float:
    """Steps per second with random (mostly failing) actions of every kind."""
    env = CwahEnv()
    env.reset(seed=0)
    rng = random.Random(0)
    ids = list(env.entities)
    kinds = ["walk", "walk", "grasp", "open", "put", "turn_left", "send_message"]
    acts = [
        Action(k, rng.choice(ids), rng.choice(ids), "hi" if k == "send_message" else "")
        for k in (rng.choice(kinds) for _ in range(20000))
    ]
    steps = 0
    start = time.process_time()
    k = 0
    while time.process_time() - start < seconds:
        if not env.agents:
            env.reset(seed=steps % 50)
        env.step({"Alice": acts[k % 20000], "Bob": acts[(k + 1) % 20000]})
        k += 2
        steps += 1
    return steps / (time.process_time() - start)


def main() -> int:
    """Print the figures and whether the issue's targets hold; exit 1 if one does not."""
    print(f"communication tokens counted with: {TOKENIZER_NAME}\n")
    t0 = time.process_time()
    cwah = run_set(cwah_test_set())
    print("== C-WAH-style, 10 episodes, symbolic observation (Table 2 layout) ==")
    print(table_cwah(cwah))
    s = {label: summarize_episodes(rs) for label, rs in cwah.items()}
    for label, summ in s.items():
        acc = summ["belief_accuracy"]
        print(
            f"  {label:22s} avg_steps {summ['avg_steps']:6.1f}  comm_tokens {summ['comm_tokens']:7.1f}  "
            f"messages {summ['messages']:5.1f}  finished {summ['finished']:.0%}  first-order belief accuracy "
            f"{acc:.3f}"
        )
    cobel, coela, none = s["CoBel"], s["CoELA-style"], s["MHP-like (heuristic)"]
    fewer = 1 - cobel["comm_tokens"] / coela["comm_tokens"]
    ok1 = fewer >= 0.40 and cobel["avg_steps"] <= coela["avg_steps"]
    ok2 = cobel["avg_steps"] < none["avg_steps"] and coela["avg_steps"] < none["avg_steps"]
    print(
        f"\nTARGET CoBel tokens {fewer:.0%} fewer than CoELA-style (>= 40%) at avg steps {cobel['avg_steps']:.1f} <= "
        f"{coela['avg_steps']:.1f}: {'MET' if ok1 else 'NOT MET'}"
    )
    print(
        f"TARGET both beat the no-message team on steps ({cobel['avg_steps']:.1f}, {coela['avg_steps']:.1f} < "
        f"{none['avg_steps']:.1f}): {'MET' if ok2 else 'NOT MET'}"
    )

    print("\n== TDW-MAT-style, 24 episodes (Table 1 layout) ==")
    tdw = run_set(tdw_test_set())
    print(table_tdw(tdw))
    for label, rs in tdw.items():
        summ = summarize_episodes(rs)
        print(
            f"  {label:22s} transport_rate {summ['transport_rate']:.3f}  comm_tokens {summ['comm_tokens']:7.1f}  "
            f"messages {summ['messages']:5.1f}  first-order belief accuracy {summ['belief_accuracy']:.3f}"
        )

    print("\n== CoBel with more agents, C-WAH (Table 4's question) ==")
    for n in (2, 3, 4):
        rs = [run_episode(ep, "cobel").to_dict() for ep in cwah_test_set(n_agents=n)]
        summ = summarize_episodes(rs)
        print(f"  CoBel x{n}: avg_steps {summ['avg_steps']:.1f}  comm_tokens {summ['comm_tokens']:.1f}")

    print("\n== first-order belief accuracy over time (C-WAH steps, mean over episodes) ==")
    for label in ("CoBel", "CoELA-style", "MHP-like (heuristic)"):
        curve = accuracy_curve(cwah[label], bins=5, horizon=50)
        print(f"  {label:22s} " + "  ".join(f"t~{t:.0f}: {a:.2f}" for t, a in curve))
    print(f"\n(tables and teams took {time.process_time() - t0:.1f} s)")

    print("\n== C-WAH world speed, one core ==")
    replays = recorded_actions()
    speed = env_speed(replays)
    rnd = random_speed()
    print(f"  replaying the teams' recorded actions: {speed:,.0f} env steps/s (2 agents per step)")
    print(f"  random actions:                        {rnd:,.0f} env steps/s")
    ok3 = speed >= 20_000
    print(f"TARGET >= 20,000 env steps/s per core: {'MET' if ok3 else 'NOT MET'}")
    return 0 if ok1 and ok2 and ok3 else 1


if __name__ == "__main__":
    sys.exit(main())
