"""The one async chat protocol every model backend speaks, and what a call leaves behind.

Messages use the OpenAI chat format (``{"role": ..., "content": str | [parts]}``) because every serving stack
the field uses (vLLM, SGLang, Ollama, llama.cpp server, hosted APIs) accepts it; image parts are data URLs.
A backend is chosen by a model string ``BACKEND/NAME`` (``openai/gpt-4o-mini``, ``scripted/echo``,
``llamacpp/path/to/model.gguf``) through :data:`BACKENDS`, and :func:`load_model` wraps it with the response
cache. :class:`RecordingModel` keeps every call of one sample so the run store can save its transcript.
"""

from __future__ import annotations

import asyncio
import base64
import time
from collections.abc import Callable, Mapping, Sequence
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Any
from urllib.parse import urlsplit

from mindloop.errors import InvalidArgumentError, MindloopError, ModelTimeoutError, ModelUnavailableError
from mindloop.models.chat import CacheMode, ChatModel, Completion, GenerationConfig, Message
from mindloop.registry import Registry

__all__ = [
    "BACKENDS",
    "CallRecord",
    "ChatModel",
    "Completion",
    "GenerationConfig",
    "Message",
    "ModelOptions",
    "RecordingModel",
    "TokenLedger",
    "image_part",
    "load_model",
    "message",
    "message_text",
    "preflight",
    "split_model_name",
    "text_part",
    "validate_base_url",
]


def text_part(text: str) -> dict[str, Any]:
    """A text content part."""
    return {"type": "text", "text": text}


def image_part(image: bytes | str | Path, mime: str = "image/png") -> dict[str, Any]:
    """An image content part from PNG/JPEG bytes or a file path, inlined as a base64 data URL (no upload)."""
    data = Path(image).read_bytes() if isinstance(image, str | Path) else image
    url = f"data:{mime};base64,{base64.b64encode(data).decode('ascii')}"
    return {"type": "image_url", "image_url": {"url": url}}


def message(role: str, *content: str | dict[str, Any]) -> Message:
    """A message; one string gives plain text content, anything else gives a list of parts.

    >>> message("user", "hi")
    {'role': 'user', 'content': 'hi'}
    >>> message("user", "look", {"type": "image_url", "image_url": {"url": "data:,"}})["content"][0]
    {'type': 'text', 'text': 'look'}
    """
    if role not in {"system", "user", "assistant"}:
        raise InvalidArgumentError(f"unknown message role {role!r}; use system, user or assistant")
    if len(content) == 1 and isinstance(content[0], str):
        return {"role": role, "content": content[0]}
    return {"role": role, "content": [text_part(c) if isinstance(c, str) else c for c in content]}


def message_text(msg: Message) -> str:
    """The text of a message, with image parts shown as ``[image]``."""
    content = msg.get("content", "")
    if isinstance(content, str):
        return content
    return "\n".join(p.get("text", "") if p.get("type") == "text" else "[image]" for p in content)


@dataclass(frozen=True)
class ModelOptions:
    """How to reach and wrap a backend; plain data so worker processes and Ray tasks can rebuild the model.

    ``api_key_env`` names the environment variable holding the API key (the key itself never enters a run
    record). ``cache``: ``auto`` caches temperature-0 calls, ``on`` every call, ``off`` none.
    """

    base_url: str | None = None
    api_key_env: str = "OPENAI_API_KEY"
    concurrency: int = 8
    timeout_s: float = 120.0
    max_retries: int = 5
    backoff_s: float = 0.5
    max_backoff_s: float = 30.0
    cache: CacheMode = "auto"
    cache_path: str | None = None
    extra: Mapping[str, Any] = field(default_factory=dict, hash=False)  # hashable: workers key models by options

    def __post_init__(self) -> None:
        if self.base_url is not None:
            validate_base_url(self.base_url)


def validate_base_url(url: str) -> str:
    """``url`` when it is an http(s) URL with a host; otherwise an :class:`InvalidArgumentError` naming it.

    >>> validate_base_url("http://127.0.0.1:8000/v1")
    'http://127.0.0.1:8000/v1'
    """
    try:
        parts = urlsplit(url)
        parts.port  # noqa: B018 - raises ValueError on a port that is not a number
    except ValueError as exc:
        raise InvalidArgumentError(
            f"base URL {url!r} is not a valid URL ({exc}); expected e.g. http://127.0.0.1:8000/v1"
        ) from None
    if parts.scheme not in ("http", "https") or not parts.hostname:
        raise InvalidArgumentError(
            f"base URL {url!r} is not an http(s) URL with a host; expected e.g. http://127.0.0.1:8000/v1"
        )
    return url


BackendFactory = Callable[[str, ModelOptions], ChatModel]
"""Builds a backend from the part of the model string after ``BACKEND/`` and the options."""

BACKENDS: Registry[BackendFactory] = Registry("model backend")
BACKENDS.register(
    "openai",
    "mindloop.models.openai_compat:OpenAIChatModel",
    description="any OpenAI-compatible /v1/chat/completions endpoint (vLLM, SGLang, Ollama, llama.cpp server, APIs)",
)
BACKENDS.register(
    "scripted",
    "mindloop.models.scripted:ScriptedChatModel",
    description="deterministic replies from a registered script, a reply file or a Python callable",
)
BACKENDS.register(
    "llamacpp",
    "mindloop.models.llamacpp:LlamaCppChatModel",
    description="an in-process GGUF model through llama-cpp-python (pip install 'mindloop[llm]')",
)

_UNCACHED_BACKENDS = frozenset({"scripted"})


