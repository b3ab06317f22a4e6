"""Issue 24, the model side: what a server sends can neither mix up runs, crash a run nor take its memory.

Every case runs the real command line against fake OpenAI-compatible servers on 127.0.0.1
(:class:`~mindloop.models.fake_server.FakeChatServer`), with a private ``MINDLOOP_HOME``: in the test's process (the
``cli`` fixture), except the endless reply, whose memory limit is set for a subprocess alone:

1. the response cache keys replies by the resolved endpoint, so two servers under one model name never share them;
2. a reply holding a lone surrogate is stored (replaced, and the call says so), never a ``bug``;
3. a reply body that never ends is cut off at ``max_reply_bytes`` and fails the call, within a memory limit;
8. malformed or impossible ``usage`` fails the call naming the field (no retry, no outage); ``finish_reason`` is kept
   per call and replies cut at the token limit are counted;
9. server error text is printed without terminal control sequences.
"""

from __future__ import annotations

import asyncio
import json
import math
import os
import resource
import sqlite3
import subprocess
import sys
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
from cli_run import Cli, CliRun

from mindloop.errors import MindloopError, ModelError, ModelResponseError
from mindloop.models.base import Completion, GenerationConfig, ModelOptions, message
from mindloop.models.cache import CachedChatModel, ResponseCache, cache_key
from mindloop.models.fake_server import FakeChatServer
from mindloop.models.openai_compat import OpenAIChatModel

MODEL = ("--agent", "model", "--model", "openai/default", "--format-retries", "0")
RUN = ("bench", "run", "tomi", *MODEL)
"""The ToMi model agent against ``openai/default``: the name a server with no alias answers to."""


@pytest.fixture
def mindloop(cli: Cli, monkeypatch: pytest.MonkeyPatch) -> Callable[..., CliRun]:
    """``mindloop(home, *args, env=None)``: the command line in this process with ``home`` as MINDLOOP_HOME, no
    OpenAI variables from the caller's shell, and ``env`` set for that command alone."""
    monkeypatch.delenv("OPENAI_BASE_URL", raising=False)
    monkeypatch.delenv("OPENAI_API_KEY", raising=False)

    def mindloop(home: Path, *args: str, env: dict[str, str] | None = None) -> CliRun:
        with monkeypatch.context() as scoped:
            for name, value in (env or {}).items():
                scoped.setenv(name, value)
            return cli(*args, home=home)

    return mindloop


def cli_process(home: Path, *args: str, preexec: Callable[[], None]) -> subprocess.CompletedProcess[str]:
    """The command line in a subprocess that runs ``preexec`` first (a resource limit for it alone)."""
    full = {k: v for k, v in os.environ.items() if k not in ("OPENAI_BASE_URL", "OPENAI_API_KEY")}
    full.update(MINDLOOP_HOME=str(home), COLUMNS="200")
    code = "import sys\nfrom mindloop.cli import main\nsys.exit(main(sys.argv[1:]))\n"
    return subprocess.run(
        [sys.executable, "-c", code, *args],
        env=full,
        capture_output=True,
        text=True,
        timeout=300,
        check=False,
        preexec_fn=preexec,
    )


def samples(home: Path) -> list[dict[str, Any]]:
    """Every stored sample of every run: status, error and calls."""
    with sqlite3.connect(home / "runs.sqlite") as conn:
        rows = conn.execute("SELECT status, error, calls FROM samples ORDER BY rowid").fetchall()
    return [{"status": s, "error": e, "calls": json.loads(c or "[]")} for s, e, c in rows]


def body(content: Any, *, usage: Any = None, finish: Any = "stop") -> bytes:
    data: dict[str, Any] = {
        "id": "x",
        "object": "chat.completion",
        "choices": [{"index": 0, "message": {"role": "assistant", "content": content}, "finish_reason": finish}],
    }
    if usage is not None:
        data["usage"] = usage
    return json.dumps(data).encode()


# -- 1. the cache cannot mix servers -------------------------------------------------------------------------------


