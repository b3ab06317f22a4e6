"""What one request tells the run's circuit breaker: the client against a real local server (FakeChatServer)
reports each request that found no server and each answer; timeouts, 429s and malformed replies never open it,
and once it is open the client sends nothing more and waits for no retry."""

from __future__ import annotations

import asyncio
import random
import socket
import struct
import threading
from typing import Any

import httpx
import pytest

from mindloop.bench.breaker import CircuitBreaker
from mindloop.errors import ModelError, ModelResponseError, ModelTimeoutError
from mindloop.models import ModelOptions, message, outages
from mindloop.models.fake_server import FakeChatServer
from mindloop.models.openai_compat import OpenAIChatModel

HELLO = [message("user", "Where is the ball?")]


class _Waits:
    """An injected sleep: records each wait instead of spending it."""

    def __init__(self) -> None:
        self.waits: list[float] = []

    async def __call__(self, seconds: float) -> None:
        self.waits.append(seconds)


def _model(base_url: str, waits: _Waits, **options: Any) -> OpenAIChatModel:
    opts: dict[str, Any] = {"base_url": base_url, "cache": "off", "max_retries": 8, "extra": {"retry_seed": 0}}
    opts.update(options)
    return OpenAIChatModel("m", ModelOptions(**opts), sleep=waits)


async def _ask(model: OpenAIChatModel, breaker: CircuitBreaker) -> Any:
    with outages.watching(breaker):
        try:
            return await model.generate(HELLO)
        finally:
            await model.aclose()


def test_the_breaker_counts_failures_in_a_row_and_an_answer_resets_them() -> None:
    breaker = CircuitBreaker(3)
    breaker.request_failed("refused")
    breaker.request_failed("refused")
    breaker.request_answered()
    breaker.request_failed("refused")
    breaker.request_failed("reset")
    assert breaker.opened is None and breaker.failures == 2
    breaker.request_failed("HTTP 502 from x:  bad\ngateway")
    assert breaker.opened == "3 requests in a row could not get an answer from the model (HTTP 502 from x: bad gateway)"
    breaker.request_answered()  # open for good
    assert breaker.opened is not None
    with pytest.raises(ValueError, match="at least 1"):
        CircuitBreaker(0)


@pytest.mark.parametrize("fault", ["drop", "502", "503"])
def test_one_call_retrying_into_no_server_opens_it_and_stops_at_once(fault: str) -> None:
    waits = _Waits()
    with FakeChatServer(faults=[fault] * 20) as server:
        model = _model(server.base_url, waits)
        breaker = CircuitBreaker(3)
        with pytest.raises(outages.BreakerOpen, match="3 requests in a row"):
            asyncio.run(_ask(model, breaker))
        assert server.requests == 3 and model.requests_sent == 3  # not the 9 tries --retries 8 allows
    assert len(waits.waits) == 2  # the waits between the three tries; none after the breaker opened


def test_a_request_that_found_no_server_is_retried_within_two_seconds() -> None:
    waits = _Waits()
    with FakeChatServer(faults=["drop"] * 10) as server:
        model = _model(server.base_url, waits)  # backoff 0.5 s doubling, capped at 30 s, seed 0
        with pytest.raises(outages.BreakerOpen):
            asyncio.run(_ask(model, CircuitBreaker(6)))
    rng = random.Random(0)  # the same full jitter, each cap at most 2 s: 0.5, 1, 2, 2, 2
    assert waits.waits == [rng.uniform(0.0, min(2.0, 0.5 * 2**k)) for k in range(5)]
    with FakeChatServer(faults=["500"] * 4) as server:  # a server that is there keeps the full backoff
        model = _model(server.base_url, waits := _Waits(), max_retries=3)
        with pytest.raises(ModelError):
            asyncio.run(_ask(model, CircuitBreaker(1)))
    rng = random.Random(0)
    assert waits.waits == [rng.uniform(0.0, 0.5 * 2**k) for k in range(3)]


def test_a_refused_port_opens_it() -> None:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        port = s.getsockname()[1]  # closed at once: nothing listens there
    waits = _Waits()
    model = _model(f"http://127.0.0.1:{port}/v1", waits)
    breaker = CircuitBreaker(4)
    with pytest.raises(outages.BreakerOpen, match=r"ConnectError"):
        asyncio.run(_ask(model, breaker))
    # the first of the four was the probe asking how many requests the server serves at once (it is a request too)
    assert model.requests_sent == 3 and len(waits.waits) == 2


