"""Failures that cannot look like results.

A set-up error (a missing dependency, an invalid option or argument, an unknown name) raised by a sample stops
the run on every executor and reaches the command line as exit 1 with one line: a new run it stops before any
sample finished is removed (there is nothing to resume), otherwise the sample stays pending for ``--resume``. A
model whose set-up is wrong (llama-cpp-python missing, no such GGUF file) is refused before a run is recorded. A
bug (an exception that is not a ``MindloopError``) is its own status, counted apart from model failures in the
store, the summary and the report, and makes ``mindloop bench run`` exit 2.
"""

from __future__ import annotations

import json
import re
import sys
from collections.abc import Awaitable, Callable, Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

import pytest

from mindloop.bench.api import AgentContext, Outcome, Sample
from mindloop.bench.options import validate_options
from mindloop.bench.registry import BENCHMARKS, get_benchmark
from mindloop.bench.report import render_report
from mindloop.bench.runner import RunRequest, RunSummary, run_benchmark
from mindloop.bench.store import RunStore, SampleResult
from mindloop.cli import main
from mindloop.errors import DependencyError, InvalidArgumentError, MindloopError, ModelError, UnknownNameError
from mindloop.paths import runs_path
from mindloop.systems.tom.benchmarks import ToMiBenchmark

Run = Callable[[ToMiBenchmark, Sample, AgentContext], Awaitable[Outcome]]
ORIGINAL: Run = ToMiBenchmark._symbolic

MISSING = "scoring needs the frobnicate package: pip install 'mindloop[frob]'"
REMOVED = "stopped before any sample finished, so the run was removed; once fixed, run the same command again"


def _raising(exc: Exception, ids: set[str] | None = None, calls: list[str] | None = None) -> Run:
    """ToMi's run, except that the samples in ``ids`` (all when ``None``) raise ``exc``."""

    async def run(self: ToMiBenchmark, sample: Sample, ctx: AgentContext) -> Outcome:
        if calls is not None:
            calls.append(sample.id)
        if ids is None or sample.id in ids:
            raise exc
        return await ORIGINAL(self, sample, ctx)

    return run


def _only_run(store: RunStore) -> Any:
    [run] = store.runs()
    return run


# -- set-up errors stop the run ---------------------------------------------------------------------------------


@pytest.mark.parametrize(
    "error",
    [
        DependencyError(MISSING),
        InvalidArgumentError("option judge must be BACKEND/NAME, got 'gpt'"),
        UnknownNameError("unknown backend 'opnai'; did you mean 'openai'?"),
    ],
    ids=["dependency", "invalid-argument", "unknown-name"],
)
def test_a_setup_error_at_a_new_runs_first_sample_stops_it_and_removes_it(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, error: MindloopError
) -> None:
    calls: list[str] = []
    monkeypatch.setattr(ToMiBenchmark, "_symbolic", _raising(error, calls=calls))
    with RunStore(tmp_path / "runs.sqlite") as store:
        with pytest.raises(type(error)) as caught:
            run_benchmark(RunRequest("tomi", n=6, concurrency=1), store=store, progress=False)
        assert calls == ["q00000"]  # the first sample raised, and no other started
        assert store.runs() == []  # nothing had finished: nothing to resume, so nothing is kept
    message = str(caught.value)
    assert type(caught.value) is type(error)
    assert re.fullmatch(
        re.escape(f"{error} (sample 'q00000' of run tomi-") + r"\d{8}-\d{6}-[0-9a-f]{4}" + re.escape(f": {REMOVED})"),
        message,
    )


