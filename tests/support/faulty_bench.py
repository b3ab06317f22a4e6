"""``faulty``: a benchmark whose samples fail, hang or find no server on request, in any process.

A test that stops runs on the ``process`` executor cannot monkeypatch a benchmark: the pool's workers start from a
fork server and import what they run afresh. So the faults are the benchmark's options (they travel with every
job), and what a sample did is appended to files a test reads after the run (every process appends to them):

- ``log``: a line ``ID PID TIME EVENT`` when a sample starts (``start``), raises (``raise``) or reports a request
  that found no server (``fail``), ``TIME`` from :func:`time.time`;
- ``faults``: ``ID:KIND`` pairs (``f00001:bug,f00003:model``; ``*`` for every sample): that sample raises the
  error of that kind (:data:`ERRORS`), while the file ``fail_while`` exists if one is named; the kind ``die`` kills
  the sample's process with SIGKILL, ``die-once`` does so only the first time (it leaves a file beside ``log``);
- ``sleep_s``: each sample sleeps first (blocking, as CPU-bound work does), so samples are in flight when a run
  stops; ``hang_ids`` never finish;
- ``no_server_from``: samples from this index on report a request that found no server to the run's circuit
  breaker (as a model client does), the others one answered.

The test fixture ``faulty_benchmark`` (``tests/conftest.py``) registers it for the test's process and its workers.
"""

from __future__ import annotations

import os
import signal
import time
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from mindloop.bench.api import AgentContext, AgentSpec, Options, Outcome, Sample, SampleRecord
from mindloop.bench.declaration import BenchmarkSpec, Headline, Metric
from mindloop.errors import DependencyError, InvalidArgumentError, ModelError, UnknownNameError
from mindloop.models import outages

ERRORS = {
    "dependency": lambda: DependencyError("scoring needs the frobnicate package: pip install 'mindloop[frob]'"),
    "invalid-argument": lambda: InvalidArgumentError("option judge must be BACKEND/NAME, got 'gpt'"),
    "unknown-name": lambda: UnknownNameError("unknown backend 'opnai'; did you mean 'openai'?"),
    "model": lambda: ModelError("connection refused", model="openai/m", attempts=3),
    "bug": lambda: KeyError("answer"),
}


class FaultyOptions(Options):
    log: str = ""
    faults: str = ""
    fail_while: str = ""
    sleep_s: float = 0.0
    hang_ids: str = ""
    no_server_from: int = -1


class FaultyBenchmark:
    """Samples that answer right unless told to fail (see the module's docstring)."""

    name = "faulty"
    description = "a test benchmark whose samples fail, hang or find no server on request"
    options_model = FaultyOptions
    spec = BenchmarkSpec(headline=Headline("accuracy"), metrics=(Metric("accuracy", "correct"),))

    def __init__(self) -> None:
        self.agents = {
            "symbolic": AgentSpec("answers right unless told otherwise", self._answer),
            "model": AgentSpec("the same, with a model to watch its requests", self._answer, needs_model=True),
        }

    def samples(self, n: int | None, seed: int, options: FaultyOptions) -> list[Sample]:
        return [Sample(f"f{i:05d}", {"i": i, "options": options.model_dump()}) for i in range(10 if n is None else n)]

    async def _answer(self, sample: Sample, ctx: AgentContext) -> Outcome:
        options = FaultyOptions(**sample.input["options"])
        _log(options, sample, "start")
        time.sleep(options.sleep_s)
        if sample.id in options.hang_ids.split(","):
            time.sleep(3600)
        faults = dict(pair.split(":") for pair in options.faults.split(",") if pair)
        kind = faults.get(sample.id, faults.get("*"))
        if kind is not None and (not options.fail_while or Path(options.fail_while).exists()):
            if kind == "die" or (kind == "die-once" and _first(Path(f"{options.log}.{sample.id}.died"))):
                os.kill(os.getpid(), signal.SIGKILL)
            if kind in ERRORS:
                _log(options, sample, "raise")
                raise ERRORS[kind]()
        if options.no_server_from >= 0:
            if sample.input["i"] >= options.no_server_from:
                _log(options, sample, "fail")
                outages.report_failure("connection refused")
                return Outcome({}, error="ModelError: connection refused")
            outages.report_answer()
        return Outcome({"answer": "right"}, {"correct": 1.0})

    def summarize(self, records: Sequence[SampleRecord]) -> dict[str, Any]:
        return {}


def _log(options: FaultyOptions, sample: Sample, event: str) -> None:
    if options.log:
        with Path(options.log).open("a") as log:
            log.write(f"{sample.id} {os.getpid()} {time.time():.6f} {event}\n")


def _first(marker: Path) -> bool:
    """Whether this is the first time ``marker`` is asked for (it exists after)."""
    try:
        marker.touch(exist_ok=False)
    except FileExistsError:
        return False
    return True
