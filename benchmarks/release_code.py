"""Run the releases' own code on mindloop's items and replies, so the figures docs/datasets.md quotes are the
releases' own, not mindloop's copy of them.

The releases' scripts call hosted models (OpenAI, a grader model) and import their client libraries; here those
imports are stubbed and the model call answers with a reply already collected, so what runs is the release's own
item builder, prompt assembly, answer reading and counting. Used by ``bench_releases.py --release-code DIR``, where
``DIR`` holds checkouts (or ``git archive`` extracts) of ``MMToM-QA/`` (chuanyangjin/MMToM-QA, ``BIP-ALM/``) and
``procedural-evals-tom/`` (cicl-stanford/procedural-evals-tom, ``code/``). Nothing here is part of mindloop.
"""

from __future__ import annotations

import contextlib
import csv
import io
import json
import os
import re
import runpy
import shutil
import sys
import tempfile
import types
from collections import defaultdict, deque
from collections.abc import Callable, Iterator, Mapping, Sequence
from pathlib import Path
from typing import Any


class _Anything:
    """Stands in for any name a stubbed library exports: callable, subscriptable, with any attribute."""

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        self.args, self.kwargs = args, kwargs

    def __call__(self, *args: Any, **kwargs: Any) -> _Anything:
        return _Anything(*args, **kwargs)

    def __getattr__(self, name: str) -> _Anything:
        return _Anything()


def _stub(name: str, **names: Any) -> types.ModuleType:
    module = types.ModuleType(name)
    module.__path__ = []  # a package, so "from x.y import z" finds x.y
    module.__getattr__ = lambda attr: names.get(attr, _Anything)  # type: ignore[method-assign]
    return module


@contextlib.contextmanager
def stubbed(modules: Mapping[str, types.ModuleType], cwd: Path, argv: Sequence[str]) -> Iterator[io.StringIO]:
    """``modules`` installed in ``sys.modules``, the working directory and ``sys.argv`` set, stdout captured; all
    put back after."""
    saved = {k: sys.modules.get(k) for k in modules}
    old_cwd, old_argv, old_path, out = Path.cwd(), sys.argv, list(sys.path), io.StringIO()
    for entry in [k for k in sys.path_importer_cache if not Path(k).is_absolute()]:  # relative entries ('./evaluate/')
        del sys.path_importer_cache[entry]  # were cached for an earlier working directory
    sys.modules.update(modules)
    os.chdir(cwd)
    sys.argv = list(argv)
    try:
        with contextlib.redirect_stdout(out):
            yield out
    finally:
        os.chdir(old_cwd)
        sys.argv = old_argv
        sys.path[:] = old_path
        for k, v in saved.items():
            if v is None:
                sys.modules.pop(k, None)
            else:
                sys.modules[k] = v


# -- MMToM-QA: BIP-ALM/testing_gpt.py ---------------------------------------------------------------------------


def mmtom_release_counts(code: Path, items: Sequence[Mapping[str, Any]], replies: Sequence[str]) -> dict[str, Any]:
    """Run the release's ``testing_gpt.py`` (``--gpt_choice gpt-3.5``: its completion branch; the gpt-4 branch
    reads ``args.two_shot``, which its parser never defines) over ``items`` (``questions.json`` objects) with the
    model call answering ``replies[i]`` for item ``i``. Returns its printed counts per question type
    (``{"1.1": (correct, all)}``) and its per-item 0/1 list, or ``{"error": ...}`` when the script fails (an empty
    reply: its ``.lower()[0]`` raises)."""
    by_prompt: dict[str, deque[str]] = defaultdict(deque)
    for item, reply in zip(items, replies, strict=True):
        by_prompt[item["question"] + "\nAnswer: "].append(reply)

    def create(model: str, prompt: str, max_tokens: int, temperature: float) -> dict[str, Any]:
        return {"choices": [{"text": by_prompt[prompt].popleft()}]}

    openai = _stub("openai", Completion=types.SimpleNamespace(create=create), OpenAI=_Anything)
    pil = _stub("PIL", Image=_Anything())
    with tempfile.TemporaryDirectory() as tmp:
        bench = Path(tmp) / "questions.json"
        bench.write_text("".join(json.dumps(dict(i)) + "\n" for i in items), encoding="utf-8")
        argv = ["testing_gpt.py", "--benchmark_path", str(bench), "--gpt_choice", "gpt-3.5"]
        try:
            with stubbed({"openai": openai, "PIL": pil, "PIL.Image": pil}, Path(tmp), argv) as out:
                runpy.run_path(str(code / "BIP-ALM" / "testing_gpt.py"), run_name="__main__")
        except Exception as exc:  # the release's own failure, reported as such
            return {"error": f"{type(exc).__name__}: {exc}"}
    text = out.getvalue()
    counts = {
        t: (int(c), int(n))
        for t, c, n in re.findall(r"\['init_graph', 'actions'\] \+ type ([\d.]+): (\d+) out of (\d+) questions", text)
        if int(n)
    }
    per_item = json.loads(text.strip().splitlines()[-1])
    return {"by_type": counts, "per_item": per_item}


