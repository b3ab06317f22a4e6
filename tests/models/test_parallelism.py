"""Requests in flight follow what the server serves at once, and queued requests are never given up.

The one-slot scenario of the real-models issue: a local server that serves one request at a time, a client
sending eight at once with a timeout shorter than the queue. Before, requests queued inside the server timed
out and were sent again while the server was still busy; here the server counts every request it received.
"""

from __future__ import annotations

import asyncio
from pathlib import Path
from typing import Any

import httpx
import pytest

from mindloop.bench import RunRequest, RunStore, run_benchmark
from mindloop.errors import InvalidArgumentError, ModelTimeoutError
from mindloop.models import ModelOptions, message, outages
from mindloop.models.fake_server import FakeChatServer
from mindloop.models.openai_compat import OpenAIChatModel
from mindloop.models.parallelism import (
    InFlightLimit,
    ServerParallelism,
    discover_parallelism,
    is_local_host,
    server_root,
)

LLAMA_CPP_PYTHON = "🦙 llama.cpp Python API"  # the title llama-cpp-python 0.3's server gives its /openapi.json


def _smoke(server: FakeChatServer, tmp_path: Path, n: int, timeout_s: float, **extra: Any) -> Any:
    """A smoke run of ``n`` one-call samples, 8 samples and at most 8 requests in flight, no retries allowed."""
    options = ModelOptions(
        base_url=server.base_url, concurrency=8, timeout_s=timeout_s, max_retries=0, cache="off", extra=extra
    )
    request = RunRequest("smoke", agent="model", model="openai/qwen", n=n, concurrency=8, model_options=options)
    with RunStore(tmp_path / "runs.sqlite") as store:
        return run_benchmark(request, store=store, progress=False)


@pytest.mark.parametrize("advertise", [False, True], ids=["slots-unpublished", "slots-published"])
def test_one_slot_server_with_eight_in_flight_abandons_nothing(tmp_path: Path, advertise: bool) -> None:
    # 16 samples, 0.3 s each, one at a time: the eighth request sent at once waits 2.1 s in the server's queue,
    # longer than the 1.5 s timeout. With no retries allowed, a request given up while queued is a failed sample.
    # (At 0.15 s and 0.75 s, a loaded machine (load 10) once stalled the replies for longer than the timeout.)
    with FakeChatServer(slots=1, latency_s=0.3, advertise_slots=advertise) as server:
        summary = _smoke(server, tmp_path, n=16, timeout_s=1.5)
        received, abandoned, served_at_once = server.requests, server.abandoned, server.max_serving
        most_inside = server.max_in_flight
    assert (summary.n_completed, summary.n_failed, summary.metrics["accuracy"]) == (16, 0, 1.0)
    assert received == 16  # one request per sample: none was given up and sent again
    assert abandoned == 0 and served_at_once == 1
    # told of one slot, the client keeps one request in flight; not told, it may send up to its 8 at first
    assert most_inside == 1 if advertise else 1 <= most_inside <= 8


def test_llama_cpp_python_is_recognised_and_sent_one_request_at_a_time(tmp_path: Path) -> None:
    with FakeChatServer(slots=1, latency_s=0.02, openapi_title=LLAMA_CPP_PYTHON) as server:
        summary = _smoke(server, tmp_path, n=10, timeout_s=5)
        assert server.max_in_flight == 1 and server.requests == 10
    assert summary.n_failed == 0