def split_model_name(model: str) -> tuple[str, str]:
    """Split ``BACKEND/NAME`` into its two parts, with a clear error for a string that has no backend.

    >>> split_model_name("openai/meta-llama/Llama-3.1-8B-Instruct")
    ('openai', 'meta-llama/Llama-3.1-8B-Instruct')
    """
    backend, sep, rest = model.partition("/")
    if not sep or not backend or not rest:
        known = ", ".join(BACKENDS.names())
        raise InvalidArgumentError(f"model {model!r} must look like BACKEND/NAME (backends: {known})")
    return backend, rest


def load_model(model: str, options: ModelOptions | None = None) -> ChatModel:
    """Build the model named by ``model`` (``BACKEND/NAME``), wrapped in the response cache where it applies."""
    options = options or ModelOptions()
    backend, rest = split_model_name(model)
    chat = BACKENDS.get(backend)(rest, options)
    if options.cache == "off" or backend in _UNCACHED_BACKENDS:
        return chat
    from mindloop.models.cache import CachedChatModel, ResponseCache

    return CachedChatModel(chat, ResponseCache(options.cache_path), mode=options.cache)


def preflight(model: str, options: ModelOptions | None = None) -> None:
    """Check a model's endpoint before a run starts, so a wrong URL or key fails in seconds, in one line.

    Backends served over HTTP (``openai``) get one ``GET /models`` (or one tiny chat call); in-process backends
    have nothing to check. Raises :class:`~mindloop.errors.ModelError` (``ModelUnavailableError`` when nothing
    answers)."""
    options = options or ModelOptions()
    backend, rest = split_model_name(model)
    if backend != "openai":
        return
    chat = BACKENDS.get(backend)(rest, options)
    check = getattr(chat, "check_endpoint", None)
    if check is not None:
        asyncio.run(check())


@dataclass
class CallRecord:
    """One model call as the run store keeps it: the prompt, the reply or the error, tokens and latency."""

    model: str
    messages: list[Message]
    params: dict[str, Any]
    text: str | None = None
    error: str | None = None
    prompt_tokens: int = 0
    completion_tokens: int = 0
    latency_s: float = 0.0
    cached: bool = False
    role: str = "agent"
    parsed: bool | None = None
    """Whether the caller's parser read the reply (``None``: no parser looked at it; see :mod:`.replies`)."""
    reject_reason: str | None = None
    """The parser's one-line reason when it refused the reply."""
    attempt: int = 0
    """0 for the first call of a question, ``k`` for its ``k``-th format retry."""

    def to_dict(self) -> dict[str, Any]:
        """A JSON-ready dict (image data URLs are kept: the report shows them)."""
        return asdict(self)


class RecordingModel:
    """Wraps a model and keeps a :class:`CallRecord` of every call, failed ones included.

    ``calls`` is the list the records go to (several recorders, e.g. the agent's and a judge's, can share one
    ledger); ``role`` is written on each record (``agent``, ``judge``)."""

    def __init__(self, inner: ChatModel, *, calls: list[CallRecord] | None = None, role: str = "agent") -> None:
        self.inner = inner
        self.calls: list[CallRecord] = calls if calls is not None else []
        self.role = role
        self.outage = False  # whether the last call failed for an outage (unreachable endpoint, 5xx, timeout)

    @property
    def name(self) -> str:
        return self.inner.name

    async def generate(self, messages: Sequence[Message], config: GenerationConfig | None = None) -> Completion:
        return (await self.generate_recorded(messages, config))[0]

    async def generate_recorded(
        self, messages: Sequence[Message], config: GenerationConfig | None = None
    ) -> tuple[Completion, CallRecord]:
        """:meth:`generate`, also returning the call's record (so a caller can note how its reply was read)."""
        config = config or GenerationConfig()
        record = CallRecord(model=self.inner.name, messages=list(messages), params=config.params(), role=self.role)
        self.calls.append(record)
        start = time.perf_counter()
        try:
            reply = await self.inner.generate(messages, config)
        except MindloopError as exc:
            record.error = str(exc)
            record.latency_s = time.perf_counter() - start
            self.outage = isinstance(exc, ModelUnavailableError | ModelTimeoutError)
            raise
        self.outage = False
        record.text = reply.text
        record.prompt_tokens = reply.prompt_tokens
        record.completion_tokens = reply.completion_tokens
        record.latency_s = reply.latency_s
        record.cached = reply.cached
        return reply, record

    async def aclose(self) -> None:
        await self.inner.aclose()


@dataclass
class TokenLedger:
    """Totals over model calls: calls, failures, cache hits, prompt/completion tokens and latency."""

    calls: int = 0
    failed_calls: int = 0
    cache_hits: int = 0
    prompt_tokens: int = 0
    completion_tokens: int = 0
    latency_s: float = 0.0

    def add(self, call: CallRecord | Mapping[str, Any]) -> None:
        """Count one call (a record or its dict form, as read back from the run store)."""
        c = call.to_dict() if isinstance(call, CallRecord) else call
        self.calls += 1
        self.failed_calls += c.get("error") is not None
        self.cache_hits += bool(c.get("cached"))
        self.prompt_tokens += int(c.get("prompt_tokens") or 0)
        self.completion_tokens += int(c.get("completion_tokens") or 0)
        self.latency_s += float(c.get("latency_s") or 0.0)

    def to_dict(self) -> dict[str, Any]:
        """JSON-ready totals, with ``total_tokens``."""
        out = asdict(self)
        out["total_tokens"] = self.prompt_tokens + self.completion_tokens
        out["latency_s"] = round(self.latency_s, 6)
        return out
