"""The fixed, seeded test sets that mirror the paper's splits (section 4.1).

C-WAH: 10 episodes, two of each of the five tasks of Table 6. TDW-MAT: 24 episodes, six each of food/stuff at
low/high capacity (Table 5). The episodes are pure functions of the seeds listed here, so every run of every
team plays exactly the same houses.
"""

from __future__ import annotations

from mindloop.systems.cobel.worlds.cwah_spec import CWAH_TASKS, CwahEpisode, make_cwah_episode
from mindloop.systems.cobel.worlds.tdw_spec import TdwEpisode

CWAH_TEST_SEEDS = (11, 23)
"""Two seeds per task: 5 tasks × 2 = 10 episodes."""

TDW_TEST_SEEDS = (101, 102, 103, 104, 105, 106)
"""Six seeds per category × capacity: 2 × 2 × 6 = 24 episodes."""


def cwah_test_set(n_agents: int = 2, base_seed: int = 0) -> list[CwahEpisode]:
    """The 10-episode C-WAH set (task-major order); ``base_seed`` shifts every seed for a fresh set."""
    return [make_cwah_episode(task, seed + base_seed, n_agents) for task in CWAH_TASKS for seed in CWAH_TEST_SEEDS]


def tdw_test_set(n_agents: int = 2, base_seed: int = 0) -> list[TdwEpisode]:
    """The 24-episode TDW-MAT set, in Table 1's row order (food-low, stuff-low, food-high, stuff-high)."""
    return [
        TdwEpisode(category, capacity, n_agents, seed + base_seed)
        for capacity in ("low", "high")
        for category in ("food", "stuff")
        for seed in TDW_TEST_SEEDS
    ]
