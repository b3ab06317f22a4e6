"""The llamacpp backend with llama-cpp-python absent, and with a stand-in ``llama_cpp`` module so its code runs."""

from __future__ import annotations

import asyncio
import sys
import threading
import time
import types
from pathlib import Path
from typing import Any

import pytest

from mindloop.errors import DependencyError, InvalidArgumentError, ModelError, ModelResponseError
from mindloop.models import GenerationConfig, ModelOptions, load_model, message
from mindloop.models.base import preflight
from mindloop.models.llamacpp import LlamaCppChatModel
from mindloop.models.tokens import count_tokens


class FakeLlama:
    """Records how it was built and called; answers like ``Llama.create_chat_completion``."""

    instances: list[FakeLlama] = []  # noqa: RUF012 - test bookkeeping

    def __init__(self, **kwargs: Any) -> None:
        self.kwargs = kwargs
        self.calls: list[dict[str, Any]] = []
        self.active = 0
        self.max_active = 0
        self.closed = False
        self.reply: Any = None
        self._count = threading.Lock()
        FakeLlama.instances.append(self)

    def create_chat_completion(self, messages: list[dict[str, Any]], **params: Any) -> Any:
        with self._count:
            self.active += 1
            self.max_active = max(self.max_active, self.active)
        time.sleep(0.02)
        with self._count:
            self.active -= 1
        self.calls.append({"messages": messages, **params})
        if self.reply is not None:
            return self.reply(messages, params)
        answer = {"role": "assistant", "content": "ok: " + messages[-1]["content"]}
        return {
            "choices": [{"message": answer, "finish_reason": "stop"}],
            "usage": {"prompt_tokens": 11, "completion_tokens": 2, "total_tokens": 13},
        }

    def close(self) -> None:
        self.closed = True


@pytest.fixture
def fake_llama(monkeypatch: pytest.MonkeyPatch) -> type[FakeLlama]:
    module = types.ModuleType("llama_cpp")
    module.Llama = FakeLlama  # type: ignore[attr-defined]
    monkeypatch.setitem(sys.modules, "llama_cpp", module)
    FakeLlama.instances = []
    return FakeLlama


@pytest.fixture
def gguf(tmp_path: Path) -> Path:
    path = tmp_path / "tiny.gguf"
    path.write_bytes(b"GGUF")
    return path


def test_missing_package_names_the_extra(monkeypatch: pytest.MonkeyPatch, gguf: Path) -> None:
    monkeypatch.setitem(sys.modules, "llama_cpp", None)  # makes `import llama_cpp` fail
    with pytest.raises(DependencyError, match=r"pip install 'mindloop\[llm\]'"):
        load_model(f"llamacpp/{gguf}", ModelOptions(cache="off"))


def test_missing_file(fake_llama: type[FakeLlama], tmp_path: Path) -> None:
    with pytest.raises(InvalidArgumentError, match=r"llamacpp model file .*nope\.gguf.* does not exist"):
        LlamaCppChatModel(str(tmp_path / "nope.gguf"), ModelOptions())
    assert fake_llama.instances == []