def test_a_fresh_client_sends_no_more_connections_than_the_breaker_allows() -> None:
    # A client that has not yet asked the server how many requests it serves at once (a new worker process
    # started after the server died) meets a port that accepts each connection and resets it. Every connection
    # is a request that found no server, the probes too: four in all, then the breaker opens (a probe per place
    # servers publish their slots, sent without asking the breaker, would make it nine).
    with socket.socket() as listener:
        listener.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        listener.bind(("127.0.0.1", 0))
        listener.listen(64)
        listener.settimeout(0.05)
        accepted, stop = [], threading.Event()

        def reset_each() -> None:
            while not stop.is_set():
                try:
                    conn, _ = listener.accept()
                except TimeoutError:
                    continue
                accepted.append(1)
                conn.setsockopt(socket.SOL_SOCKET, socket.SO_LINGER, struct.pack("ii", 1, 0))  # close = RST
                conn.close()

        thread = threading.Thread(target=reset_each, daemon=True)
        thread.start()
        model = _model(f"http://127.0.0.1:{listener.getsockname()[1]}/v1", _Waits())
        try:
            with pytest.raises(outages.BreakerOpen):
                asyncio.run(_ask(model, CircuitBreaker(4)))
        finally:
            stop.set()
            thread.join()
    assert len(accepted) == 4 and model.requests_sent == 3 and model.parallelism is None


def test_an_open_breaker_sends_nothing() -> None:
    breaker = CircuitBreaker(1)
    breaker.request_failed("refused")
    with FakeChatServer() as server:
        model = _model(server.base_url, _Waits())
        with pytest.raises(outages.BreakerOpen):
            asyncio.run(_ask(model, breaker))
        assert server.requests == 0 and model.requests_sent == 0


@pytest.mark.parametrize(
    ("faults", "error"),
    [
        (["429"] * 3, ModelError),  # busy: an answer, patience as before
        (["malformed"] * 3, ModelResponseError),  # an answer, however bad
        (["500"] * 3, ModelError),  # the server is there, failing
    ],
)
def test_answers_that_fail_never_open_it(faults: list[str], error: type[ModelError]) -> None:
    waits = _Waits()
    with FakeChatServer(faults=faults, retry_after=0) as server:
        model = _model(server.base_url, waits, max_retries=2)
        breaker = CircuitBreaker(1)
        with pytest.raises(error):
            asyncio.run(_ask(model, breaker))
        assert server.requests == 3 and breaker.opened is None and breaker.failures == 0


def test_timeouts_neither_count_nor_reset() -> None:
    with FakeChatServer(faults=["hang", "hang", "drop", "ok"], hang_s=5) as server:
        model = _model(server.base_url, _Waits(), timeout_s=0.5)
        breaker = CircuitBreaker(2)
        reply = asyncio.run(_ask(model, breaker))  # two timeouts and a drop: one failure, not three
        assert reply.text == "Where is the ball?" and server.requests == 4
    assert breaker.opened is None and breaker.failures == 0  # the answer reset the one
    with FakeChatServer(faults=["drop", "hang", "drop", "ok"], hang_s=5) as server:
        model = _model(server.base_url, _Waits(), timeout_s=0.5)
        breaker = CircuitBreaker(2)
        with pytest.raises(outages.BreakerOpen):  # the timeout between the drops did not reset them
            asyncio.run(_ask(model, breaker))
        assert server.requests == 3
    with FakeChatServer(faults=["hang", "hang"], hang_s=5) as server:  # timeouts to the last try: no outage
        model = _model(server.base_url, _Waits(), timeout_s=0.5, max_retries=1)
        breaker = CircuitBreaker(1)
        with pytest.raises(ModelTimeoutError):
            asyncio.run(_ask(model, breaker))
    assert breaker.opened is None


def test_a_503_with_retry_after_is_a_busy_server_not_a_missing_one() -> None:
    headers = {"Retry-After": "1"}
    assert not outages.answer_finds_no_server(503, headers)
    assert outages.answer_finds_no_server(503, {}) and outages.answer_finds_no_server(502, {})
    assert not outages.answer_finds_no_server(500, {}) and not outages.answer_finds_no_server(504, {})
    assert outages.finds_no_server(httpx.ConnectError("refused"))
    assert outages.finds_no_server(httpx.RemoteProtocolError("closed"))
    assert not outages.finds_no_server(httpx.ReadTimeout("slow"))


def test_without_a_watch_reports_go_nowhere() -> None:
    outages.report_failure("refused")
    outages.report_answer()
    outages.check()
    assert not outages.is_open()