def test_the_unpublished_one_slot_server_gets_fewer_in_flight() -> None:
    async def run(model: OpenAIChatModel) -> InFlightLimit:
        try:
            await asyncio.gather(*(model.generate([message("user", f"q{i}")]) for i in range(20)))
            assert model.in_flight_limit is not None
            return model.in_flight_limit
        finally:
            await model.aclose()

    # 200 ms a reply, so the server's queue stands out from the client's own delays: the cheapest reply the limit
    # compares with is the first, which also opens the connection. At 30 ms on a loaded 2-core machine (load 12)
    # that first reply took as long as two or three queued ones, no reply looked queued and the limit stayed at 8.
    with FakeChatServer(slots=1, latency_s=0.2) as server:
        model = OpenAIChatModel("m", ModelOptions(base_url=server.base_url, concurrency=8, timeout_s=5, cache="off"))
        limit = asyncio.run(run(model))
        assert server.requests == 20 and server.abandoned == 0
    assert model.parallelism is not None and not model.parallelism.known
    assert limit.decreases >= 1 and limit.limit < 8  # latency grew with the queue: the limit came down


def test_a_stalled_one_slot_server_still_times_out() -> None:
    # The first request hangs in the only slot; the second waits behind it. No answer comes for the timeout, so
    # both are given up (a stalled server must not keep the queued request waiting forever).
    async def two(model: OpenAIChatModel) -> list[Any]:
        try:
            calls = (model.generate([message("user", f"q{i}")]) for i in range(2))
            return await asyncio.gather(*calls, return_exceptions=True)
        finally:
            await model.aclose()

    with FakeChatServer(slots=1, faults=["hang"], hang_s=30) as server:
        options = ModelOptions(base_url=server.base_url, concurrency=2, timeout_s=0.3, max_retries=0, cache="off")
        results = asyncio.run(two(OpenAIChatModel("m", options)))
    assert [type(r) for r in results] == [ModelTimeoutError, ModelTimeoutError]
    assert all("within 0.3 s" in str(r) for r in results)


def test_published_slots_cap_the_concurrency_and_the_option_overrides_asking() -> None:
    async def many(model: OpenAIChatModel, n: int) -> None:
        try:
            await asyncio.gather(*(model.generate([message("user", f"q{i}")]) for i in range(n)))
        finally:
            await model.aclose()

    with FakeChatServer(slots=3, latency_s=0.05, advertise_slots=True) as server:
        model = OpenAIChatModel("m", ModelOptions(base_url=server.base_url, concurrency=8, cache="off"))
        asyncio.run(many(model, 12))
        assert server.max_in_flight == 3 and server.gets[0] == "/props"
    assert model.parallelism == ServerParallelism(3, "llama.cpp server: GET /props total_slots")

    with FakeChatServer(latency_s=0.05) as server:  # serves any number at once; the user says 2
        options = ModelOptions(base_url=server.base_url, concurrency=8, cache="off", extra={"server_slots": 2})
        asyncio.run(many(OpenAIChatModel("m", options), 8))
        assert server.max_in_flight == 2 and server.gets == []  # nothing asked


@pytest.mark.parametrize("value", [0, -1, "two", 1.5, True])
def test_server_slots_option_is_validated(value: object) -> None:
    expected = r"openai option server_slots=.*: expected a whole number of at least 1, or auto"
    with pytest.raises(InvalidArgumentError, match=expected):
        OpenAIChatModel("m", ModelOptions(extra={"server_slots": value}))


def test_discovery_reads_each_server_kind() -> None:
    # The bodies below are shaped as the servers document them (llama.cpp /props and /slots, SGLang
    # /get_server_info, llama-cpp-python /openapi.json); an httpx MockTransport answers in-process.
    def serve(routes: dict[str, Any]) -> httpx.MockTransport:
        def handler(request: httpx.Request) -> httpx.Response:
            body = routes.get(request.url.path)
            return httpx.Response(404, json={"detail": "Not Found"}) if body is None else httpx.Response(200, json=body)

        return httpx.MockTransport(handler)

    async def ask(routes: dict[str, Any]) -> ServerParallelism:
        async with httpx.AsyncClient(transport=serve(routes)) as client:
            return await discover_parallelism(client, "http://host:8080/v1")

    cases = {
        "props": ({"/props": {"total_slots": 4, "default_generation_settings": {"n_ctx": 8192}}}, 4),
        "slots": ({"/slots": [{"id": 0}, {"id": 1}]}, 2),
        "sglang": ({"/get_server_info": {"max_running_requests": 128, "max_total_tokens": 20480}}, 128),
        "sglang-state": ({"/server_info": {"internal_states": [{"max_running_requests": 48}]}}, 48),
        "llama-cpp-python": ({"/openapi.json": {"info": {"title": LLAMA_CPP_PYTHON, "version": "0.3.36"}}}, 1),
        "vllm": ({"/openapi.json": {"info": {"title": "FastAPI", "version": "0.1.0"}}}, None),
        "bad-props": ({"/props": {"total_slots": 0}, "/slots": "no"}, None),
    }
    for name, (routes, slots) in cases.items():
        assert asyncio.run(ask(routes)).slots == slots, name