# -- BigToM: code/src/generate_conditions.py and evaluate_conditions.py ---------------------------------------


def _bigtom_tree(code: Path, csv_path: Path, tmp: Path) -> Path:
    """A copy of the release's layout: ``code/`` and ``data/bigtom/bigtom.csv``; returns ``code/src``."""
    shutil.copytree(code / "code", tmp / "code")
    (tmp / "data" / "bigtom").mkdir(parents=True)
    shutil.copy(csv_path, tmp / "data" / "bigtom" / "bigtom.csv")
    return tmp / "code" / "src"


def bigtom_release_files(code: Path, csv_path: Path) -> dict[str, list[list[str]]]:
    """The condition files the release's ``generate_conditions.py`` writes from ``csv_path``: file name (``0_forward_
    belief_false_belief``) to its rows ``[story, question, gold, wrong]``."""
    with tempfile.TemporaryDirectory() as tmp:
        src = _bigtom_tree(code, csv_path, Path(tmp))
        with stubbed({}, src, ["generate_conditions.py"]):
            runpy.run_path(str(src / "generate_conditions.py"), run_name="__main__")
        out = {}
        for d in sorted((Path(tmp) / "data" / "conditions").iterdir()):
            with (d / "stories.csv").open(newline="") as f:
                out[d.name] = list(csv.reader(f, delimiter=";"))
        return out


def bigtom_release_grades(
    code: Path, csv_path: Path, file: str, replies: Sequence[str], grader: Callable[[str], str] = lambda _: "UNGRADED"
) -> dict[str, Any]:
    """Run the release's ``evaluate_conditions.evaluate_condition`` (``chat-0shot``, ``--mcq``) on the first
    ``len(replies)`` lines of condition ``file``, the model answering ``replies`` in order; a reply naming neither
    key goes to ``grader`` (the release asks text-davinci-003; here it answers ``UNGRADED``). Returns the prompts it
    built (``questions``: the MCQ text with its option order) and its grades (``True``/``False``/grader's)."""
    init, rest = file.split("_", 1)
    variable = next(
        v for v in ("forward_belief", "forward_action", "backward_belief", "percept_to_belief") if rest.startswith(v)
    )
    condition = rest[len(variable) + 1 :]
    asked: list[str] = []
    answers = iter(replies)

    class Model:
        def __init__(self, llm: Any, method: str = "0shot") -> None:
            self.method = method

        def predict_answer(self, story: str, question: str) -> str:
            asked.append(question)
            return next(answers)

        def grade_answer(self, *args: Any) -> str:
            return grader(str(args[1]))

    stubs = {name: _stub(name) for name in ("crfm_llm", "langchain", "langchain.chat_models", "langchain.llms", "tqdm")}
    stubs["tqdm"] = _stub("tqdm", tqdm=lambda xs: xs)
    stubs["evaluate_llm"] = _stub("evaluate_llm", EvaluateLLM=Model, parse_chat_response=lambda r: r)
    with tempfile.TemporaryDirectory() as tmp:
        src = _bigtom_tree(code, csv_path, Path(tmp))
        with stubbed({}, src, ["generate_conditions.py"]):
            runpy.run_path(str(src / "generate_conditions.py"), run_name="__main__")
        sys.path.insert(0, str(src))
        try:
            with stubbed(stubs, src, ["evaluate_conditions.py"]):
                module = runpy.run_path(str(src / "evaluate_conditions.py"), run_name="release_bigtom")
                module["evaluate_condition"](
                    "openai/text-davinci-003",
                    "openai/stub",
                    0.0,
                    "chat-0shot",
                    init,
                    variable,
                    condition,
                    len(replies),
                    20,
                    False,
                    True,
                    0,
                )
        finally:
            sys.path.remove(str(src))
        results = Path(tmp) / "data" / "results" / file
        grades_file = next(results.glob("accuracy_*.csv"))
        with grades_file.open(newline="") as f:
            grades = [row[0] if row else "" for row in csv.reader(f, delimiter=";")]
    return {"questions": asked, "grades": grades}


