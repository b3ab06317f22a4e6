"""Issue 24, case 9: non-finite numbers, special files and misused constructors get a clear mindloop error.

The command line refuses ``--temperature inf`` and special files (``/dev/zero``, ``/dev/null``, a FIFO) in one line,
by type, before reading them (a FIFO with no writer would block forever, ``/dev/zero`` never ends); the Python API's
constructors (:class:`GenerationConfig`, :class:`ModelOptions`, :class:`RunRequest`, :func:`message`,
:func:`load_model`) refuse bad values with :mod:`mindloop.errors` types. Hypothesis checks that any value given to
them either builds an object that holds its invariants or is refused with a ``MindloopError``, never another
exception.
"""

from __future__ import annotations

import contextlib
import math
import os
import threading
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

import pytest
from cli_run import Cli, CliRun
from hypothesis import given, settings
from hypothesis import strategies as st

from mindloop.bench.runner import RunRequest
from mindloop.errors import InvalidArgumentError, MindloopError
from mindloop.models.base import GenerationConfig, ModelOptions, load_model, message

from .stderr import after_preparing

FUZZ = settings(max_examples=int(os.environ.get("MINDLOOP_FUZZ_EXAMPLES", "150")), deadline=None)


def one_line(done: CliRun, *parts: str) -> None:
    """Exit 1 with one error line holding every part (after, at most, ``bench run``'s "preparing" line)."""
    assert done.code == 1, done.err
    (line,) = after_preparing(done.err)
    assert line.startswith("mindloop: error: "), done.err
    for part in parts:
        assert part in line


@contextmanager
def unblocked_after(fifo: Path, seconds: float) -> Iterator[None]:
    """Opens ``fifo`` for writing (and closes it) if a reader is still waiting on it after ``seconds``: a command
    that opened it would otherwise block this process for good; unblocked, it reads an empty file and fails."""

    def unblock() -> None:
        with contextlib.suppress(OSError):  # ENXIO: nobody is waiting to read it, the case that passes
            os.close(os.open(fifo, os.O_WRONLY | os.O_NONBLOCK))

    timer = threading.Timer(seconds, unblock)
    timer.start()
    try:
        yield
    finally:
        timer.cancel()


@pytest.mark.parametrize(
    ("flag", "value", "said"),
    [
        ("--temperature", "inf", "temperature must be a finite number, got inf"),
        ("--temperature", "1e999", "temperature must be a finite number, got inf"),
        ("--timeout", "inf", "timeout_s must be a finite number, got inf"),
    ],
)
def test_a_non_finite_number_is_refused_in_one_line(cli: Cli, flag: str, value: str, said: str) -> None:
    args = ("bench", "run", "tomi", "--agent", "model", "--model", "openai/m", "--base-url", "http://127.0.0.1:9/v1")
    one_line(cli(*args, "--n", "1", flag, value), said)


def test_special_files_are_refused_by_type(cli: Cli, tmp_path: Path) -> None:
    fifo = tmp_path / "stories.txt"
    os.mkfifo(fifo)  # nobody ever writes to it: opening it to read would block for good
    one_line(cli("tom", "eval", "/dev/zero"), "/dev/zero", "it is a character device, not a regular file")
    with unblocked_after(fifo, 60):
        one_line(cli("tom", "eval", str(fifo)), "it is a FIFO (named pipe), not a regular file")
    for data, kind in ((fifo, "a FIFO (named pipe)"), (Path("/dev/null"), "a character device")):
        with unblocked_after(fifo, 60):
            one_line(cli("bench", "run", "tomi", "--data", str(data), "--n", "1"), f"it is {kind}")
    one_line(cli("bench", "run", "tomi", "--data", str(tmp_path / "none.txt"), "--n", "1"), "no such file")


