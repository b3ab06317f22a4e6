"""The ``llamacpp`` backend: a GGUF model run in-process by llama-cpp-python (``pip install 'mindloop[llm]'``).

``llamacpp/PATH`` loads the file at ``PATH`` (``llamacpp//abs/model.gguf`` for an absolute path). Options come
from ``ModelOptions.extra`` (``--model-opt KEY=VALUE`` on the command line; :mod:`.backend_options`): ``n_ctx``
(default 4096), ``seed`` (default 0), ``n_threads``, ``n_gpu_layers`` (default 0: CPU) and ``chat_format``.

Replies equal those of llama-cpp-python's server run on the same file with the same ``chat_format``: the chat
template is the one that format names (without one, the GGUF's own template, as the server does), and the
sampling settings a request leaves unset take the server's defaults (:data:`SERVER_SAMPLING`), not
``Llama.create_chat_completion``'s (its ``repeat_penalty`` is 1.0, the server's 1.1, and the penalty applies
even to greedy decoding). A ``Llama`` object is not thread-safe, so calls run one at a time in a worker thread
(the event loop stays free) behind a lock. See ``docs/models.md`` for a portable CPU build.
"""

from __future__ import annotations

import asyncio
import importlib
import importlib.util
import sys
import threading
import time
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from mindloop.errors import DependencyError, InvalidArgumentError, ModelError, ModelResponseError, did_you_mean
from mindloop.models.backend_options import checked_opts
from mindloop.models.base import Completion, GenerationConfig, Message, ModelOptions
from mindloop.models.tokens import reply_completion

_INSTALL_HINT = "pip install 'mindloop[llm]' (or pip install llama-cpp-python; see docs/models.md for a CPU build)"
_PASSED_THROUGH = ("n_threads", "n_gpu_layers", "chat_format")

SERVER_SAMPLING: dict[str, Any] = {"top_p": 0.95, "top_k": 40, "min_p": 0.05, "repeat_penalty": 1.1}
"""llama-cpp-python's server defaults (``llama_cpp/server/types.py``) for what a chat request leaves unset;
sent in-process too so both give the same reply to the same request (temperature and the rest come from the
:class:`GenerationConfig`)."""


def _check_chat_format(llama_cpp: Any, name: str) -> None:
    """Refuse a chat format llama-cpp-python does not know, naming the ones it does (before the model loads)."""
    formats = getattr(llama_cpp, "llama_chat_format", None)
    registry = getattr(formats, "LlamaChatCompletionHandlerRegistry", None)
    if registry is None:  # an older or stand-in module: llama.cpp will say at the first call
        return
    known = sorted(getattr(registry(), "_chat_handlers", {}))
    if known and name not in known:
        hint = did_you_mean(name, known)
        raise InvalidArgumentError(f"unknown llamacpp chat_format {name!r}{hint} (formats: {', '.join(known)})")


def _model_file(path: str) -> tuple[Path, str | None]:
    """The GGUF file ``path`` names, and why it cannot be loaded (``None``: it is a file)."""
    model_file = Path(path).expanduser()
    if model_file.is_file():
        return model_file, None
    what = "is a folder, not a file" if model_file.is_dir() else "does not exist"
    return model_file, f"llamacpp model file {path!r} {what} (resolved to {model_file.resolve()})"


def _installed() -> bool:
    """Whether ``llama_cpp`` can be imported, found without importing it (that loads the native library)."""
    if sys.modules.get("llama_cpp") is not None:
        return True
    try:
        return importlib.util.find_spec("llama_cpp") is not None
    except (ImportError, ValueError):
        return False


def _llama_cpp() -> Any:
    """The ``llama_cpp`` module, or a :class:`DependencyError` naming the extra that provides it."""
    try:
        return importlib.import_module("llama_cpp")
    except ImportError as exc:
        raise DependencyError(f"the llamacpp backend needs llama-cpp-python: {_INSTALL_HINT} ({exc})") from exc


