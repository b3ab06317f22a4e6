"""Pre-flight against a busy one-slot server: llama-cpp-python's answers ``/v1/models`` only between completions,
but serves ``/openapi.json`` at once; a server that does that is up, and the run must not be refused."""

from __future__ import annotations

import asyncio
import time

import pytest

from mindloop.errors import ModelUnavailableError
from mindloop.models import fake_server, openai_compat
from mindloop.models.base import ModelOptions
from mindloop.models.fake_server import FakeChatServer
from mindloop.models.openai_compat import OpenAIChatModel


@pytest.fixture
def busy_models(monkeypatch: pytest.MonkeyPatch) -> None:
    """``GET /v1/models`` waits 3 s (a completion holds the server's lock); other routes answer at once; the
    pre-flight takes 1 s in all (``/openapi.json`` asked after half of it)."""
    answer = fake_server._Handler.do_GET

    def slow_models(self: fake_server._Handler) -> None:
        if self.path.rstrip("/") == "/v1/models":
            time.sleep(3.0)
        answer(self)

    monkeypatch.setattr(fake_server._Handler, "do_GET", slow_models)
    monkeypatch.setattr(openai_compat, "PREFLIGHT_S", 1.0)


@pytest.mark.usefixtures("busy_models")
def test_a_busy_server_that_serves_its_openapi_page_passes() -> None:
    title = "\N{LLAMA} llama.cpp Python API"
    with FakeChatServer(slots=1, openapi_title=title) as server:
        model = OpenAIChatModel("m", ModelOptions(base_url=server.base_url, timeout_s=30))
        asyncio.run(model.check_endpoint())
        assert "/openapi.json" in server.gets


@pytest.mark.usefixtures("busy_models")
def test_a_server_that_answers_nothing_in_time_is_refused_in_one_line() -> None:
    with FakeChatServer() as server:  # no /openapi.json: nothing says the server is merely busy
        model = OpenAIChatModel("m", ModelOptions(base_url=server.base_url, timeout_s=30))
        with pytest.raises(ModelUnavailableError, match=r"pre-flight: no answer from .*/v1/models within 1 s"):
            asyncio.run(model.check_endpoint())