@pytest.mark.parametrize(
    ("build", "said"),
    [
        (lambda: GenerationConfig(temperature=-1), "temperature must be at least 0, got -1"),
        (lambda: GenerationConfig(temperature=math.nan), "temperature must be a finite number, got nan"),
        (lambda: GenerationConfig(max_tokens=0), "max_tokens must be at least 1, got 0"),
        (lambda: GenerationConfig(max_tokens="x"), "max_tokens must be a whole number, got str 'x'"),
        (lambda: GenerationConfig(top_p=1.5), "top_p must be between 0 and 1, got 1.5"),
        (lambda: GenerationConfig(stop="\n"), "stop must be a tuple of strings"),
        (lambda: GenerationConfig(seed=True), "seed must be a whole number, got bool True"),
        (lambda: RunRequest("tomi", seed="x"), "RunRequest seed must be a whole number, got str 'x'"),
        (lambda: RunRequest("tomi", concurrency=0), "RunRequest concurrency must be at least 1, got 0"),
        (lambda: RunRequest("tomi", model_options={}), "RunRequest model_options must be a ModelOptions"),
        (lambda: ModelOptions(cache_path="/"), "cache_path '/' is a folder; name a file in it"),
        (lambda: ModelOptions(base_url=8000), "base_url must be a URL string"),
        (lambda: ModelOptions(timeout_s=math.inf), "timeout_s must be a finite number, got inf"),
        (lambda: ModelOptions(concurrency=2.5), "concurrency must be a whole number, got float 2.5"),
        (lambda: ModelOptions(cache="yes"), "cache must be one of auto, on, off, got 'yes'"),
        (lambda: load_model(None), "model must be a string BACKEND/NAME"),
        (lambda: load_model("openai/m", options={"cache": "off"}), "options must be a ModelOptions, got dict"),
        (lambda: message("user", None), "message content must be strings or content-part dicts, got NoneType"),
        (lambda: message("user"), "message('user') has no content"),
        (lambda: message(None, "hi"), "unknown message role None"),
    ],
)
def test_misused_constructors_raise_mindloop_errors(build: Any, said: str) -> None:
    with pytest.raises(InvalidArgumentError) as refused:
        build()
    assert said in str(refused.value)


anything = st.none() | st.booleans() | st.integers() | st.floats() | st.text(max_size=8) | st.lists(st.integers())


@FUZZ
@given(temperature=anything, max_tokens=anything, top_p=anything, stop=anything, seed=anything)
def test_generation_config_builds_a_valid_config_or_refuses(
    temperature: Any, max_tokens: Any, top_p: Any, stop: Any, seed: Any
) -> None:
    try:
        config = GenerationConfig(temperature, max_tokens, top_p, stop, seed)
    except MindloopError as exc:
        assert str(exc)
        return
    assert math.isfinite(config.temperature) and config.temperature >= 0
    assert config.max_tokens is None or (type(config.max_tokens) is int and config.max_tokens >= 1)
    assert config.top_p is None or 0 <= config.top_p <= 1
    assert isinstance(config.stop, tuple) and all(isinstance(s, str) for s in config.stop)
    assert GenerationConfig.from_params(config.params()) == config


@FUZZ
@given(
    base_url=st.none() | st.integers() | st.text(max_size=30) | st.sampled_from(["http://h/v1", "http://u:p@h/v1"]),
    concurrency=anything,
    timeout_s=anything,
    max_retries=anything,
    cache=anything | st.sampled_from(["auto", "on", "off"]),
    cache_path=st.none() | st.integers() | st.sampled_from(["/", "/tmp", "x.sqlite"]),
)
def test_model_options_build_or_refuse(
    base_url: Any, concurrency: Any, timeout_s: Any, max_retries: Any, cache: Any, cache_path: Any
) -> None:
    try:
        options = ModelOptions(
            base_url=base_url,
            concurrency=concurrency,
            timeout_s=timeout_s,
            max_retries=max_retries,
            cache=cache,
            cache_path=cache_path,
        )
    except MindloopError as exc:
        assert str(exc) and (base_url != "http://u:p@h/v1" or "u:p" not in str(exc))
        return
    assert options.base_url is None or options.base_url.startswith(("http://", "https://"))
    assert "@" not in (options.base_url or "")
    assert type(options.concurrency) is int and options.concurrency >= 1
    assert math.isfinite(options.timeout_s) and options.timeout_s > 0
    assert options.cache in ("auto", "on", "off")


@FUZZ
@given(seed=anything, n=anything, concurrency=anything, breaker=anything, progress_every=anything)
def test_run_request_builds_or_refuses(seed: Any, n: Any, concurrency: Any, breaker: Any, progress_every: Any) -> None:
    try:
        request = RunRequest(
            "tomi", seed=seed, n=n, concurrency=concurrency, breaker=breaker, progress_every=progress_every
        )
    except MindloopError as exc:
        assert str(exc)
        return
    assert type(request.seed) is int and (request.n is None or request.n >= 0)
    assert math.isfinite(request.progress_every) and request.progress_every >= 0


@FUZZ
@given(role=anything | st.sampled_from(["system", "user", "assistant"]), content=st.lists(anything, max_size=3))
def test_message_builds_or_refuses(role: Any, content: list[Any]) -> None:
    try:
        built = message(role, *content)
    except MindloopError as exc:
        assert str(exc)
        return
    assert built["role"] == role and isinstance(built["content"], str | list)