class LlamaCppChatModel:
    """A local GGUF chat model (``llamacpp/PATH``) answered through ``Llama.create_chat_completion``."""

    def __init__(self, path: str, options: ModelOptions | None = None) -> None:
        options = options or ModelOptions()
        llama_cpp = _llama_cpp()
        model_file, missing = _model_file(path)
        if missing is not None:
            raise InvalidArgumentError(missing)
        self.path = path
        self.options = options
        extra = checked_opts("llamacpp", options.extra)  # the command line checks them too; the Python API may not have
        if "chat_format" in extra:
            _check_chat_format(llama_cpp, extra["chat_format"])
        kwargs: dict[str, Any] = {k: extra[k] for k in _PASSED_THROUGH if extra.get(k) is not None}
        n_ctx, seed = int(extra.get("n_ctx", 4096)), int(extra.get("seed", 0))
        try:
            self._llm: Any = llama_cpp.Llama(
                model_path=str(model_file), n_ctx=n_ctx, seed=seed, verbose=False, **kwargs
            )
        except (ValueError, RuntimeError, OSError) as exc:
            raise ModelError(f"cannot load GGUF model {str(model_file)!r}: {exc}", model=self.name) from exc
        self._lock = threading.Lock()
        self.cache_scope: dict[str, Any] = {
            "backend": "llamacpp",
            "model_file": str(model_file.resolve()),
            "model_size": model_file.stat().st_size,
            "n_ctx": n_ctx,
            "seed": seed,
            "chat_format": extra.get("chat_format"),
            "sampling": SERVER_SAMPLING,
        }
        """What besides the model string changes a reply, as the response cache keys it: the resolved model file
        (and its size), and the options that change what it says."""

    @classmethod
    def preflight(cls, path: str, options: ModelOptions) -> None:
        """Before a run (:func:`~mindloop.models.base.preflight`), without loading anything: llama-cpp-python is
        installed, the GGUF file exists and the ``--model-opt`` settings are valid. Every problem found is named in
        one line (a :class:`DependencyError` when the package is missing, else an :class:`InvalidArgumentError`),
        so one fix-up covers them all."""
        checked_opts("llamacpp", options.extra)
        installed = _installed()
        problems = [] if installed else [f"the llamacpp backend needs llama-cpp-python: {_INSTALL_HINT}"]
        missing = _model_file(path)[1]
        if missing is not None:
            problems.append(missing)
        if problems:
            raise (InvalidArgumentError if installed else DependencyError)("; and ".join(problems))

    @property
    def name(self) -> str:
        """The full model string, ``llamacpp/PATH``."""
        return f"llamacpp/{self.path}"

    def __repr__(self) -> str:
        return f"LlamaCppChatModel({self.path!r})"

    def _complete(self, messages: list[Message], config: GenerationConfig) -> Any:
        with self._lock:
            if self._llm is None:
                raise ModelError("the model was closed", model=self.name)
            return self._llm.create_chat_completion(messages=messages, **(SERVER_SAMPLING | config.params()))

    async def generate(self, messages: Sequence[Message], config: GenerationConfig | None = None) -> Completion:
        """Run one chat completion in a worker thread; errors from llama.cpp become :class:`ModelError`."""
        config = config or GenerationConfig()
        start = time.perf_counter()
        try:
            data = await asyncio.to_thread(self._complete, list(messages), config)
        except ModelError:
            raise
        except (ValueError, RuntimeError) as exc:  # e.g. the prompt does not fit in n_ctx
            raise ModelError(f"llama.cpp failed: {exc}", model=self.name) from exc
        latency = time.perf_counter() - start
        try:
            choice = data["choices"][0]
            text = choice["message"]["content"]
        except (KeyError, IndexError, TypeError) as exc:
            raise ModelResponseError(f"unexpected completion shape from llama.cpp ({exc})", model=self.name) from exc
        if not isinstance(text, str):
            raise ModelResponseError(f"reply has no text content (content={text!r})", model=self.name)
        finish = choice.get("finish_reason")
        finish = finish if isinstance(finish, str) else None
        return reply_completion(
            text, messages, usage=data.get("usage"), latency_s=latency, model=self.name, finish=finish
        )

    def _release(self) -> None:
        with self._lock:
            llm, self._llm = self._llm, None
        close = getattr(llm, "close", None)
        if callable(close):
            close()

    async def aclose(self) -> None:
        """Free the model's memory, after a call that is running finishes."""
        await asyncio.to_thread(self._release)