def test_preflight_names_the_extra_and_the_missing_file_in_one_line(
    monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    monkeypatch.setitem(sys.modules, "llama_cpp", None)  # not installed
    with pytest.raises(DependencyError) as caught:
        preflight(f"llamacpp/{tmp_path}/none.gguf", ModelOptions())
    message = str(caught.value)
    assert message.startswith("the llamacpp backend needs llama-cpp-python: pip install 'mindloop[llm]'")
    where = tmp_path / "none.gguf"
    assert message.endswith(f"; and llamacpp model file '{where}' does not exist (resolved to {where})")
    assert "\n" not in message


def test_preflight_with_the_package_checks_the_file_without_loading_it(
    fake_llama: type[FakeLlama], gguf: Path, tmp_path: Path
) -> None:
    with pytest.raises(InvalidArgumentError, match=r"^llamacpp model file .* is a folder, not a file"):
        preflight(f"llamacpp/{tmp_path}", ModelOptions())
    with pytest.raises(InvalidArgumentError, match=r"^llamacpp model file .*nope\.gguf.* does not exist"):
        preflight(f"llamacpp/{tmp_path}/nope.gguf", ModelOptions())
    with pytest.raises(InvalidArgumentError, match=r"llamacpp option n_ctx='big'"):
        preflight(f"llamacpp/{gguf}", ModelOptions(extra={"n_ctx": "big"}))
    preflight(f"llamacpp/{gguf}", ModelOptions(extra={"n_ctx": 2048}))  # all is well
    assert fake_llama.instances == []  # nothing was loaded


def test_generate_through_the_adapter(fake_llama: type[FakeLlama], gguf: Path) -> None:
    options = ModelOptions(cache="off", extra={"n_ctx": 512, "seed": 9, "n_gpu_layers": 0})
    model = load_model(f"llamacpp/{gguf}", options)
    assert model.name == f"llamacpp/{gguf}"
    config = GenerationConfig(temperature=0.0, max_tokens=32, stop=("</s>",), seed=4)
    reply = asyncio.run(model.generate([message("system", "s"), message("user", "hi")], config))
    (llm,) = fake_llama.instances
    assert llm.kwargs == {"model_path": str(gguf), "n_ctx": 512, "seed": 9, "verbose": False, "n_gpu_layers": 0}
    assert llm.calls[0] == {
        "messages": [message("system", "s"), message("user", "hi")],
        "temperature": 0.0,
        "max_tokens": 32,
        "stop": ["</s>"],
        "seed": 4,
        # llama-cpp-python's server defaults for what the request leaves unset (its llama_cpp/server/types.py)
        "top_p": 0.95,
        "top_k": 40,
        "min_p": 0.05,
        "repeat_penalty": 1.1,
    }
    assert (reply.text, reply.prompt_tokens, reply.completion_tokens) == ("ok: hi", 11, 2)
    assert reply.model == model.name and reply.finish_reason == "stop" and reply.latency_s > 0
    asyncio.run(model.aclose())
    assert llm.closed


def test_calls_are_serialised_and_usage_estimated(fake_llama: type[FakeLlama], gguf: Path) -> None:
    model = LlamaCppChatModel(str(gguf), ModelOptions())
    llm = fake_llama.instances[0]
    assert llm.kwargs["n_ctx"] == 4096 and llm.kwargs["seed"] == 0
    llm.reply = lambda messages, params: {"choices": [{"message": {"content": "a b c"}, "finish_reason": "length"}]}

    async def many() -> list[Any]:
        return await asyncio.gather(*(model.generate([message("user", f"q {i}")]) for i in range(5)))

    replies = asyncio.run(many())
    assert llm.max_active == 1  # the lock keeps the non-thread-safe Llama to one call at a time
    assert [r.completion_tokens for r in replies] == [count_tokens("a b c")] * 5
    assert replies[0].prompt_tokens == count_tokens("q 0") and replies[0].finish_reason == "length"


def test_errors_become_model_errors(fake_llama: type[FakeLlama], gguf: Path) -> None:
    model = LlamaCppChatModel(str(gguf), ModelOptions())
    llm = fake_llama.instances[0]

    def too_long(messages: Any, params: Any) -> Any:
        raise ValueError("Requested tokens (5000) exceed context window of 4096")

    llm.reply = too_long
    with pytest.raises(ModelError, match="exceed context window"):
        asyncio.run(model.generate([message("user", "x")]))
    llm.reply = lambda messages, params: {"choices": []}
    with pytest.raises(ModelResponseError, match="unexpected completion shape"):
        asyncio.run(model.generate([message("user", "x")]))
    llm.reply = lambda messages, params: {"choices": [{"message": {"content": None}}]}
    with pytest.raises(ModelResponseError, match="no text content"):
        asyncio.run(model.generate([message("user", "x")]))
    asyncio.run(model.aclose())
    with pytest.raises(ModelError, match="closed"):
        asyncio.run(model.generate([message("user", "x")]))


def test_a_set_top_p_wins_over_the_server_default(fake_llama: type[FakeLlama], gguf: Path) -> None:
    model = LlamaCppChatModel(str(gguf), ModelOptions())
    asyncio.run(model.generate([message("user", "x")], GenerationConfig(top_p=0.5)))
    call = fake_llama.instances[0].calls[0]
    assert call["top_p"] == 0.5 and call["repeat_penalty"] == 1.1


def test_options_are_checked_before_loading(fake_llama: type[FakeLlama], gguf: Path) -> None:
    for bad, expected in [
        ({"n_ctx": 0}, r"n_ctx=0: expected a whole number of at least 1"),
        ({"n_threads": "many"}, r"n_threads='many': expected a whole number"),
        ({"n_gpu_layers": -2}, r"n_gpu_layers=-2: expected a whole number of at least -1"),
        ({"n_ctx": 512.5}, r"n_ctx=512.5"),
    ]:
        with pytest.raises(InvalidArgumentError, match=expected):
            LlamaCppChatModel(str(gguf), ModelOptions(extra=bad))
    assert fake_llama.instances == []
    LlamaCppChatModel(str(gguf), ModelOptions(extra={"n_ctx": "2048", "n_gpu_layers": -1, "retry_seed": 3}))
    assert fake_llama.instances[0].kwargs["n_ctx"] == 2048 and fake_llama.instances[0].kwargs["n_gpu_layers"] == -1


def test_chat_format_is_passed_on_and_an_unknown_one_is_refused(
    fake_llama: type[FakeLlama], gguf: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    class Registry:
        _chat_handlers = {"chatml": object(), "llama-2": object(), "mistral-instruct": object()}  # noqa: RUF012

    formats = types.ModuleType("llama_cpp.llama_chat_format")
    formats.LlamaChatCompletionHandlerRegistry = Registry  # type: ignore[attr-defined]
    monkeypatch.setattr(sys.modules["llama_cpp"], "llama_chat_format", formats, raising=False)
    with pytest.raises(InvalidArgumentError, match=r"unknown llamacpp chat_format 'chatm'; did you mean 'chatml'\?"):
        LlamaCppChatModel(str(gguf), ModelOptions(extra={"chat_format": "chatm"}))
    assert fake_llama.instances == []  # refused before the model loads
    LlamaCppChatModel(str(gguf), ModelOptions(extra={"chat_format": "chatml"}))
    assert fake_llama.instances[0].kwargs["chat_format"] == "chatml"
