"""The OpenAI-compatible client against a real HTTP server on 127.0.0.1 (FakeChatServer)."""

from __future__ import annotations

import asyncio
import gc
import random
import socket
import warnings
from datetime import UTC, datetime
from typing import Any

import pytest

from mindloop.errors import InvalidArgumentError, ModelError, ModelResponseError, ModelTimeoutError
from mindloop.models import (
    ChatModel,
    GenerationConfig,
    ModelOptions,
    RecordingModel,
    TokenLedger,
    load_model,
    message,
    text_part,
)
from mindloop.models.fake_server import FakeChatServer
from mindloop.models.openai_compat import DEFAULT_BASE_URL, OpenAIChatModel, parse_retry_after
from mindloop.models.tokens import count_tokens

HELLO = [message("system", "You are terse."), message("user", "Where is the ball?")]
PNG = "data:image/png;base64,iVBORw0KGgo="


def _model(server: FakeChatServer, **options: Any) -> OpenAIChatModel:
    opts: dict[str, Any] = {"base_url": server.base_url, "backoff_s": 0.01, "max_backoff_s": 0.05, "cache": "off"}
    opts.update(options)
    opts.setdefault("extra", {"retry_seed": 0})
    return OpenAIChatModel("test-model", ModelOptions(**opts))


async def _once(model: ChatModel, messages: Any = HELLO, config: GenerationConfig | None = None) -> Any:
    try:
        return await model.generate(messages, config or GenerationConfig())
    finally:
        await model.aclose()


