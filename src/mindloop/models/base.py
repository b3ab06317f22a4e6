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
import concurrent.futures
import os
import re
import time
from collections.abc import Awaitable, Callable, Mapping, Sequence
from dataclasses import asdict, dataclass, field, replace
from pathlib import Path
from typing import Any, TypeVar, get_args
from urllib.parse import parse_qsl, quote, quote_plus, urlencode, urlsplit, urlunsplit

from mindloop.errors import InvalidArgumentError, MindloopError, ModelTimeoutError, ModelUnavailableError
from mindloop.models.chat import (
    CacheMode,
    ChatModel,
    Completion,
    GenerationConfig,
    Message,
    check_number,
    check_whole,
    storable_text,
)
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
    "api_key",
    "endpoint_id",
    "image_part",
    "load_model",
    "message",
    "message_text",
    "preflight",
    "redact_secret",
    "redact_url",
    "run_sync",
    "split_model_name",
    "storable_text",
    "text_part",
    "validate_base_url",
]


T = TypeVar("T")


def run_sync(awaitable: Awaitable[T]) -> T:
    """Run ``awaitable`` to completion from synchronous code, on a worker thread when this thread already runs an
    event loop (``asyncio.run`` cannot nest: a TRL reward called from async code, a policy scored inside a run)."""

    async def main() -> T:
        return await awaitable

    try:
        asyncio.get_running_loop()
    except RuntimeError:
        return asyncio.run(main())
    with concurrent.futures.ThreadPoolExecutor(max_workers=1) as pool:
        return pool.submit(asyncio.run, main()).result()


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
    if not isinstance(role, str) or role not in {"system", "user", "assistant"}:
        raise InvalidArgumentError(f"unknown message role {role!r}; use system, user or assistant")
    if not content:
        raise InvalidArgumentError(f"message({role!r}) has no content; give a string or content parts")
    for part in content:
        if not isinstance(part, str | dict):
            raise InvalidArgumentError(
                f"message content must be strings or content-part dicts, got {type(part).__name__} {part!r:.60}"
            )
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
            if not isinstance(self.base_url, str):
                raise InvalidArgumentError(
                    f"base_url must be a URL string (http://127.0.0.1:8000/v1), got {type(self.base_url).__name__}"
                )
            validate_base_url(self.base_url)
        if not isinstance(self.api_key_env, str) or not self.api_key_env:
            raise InvalidArgumentError(f"api_key_env must name an environment variable, got {self.api_key_env!r:.40}")
        check_whole("concurrency", self.concurrency, low=1)
        check_whole("max_retries", self.max_retries, low=0)
        if check_number("timeout_s", self.timeout_s, low=0.0) <= 0:
            raise InvalidArgumentError(f"timeout_s must be positive, got {self.timeout_s}")
        if min(check_number("backoff_s", self.backoff_s), check_number("max_backoff_s", self.max_backoff_s)) < 0:
            raise InvalidArgumentError(
                f"backoff_s and max_backoff_s must be 0 or more, got {self.backoff_s} and {self.max_backoff_s}"
            )
        if self.cache not in get_args(CacheMode):
            raise InvalidArgumentError(f"cache must be one of {', '.join(get_args(CacheMode))}, got {self.cache!r:.40}")
        if self.cache_path is not None:
            if not isinstance(self.cache_path, str | os.PathLike):
                raise InvalidArgumentError(f"cache_path must be a file path, got {type(self.cache_path).__name__}")
            where = Path(self.cache_path).expanduser()
            if where.is_dir() or str(self.cache_path).endswith(("/", os.sep)):
                raise InvalidArgumentError(f"cache_path {str(self.cache_path)!r} is a folder; name a file in it")
        if not isinstance(self.extra, Mapping):
            raise InvalidArgumentError(f"extra must be a mapping of backend options, got {type(self.extra).__name__}")


_SECRET_PARAM = re.compile(r"(?i)(key|token|secret|passw|auth|sig|credential|session)")
"""Query parameters whose value is a credential (``api_key``, ``access_token``, ``sig``...)."""


