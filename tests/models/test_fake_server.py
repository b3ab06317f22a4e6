"""The fake OpenAI-compatible server, exercised with the stdlib HTTP client (independent of mindloop's client)."""

from __future__ import annotations

import http.client
import json
import socket
import threading
import time
import urllib.error
import urllib.request
from typing import Any

import pytest

from mindloop.models.fake_server import FakeChatServer
from mindloop.models.tokens import count_tokens


def _post(server: FakeChatServer, body: Any, timeout: float = 5.0) -> tuple[int, dict[str, str], bytes]:
    data = json.dumps(body).encode() if not isinstance(body, bytes) else body
    req = urllib.request.Request(server.base_url + "/chat/completions", data=data, method="POST")
    try:
        with urllib.request.urlopen(req, timeout=timeout) as resp:
            return resp.status, dict(resp.headers), resp.read()
    except urllib.error.HTTPError as err:
        with err:
            return err.code, dict(err.headers), err.read()


CHAT = {"model": "m", "messages": [{"role": "system", "content": "be brief"}, {"role": "user", "content": "hi there"}]}


def test_echo_reply_with_usage_and_models_listing() -> None:
    with FakeChatServer(model_name="fake-1") as server:
        assert server.base_url.startswith("http://127.0.0.1:") and server.base_url.endswith("/v1")
        status, _, raw = _post(server, CHAT)
        assert status == 200
        data = json.loads(raw)
        assert data["choices"][0]["message"] == {"role": "assistant", "content": "hi there"}
        assert data["choices"][0]["finish_reason"] == "stop"
        assert data["model"] == "m"
        usage = data["usage"]
        assert usage["prompt_tokens"] == count_tokens("be brief") + count_tokens("hi there")
        assert usage["completion_tokens"] == count_tokens("hi there")
        assert usage["total_tokens"] == usage["prompt_tokens"] + usage["completion_tokens"]
        with urllib.request.urlopen(server.base_url + "/models", timeout=5) as resp:
            assert json.load(resp)["data"][0]["id"] == "fake-1"
        assert server.requests == 1
        assert server.bodies == [CHAT]
        assert server.requests_by_status == {200: 1}  # chat requests only
        assert server.gets == ["/v1/models"]


def test_reply_callable_sees_messages_and_body() -> None:
    seen: list[dict[str, Any]] = []

    def reply(messages: list[dict[str, Any]], body: dict[str, Any]) -> str:
        seen.append(body)
        return f"{len(messages)} messages, t={body.get('temperature')}"

    with FakeChatServer(reply=reply) as server:
        _, _, raw = _post(server, {**CHAT, "temperature": 0.5})
    assert json.loads(raw)["choices"][0]["message"]["content"] == "2 messages, t=0.5"
    assert seen[0]["temperature"] == 0.5


def test_fault_plan_is_consumed_in_order_then_normal() -> None:
    with FakeChatServer(faults=["429", 500, "malformed", "ok", "503"], retry_after=7) as server:
        status, headers, _ = _post(server, CHAT)
        assert status == 429 and headers["Retry-After"] == "7"
        status, headers, raw = _post(server, CHAT)
        assert status == 500 and "Retry-After" not in headers
        assert "injected fault 500" in json.loads(raw)["error"]["message"]
        status, _, raw = _post(server, CHAT)
        assert status == 200
        with pytest.raises(json.JSONDecodeError):
            json.loads(raw)
        assert _post(server, CHAT)[0] == 200
        assert _post(server, CHAT)[0] == 503
        assert server.pending_faults == ()
        assert _post(server, CHAT)[0] == 200
        assert server.requests == 6
        assert server.requests_by_status == {429: 1, 500: 1, 200: 3, 503: 1}


def test_hang_and_drop_close_without_answer() -> None:
    with FakeChatServer(faults=["hang", "drop"], hang_s=60) as server:
        with pytest.raises((socket.timeout, TimeoutError, urllib.error.URLError)) as err:
            _post(server, CHAT, timeout=0.2)
        assert isinstance(err.value, TimeoutError) or isinstance(getattr(err.value, "reason", None), TimeoutError)
        assert server.in_flight == 1  # the client gave up while the server still holds the hung request
        with pytest.raises((http.client.RemoteDisconnected, ConnectionError, urllib.error.URLError)):
            _post(server, CHAT)
        assert _post(server, CHAT)[0] == 200


def test_bad_requests_and_unknown_faults() -> None:
    with pytest.raises(ValueError, match="unknown fault"):
        FakeChatServer(faults=["explode"])
    with FakeChatServer() as server:
        status, _, raw = _post(server, b"{not json")
        assert status == 400 and "invalid chat request" in json.loads(raw)["error"]["message"]
        req = urllib.request.Request(server.base_url + "/completions", data=b"{}", method="POST")
        with pytest.raises(urllib.error.HTTPError) as err:
            urllib.request.urlopen(req, timeout=5)
        assert err.value.code == 404
        err.value.close()


def test_broken_reply_function_answers_500() -> None:
    def reply(messages: list[dict[str, Any]], body: dict[str, Any]) -> str:
        raise RuntimeError("boom")

    with FakeChatServer(reply=reply) as server:
        status, _, raw = _post(server, CHAT)
    assert status == 500 and "boom" in json.loads(raw)["error"]["message"]