class _Watch:
    """A circuit breaker's ears: the reports it got, and whether it has opened."""

    def __init__(self, opened: str | None = None) -> None:
        self.failures: list[str] = []
        self.answers = 0
        self.opened = opened

    def request_failed(self, cause: str) -> None:
        self.failures.append(cause)

    def request_answered(self) -> None:
        self.answers += 1


def _ask_through(transport: httpx.MockTransport, watch: _Watch) -> ServerParallelism | None:
    async def ask() -> ServerParallelism | None:
        async with httpx.AsyncClient(transport=transport) as client:
            return await discover_parallelism(client, "http://host:1/v1")

    with outages.watching(watch):
        return asyncio.run(ask())


def test_discovery_of_an_unreachable_server_sends_one_probe_and_reports_it_to_the_breaker() -> None:
    sent: list[str] = []

    def refuse(request: httpx.Request) -> httpx.Response:
        sent.append(request.url.path)
        raise httpx.ConnectError("refused", request=request)

    watch = _Watch()
    assert _ask_through(httpx.MockTransport(refuse), watch) is None  # nothing known: asked again later
    assert sent == ["/props"] and len(watch.failures) == 1 and "/props" in watch.failures[0]
    assert watch.answers == 0


def test_discovery_sends_no_probe_once_the_breaker_has_opened() -> None:
    sent: list[str] = []

    def answer(request: httpx.Request) -> httpx.Response:
        sent.append(request.url.path)
        return httpx.Response(404)

    with pytest.raises(outages.BreakerOpen, match="five in a row"):
        _ask_through(httpx.MockTransport(answer), _Watch(opened="five in a row"))
    assert sent == []
    watch = _Watch()  # closed: every probe is sent, and each 404 is an answer from a server that is there
    found = _ask_through(httpx.MockTransport(answer), watch)
    assert found is not None and not found.known and len(sent) == watch.answers == 5 and watch.failures == []


def test_server_root_strips_v1() -> None:
    assert server_root("http://a:1/v1") == server_root("http://a:1/v1/") == server_root("http://a:1") == "http://a:1"


def test_aimd_halves_once_per_window_and_grows_only_from_a_full_window() -> None:
    async def scenario() -> list[float]:
        limit = InFlightLimit(8, timeout_s=10.0)
        seen = [limit.limit]
        first = [await limit.acquire() for _ in range(8)]  # a full window
        limit.release(first[0], answered=False, overloaded=True)  # a timeout: halve
        seen.append(limit.limit)
        limit.release(first[1], answered=True, overloaded=True)  # a 429 sent before the decrease: no second halving
        seen.append(limit.limit)
        for ticket in first[2:]:
            limit.release(ticket, answered=True)  # answered, no usable reply: no signal either way
        seen.append(limit.limit)
        later = [await limit.acquire() for _ in range(4)]  # sent with 0, 1, 2 and 3 others in flight
        limit.release(later[2], answered=True, cost=0.01)  # window not full when sent: no growth
        seen.append(limit.limit)
        limit.release(later[3], answered=True, cost=0.01)  # sent into the full window of 4: +1/4
        seen.append(limit.limit)
        return seen

    assert asyncio.run(scenario()) == [8.0, 4.0, 4.0, 4.0, 4.0, 4.25]