def redact_url(url: str) -> str:
    """``url`` fit to print or store: any ``user:password@`` and the values of credential-like query parameters
    replaced by ``***``.

    >>> redact_url("http://me:sk-1@host:8000/v1?api_key=sk-2&x=1")
    'http://***@host:8000/v1?api_key=***&x=1'
    """
    try:
        parts = urlsplit(url)
    except ValueError:
        return "<an unparsable URL>"
    pairs = parse_qsl(parts.query, keep_blank_values=True)
    secret_query = any(_SECRET_PARAM.search(k) for k, _ in pairs)
    if "@" not in parts.netloc and not secret_query:
        return url  # nothing to hide: the URL exactly as given
    netloc = "***@" + parts.netloc.rpartition("@")[2] if "@" in parts.netloc else parts.netloc
    query = parts.query
    if secret_query:
        query = urlencode([(k, "***" if _SECRET_PARAM.search(k) else v) for k, v in pairs], safe="*")
    return urlunsplit((parts.scheme, netloc, parts.path, query, parts.fragment))


def validate_base_url(url: str, *, name: str = "base URL") -> str:
    """``url`` when it is an http(s) URL with a host and no credentials in it; otherwise an
    :class:`InvalidArgumentError` naming it (credentials never shown: a key belongs in an environment variable).

    >>> validate_base_url("http://127.0.0.1:8000/v1")
    'http://127.0.0.1:8000/v1'
    """
    shown = redact_url(url)
    try:
        parts = urlsplit(url)
        parts.port  # noqa: B018 - raises ValueError on a port that is not a number
    except ValueError as exc:
        detail = str(exc) if shown == url else "bad port or host"
        raise InvalidArgumentError(
            f"{name} {shown!r} is not a valid URL ({detail}); expected e.g. http://127.0.0.1:8000/v1"
        ) from None
    if parts.scheme not in ("http", "https") or not parts.hostname:
        raise InvalidArgumentError(
            f"{name} {shown!r} is not an http(s) URL with a host; expected e.g. http://127.0.0.1:8000/v1"
        )
    if shown != url:
        raise InvalidArgumentError(
            f"{name} {shown!r} carries credentials (user:password@ or a key in the query); they would be stored "
            "with the run: give the URL without them and put the key in the environment variable --api-key-env "
            "names (OPENAI_API_KEY by default)"
        )
    return url


def endpoint_id(url: str) -> str:
    """``url`` normalised, so two spellings of one endpoint are one cache scope: scheme and host lower-cased, the
    default port and trailing slashes dropped, credentials removed.

    >>> endpoint_id("HTTP://LocalHost:80/v1/")
    'http://localhost/v1'
    """
    url = redact_url(url.strip())
    parts = urlsplit(url)
    host = (parts.hostname or "").lower()
    if ":" in host:  # an IPv6 literal
        host = f"[{host}]"
    try:
        port = parts.port
    except ValueError:
        port = None
    default = {"http": 80, "https": 443}.get(parts.scheme.lower())
    netloc = host if port is None or port == default else f"{host}:{port}"
    return urlunsplit((parts.scheme.lower(), netloc, parts.path.rstrip("/"), parts.query, ""))


_HEADER_SAFE = re.compile(r"[!-~]+")
"""Visible ASCII: what an ``Authorization`` header value may hold."""


def api_key(env_name: str) -> str | None:
    """The API key in the environment variable ``env_name`` (``None`` when unset or blank), stripped of
    surrounding whitespace (a key read from a CRLF file ends in ``\\r``). A key with characters no HTTP header may
    carry is an :class:`InvalidArgumentError` naming the variable, never the key."""
    raw = os.environ.get(env_name)
    if raw is None:
        return None
    key = raw.strip()
    if not key:
        return None
    if not _HEADER_SAFE.fullmatch(key):
        bad = next(i for i, ch in enumerate(key) if not _HEADER_SAFE.fullmatch(ch))
        what = "non-ASCII" if ord(key[bad]) > 127 else "a space or control character"
        raise InvalidArgumentError(
            f"the API key in ${env_name} holds a character an HTTP header cannot carry (at position {bad + 1} of "
            f"{len(key)}: {what}); check how the variable was set"
        )
    return key


_SECRET_MIN = 8
"""The shortest form of a key that :func:`redact_secret` looks for (a shorter one would cut words out of text)."""