# -- OpenToM: src/evaluate.py and src/evaluate/opentom_evaluator.py -------------------------------------------

_OPENTOM_TYPE = {
    "location_cg_fo": "location-fo",
    "location_cg_so": "location-so",
    "location_fg_fo": "location-fo",
    "location_fg_so": "location-so",
    "multihop_fo": "multihop-fo",
    "multihop_so": "multihop-so",
    "attitude": "attitude",
}


def opentom_release_eval(code: Path, meta_data: Path, entries: Sequence[Mapping[str, Any]]) -> dict[str, Any]:
    """Run the release's ``evaluate.py`` on predictions: ``entries`` are ``{batch, story_id, qid, file, question,
    answer, prediction}``. Its evaluator reads the location questions of one granularity per run, so it runs
    twice: ``coarse`` (the coarse location files, multihop and attitude) and ``fine`` (the fine location files).
    Returns each run's printed text and its evaluator's labels per type and batch (``(kind, gold, pred)``,
    ``pred`` -1 for a reply it cannot read, ``gold`` ``None`` for a gold it cannot label). Fewer than its 5
    batches: the last is repeated (its script divides by each batch's size), so the means are those of the
    batches given."""
    out: dict[str, Any] = {"text": {}, "labels": []}
    with tempfile.TemporaryDirectory() as tmp:
        root = Path(tmp)
        shutil.copytree(code / "src", root / "src")
        (root / "data" / "opentom_data").mkdir(parents=True)
        shutil.copy(meta_data, root / "data" / "opentom_data" / "meta_data.json")
        stubs = {"torch": _stub("torch")}
        import numpy

        # evaluate.py imports numpy.lib.average (unused), which NumPy 2 removed: the one shim besides the stubs
        numpy.lib.average = numpy.average  # type: ignore[attr-defined]
        for granularity in ("coarse", "fine"):
            fine = granularity == "fine"
            result: dict[str, dict[str, dict[str, Any]]] = {}
            for e in entries:
                if e["file"].startswith("location_") and ("_fg_" in e["file"]) != fine:
                    continue
                if fine and not e["file"].startswith("location_"):
                    continue
                result.setdefault(f"batch-{e['batch']}", {}).setdefault(e["story_id"], {})[e["qid"]] = {
                    "type": _OPENTOM_TYPE[e["file"].removesuffix("_new")],
                    "question": e["question"],
                    "answer": e["answer"],
                    "prediction": e["prediction"],
                }
            # its evaluate.py divides by every one of its 5 batches' sizes: a run of fewer batches is given to it with
            # the last batch repeated, which leaves the printed means the same and their SD over copies 0
            for k in range(len(result) + 1, 6):
                result[f"batch-{k}"] = result[f"batch-{len(result)}"] if k > 1 else {}
            path = root / f"result_{granularity}.json"
            path.write_text(json.dumps(result), encoding="utf-8")
            sys.path.insert(0, str(root / "src"))
            try:
                with stubbed(stubs, root / "src", ["evaluate.py", "--result_path", str(path), "-lg", granularity]) as o:
                    runpy.run_path(str(root / "src" / "evaluate.py"), run_name="__main__")
                    evaluator = sys.modules["opentom_evaluator"].OpenToMEvaluator()
                    labels = evaluator.evaluate(str(path), granularity, "all")
            finally:
                sys.path.remove(str(root / "src"))
                for name in [
                    m for m in sys.modules if m in ("opentom_evaluator", "utils", "utils.utils", "utils.opentom_utils")
                ]:
                    sys.modules.pop(name, None)
            out["text"][granularity] = o.getvalue()
            out["labels"].append(labels)
    return out