def test_a_reply_that_waited_for_those_ahead_lowers_the_limit() -> None:
    async def scenario() -> tuple[float, float]:
        limit = InFlightLimit(2, timeout_s=10.0)
        first = [await limit.acquire(), await limit.acquire()]  # the first window: never judged by latency
        limit.release(first[0], answered=True, cost=0.01)  # the cheapest: nothing ahead of it
        limit.release(first[1], answered=True, cost=0.05)
        assert limit.decreases == 0
        a, b = await limit.acquire(), await limit.acquire()
        limit.release(a, answered=True, cost=0.01)
        limit.release(b, answered=True, cost=0.05)  # one ahead of it and five times the cost: served one at a time
        return limit.limit, limit.decreases

    assert asyncio.run(scenario()) == (1.0, 1)


def test_replies_slowed_by_the_client_itself_leave_the_limit_alone() -> None:
    # 32 in flight on a busy client: the k-th reply of a window comes back at up to three times the cheapest (the
    # client reads them one after another), which a server serving one at a time would make 32 times;
    # (ahead + 1) x cheapest / cost says ~11 or more served at once, not one.
    async def scenario() -> tuple[float, int]:
        limit = InFlightLimit(32, timeout_s=10.0)
        for _ in range(4):  # four full windows
            tickets = [await limit.acquire() for _ in range(32)]
            for k, ticket in enumerate(tickets):
                limit.release(ticket, answered=True, cost=0.01 * (1 + k / 16))
        return limit.limit, limit.decreases

    assert asyncio.run(asyncio.wait_for(scenario(), 10)) == (32.0, 0)


def test_a_queued_request_s_deadline_starts_at_its_turn() -> None:
    async def scenario() -> None:
        limit = InFlightLimit(4, timeout_s=10.0)  # slots unknown: taken as one, the worst case
        first, second = await limit.acquire(), await limit.acquire()
        assert first.turn == first.sent and limit.deadline(first) == first.sent + 10.0  # nothing ahead of it
        assert second.turn is None and limit.deadline(second) == second.sent + 10.0  # behind `first`, no answer yet
        await asyncio.sleep(0.01)
        limit.release(first, answered=True, cost=0.01)  # `first` answered: `second`'s turn comes now
        assert second.turn is not None and second.turn > second.sent
        assert limit.deadline(second) == second.turn + 10.0

    asyncio.run(scenario())


def test_off_this_network_only_timeouts_and_429_lower_the_limit() -> None:
    async def scenario() -> list[float]:
        limit = InFlightLimit(8, timeout_s=10.0, watch_latency=False)  # a hosted API: its latency varies anyway
        cheap = await limit.acquire()
        limit.release(cheap, answered=True, cost=0.01)
        a, b = await limit.acquire(), await limit.acquire()
        limit.release(a, answered=True, cost=0.01)
        limit.release(b, answered=True, cost=0.05)  # five times the cost with one ahead: ignored here
        seen = [limit.limit]
        c = await limit.acquire()
        limit.release(c, answered=True, overloaded=True)  # a 429
        seen.append(limit.limit)
        return seen

    assert asyncio.run(scenario()) == [8.0, 4.0]


@pytest.mark.parametrize(
    ("url", "local"),
    [
        ("http://127.0.0.1:8080/v1", True),
        ("http://localhost:11434/v1", True),
        ("http://10.0.3.7:8000/v1", True),
        ("http://192.168.1.20:30000", True),
        ("http://[::1]:8000/v1", True),
        ("http://gpu-node-3:8000/v1", True),
        ("http://vllm.internal:8000/v1", True),
        ("https://api.openai.com/v1", False),
        ("https://api.together.xyz/v1", False),
        ("http://8.8.8.8/v1", False),
    ],
)
def test_local_hosts(url: str, local: bool) -> None:
    assert is_local_host(url) is local
