"""Symbolic agents: they finish episodes, talk as their style says, predict partners and track beliefs."""

from __future__ import annotations

import pytest

from mindloop.beliefs import Fact
from mindloop.errors import InvalidArgumentError
from mindloop.systems.cobel.episode import first_order_accuracy, make_agent, parse_team, run_episode
from mindloop.systems.cobel.mind import Intent, Mind
from mindloop.systems.cobel.worlds import CwahEnv
from mindloop.systems.cobel.worlds.testsets import cwah_test_set, tdw_test_set


def test_parse_team() -> None:
    assert parse_team("cobel,coela") == ("cobel", "coela")
    assert parse_team("cobel", 3) == ("cobel", "cobel", "cobel")
    with pytest.raises(InvalidArgumentError, match="unknown agent kind 'cobol'"):
        parse_team("cobol,cobel")
    with pytest.raises(InvalidArgumentError, match="has 3 agents but the episode has 2"):
        parse_team("cobel,cobel,cobel")


@pytest.fixture(scope="module")
def cwah_runs() -> dict[str, list]:
    eps = cwah_test_set()[:4]
    return {team: [run_episode(ep, team) for ep in eps] for team in ("heuristic", "coela", "capo", "cobel")}


def test_every_symbolic_team_finishes_the_episodes(cwah_runs: dict[str, list]) -> None:
    for team, results in cwah_runs.items():
        assert all(r.finished and r.error is None for r in results), team
        assert all(0 < r.steps < 250 for r in results), team


def test_communication_follows_each_style(cwah_runs: dict[str, list]) -> None:
    assert all(r.n_messages == 0 for r in cwah_runs["heuristic"])
    coela = sum(r.comm_tokens for r in cwah_runs["coela"])
    cobel = sum(r.comm_tokens for r in cwah_runs["cobel"])
    assert coela > 0 and cobel < 0.6 * coela  # at least 40% fewer tokens
    # CaPo-style discussions: a proposal, replies and a final plan
    texts = [m.text for r in cwah_runs["capo"] for m in r.messages]
    assert any("Proposed plan" in t for t in texts) and any("Final plan" in t for t in texts)
    assert all(len(m.text) <= 500 for rs in cwah_runs.values() for r in rs for m in r.messages)


def test_belief_accuracy_is_recorded(cwah_runs: dict[str, list]) -> None:
    for r in cwah_runs["cobel"]:
        assert r.belief_accuracy and all(0.0 <= a <= 1.0 for _, a in r.belief_accuracy)


def test_first_order_accuracy_by_hand() -> None:
    alice, bob = Mind("Alice", ["Alice", "Bob"]), Mind("Bob", ["Alice", "Bob"])
    # together they see the apple in the kitchen: Alice believes Bob believes it, and he does
    alice.perceive([Fact("<apple>(1)", "IN", "<kitchen>(2)")], ["Bob"], 1)
    bob.perceive([Fact("<apple>(1)", "IN", "<kitchen>(2)")], ["Alice"], 1)
    assert first_order_accuracy({"Alice": alice, "Bob": bob}) == 1.0
    # Bob alone sees it moved: what Alice believes Bob believes is now wrong
    bob.perceive([Fact("<apple>(1)", "IN", "<office>(3)")], [], 2)
    assert first_order_accuracy({"Alice": alice, "Bob": bob}) == 0.5  # Alice>Bob wrong, Bob>Alice right


def test_prediction_stores_top_three_with_a_distribution() -> None:
    env = CwahEnv(cwah_test_set()[0])
    obs, _ = env.reset()
    agent = make_agent("cobel", "Alice", ("Alice", "Bob"), "cwah")
    agent.act(obs["Alice"])
    ranked = agent._predict("Bob", agent.mind.view())
    assert 1 <= len(ranked) <= 3
    assert sum(p for _, p in ranked) == pytest.approx(1.0)
    dist = agent.mind.predicted("Bob")
    assert [t for t, _ in dist] == [i.text for i, _ in ranked]
    assert all(isinstance(i, Intent) for i, _ in ranked)


def test_tdw_teams_transport_something() -> None:
    ep = tdw_test_set()[0]
    for team in ("heuristic", "cobel"):
        r = run_episode(ep, team)
        assert r.transport_rate is not None and 0.0 < r.transport_rate <= 1.0
        assert r.frames is not None and r.frames <= 3000
