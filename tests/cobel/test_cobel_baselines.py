"""The model-driven baselines (``coela-llm``, ``capo-llm``) and CoBel-World's ablations (``cobel-llm-no-sbr``,
``cobel-llm-no-bbc``) against scripted models: the prompts each scheme asks, the replies in the formats they ask
for, malformed replies that become counted failures, and message tokens counted with the model's usage."""

from __future__ import annotations

import asyncio
import re
import sys
from collections import Counter
from collections.abc import Callable
from pathlib import Path

import pytest

from mindloop.bench.runner import RunSummary
from mindloop.errors import ParseError
from mindloop.models.base import Completion
from mindloop.models.tokens import TOKENIZER_NAME, count_tokens
from mindloop.systems.cobel.baselines import read_choice, read_feedback, read_meta_plan
from mindloop.systems.cobel.episode import MODEL_TOKENIZER, arun_episode
from mindloop.systems.cobel.llm import message_tokens
from mindloop.systems.cobel.replies import read_words
from mindloop.systems.cobel.worlds.testsets import cwah_test_set, tdw_test_set

sys.path.insert(0, str(Path(__file__).parent))
from fakes import FakeModel, sensible_replies

TEAM = ("Alice", "Bob")


# ---- readers ----------------------------------------------------------------------------------------------------
def test_meta_plan_lines_per_agent_in_markdown_and_one_line() -> None:
    plan, text = read_meta_plan(
        "Sure!\n**Meta-plan:**\n- **Alice**: explore <kitchen>(2000); grab <apple>(12)\n- Bob: go to <bedroom>(3000)",
        TEAM,
    )
    assert [i.text for i in plan["Alice"]] == ["explore <kitchen>(2000)", "grab <apple>(12)"]
    assert [i.text for i in plan["Bob"]] == ["explore <bedroom>(3000)"]
    assert text == "Alice: explore <kitchen>(2000); grab <apple>(12)\nBob: explore <bedroom>(3000)"


def test_meta_plan_without_a_usable_line_is_refused() -> None:
    with pytest.raises(ParseError, match="no line 'Name: step; step'"):
        read_meta_plan("Meta-plan: we should split the work fairly.", TEAM)
    with pytest.raises(ParseError):
        read_meta_plan("Meta-plan:\nAlice: explore <room>(id)\nCarol: explore <kitchen>(2000)", TEAM)


def test_feedback_needs_agree_yes_or_no() -> None:
    assert read_feedback("feedback: take the kitchen, I saw the plate there\nagree: **No**") == (
        False,
        "take the kitchen, I saw the plate there",
    )
    assert read_feedback("Feedback: fine\nAgree: Yes.")[0] is True
    with pytest.raises(ParseError, match="'agree:'"):
        read_feedback("Looks good to me.")


def test_a_choice_is_an_option_never_subplan_done() -> None:
    options = ["send a message: Hi Bob", "explore <kitchen>(2000)", "grab <apple>(12)"]
    assert read_choice("reasons: near\nanswer: C", options, "coela-llm") == 2
    assert read_choice("answer: explore <kitchen>(2000)", options, "coela-llm") == 1
    with pytest.raises(ParseError, match="one of the listed actions"):
        read_choice("answer: SUBPLAN DONE", options, "coela-llm")


def test_words_update_reads_sentences_and_the_stated_plan() -> None:
    words, plan = read_words(
        "Beliefs: Bob knows the <apple>(12) is in <kitchen>(2000).\nBob's plan: grab <apple>(12)", "Bob"
    )
    assert words == "Bob knows the <apple>(12) is in <kitchen>(2000)."
    assert [i.text for i in plan] == ["grab <apple>(12)"]
    assert read_words("Beliefs: None", None) == ("", [])
    with pytest.raises(ParseError, match="'Beliefs:'"):
        read_words("Alice BELIEVE <apple>(12) IN <kitchen>(2000)")


def test_message_tokens_apportion_the_servers_usage() -> None:
    reply = "Message: Hi Bob, I found <apple>(12) in <kitchen>(2000)."
    msg = "Hi Bob, I found <apple>(12) in <kitchen>(2000)."
    share = count_tokens(msg) / count_tokens(reply)
    assert message_tokens(msg, Completion(reply, completion_tokens=100)) == round(100 * share)
    assert message_tokens(reply, Completion(reply, completion_tokens=37)) == 37  # the reply is the message
    assert message_tokens(msg, Completion(reply)) is None  # no usage reported: the stand-in counts


# ---- scripted models ---------------------------------------------------------------------------------------------
_ENTITY = re.compile(r"<[a-z_]+>\(\d+\)")