def test_concurrent_requests_are_served_in_parallel_and_counted() -> None:
    # Each reply waits until all 8 requests are inside the server: serial handling breaks the barrier (HTTP 500).
    barrier = threading.Barrier(8, timeout=30)  # the timeout only keeps a broken server from hanging the suite

    def reply(messages: list[dict[str, Any]], body: dict[str, Any]) -> str:
        barrier.wait()
        return "together"

    with FakeChatServer(reply=reply) as server:
        results: list[int] = []
        threads = [
            threading.Thread(target=lambda: results.append(_post(server, CHAT, timeout=60)[0])) for _ in range(8)
        ]
        for t in threads:
            t.start()
        for t in threads:
            t.join()
    assert results == [200] * 8
    assert server.max_in_flight == 8 and server.in_flight == 0


def test_stop_is_prompt_with_a_hung_request_and_frees_threads() -> None:
    before = threading.active_count()
    server = FakeChatServer(faults=["hang"], hang_s=60).start()
    errors: list[BaseException] = []

    def call() -> None:
        try:
            _post(server, CHAT, timeout=30)
        except (OSError, http.client.HTTPException) as exc:
            errors.append(exc)

    client = threading.Thread(target=call, daemon=True)
    client.start()
    deadline = time.monotonic() + 5  # only so a broken server cannot hang the suite
    while server.in_flight == 0 and time.monotonic() < deadline:
        time.sleep(0.01)
    assert server.in_flight == 1
    server.stop()
    client.join(timeout=5)  # the hang lasts 60 s: an answer before then can only come from stop()
    assert not client.is_alive() and len(errors) == 1  # the connection was closed with no answer
    deadline = time.monotonic() + 5  # waits for the woken handler thread to finish; times nothing
    while (server.in_flight or threading.active_count() > before) and time.monotonic() < deadline:
        time.sleep(0.01)
    assert server.in_flight == 0 and threading.active_count() <= before
    with pytest.raises(RuntimeError, match="not started"):
        _ = server.base_url


def test_one_slot_serves_one_at_a_time_and_queues_the_rest() -> None:
    with FakeChatServer(slots=1, latency_s=0.05) as server:
        results: list[int] = []
        threads = [
            threading.Thread(target=lambda: results.append(_post(server, CHAT, timeout=30)[0])) for _ in range(4)
        ]
        for t in threads:
            t.start()
        for t in threads:
            t.join()
        assert results == [200] * 4
        assert server.wait_idle()  # each client has its reply before the server counts its request out
        assert server.max_serving == 1 and server.requests == 4 and server.abandoned == 0
        assert server.in_flight == 0 and server.serving == 0


def test_a_queued_request_whose_client_left_is_dropped_unserved() -> None:
    served: list[str] = []
    release = threading.Event()

    def reply(messages: list[dict[str, Any]], body: dict[str, Any]) -> str:
        served.append(messages[-1]["content"])
        release.wait(10)  # holds the one slot until the second client has given up; bounded so nothing hangs
        return "done"

    with FakeChatServer(reply, slots=1) as server:
        first = threading.Thread(target=lambda: _post(server, {**CHAT, "messages": [{"role": "user", "content": "a"}]}))
        first.start()
        deadline = time.monotonic() + 5  # waits for the first request to hold the slot; times nothing
        while server.serving == 0 and time.monotonic() < deadline:
            time.sleep(0.01)
        with pytest.raises((TimeoutError, urllib.error.URLError)):
            _post(server, {**CHAT, "messages": [{"role": "user", "content": "b"}]}, timeout=0.2)
        release.set()
        first.join()
        assert server.wait_idle()
        assert server.requests == 2 and server.abandoned == 1
    assert served == ["a"]  # the abandoned request never reached the reply function


def test_advertised_slots_answer_like_llama_cpp_and_openapi_like_llama_cpp_python() -> None:
    def get(server: FakeChatServer, path: str) -> Any:
        root = server.base_url.removesuffix("/v1")
        with urllib.request.urlopen(root + path, timeout=5) as resp:
            return json.load(resp)

    with FakeChatServer(slots=2, advertise_slots=True, n_ctx=8192) as server:
        props = get(server, "/props")
        assert props["total_slots"] == 2 and props["default_generation_settings"]["n_ctx"] == 8192
        assert [s["id"] for s in get(server, "/slots")] == [0, 1]
        with pytest.raises(urllib.error.HTTPError) as err:
            get(server, "/openapi.json")
        assert err.value.code == 404
        err.value.close()
        assert server.gets == ["/props", "/slots", "/openapi.json"]
        assert server.requests_by_status == {}  # GETs are not chat requests
    with FakeChatServer(openapi_title="llama.cpp Python API") as server:
        assert get(server, "/openapi.json")["info"]["title"] == "llama.cpp Python API"
        with pytest.raises(urllib.error.HTTPError) as err:
            get(server, "/props")
        assert err.value.code == 404
        err.value.close()


def test_slot_arguments_are_checked() -> None:
    with pytest.raises(ValueError, match="slots must be at least 1"):
        FakeChatServer(slots=0)
    with pytest.raises(ValueError, match="advertise_slots needs slots"):
        FakeChatServer(advertise_slots=True)