def test_two_servers_under_one_model_name_never_share_cached_replies(
    mindloop: Callable[..., CliRun], tmp_path: Path
) -> None:
    with (
        FakeChatServer(reply=lambda m, b: "A: the kitchen") as a,
        FakeChatServer(reply=lambda m, b: "B: the garden") as b,
    ):
        runs = {}
        for name, url in (("a", a.base_url), ("b", b.base_url), ("a-again", a.base_url + "/")):
            done = mindloop(tmp_path, *RUN, "--n", "3", "--cache", "on", "--base-url", url, "--json")
            assert done.code == 0, done.stderr
            runs[name] = json.loads(done.out)
        # the same run through OPENAI_BASE_URL instead of --base-url is the same endpoint: served from the cache
        done = mindloop(
            tmp_path, *RUN, "--n", "3", "--cache", "on", "--json",
            env={"OPENAI_BASE_URL": b.base_url},
        )  # fmt: skip
        assert done.code == 0, done.stderr
        runs["b-env"] = json.loads(done.out)
        assert (a.requests, b.requests) == (3, 3)  # B was asked itself; the later runs were all cache hits
    hits = {name: run["tokens"]["cache_hits"] for name, run in runs.items()}
    assert hits == {"a": 0, "b": 0, "a-again": 3, "b-env": 3}
    texts = [c["text"] for s in samples(tmp_path) for c in s["calls"]]
    assert texts == ["A: the kitchen"] * 3 + ["B: the garden"] * 3 + ["A: the kitchen"] * 3 + ["B: the garden"] * 3


def test_an_entry_written_without_an_endpoint_is_not_served(tmp_path: Path) -> None:
    prompt = [message("user", "Where is the ball?")]
    config = GenerationConfig()
    with FakeChatServer(reply=lambda m, b: "from the server") as server:
        cache = ResponseCache(tmp_path / "cache.sqlite")
        old = Completion(text="old cached reply", model="openai/default")
        cache.put(cache_key("openai/default", prompt, config.params()), old)  # the key as it was before issue 24
        model = CachedChatModel(OpenAIChatModel("default", ModelOptions(base_url=server.base_url)), cache, mode="on")
        reply = asyncio.run(model.generate(prompt, config))
        assert (reply.text, reply.cached, server.requests) == ("from the server", False, 1)
        again = asyncio.run(model.generate(prompt, config))
        assert (again.text, again.cached, server.requests) == ("from the server", True, 1)


# -- 2. text that cannot be stored -----------------------------------------------------------------------------


@pytest.mark.parametrize("cache", ["off", "on"])
def test_a_lone_surrogate_in_a_reply_is_stored_replaced_and_noted(
    mindloop: Callable[..., CliRun], tmp_path: Path, cache: str
) -> None:
    raw = b'{"choices": [{"message": {"role": "assistant", "content": "B \\ud800 x"}, "finish_reason": "stop"}]}'
    with FakeChatServer(raw_reply=lambda m, b: raw) as server:
        done = mindloop(tmp_path, *RUN, "--n", "6", "--cache", cache, "--base-url", server.base_url)
    assert done.code == 0, done.stderr
    stored = samples(tmp_path)
    assert len(stored) == 6 and {s["status"] for s in stored} <= {"done", "failed"}
    calls = [c for s in stored for c in s["calls"]]
    assert [(c["text"], c["replaced"]) for c in calls] == [("B \ufffd x", 1)] * 6