def test_success_round_trips_body_usage_and_image_parts(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("MINDLOOP_TEST_KEY", "sk-test")
    picture = [
        message("user", "What is in", {"type": "image_url", "image_url": {"url": PNG}}, text_part("this picture?"))
    ]
    with FakeChatServer(reply=lambda messages, body: "a red ball") as server:
        model = _model(server, api_key_env="MINDLOOP_TEST_KEY")
        config = GenerationConfig(temperature=0.2, max_tokens=50, top_p=0.9, stop=("\n",), seed=3)
        reply = asyncio.run(_once(model, picture, config))
    assert isinstance(model, ChatModel)
    assert model.name == "openai/test-model"
    assert reply.text == "a red ball" and reply.model == "openai/test-model" and not reply.cached
    assert reply.finish_reason == "stop"
    assert reply.prompt_tokens == count_tokens("What is in") + count_tokens("this picture?")
    assert reply.completion_tokens == count_tokens("a red ball")
    assert reply.latency_s > 0
    (body,) = server.bodies
    assert body == {
        "model": "test-model",
        "messages": picture,
        "temperature": 0.2,
        "max_tokens": 50,
        "top_p": 0.9,
        "stop": ["\n"],
        "seed": 3,
    }
    assert body["messages"][0]["content"][1] == {"type": "image_url", "image_url": {"url": PNG}}
    assert server.headers[0]["Authorization"] == "Bearer sk-test"
    assert model.requests_sent == 1 and model.retries == 0


def test_missing_key_sends_no_authorization_and_usage_is_estimated(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv("OPENAI_API_KEY", raising=False)
    with FakeChatServer(send_usage=False) as server:
        reply = asyncio.run(_once(_model(server)))
    assert "Authorization" not in server.headers[0]
    assert reply.text == "Where is the ball?"
    assert reply.prompt_tokens == count_tokens("You are terse.") + count_tokens("Where is the ball?")
    assert reply.completion_tokens == count_tokens("Where is the ball?")


def test_base_url_from_environment_or_default(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv("OPENAI_BASE_URL", raising=False)
    assert OpenAIChatModel("m", ModelOptions()).url == DEFAULT_BASE_URL + "/chat/completions"
    monkeypatch.setenv("OPENAI_BASE_URL", "http://127.0.0.1:9/v1/")
    assert OpenAIChatModel("m", ModelOptions()).url == "http://127.0.0.1:9/v1/chat/completions"
    assert OpenAIChatModel("m", ModelOptions(base_url="http://h:1/v1")).base_url == "http://h:1/v1"


def test_429_waits_for_retry_after_then_succeeds() -> None:
    waits = _Waits()
    with FakeChatServer(faults=["429"], retry_after=0.4) as server:
        model = _recorded(server, waits, max_backoff_s=5.0)
        reply = asyncio.run(_once(model))
    assert reply.text == "Where is the ball?"
    assert waits.seconds == [0.4]  # the server's Retry-After, not a jittered backoff
    assert server.requests == 2 and model.requests_sent == 2 and model.retries == 1
    assert server.requests_by_status == {429: 1, 200: 1}


def test_retry_after_is_capped_by_max_backoff() -> None:
    waits = _Waits()
    with FakeChatServer(faults=["429"], retry_after=30) as server:
        asyncio.run(_once(_recorded(server, waits, max_backoff_s=0.1)))
    assert waits.seconds == [0.1]
    assert server.requests == 2


def test_two_500s_then_success() -> None:
    with FakeChatServer(faults=["500", "500", "ok"]) as server:
        reply = asyncio.run(_once(_model(server)))
    assert reply.text == "Where is the ball?"
    assert server.requests == 3


def test_persistent_500_fails_after_all_attempts() -> None:
    with FakeChatServer(faults=["500"] * 10) as server, pytest.raises(ModelError) as err:
        asyncio.run(_once(_model(server, max_retries=3)))
    assert server.requests == 4
    assert not isinstance(err.value, ModelTimeoutError | ModelResponseError)
    assert err.value.attempts == 4 and err.value.model == "openai/test-model"
    assert "HTTP 500" in str(err.value) and "injected fault 500" in str(err.value)
    assert "after 4 attempts" in str(err.value)


def test_client_errors_are_not_retried() -> None:
    with FakeChatServer(faults=["400", "404"]) as server:
        with pytest.raises(ModelError, match=r"HTTP 400 .*injected fault 400.*\(after 1 attempt\)"):
            asyncio.run(_once(_model(server)))
        assert server.requests == 1


def test_malformed_json_is_retried_then_succeeds() -> None:
    with FakeChatServer(faults=["malformed"]) as server:
        reply = asyncio.run(_once(_model(server)))
    assert reply.text == "Where is the ball?"
    assert server.requests == 2


def test_persistent_malformed_json_raises_response_error() -> None:
    with (
        FakeChatServer(faults=["malformed"] * 3) as server,
        pytest.raises(ModelResponseError, match=r"malformed completion.*after 3 attempts"),
    ):
        asyncio.run(_once(_model(server, max_retries=2)))
    assert server.requests == 3


def test_null_content_is_a_response_error_without_retry() -> None:
    with (
        FakeChatServer(reply=lambda messages, body: None) as server,
        pytest.raises(ModelResponseError, match="no text content"),
    ):
        asyncio.run(_once(_model(server)))
    assert server.requests == 1


def test_hung_response_times_out() -> None:
    with FakeChatServer(faults=["hang", "hang"], hang_s=60) as server:
        with pytest.raises(ModelTimeoutError, match=r"within 0.3 s.*after 2 attempts"):
            asyncio.run(_once(_model(server, timeout_s=0.3, max_retries=1)))
        assert server.in_flight == 2  # the client gave up on both tries while the server still held them
    assert server.requests == 2


def test_timeout_then_success_recovers() -> None:
    with FakeChatServer(faults=["hang"], hang_s=30) as server:
        reply = asyncio.run(_once(_model(server, timeout_s=0.3)))
    assert reply.text == "Where is the ball?" and server.requests == 2


def test_dropped_connection_is_retried() -> None:
    with FakeChatServer(faults=["drop"]) as server:
        reply = asyncio.run(_once(_model(server)))
    assert reply.text == "Where is the ball?" and server.requests == 2


def test_connection_refused_fails_after_retries() -> None:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        port = sock.getsockname()[1]
    model = OpenAIChatModel("m", ModelOptions(base_url=f"http://127.0.0.1:{port}/v1", max_retries=2, backoff_s=0.01))
    with pytest.raises(ModelError, match=r"cannot reach .*ConnectError.*after 3 attempts"):
        asyncio.run(_once(model))
    assert model.requests_sent == 3


def test_concurrency_is_bounded() -> None:
    async def many(model: OpenAIChatModel) -> list[str]:
        try:
            replies = await asyncio.gather(*(model.generate([message("user", f"q{i}")]) for i in range(6)))
        finally:
            await model.aclose()
        return [r.text for r in replies]

    with FakeChatServer(latency_s=0.2) as server:
        texts = asyncio.run(many(_model(server, concurrency=2)))
    assert texts == [f"q{i}" for i in range(6)]
    assert server.max_in_flight == 2


def test_model_is_reusable_across_event_loops() -> None:
    with FakeChatServer() as server:
        model = _model(server, concurrency=2)
        first = asyncio.run(_once(model))  # the tidy pattern: aclose() before the loop ends
        second = asyncio.run(_once(model))
        with warnings.catch_warnings():
            warnings.simplefilter("ignore", ResourceWarning)  # the unclosed first client's sockets below
            third = asyncio.run(model.generate(HELLO))  # not closed: the next loop must still work
            fourth = asyncio.run(_once(model))
            gc.collect()
    assert first.text == second.text == third.text == fourth.text == "Where is the ball?"
    assert server.requests == 4


def test_backoff_is_seeded_capped_exponential_jitter() -> None:
    opts = ModelOptions(backoff_s=0.5, max_backoff_s=3.0, extra={"retry_seed": 7})
    a, b = OpenAIChatModel("m", opts), OpenAIChatModel("m", opts)
    waits = [a._backoff(attempt, None) for attempt in range(8)]
    assert waits == [b._backoff(attempt, None) for attempt in range(8)]
    for attempt, wait in enumerate(waits):
        assert 0.0 <= wait <= min(3.0, 0.5 * 2**attempt)
    assert a._backoff(0, 10.0) == 3.0 and a._backoff(0, 1.5) == 1.5


def test_parse_retry_after_forms() -> None:
    assert parse_retry_after("3") == 3.0
    assert parse_retry_after("0.25") == 0.25
    assert parse_retry_after("-4") == 0.0
    assert parse_retry_after(None) is None and parse_retry_after("soon") is None
    assert parse_retry_after("Wed, 21 Oct 2015 07:28:00 GMT") == 0.0  # a date in the past


def test_invalid_options_and_messages() -> None:
    with pytest.raises(InvalidArgumentError, match="concurrency"):
        OpenAIChatModel("m", ModelOptions(concurrency=0))
    with pytest.raises(InvalidArgumentError, match="timeout_s"):
        OpenAIChatModel("m", ModelOptions(timeout_s=0))
    with pytest.raises(InvalidArgumentError, match="empty"):
        OpenAIChatModel("", ModelOptions())
    model = OpenAIChatModel("m", ModelOptions(base_url="http://127.0.0.1:9/v1"))
    with pytest.raises(InvalidArgumentError, match="JSON"):
        asyncio.run(_once(model, [{"role": "user", "content": object()}]))
    assert model.requests_sent == 0


def test_options_are_hashable_plain_data() -> None:
    # Worker processes key their model objects by (model string, options).
    with_extra = ModelOptions(base_url="http://h/v1", extra={"retry_seed": 1})
    assert {with_extra: 1}[ModelOptions(base_url="http://h/v1", extra={"retry_seed": 1})] == 1
    assert with_extra != ModelOptions(base_url="http://h/v1")


def test_load_model_end_to_end_with_cache(tmp_path: Any) -> None:
    with FakeChatServer() as server:
        options = ModelOptions(base_url=server.base_url, cache_path=str(tmp_path / "c.sqlite"), backoff_s=0.01)
        model = load_model("openai/x", options)
        assert model.name == "openai/x"

        async def twice() -> tuple[Any, Any]:
            try:
                return await model.generate(HELLO), await model.generate(HELLO)
            finally:
                await model.aclose()

        first, second = asyncio.run(twice())
    assert server.requests == 1
    assert server.bodies[0]["model"] == "x"
    assert (first.cached, second.cached) == (False, True)
    assert first.text == second.text == "Where is the ball?"
    assert (second.prompt_tokens, second.completion_tokens) == (first.prompt_tokens, first.completion_tokens)


def test_recording_model_keeps_successes_and_failures() -> None:
    with FakeChatServer(faults=["ok", "503", "503"]) as server:
        recorder = RecordingModel(_model(server, max_retries=1))

        async def calls() -> None:
            try:
                await recorder.generate(HELLO)
                with pytest.raises(ModelError):
                    await recorder.generate([message("user", "again?")], GenerationConfig(temperature=0.5))
            finally:
                await recorder.aclose()

        asyncio.run(calls())
    ok, failed = recorder.calls
    assert ok.text == "Where is the ball?" and ok.error is None and ok.prompt_tokens > 0
    assert failed.text is None and failed.error is not None and "HTTP 503" in failed.error
    assert failed.params["temperature"] == 0.5 and failed.latency_s > 0
    ledger = TokenLedger()
    for call in recorder.calls:
        ledger.add(call)
    assert ledger.calls == 2 and ledger.failed_calls == 1


class _Waits:
    """An injected sleep that records each wait instead of spending it."""

    def __init__(self) -> None:
        self.seconds: list[float] = []

    async def __call__(self, seconds: float) -> None:
        self.seconds.append(seconds)


def _recorded(server: FakeChatServer, waits: _Waits, **options: Any) -> OpenAIChatModel:
    opts: dict[str, Any] = {"base_url": server.base_url, "cache": "off", "extra": {"retry_seed": 7}}
    opts.update(options)
    return OpenAIChatModel("test-model", ModelOptions(**opts), sleep=waits)


def test_injected_sleep_gets_the_seeded_full_jitter_waits() -> None:
    waits = _Waits()
    with FakeChatServer(faults=["500", "502", "503"]) as server:
        model = _recorded(server, waits, max_retries=3, backoff_s=0.5, max_backoff_s=1.5)
        reply = asyncio.run(_once(model))
    rng = random.Random(7)  # the same draws, derived by hand: uniform(0, min(cap, base * 2**k))
    assert waits.seconds == [rng.uniform(0.0, 0.5), rng.uniform(0.0, 1.0), rng.uniform(0.0, 1.5)]
    assert reply.text == "Where is the ball?"
    assert server.requests == 4 and model.requests_sent == 4 and model.retries == 3


@pytest.mark.parametrize("fault", ["408", "429", "500", "504", "malformed", "drop"])
def test_each_retryable_failure_is_retried_once(fault: str) -> None:
    waits = _Waits()
    with FakeChatServer(faults=[fault], retry_after=None) as server:
        reply = asyncio.run(_once(_recorded(server, waits)))
    assert reply.text == "Where is the ball?" and server.requests == 2 and len(waits.seconds) == 1


def test_retry_after_seconds_and_http_date_are_honoured() -> None:
    waits = _Waits()
    with FakeChatServer(faults=["429"], retry_after=7) as server:
        asyncio.run(_once(_recorded(server, waits, max_backoff_s=60.0)))
    assert waits.seconds == [7.0]
    waits = _Waits()
    when = "Wed, 21 Oct 2099 07:28:05 GMT"  # decades ahead: the wait is the cap, whatever the wall clock says
    with FakeChatServer(faults=["429"], retry_after=when) as server:
        asyncio.run(_once(_recorded(server, waits, max_backoff_s=600.0)))
    assert waits.seconds == [600.0]  # an unparsed date would fall back to a jittered backoff below 1 s
    # the date arithmetic itself, against an injected "now" instead of the wall clock
    assert parse_retry_after(when, now=datetime(2099, 10, 21, 7, 26, 25, tzinfo=UTC)) == 100.0


def test_last_error_names_url_status_and_attempts_without_a_final_wait() -> None:
    waits = _Waits()
    with FakeChatServer(faults=["503"] * 5) as server, pytest.raises(ModelError) as err:
        url = server.base_url + "/chat/completions"
        asyncio.run(_once(_recorded(server, waits, max_retries=2)))
    message = str(err.value)
    assert f"HTTP 503 from {url}: injected fault 503" in message
    assert message.endswith("(after 3 attempts)") and err.value.attempts == 3
    assert len(waits.seconds) == 2  # no wait after the last try


def test_non_retryable_failures_and_bugs_are_not_retried(monkeypatch: pytest.MonkeyPatch) -> None:
    waits = _Waits()
    with FakeChatServer(faults=["401"]) as server, pytest.raises(ModelError, match=r"HTTP 401.*after 1 attempt\)"):
        asyncio.run(_once(_recorded(server, waits)))
    assert waits.seconds == [] and server.requests == 1

    async def broken(*args: Any) -> Any:
        raise RuntimeError("a bug, not a transient failure")

    model = OpenAIChatModel("m", ModelOptions(base_url="http://127.0.0.1:9/v1"), sleep=waits)
    monkeypatch.setattr(model, "_attempt", broken)
    with pytest.raises(RuntimeError, match="a bug"):
        asyncio.run(_once(model))
    assert waits.seconds == [] and model.retries == 0


def test_negative_backoff_is_refused() -> None:
    with pytest.raises(InvalidArgumentError, match="backoff_s and max_backoff_s must be 0 or more, got -1"):
        OpenAIChatModel("m", ModelOptions(backoff_s=-1))


def test_huge_attempt_numbers_stay_capped() -> None:
    model = OpenAIChatModel("m", ModelOptions(backoff_s=0.5, max_backoff_s=3.0, extra={"retry_seed": 1}))
    assert 0.0 <= model._backoff(5000, None) <= 3.0
