"""The SQLite response cache: keys, modes, hits and misses, and sharing across instances, threads and processes."""

from __future__ import annotations

import asyncio
import os
import subprocess
import sys
import textwrap
import threading
from collections.abc import Sequence
from pathlib import Path

import pytest

from mindloop.errors import InvalidArgumentError, ModelError
from mindloop.models import ChatModel, Completion, GenerationConfig, Message, message
from mindloop.models.cache import CachedChatModel, ResponseCache, cache_key

HELLO = [message("user", "hello")]
REPO = Path(__file__).resolve().parents[2]


class CountingModel:
    """A model that answers ``reply #N`` and counts its calls, so a hit is visible as a call not made."""

    def __init__(self, name: str = "test/counting", fail: bool = False) -> None:
        self._name = name
        self.calls = 0
        self.fail = fail

    @property
    def name(self) -> str:
        return self._name

    async def generate(self, messages: Sequence[Message], config: GenerationConfig | None = None) -> Completion:
        self.calls += 1
        if self.fail:
            raise ModelError("down", model=self._name, attempts=1)
        return Completion(f"reply #{self.calls}", prompt_tokens=7, completion_tokens=3, latency_s=1.5, model=self.name)

    async def aclose(self) -> None:
        pass


def _run(model: ChatModel, messages: Sequence[Message] = HELLO, config: GenerationConfig | None = None) -> Completion:
    return asyncio.run(model.generate(messages, config or GenerationConfig()))


def test_second_identical_call_is_a_hit(tmp_path: Path) -> None:
    inner = CountingModel()
    ticks = iter([10.0, 20.0, 20.125])  # an injected clock, read as each lookup starts and as a hit returns
    model = CachedChatModel(inner, ResponseCache(tmp_path / "c.sqlite"), clock=lambda: next(ticks))
    assert isinstance(model, ChatModel) and model.name == "test/counting"
    first, second = _run(model), _run(model)
    assert inner.calls == 1
    assert (first.cached, second.cached) == (False, True)
    assert second.text == first.text == "reply #1"
    assert (second.prompt_tokens, second.completion_tokens, second.model) == (7, 3, "test/counting")
    assert first.latency_s == 1.5  # a miss keeps the model's own latency
    assert second.latency_s == 0.125  # a hit reports its lookup time (20.125 - 20.0), not the stored call's
    assert (model.hits, model.misses) == (1, 1)


def test_auto_mode_skips_sampled_calls_and_on_mode_caches_them(tmp_path: Path) -> None:
    cache = ResponseCache(tmp_path / "c.sqlite")
    sampled = GenerationConfig(temperature=0.7)
    inner = CountingModel()
    auto = CachedChatModel(inner, cache, mode="auto")
    assert [_run(auto, config=sampled).text for _ in range(2)] == ["reply #1", "reply #2"]
    assert (auto.hits, auto.misses, len(cache)) == (0, 0, 0)
    on = CachedChatModel(inner, cache, mode="on")
    assert [_run(on, config=sampled).cached for _ in range(2)] == [False, True]
    off = CachedChatModel(inner, cache, mode="off")
    assert [_run(off).cached for _ in range(2)] == [False, False]
    assert inner.calls == 5
    with pytest.raises(InvalidArgumentError, match="cache mode"):
        CachedChatModel(inner, cache, mode="always")  # type: ignore[arg-type]


def test_keys_change_with_model_messages_and_params() -> None:
    base = cache_key("openai/a", HELLO, GenerationConfig().params())
    reordered = cache_key("openai/a", [{"content": "hello", "role": "user"}], {"max_tokens": 1024, "temperature": 0.0})
    assert base == reordered
    others = {
        cache_key("openai/b", HELLO, GenerationConfig().params()),
        cache_key("openai/a", [message("user", "hello!")], GenerationConfig().params()),
        cache_key("openai/a", [message("system", "hello")], GenerationConfig().params()),
        cache_key("openai/a", HELLO, GenerationConfig(max_tokens=10).params()),
        cache_key("openai/a", HELLO, GenerationConfig(seed=1).params()),
        cache_key("openai/a", HELLO, GenerationConfig(stop=("x",)).params()),
    }
    assert base not in others and len(others) == 6