def _letter_of_first_action(prompt: str) -> str:
    """The letter of the first listed action that is not sending a message."""
    listing = prompt.split("Available actions:", 1)[1]
    for m in re.finditer(r"(?m)^([A-L])\. (.*)$", listing):
        if not m.group(2).startswith("send a message"):
            return m.group(1)
    raise AssertionError("no action listed")


def coela_replies(send_every: int = 3) -> dict[str, Callable[[str], str]]:
    """CoELA replies: a message drafted each time; every ``send_every``-th plan sends it, else the cheapest action."""
    plans = Counter[str]()

    def plan(prompt: str) -> str:
        plans["n"] += 1
        if "A. send a message" in prompt and plans["n"] % send_every == 1:
            return "reasons: tell Bob what I know\nanswer: A"
        return f"reasons: it is the nearest\nanswer: {_letter_of_first_action(prompt)}"

    replies = sensible_replies()
    replies["coela-com"] = lambda p: "Message: Hi, I'm exploring the nearest room; tell me what you find."
    replies["coela-plan"] = plan
    return replies


def capo_replies(agree: bool = False) -> dict[str, Callable[[str], str]]:
    """CaPo replies: a meta-plan giving each agent one room; feedback that disagrees (a refinement follows)."""
    replies = sensible_replies()
    plan = "Meta-plan:\nAlice: explore <kitchen>(2000)\nBob: explore <bedroom>(3000)"
    replies["capo-draft"] = lambda p: plan
    replies["capo-refine"] = lambda p: "Meta-plan:\nAlice: explore <bedroom>(3000)\nBob: explore <kitchen>(2000)"
    replies["capo-feedback"] = lambda p: f"feedback: I am nearer the bedroom\nagree: {'Yes' if agree else 'No'}"
    replies["capo-plan"] = lambda p: f"reasons: the meta-plan\nanswer: {_letter_of_first_action(p)}"
    return replies


class Usage(FakeModel):
    """A scripted model whose server reports ``completion_tokens`` = 3 × the stand-in's count (a different
    tokenizer), so the episode's counts show which tokenizer counted them."""

    async def generate(self, messages, config=None):  # type: ignore[no-untyped-def]
        done = await super().generate(messages, config)
        return Completion(done.text, completion_tokens=3 * count_tokens(done.text), model=self.name)


# ---- episodes ----------------------------------------------------------------------------------------------------
def test_coela_llm_drafts_at_every_plan_sends_when_the_plan_says_so_and_finishes() -> None:
    model = Usage(coela_replies())
    result = asyncio.run(arun_episode(cwah_test_set()[0], "coela-llm", model=model))
    assert result.error is None and result.finished
    kinds = Counter(k for k, _ in model.seen)
    assert set(kinds) == {"coela-com", "coela-plan"}
    # a message is drafted before every plan except the one right after sending (never two sends in a row; an
    # agent's last send may end the episode before its next plan)
    sends = len(result.messages)
    assert sends > 0 and sends - len(TEAM) <= kinds["coela-plan"] - kinds["coela-com"] <= sends
    # every message came from the model: counted with the model's usage (3x the stand-in here), not the stand-in
    for m in result.messages:
        assert m.tokenizer == MODEL_TOKENIZER and m.text.startswith("Hi, I'm exploring")
        assert m.tokens == 3 * count_tokens(m.text)
    plan_prompt = next(t for k, t in model.seen if k == "coela-plan")
    assert "Dialogue history:" in plan_prompt and "What I know: I'm in" in plan_prompt and "$" not in plan_prompt


def test_capo_llm_discusses_a_meta_plan_then_follows_the_refined_one() -> None:
    model = FakeModel(capo_replies(agree=False))
    result = asyncio.run(arun_episode(cwah_test_set()[0], "capo-llm", model=model))
    assert result.error is None and result.finished
    texts = [(m.sender, m.text) for m in result.messages]
    # the start: Alice (the designer) drafts, Bob disagrees, Alice sends the refined final meta-plan
    assert texts[0] == ("Alice", "Meta-plan: Alice: explore <kitchen>(2000)\nBob: explore <bedroom>(3000)")
    assert texts[1][0] == "Bob" and texts[1][1].startswith("Feedback: I am nearer the bedroom")
    assert "disagree" in texts[1][1]
    assert texts[2] == ("Alice", "Final meta-plan: Alice: explore <bedroom>(3000)\nBob: explore <kitchen>(2000)")
    kinds = Counter(k for k, _ in model.seen)
    assert kinds["capo-draft"] >= 1 and kinds["capo-feedback"] >= 1 and kinds["capo-refine"] >= 1
    plan_prompt = next(t for k, t in model.seen if k == "capo-plan" and "Final" not in t and "bedroom>(3000)\nBob" in t)
    assert "My subtasks in it: explore <bedroom>(3000)" in plan_prompt
    # no usage reported by this model: the stand-in counted
    assert {m.tokenizer for m in result.messages} == {TOKENIZER_NAME}