def test_no_reply_header_or_usage_field_turns_into_a_bug(tmp_path: Path) -> None:
    hostile = [
        body({"parts": ["x"]}),  # content that is not text
        body("ok", finish={"why": ["x"]}),  # a finish_reason that is not a string
        b'{"choices": {"0": 1}}',
        b'{"choices": [{"message": "text"}]}',
        b"[1, 2, 3]",
        b'"just a string"',
        b"\xff\xfe not utf-8",
        b'{"choices": [{"message": {"content": "ok"}}], "usage": ' + b"[" * 5000 + b"]" * 5000 + b"}",
        b'{"choices": [{"message": {"content": "ok"}}], "usage": 7}',
    ]
    for i, raw in enumerate(hostile):
        with FakeChatServer(raw_reply=lambda m, b, raw=raw: raw) as server:
            model = OpenAIChatModel("m", ModelOptions(base_url=server.base_url, max_retries=1, backoff_s=0))
            try:
                reply = asyncio.run(model.generate([message("user", "hi")]))
            except ModelError as exc:
                assert str(exc).count("\n") == 0, (i, str(exc))
            else:
                assert isinstance(reply.text, str), i
    # a body that says it is gzip and is not
    with FakeChatServer(raw_reply=lambda m, b: b"not gzip at all", raw_headers={"Content-Encoding": "gzip"}) as server:
        model = OpenAIChatModel("m", ModelOptions(base_url=server.base_url, max_retries=0))
        with pytest.raises(ModelResponseError, match=r"unreadable reply .* DecodingError"):
            asyncio.run(model.generate([message("user", "hi")]))
    # a Retry-After no number can hold, and an error body nested without end, are a failed call, not a crash
    with FakeChatServer(faults=["429", "429"], retry_after="1e999") as server:
        model = OpenAIChatModel("m", ModelOptions(base_url=server.base_url, max_retries=1, max_backoff_s=0))
        with pytest.raises(ModelError, match="HTTP 429"):
            asyncio.run(model.generate([message("user", "hi")]))
    with FakeChatServer(faults=["400"], fault_message="x" * 10) as server:
        deep = "[" * 100_000 + "]" * 100_000
        server.fault_message = deep
        model = OpenAIChatModel("m", ModelOptions(base_url=server.base_url, max_retries=0))
        with pytest.raises(ModelError, match="HTTP 400"):
            asyncio.run(model.generate([message("user", "hi")]))


# -- 3. a reply that never ends --------------------------------------------------------------------------------


@pytest.mark.boundary  # a memory limit for the command alone
def test_an_endless_reply_is_cut_off_at_the_cap_within_a_memory_limit(tmp_path: Path) -> None:
    limit = 2 * 2**30  # 2 GiB of address space: the run fails there if it reads the body without bound

    def cap_memory() -> None:
        resource.setrlimit(resource.RLIMIT_AS, (limit, limit))

    with FakeChatServer(faults=["endless"]) as server:
        done = cli_process(
            tmp_path, *RUN, "--n", "2", "--cache", "off", "--base-url", server.base_url,
            "--timeout", "600", "--retries", "3", "--model-opt", "max_reply_bytes=1048576",
            preexec=cap_memory,
        )  # fmt: skip
        assert done.returncode == 0, done.stderr
        sent = server.endless_bytes
        assert server.requests == 2  # the endless one was not retried; the second sample got a normal reply
    stored = samples(tmp_path)
    failed = [s for s in stored if s["error"] and "over 1048576 bytes (max_reply_bytes)" in s["error"]]
    assert len(failed) == 1 and failed[0]["status"] == "failed" and failed[0]["error"].startswith("ModelResponseError")
    assert sent >= 2**20  # the server really sent more than the cap before the client hung up


def test_the_default_cap_holds_in_process() -> None:
    with FakeChatServer(faults=["endless"]) as server:
        model = OpenAIChatModel("m", ModelOptions(base_url=server.base_url, max_retries=2))
        with pytest.raises(ModelResponseError, match=r"over 8388608 bytes.*\(after 1 attempt\)"):
            asyncio.run(model.generate([message("user", "hi")]))
    with pytest.raises(
        MindloopError, match=r"openai option max_reply_bytes=10: expected a whole number of at least 1024"
    ):
        OpenAIChatModel("m", ModelOptions(extra={"max_reply_bytes": 10}))