def test_different_prompts_or_params_are_misses(tmp_path: Path) -> None:
    inner = CountingModel()
    model = CachedChatModel(inner, ResponseCache(tmp_path / "c.sqlite"))
    _run(model)
    assert not _run(model, [message("user", "hello?")]).cached
    assert not _run(model, config=GenerationConfig(max_tokens=5)).cached
    assert _run(model).cached
    assert inner.calls == 3


def test_failures_are_not_stored(tmp_path: Path) -> None:
    cache = ResponseCache(tmp_path / "c.sqlite")
    with pytest.raises(ModelError):
        _run(CachedChatModel(CountingModel(fail=True), cache))
    assert len(cache) == 0


def test_two_instances_share_one_file(tmp_path: Path) -> None:
    path = tmp_path / "shared.sqlite"
    one, two = CountingModel(), CountingModel()
    _run(CachedChatModel(one, ResponseCache(path)))
    reply = _run(CachedChatModel(two, ResponseCache(str(path))))
    assert reply.cached and reply.text == "reply #1" and two.calls == 0


def test_default_path_is_under_mindloop_home() -> None:
    cache = ResponseCache()
    assert cache.path == Path(os.environ["MINDLOOP_HOME"]) / "cache.sqlite"
    cache.put("k", Completion("x"))
    assert cache.get("k") == Completion("x") and cache.get("missing") is None
    assert cache.clear() == 1 and len(cache) == 0


def test_threads_share_the_cache(tmp_path: Path) -> None:
    cache = ResponseCache(tmp_path / "c.sqlite")
    errors: list[BaseException] = []

    def work(worker: int) -> None:
        try:
            for i in range(40):
                cache.put(f"{worker}-{i}", Completion(f"{worker}:{i}"))
                assert cache.get(f"{worker}-{i}") == Completion(f"{worker}:{i}")
        except BaseException as exc:  # surfaced in the main thread below
            errors.append(exc)

    threads = [threading.Thread(target=work, args=(w,)) for w in range(6)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert errors == [] and len(cache) == 240


@pytest.mark.boundary  # one cache file, written from several processes
def test_processes_share_the_cache(tmp_path: Path) -> None:
    path = tmp_path / "c.sqlite"
    script = textwrap.dedent(
        """
        import sys
        from mindloop.models import Completion
        from mindloop.models.cache import ResponseCache
        cache = ResponseCache(sys.argv[1])
        for i in range(100):
            cache.put(f"{sys.argv[2]}-{i}", Completion(f"{sys.argv[2]}:{i}", prompt_tokens=i))
        """
    )
    env = {**os.environ, "PYTHONPATH": str(REPO / "src")}
    procs = [
        subprocess.Popen([sys.executable, "-c", script, str(path), f"p{n}"], env=env, stderr=subprocess.PIPE)
        for n in range(3)
    ]
    for proc in procs:
        _, err = proc.communicate(timeout=60)
        assert proc.returncode == 0, err.decode()
    cache = ResponseCache(path)
    assert len(cache) == 300
    assert cache.get("p2-99") == Completion("p2:99", prompt_tokens=99)
    # A model call made in another process answers the same call here.
    child = textwrap.dedent(
        """
        import asyncio, sys
        from mindloop.models import message
        from mindloop.models.cache import CachedChatModel, ResponseCache
        from mindloop.models.scripted import ScriptedChatModel
        model = CachedChatModel(ScriptedChatModel("echo"), ResponseCache(sys.argv[1]))
        assert not asyncio.run(model.generate([message("user", "hello")])).cached
        """
    )
    subprocess.run([sys.executable, "-c", child, str(path)], env=env, check=True)
    inner = CountingModel("scripted/echo")
    reply = _run(CachedChatModel(inner, ResponseCache(path)))
    assert reply.text == "hello" and reply.cached and inner.calls == 0