def redact_secret(text: str, secret: str | None) -> str:
    """``text`` (a server's error or reply) with ``secret`` (the API key) and its URL- and base64-encoded forms
    replaced by ``***``: some servers and proxies echo the key they were sent. A base64 form is found wherever the
    key sits in the encoded bytes (``Basic`` credentials, a token that embeds it); forms shorter than 8 characters
    are left alone.

    >>> redact_secret("401: bad key sk-abcdef123 (Basic OnNrLWFiY2RlZjEyMw==)", "sk-abcdef123")
    '401: bad key *** (Basic OnNr***Mw==)'
    """
    if not secret:
        return text
    raw = secret.encode()
    forms = {secret, quote(secret, safe=""), quote_plus(secret)}
    for shift in range(3):  # the whole 3-byte groups of the key at each alignment in a longer encoded text
        part = raw[shift:]
        part = part[: len(part) - len(part) % 3]
        forms |= {base64.b64encode(part).decode(), base64.urlsafe_b64encode(part).decode()}
    for form in sorted((f for f in forms if len(f) >= _SECRET_MIN), key=len, reverse=True):
        text = text.replace(form, "***")
    return text


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
    if not isinstance(model, str):
        raise InvalidArgumentError(f"model must be a string BACKEND/NAME (e.g. openai/gpt-4o-mini), got {model!r:.40}")
    backend, sep, rest = model.partition("/")
    if not sep or not backend or not rest:
        known = ", ".join(BACKENDS.names())
        raise InvalidArgumentError(f"model {model!r} must look like BACKEND/NAME (backends: {known})")
    return backend, rest


def load_model(model: str, options: ModelOptions | None = None) -> ChatModel:
    """Build the model named by ``model`` (``BACKEND/NAME``), wrapped in the response cache where it applies."""
    options = _options(options)
    backend, rest = split_model_name(model)
    chat = BACKENDS.get(backend)(rest, options)
    if options.cache == "off" or backend in _UNCACHED_BACKENDS:
        return chat
    from mindloop.models.cache import CachedChatModel, ResponseCache

    cache = ResponseCache.open(options.cache_path)  # None: unusable, with one warning; the run goes on uncached
    return chat if cache is None else CachedChatModel(chat, cache, mode=options.cache)


def _options(options: ModelOptions | None) -> ModelOptions:
    if options is None:
        return ModelOptions()
    if not isinstance(options, ModelOptions):
        raise InvalidArgumentError(f"options must be a ModelOptions, got {type(options).__name__}")
    return options


def preflight(model: str, options: ModelOptions | None = None) -> None:
    """Check a model's set-up before a run starts, so a wrong URL, key, file or install fails in seconds, in one
    line, before a run is recorded.

    The check is the backend's own: its factory's ``preflight(name, options)`` when it has one (a plug-in backend
    may define it too). ``openai`` sends one ``GET /models`` (or one tiny chat call); ``scripted`` builds itself, so
    an unknown script or a malformed reply file fails here; ``llamacpp`` checks that llama-cpp-python is installed
    and that the GGUF file exists, without loading it. A factory without one has nothing to check. Raises the
    backend's error: :class:`~mindloop.errors.ModelError` (``ModelUnavailableError`` when nothing answers),
    :class:`~mindloop.errors.DependencyError` naming the extra to install, or
    :class:`~mindloop.errors.InvalidArgumentError` naming the file."""
    options = _options(options)
    backend, rest = split_model_name(model)
    check = getattr(BACKENDS.get(backend), "preflight", None)
    if callable(check):
        check(rest, options)


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
    finish_reason: str | None = None
    """Why the server stopped (``stop``; ``length``: cut at ``max_tokens``), ``None`` when it did not say."""
    replaced: int = 0
    """Code points of the reply that could not be stored (lone surrogates) and were replaced by U+FFFD."""

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
            record.error = storable_text(str(exc))[0]
            record.latency_s = time.perf_counter() - start
            self.outage = isinstance(exc, ModelUnavailableError | ModelTimeoutError)
            raise
        self.outage = False
        text, replaced = storable_text(reply.text) if isinstance(reply.text, str) else (str(reply.text), 0)
        if replaced:  # a backend that did not clean its text at its boundary: cleaned here, before anything stores it
            reply = replace(reply, text=text, replaced=reply.replaced + replaced)
        for name in ("text", "replaced", "finish_reason", "prompt_tokens", "completion_tokens", "latency_s", "cached"):
            setattr(record, name, getattr(reply, name))
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