# -- 8. usage and finish_reason ----------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("usage", "field"),
    [
        ({"prompt_tokens": 3, "completion_tokens": "12"}, "usage.completion_tokens is '12', not a whole number"),
        ({"prompt_tokens": 3, "completion_tokens": {"n": 1}}, "usage.completion_tokens is dict, not a whole number"),
        ({"prompt_tokens": 3, "completion_tokens": math.nan}, "usage.completion_tokens is nan, not a whole number"),
        ({"prompt_tokens": -5, "completion_tokens": 7}, "usage.prompt_tokens is -5, not a possible token count"),
        ({"prompt_tokens": 3, "completion_tokens": 1e30}, "usage.completion_tokens is 1e+30, not a whole number"),
        ({"prompt_tokens": 3, "completion_tokens": 10**30}, "not a possible token count"),
    ],
    ids=["string", "dict", "nan", "negative", "1e30", "10**30"],
)
def test_malformed_usage_is_a_model_response_error_naming_the_field(
    mindloop: Callable[..., CliRun], tmp_path: Path, usage: dict[str, Any], field: str
) -> None:
    with FakeChatServer(raw_reply=lambda m, b: body("B", usage=usage)) as server:
        done = mindloop(
            tmp_path, *RUN, "--n", "6", "--cache", "off", "--retries", "3",
            "--breaker", "2", "--base-url", server.base_url, "--json",
        )  # fmt: skip
        assert server.requests == 6  # one request a sample: not retried
    assert done.code == 0, done.stderr
    summary = json.loads(done.out)
    assert summary["stopped"] is None  # six in a row, breaker at 2: not counted as an outage
    assert (summary["n_failed"], summary["n_model_failures"], summary["n_bugs"]) == (6, 6, 0)
    assert summary["tokens"]["prompt_tokens"] == 0 and summary["tokens"]["completion_tokens"] == 0
    for sample in samples(tmp_path):
        assert sample["error"].startswith("ModelResponseError: ") and field in sample["error"]


def test_usage_nested_200k_deep_is_a_model_response_error(mindloop: Callable[..., CliRun], tmp_path: Path) -> None:
    deep = b'{"choices": [{"message": {"content": "B"}}], "usage": ' + b"[" * 200_000 + b"]" * 200_000 + b"}"
    with FakeChatServer(raw_reply=lambda m, b: deep) as server:
        done = mindloop(tmp_path, *RUN, "--n", "2", "--cache", "off", "--base-url", server.base_url)
    assert done.code == 0, done.stderr
    assert [s["status"] for s in samples(tmp_path)] == ["failed", "failed"]
    assert all("nested too deep" in s["error"] for s in samples(tmp_path))


def test_finish_reason_is_stored_per_call_and_cut_replies_are_counted(
    mindloop: Callable[..., CliRun], tmp_path: Path
) -> None:
    usage = {"prompt_tokens": 30, "completion_tokens": 5}
    with FakeChatServer(raw_reply=lambda m, b: body("The ball is in the", usage=usage, finish="length")) as server:
        base = ("bench", "run", "tomi", *MODEL, "--n", "3", "--cache", "off", "--base-url", server.base_url)
        as_json = mindloop(tmp_path, *base, "--json")
        human = mindloop(tmp_path / "human", *base)
    assert as_json.code == 0, as_json.stderr
    assert json.loads(as_json.out)["replies"]["cut_at_limit"] == 3
    assert [c["finish_reason"] for s in samples(tmp_path) for c in s["calls"]] == ["length"] * 3
    assert "3 cut at the token limit" in human.out  # the run summary, on stdout


# -- 9. server text on the terminal ----------------------------------------------------------------------------


def test_server_error_text_is_printed_without_control_sequences(
    mindloop: Callable[..., CliRun], tmp_path: Path
) -> None:
    hostile = "bad \x1b[31mRED\x1b[0m \x1b]0;owned\x07 \x1b[2J thing"

    class Refusing(FakeChatServer):
        def _get_route(self, path: str) -> Any:
            return None  # every GET is a 404: the pre-flight falls back to one chat call, which gets the 400

    with Refusing(faults=["400"], fault_message=hostile) as server:
        done = mindloop(tmp_path, *RUN, "--n", "1", "--base-url", server.base_url)
    assert done.code == 1
    assert "\x1b" not in done.stderr and "\x07" not in done.stderr
    assert len(done.err) == 1 and "bad RED   thing" in done.stderr