def test_capo_llm_in_tdw_mat_transports_to_the_bed_the_goal_names() -> None:
    """ "Transport them to the bed" in a meta-plan is the bed of this episode's goal. The agent once read the bed at
    construction, before the episode set its domain up, and sent "transport " with no target."""
    replies = capo_replies(agree=True)
    replies["capo-draft"] = lambda p: "Meta-plan:\nAlice: transport them to the bed\nBob: transport them to the bed"
    model = FakeModel(replies)
    result = asyncio.run(arun_episode(tdw_test_set()[0], "capo-llm", model=model))
    assert result.error is None
    draft = next(t for k, t in model.seen if k == "capo-draft")
    goal = re.search(r"transport [^.]* to (<bed>\(\d+\))", draft)
    assert goal is not None, draft
    bed = goal.group(1)
    assert result.messages[0].text == f"Meta-plan: Alice: transport {bed}\nBob: transport {bed}"


def test_capo_llm_agreement_ends_the_discussion_in_two_messages() -> None:
    result = asyncio.run(arun_episode(cwah_test_set()[0], "capo-llm", model=FakeModel(capo_replies(agree=True))))
    assert result.error is None
    first = [m.text.split(":")[0] for m in result.messages[:3]]
    assert first[:2] == ["Meta-plan", "Feedback"] and "Final meta-plan" not in first


@pytest.mark.parametrize(
    ("team", "kind", "reply", "reason"),
    [
        ("coela-llm", "coela-plan", "reasons: unsure\nanswer: dance a jig", "not an action from the list"),
        ("coela-llm", "coela-com", "", "no 'Message:' line"),
        ("capo-llm", "capo-draft", "Meta-plan: let's split the work.", "no line 'Name: step; step'"),
        ("capo-llm", "capo-feedback", "Looks fine.", "'agree:'"),
        ("capo-llm", "capo-plan", "answer: SUBPLAN DONE", "one of the listed actions"),
    ],
)
def test_malformed_replies_are_recorded_failures(team: str, kind: str, reply: str, reason: str) -> None:
    replies = coela_replies() if team == "coela-llm" else capo_replies()
    replies[kind] = lambda p: reply
    result = asyncio.run(arun_episode(cwah_test_set()[0], team, model=FakeModel(replies)))
    assert result.error is not None and reason in result.error
    assert not result.finished and result.steps == 250  # a failure counts as the step limit, never a success


# ---- the ablations -----------------------------------------------------------------------------------------------
def _words_replies() -> dict[str, Callable[[str], str]]:
    replies = sensible_replies()
    replies["words-zero"] = lambda p: "Beliefs: Bob has explored the <kitchen>(2000)."
    replies["words-first"] = lambda p: (
        "Beliefs: Bob knows I am in the living room.\nBob's plan: explore <bedroom>(3000)"
    )
    return replies


def test_no_sbr_keeps_beliefs_in_words() -> None:
    model = FakeModel(_words_replies())
    # the symbolic CoELA stand-in talks at every plan, so the ablated agent updates its beliefs from messages
    result = asyncio.run(arun_episode(cwah_test_set()[0], "cobel-llm-no-sbr,coela", model=model))
    assert result.error is None and result.finished
    kinds = Counter(k for k, _ in model.seen)
    assert kinds["words-zero"] >= 1 and kinds["words-first"] >= 1
    assert kinds["fig8"] == 0 and kinds["fig9"] == 0  # no SBL updates
    later = [t for k, t in model.seen if k in ("fig11", "fig14", "fig15")][-1]
    beliefs = later.split("zero-order belie", 1)[1]
    assert "BELIEVE" not in beliefs  # the beliefs the model sees are sentences, not SBL
    assert "Bob has explored the <kitchen>(2000)." in "".join(t for k, t in model.seen if k in ("fig11", "fig14"))


def test_no_bbc_never_infers_partners_intents_and_talks_at_every_new_plan() -> None:
    model = FakeModel(sensible_replies())
    result = asyncio.run(arun_episode(cwah_test_set()[0], "cobel-llm-no-bbc,cobel", model=model))
    assert result.error is None and result.finished
    kinds = Counter(k for k, _ in model.seen)
    assert kinds["fig10"] == 0 and kinds["fig12"] == 0  # no prediction of partners' plans, no miscoordination check
    assert kinds["fig11"] >= 1 and kinds["fig13"] == kinds["fig11"]
    assert sum(m.sender == "Alice" for m in result.messages) == kinds["fig13"]
    full = FakeModel(sensible_replies())
    asyncio.run(arun_episode(cwah_test_set()[0], "cobel-llm,cobel", model=full))
    assert Counter(k for k, _ in full.seen)["fig10"] >= 1  # the full agent does predict