def test_a_setup_error_after_a_sample_finished_keeps_the_run_for_resume(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    error = DependencyError(MISSING)
    monkeypatch.setattr(ToMiBenchmark, "_symbolic", _raising(error, ids={"q00001"}))
    with RunStore(tmp_path / "runs.sqlite") as store:
        with pytest.raises(DependencyError) as caught:
            run_benchmark(RunRequest("tomi", n=6, concurrency=1), store=store, progress=False)
        run = _only_run(store)  # q00000 finished before q00001 raised: the run is kept
        assert (run.n, run.n_completed, run.n_failed, run.n_bugs, run.finished) == (6, 1, 0, 0, None)
        assert [r.sample.id for r in store.records(run.run_id)] == ["q00000"]
        assert len(store.pending(run.run_id)) == 5
    message = str(caught.value)
    assert message.startswith(f"{error} (sample 'q00001' of run {run.run_id}: stopped with 5 of 6 samples pending")
    assert message.endswith(f"mindloop bench run tomi --resume {run.run_id})") and "\n" not in message


def test_a_setup_error_while_resuming_keeps_the_run_it_resumes(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    bench = get_benchmark("tomi")
    samples = bench.samples(3, 0, validate_options(bench, {}))
    monkeypatch.setattr(ToMiBenchmark, "_symbolic", _raising(DependencyError(MISSING)))
    with RunStore(tmp_path / "runs.sqlite") as store:
        # a run none of whose samples finished (stored by an older mindloop), resumed by name: it stays
        run_id = store.create_run(
            benchmark="tomi", agent="symbolic", model=None, config={"n": 3, "seed": 0}, samples=samples, version="0"
        )
        with pytest.raises(DependencyError, match=rf"stopped with 3 of 3 samples pending.*--resume {run_id}\)$"):
            run_benchmark(RunRequest("tomi"), store=store, resume=run_id, progress=False)
        assert [(r.run_id, r.n_completed) for r in store.runs()] == [(run_id, 0)]


def test_a_suite_run_a_setup_error_stops_at_once_is_removed_and_resume_starts_it_again(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    from mindloop.bench.suite import SuiteRequest, run_suite

    monkeypatch.setattr(ToMiBenchmark, "_symbolic", _raising(DependencyError(MISSING)))
    with RunStore(tmp_path / "runs.sqlite") as store:
        with pytest.raises(DependencyError, match=re.escape(REMOVED)):
            run_suite(SuiteRequest(only=("tomi",), max_n=3), store=store, progress=False)
        [suite] = store.suites()
        assert store.runs() == [] and store.suite_members(suite.suite_id) == []  # the suite stays, resumable
        monkeypatch.setattr(ToMiBenchmark, "_symbolic", ORIGINAL)  # fixed: the suite starts its run again
        result = run_suite(SuiteRequest(), store=store, resume=suite.suite_id, progress=False)
        [run] = store.runs()
        assert result.complete and store.suite_members(suite.suite_id) == [("tomi", None, run.run_id)]
        assert (run.n, run.n_completed) == (3, 3)


@pytest.mark.parametrize("executor", ["local", "process"])
def test_the_sample_that_met_a_setup_error_stays_pending_and_resume_runs_it(
    tmp_path: Path, faulty_benchmark: str, executor: str
) -> None:
    log, broken = tmp_path / "calls.log", tmp_path / "broken"
    broken.touch()  # the set-up is broken while this file exists
    opts = {"log": str(log), "fail_while": str(broken), "faults": "f00002:dependency"}
    with RunStore(tmp_path / "runs.sqlite") as store:
        with pytest.raises(DependencyError, match=re.escape(MISSING)):
            run_benchmark(
                RunRequest(faulty_benchmark, n=6, executor=executor, concurrency=1, options=opts),
                store=store,
                progress=False,
            )
        run = _only_run(store)
        pending = [s.id for _, s in store.pending(run.run_id)]
        assert "f00002" in pending and (run.n_failed, run.n_bugs) == (0, 0)
        assert all(r.status == "done" for r in store.records(run.run_id))  # only real answers were kept
        assert run.n_completed + len(pending) == 6

        broken.unlink()  # the set-up is fixed: resume runs exactly what was left, once each
        log.write_text("")
        resumed = run_benchmark(RunRequest(faulty_benchmark), store=store, resume=run.run_id, progress=False)
        calls = [line.split()[0] for line in log.read_text().splitlines() if line.endswith(" start")]
        assert sorted(calls) == pending
    assert (resumed.n_completed, resumed.n_failed, resumed.n_bugs) == (6, 0, 0)
    assert resumed.metrics["accuracy"] == 1.0


def test_a_setup_error_in_every_process_worker_leaves_no_run(tmp_path: Path, faulty_benchmark: str) -> None:
    options = {"faults": "*:dependency"}
    request = RunRequest(faulty_benchmark, n=8, executor="process", concurrency=2, options=options)
    with RunStore(tmp_path / "runs.sqlite") as store:
        with pytest.raises(DependencyError, match=r"stopped before any sample finished, so the run was removed"):
            run_benchmark(request, store=store, progress=False)
        assert store.runs() == []


def test_a_setup_error_in_a_process_worker_exits_1_with_one_line_and_leaves_no_run(
    faulty_benchmark: str, capsys: pytest.CaptureFixture[str]
) -> None:
    argv = ["bench", "run", faulty_benchmark, "--n", "4", "--executor", "process", "--concurrency", "2"]
    assert main([*argv, "--opt", "faults=*:dependency", "--json"]) == 1
    captured = capsys.readouterr()
    line = captured.err.strip().splitlines()[-1]
    assert json.loads(captured.out) == {"error": line.removeprefix("mindloop: error: ")}  # --json: one object
    assert re.fullmatch(
        re.escape(f"mindloop: error: {MISSING} (sample ")
        + r"'f0000[0-3]'"
        + re.escape(f" of run {faulty_benchmark}-")
        + r"\S+: "
        + re.escape(f"{REMOVED})"),
        line,
    )
    assert _runs(capsys) == []


@pytest.fixture
def parent_only_benchmark(monkeypatch: pytest.MonkeyPatch) -> Iterator[str]:
    """A benchmark registered in this process only: a Ray worker (a fresh process) does not know its name, as a
    cluster node without the plug-in would not."""
    BENCHMARKS.names()  # read the entry points before the registry's tables are swapped for copies
    monkeypatch.setattr(BENCHMARKS, "_entries", dict(BENCHMARKS._entries))
    monkeypatch.setattr(BENCHMARKS, "_loaded", dict(BENCHMARKS._loaded))
    BENCHMARKS.register("tomi-here-only", ToMiBenchmark, description="registered by a test, in its process only")
    yield "tomi-here-only"


@pytest.mark.boundary  # a local Ray: its workers are processes
@pytest.mark.slow
@pytest.mark.scale
def test_a_setup_error_on_a_ray_worker_leaves_no_run(tmp_path: Path, parent_only_benchmark: str) -> None:
    with RunStore(tmp_path / "runs.sqlite") as store:
        with pytest.raises(UnknownNameError, match=r"unknown benchmark 'tomi-here-only'.*so the run was removed"):
            run_benchmark(
                RunRequest(parent_only_benchmark, n=5, executor="ray", concurrency=2), store=store, progress=False
            )
        assert store.runs() == []  # no sample finished anywhere: nothing to resume


# -- the command line: exit 1 and one line for a set-up error ----------------------------------------------------


@contextmanager
def _without_rouge() -> Iterator[None]:
    """An install without rouge-score: importing it fails, as it would if the package were missing."""
    with pytest.MonkeyPatch.context() as mp:
        mp.setitem(sys.modules, "rouge_score", None)
        mp.setitem(sys.modules, "rouge_score.rouge_scorer", None)
        yield


def _runs(capsys: pytest.CaptureFixture[str]) -> list[dict[str, Any]]:
    assert main(["runs", "--json"]) == 0
    runs: list[dict[str, Any]] = json.loads(capsys.readouterr().out)["runs"]
    return runs


def test_mindpower_without_its_metrics_exits_1_instead_of_scoring_the_oracle_0(
    capsys: pytest.CaptureFixture[str],
) -> None:
    argv = ["bench", "run", "mindpower", "--agent", "symbolic", "--n", "3", "--opt", "similarity=off"]
    with _without_rouge():
        assert main([*argv, "--json"]) == 1
    captured = capsys.readouterr()
    # the run was recorded and started: it says so, then why not, and that nothing was kept
    preparing, running, line = captured.err.strip().splitlines()
    assert json.loads(captured.out) == {"error": line.removeprefix("mindloop: error: ")}  # --json: one object
    assert preparing == "mindpower: preparing up to 3 samples (seed 0)"
    assert running.startswith("mindpower-") and ": running 3 of 3 samples with symbolic" in running
    assert line.startswith("mindloop: error: SR and AC need the rouge-score package") and "pip install" in line
    assert line.endswith(f"{REMOVED})")
    assert _runs(capsys) == []

    # rouge-score is back: the same command runs, and the oracle scores 100
    assert main([*argv, "--json"]) == 0
    summary = json.loads(capsys.readouterr().out)
    assert (summary["n_completed"], summary["n_failed"], summary["n_bugs"]) == (3, 0, 0)
    assert (summary["metrics"]["sr"], summary["metrics"]["ac"]) == (100.0, 100.0)
    assert [run["run_id"] for run in _runs(capsys)] == [summary["run_id"]]


def test_a_llamacpp_model_without_its_package_or_file_is_refused_before_a_run_is_recorded(
    monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    monkeypatch.setitem(sys.modules, "llama_cpp", None)  # llama-cpp-python not installed, whatever this install has
    for _ in range(2):  # a retry adds nothing either
        assert main(["bench", "run", "hitom", "--model", "llamacpp/none.gguf"]) == 1
        [line] = capsys.readouterr().err.strip().splitlines()  # one line: no run was prepared or started
        head = "mindloop: error: the llamacpp backend needs llama-cpp-python: pip install 'mindloop[llm]'"
        file = f"llamacpp model file 'none.gguf' does not exist (resolved to {Path.cwd() / 'none.gguf'})"
        assert line.startswith(head) and line.endswith(f"; and {file}")
    assert _runs(capsys) == []


def test_mindpower_similarity_on_without_the_extra_fails_before_a_run_is_recorded(
    monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    from mindloop.systems.mindpower import benchmarks

    monkeypatch.setattr(benchmarks, "encoder_available", lambda: False)
    argv = ["bench", "run", "mindpower", "--n", "2", "--opt", "similarity=on"]
    assert main(argv) == 1
    preparing, line = capsys.readouterr().err.strip().splitlines()  # found as the samples were being made
    assert preparing == "mindpower: preparing up to 2 samples (seed 0)"
    assert line.startswith("mindloop: error: similarity=on needs") and "pip install 'mindloop[metrics]'" in line
    assert _runs(capsys) == []


# -- bugs are counted apart ---------------------------------------------------------------------------------------


@pytest.mark.parametrize("executor", ["local", "process"])
def test_a_bug_is_counted_apart_from_a_model_failure_and_exits_2(
    faulty_benchmark: str, capsys: pytest.CaptureFixture[str], executor: str
) -> None:
    bug, failure = "f00001", "f00003"  # a defect in the benchmark (KeyError), and a model's failure
    argv = ["bench", "run", faulty_benchmark, "--n", "5", "--opt", f"faults={bug}:bug,{failure}:model"]
    assert main([*argv, "--executor", executor, "--json"]) == 2
    captured = capsys.readouterr()
    summary = json.loads(captured.out)
    assert (summary["n_completed"], summary["n_failed"], summary["n_bugs"]) == (5, 1, 1)
    assert summary["metrics"]["accuracy"] == pytest.approx(3 / 5)  # the bug scores as a failure, never a success
    assert list(summary)[:8] == ["run_id", "benchmark", "agent", "model", "n", "n_completed", "n_failed", "n_bugs"]
    assert "1 sample(s) of run" in captured.err and "internal error" in captured.err

    with RunStore(runs_path()) as store:
        records = {r.sample.id: r for r in store.records(summary["run_id"])}
        info = store.run(summary["run_id"])
    assert records[bug].status == "bug" and records[failure].status == "failed"
    assert records[bug].error is not None and records[bug].error.startswith("internal error: KeyError: 'answer'\n")
    assert "in _answer" in records[bug].error  # the traceback names the function that raised
    assert records[failure].error == "ModelError: openai/m: connection refused (after 3 attempts)"
    assert (info.n_done, info.n_failed, info.n_bugs, info.n_completed) == (3, 1, 1, 5)
    assert info.to_dict()["n_bugs"] == 1


def test_model_failures_alone_exit_0_and_the_human_summary_counts_bugs(
    monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    monkeypatch.setattr(ToMiBenchmark, "_symbolic", _raising(ModelError("HTTP 500"), ids={"q00000", "q00002"}))
    assert main(["bench", "run", "tomi", "--n", "4"]) == 0
    out = capsys.readouterr().out  # the summary, with its counts, is on stdout
    assert "4/4 samples, 2 failed (2 model/transport, 0 unanswered or unparsed)" in out and "bug" not in out

    monkeypatch.setattr(ToMiBenchmark, "_symbolic", _raising(ZeroDivisionError("division by zero"), ids={"q00000"}))
    assert main(["bench", "run", "tomi", "--n", "4"]) == 2
    captured = capsys.readouterr()
    assert "4/4 samples, 0 failed (scored as wrong), 1 hit a bug," in captured.out
    assert "mindloop: internal error: 1 sample(s) of run" in captured.err


def test_summary_json_keeps_every_old_key() -> None:
    summary = RunSummary("r", "tomi", "symbolic", None, 3, 3, 1, {"accuracy": 0.5}, 1.23456, {"calls": 0}, n_bugs=1)
    out = summary.to_json()
    assert out["n_bugs"] == 1 and out["seconds"] == 1.235 and out["interrupted"] is False
    assert set(out) == {"run_id", "benchmark", "agent", "model", "n", "n_completed", "n_failed", "n_bugs"} | {
        "metrics",
        "seconds",
        "tokens",
        "interrupted",
        "n_model_failures",  # added with the circuit breaker: model/transport failures apart from unparsed answers
        "stopped",
        "replies",  # added with format retries: how the agent's replies fared (parsed, rejected, retried)
        "intervals",  # added with confidence intervals: 95% bootstrap intervals of the metrics
        "protocol",  # added with issue 22: the format retries that produced the run
        "references",  # added with declarations: the reference policies (chance, oracle) on the same samples
        "reference_policies",  # added with issue 22: what each reference policy is (kind, optimistic, ...)
        "summary_source",  # added with stored summaries: computed by the run or later, and by which version
        "key",  # added with issue 37: the run's comparability key
        "tags",  # added with issue 37: the run's tags
    }


# -- the store: a status of its own, old stores still readable ---------------------------------------------------


def _samples(k: int) -> list[Sample]:
    return [Sample(f"s{i}", {"question": f"q{i}?", "answer": "box"}, "g") for i in range(k)]


def test_an_old_store_reads_its_internal_errors_as_bugs(tmp_path: Path) -> None:
    with RunStore(tmp_path / "runs.sqlite") as store:
        run_id = store.create_run(
            benchmark="toy", agent="a", model=None, config={}, samples=_samples(3), version="0.0.9"
        )
        # what the runner wrote before the bug status existed: a bug was a failed sample with this prefix
        store.finish(
            run_id,
            [
                SampleResult(0, "failed", {}, {}, "internal error: KeyError: 'x'", [], 0.1),
                SampleResult(1, "failed", {}, {}, "ModelError: HTTP 500", [], 0.1),
                SampleResult(2, "done", {"answer": "box"}, {"correct": 1.0}, None, [], 0.1),
            ],
        )
        info = store.run(run_id)
        assert (info.n_done, info.n_failed, info.n_bugs, info.n_completed) == (1, 1, 1, 3)
        assert [r.status for r in store.records(run_id)] == ["bug", "failed", "done"]


def test_the_store_refuses_an_unknown_status(tmp_path: Path) -> None:
    with RunStore(tmp_path / "runs.sqlite") as store:
        run_id = store.create_run(benchmark="toy", agent="a", model=None, config={}, samples=_samples(1), version="t")
        with pytest.raises(InvalidArgumentError, match="'crashed'"):
            store.finish(run_id, [SampleResult(0, "crashed", {}, {}, "x", [], 0.0)])
        assert len(store.pending(run_id)) == 1


# -- the report ----------------------------------------------------------------------------------------------------

HOSTILE = "<script>alert('x')</script><img src=x onerror=alert(1)>"


def _mixed_run(store: RunStore, benchmark: str = "tomi") -> str:
    run_id = store.create_run(
        benchmark=benchmark,
        agent="model",
        model="scripted/test",
        config={"options": {"note": HOSTILE}},
        samples=_samples(5),
        version="t",
    )
    store.finish(
        run_id,
        [
            SampleResult(0, "done", {"answer": "box"}, {"correct": 1.0, "parsed": 1.0}, None, [], 0.1),
            SampleResult(1, "failed", {"answer": None}, {"correct": 0.0}, "unparseable answer: 'x'", [], 0.1),
            SampleResult(2, "bug", {}, {}, "internal error: KeyError: 'answer'\n  File \"x.py\", line 1", [], 0.1),
            SampleResult(3, "bug", {}, {}, f"internal error: ValueError: {HOSTILE}", [], 0.1),
        ],
    )
    return run_id


def test_the_report_shows_the_bug_count_apart_from_failures(tmp_path: Path) -> None:
    with RunStore(tmp_path / "runs.sqlite") as store:
        page = render_report(_mixed_run(store), store)
    assert '<div class="card bad"><div class="v">2</div><div class="l">bugs</div></div>' in page
    assert '<div class="card bad"><div class="v">1</div><div class="l">failed</div></div>' in page
    assert "5 (1 done, 1 failed, 2 bugs, 1 pending)" in page
    bugs = re.search(r'<section id="bugs"><h2>Bugs <span class="count">2</span></h2>(.*?)</section>', page, re.S)
    failures = re.search(r'<section id="failures"><h2>Failures <span class="count">1</span></h2>(.*?)</section>', page)
    assert bugs is not None and failures is not None
    assert bugs.group(1).count('data-status="bug"') == 2 and "internal error: KeyError: …" in bugs.group(1)
    assert "unparseable answer" in failures.group(1) and "internal error" not in failures.group(1)
    assert '<a href="#bugs">Bugs</a>' in page


def test_a_report_without_bugs_has_no_bug_section(tmp_path: Path) -> None:
    with RunStore(tmp_path / "runs.sqlite") as store:
        run_id = store.create_run(benchmark="tomi", agent="a", model=None, config={}, samples=_samples(1), version="t")
        store.finish(run_id, [SampleResult(0, "done", {"answer": "box"}, {"correct": 1.0}, None, [], 0.1)])
        page = render_report(run_id, store)
    assert 'id="bugs"' not in page and "bugs</div>" not in page and "1 (1 done, 0 failed, 0 pending)" in page


def test_the_jinja_report_escapes_hostile_text_everywhere(tmp_path: Path) -> None:
    from mindloop.bench.report import view

    assert view._environment().autoescape is True
    with RunStore(tmp_path / "runs.sqlite") as store:
        run_id = _mixed_run(store, benchmark=f"gone-{HOSTILE}")  # unregistered: score names become metric rows
        store.finish(run_id, [SampleResult(4, "done", {}, {HOSTILE: 0.5}, None, [], 0.1)])
        page = render_report(run_id, store)
    assert page.count("<script") == 2 and page.count("</script>") == 2  # the data blob and the page's script
    assert "<img src=x" not in page and "alert('x')</script>" not in page
    escaped = "&lt;script&gt;alert(&#39;x&#39;)&lt;/script&gt;&lt;img src=x onerror=alert(1)&gt;"
    assert page.count(escaped) >= 5  # title, heading, config, summary metric, bug kind
    assert re.search(r"<title>gone-&lt;script&gt;", page)