# ---- over HTTP, and the paper's tables from the runs --------------------------------------------------------------
def _all_replies() -> dict[str, Callable[[str], str]]:
    return {**coela_replies(), **capo_replies(), **_words_replies()}


class _Server:
    """The fake server's reply function: by prompt kind, with some kinds replaced."""

    def __init__(self, **override: str) -> None:
        self.replies = _all_replies()
        for kind, text in override.items():
            self.replies[kind.replace("_", "-")] = lambda p, t=text: t

    def __call__(self, messages: list[dict[str, object]], body: dict[str, object]) -> str:
        from fakes import prompt_kind

        prompt = str(messages[0]["content"])
        return self.replies[prompt_kind(prompt)](prompt)


def _bench(
    store_dir: Path, team: str, server: _Server, model: str = "openai/fake", steps: int = 20, n: int = 2
) -> RunSummary:
    from mindloop.bench.runner import RunRequest, run_benchmark
    from mindloop.bench.store import RunStore
    from mindloop.models.base import ModelOptions
    from mindloop.models.fake_server import FakeChatServer

    with RunStore(store_dir / "runs.sqlite") as store, FakeChatServer(server) as srv:
        request = RunRequest(
            "cwah",
            agent=team,
            model=model,
            model_options=ModelOptions(base_url=srv.base_url, cache="off", backoff_s=0.01),
            n=n,
            options={"max_steps": str(steps)},
            concurrency=1,
            format_retries=1,
        )
        return run_benchmark(request, store=store, progress=False)


def test_over_http_a_malformed_reply_twice_is_a_counted_failure(tmp_path: Path) -> None:
    summary = _bench(tmp_path, "coela-llm", _Server(coela_plan="I would rather wait here."))
    assert summary.n_failed == 2 and summary.metrics["finished"] == 0.0
    assert summary.replies["rejected"] == 4 and summary.replies["retries"] == 2
    summary = _bench(tmp_path, "capo-llm", _Server(capo_draft="Meta-plan: split the work."))
    assert summary.n_failed == 2 and summary.replies["rejected"] == 4


def test_cobel_table_names_the_failed_episodes_it_counts_as_the_step_limit(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    from mindloop.cli import main

    monkeypatch.setenv("MINDLOOP_HOME", str(tmp_path))
    run_id = _bench(tmp_path, "coela-llm", _Server(coela_plan="I would rather wait here.")).run_id
    assert main(["cobel", "table", run_id]) == 0
    out = capsys.readouterr().out
    assert "Average                250" in out  # both episodes failed: each counts as the 250-step limit
    failed = next(line for line in out.splitlines() if line.startswith("failed episodes"))
    assert failed.startswith("failed episodes (coela-llm): 2 of 2, each counted as the step limit; the first: ")
    assert "ParseError" in failed


def test_cobel_table_lays_out_table_2_and_3_from_runs_of_one_model(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    import json

    from mindloop.cli import main

    monkeypatch.setenv("MINDLOOP_HOME", str(tmp_path))
    teams = ("cobel-llm", "cobel-llm-no-sbr", "cobel-llm-no-bbc", "coela-llm", "capo-llm")
    ids = [_bench(tmp_path, t, _Server(), n=1).run_id for t in teams]
    assert main(["cobel", "table", *ids]) == 0
    out = capsys.readouterr().out
    assert "every model-driven column from openai/fake" in out
    head = next(line for line in out.splitlines() if line.startswith("Task"))
    assert head.split()[1:] == list(teams)
    assert "Communication Cost in tokens (lower is better; the model's tokenizer (server usage))" in out
    for label in ("CoBel-World ", "CoBel-World (No SBR)", "CoBel-World (No BBC)"):
        assert label in out.split("Table 3")[1]
    # the runs were cut at 20 steps: the table says so under Table 2, naming every column it applies to
    deviation = next(line for line in out.splitlines() if line.startswith("deviation ("))
    assert deviation.startswith(f"deviation ({', '.join(teams)}): max_steps=20: ")
    assert "failed episodes" not in out
    assert main(["cobel", "table", *ids, "--json"]) == 0
    data = json.loads(capsys.readouterr().out)
    assert data["model"] == "openai/fake" and set(data["columns"]) == set(teams)
    assert set(data["tokenizers"]) == {MODEL_TOKENIZER}  # the fake server reports usage for every reply
    # a column from another model is refused: the comparison is like for like
    other = _bench(tmp_path, "coela-llm,capo-llm", _Server(), model="openai/other", n=1).run_id
    assert main(["cobel", "table", ids[0], other]) == 1
    assert "different models" in capsys.readouterr().err
