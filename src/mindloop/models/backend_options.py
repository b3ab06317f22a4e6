"""Backend-specific model options (``--model-opt KEY=VALUE``), checked before anything runs.

Each backend names the keys it reads from :attr:`ModelOptions.extra <mindloop.models.base.ModelOptions.extra>`
and what each value must be; :func:`parse_model_opts` turns the command line's ``KEY=VALUE`` strings into that
dict, or refuses them in one line naming the key, the backend and what was expected.

>>> parse_model_opts("llamacpp/m.gguf", ["n_ctx=8192", "chat_format=chatml"])
{'n_ctx': 8192, 'chat_format': 'chatml'}
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from mindloop.errors import InvalidArgumentError, did_you_mean


@dataclass(frozen=True)
class ModelOpt:
    """One backend option: what it sets, and how a command-line string becomes its value (``None``: refused)."""

    help: str
    parse: Callable[[str], Any]
    expected: str


def _whole(minimum: int) -> Callable[[str], int | None]:
    def parse(text: str) -> int | None:
        try:
            value = int(text.strip())
        except ValueError:
            return None
        return value if value >= minimum else None

    return parse


def _name(text: str) -> str | None:
    return text.strip() or None


def _slots(text: str) -> int | str | None:
    return "auto" if text.strip() == "auto" else _whole(1)(text)


MODEL_OPTS: Mapping[str, Mapping[str, ModelOpt]] = {
    "llamacpp": {
        "n_ctx": ModelOpt("context size in tokens (default 4096)", _whole(1), "a whole number of at least 1"),
        "n_threads": ModelOpt("CPU threads (default: llama.cpp's)", _whole(1), "a whole number of at least 1"),
        "n_gpu_layers": ModelOpt(
            "layers offloaded to the GPU (-1: all; default 0)", _whole(-1), "a whole number of at least -1"
        ),
        "chat_format": ModelOpt(
            "llama-cpp-python chat format, e.g. chatml (default: the GGUF's own template)", _name, "a format name"
        ),
        "seed": ModelOpt("the model's random seed (default 0)", _whole(0), "a whole number of at least 0"),
    },
    "openai": {
        "server_slots": ModelOpt(
            "requests the server serves at once (default auto: ask the server, else adapt)",
            _slots,
            "a whole number of at least 1, or auto",
        ),
        "max_reply_bytes": ModelOpt(
            "the largest reply body read, in bytes; a longer one is cut off and the call fails (default 8388608)",
            _whole(1024),
            "a whole number of at least 1024",
        ),
    },
}
"""The ``--model-opt`` keys of each backend (backends absent here take none)."""


def checked_opt(backend: str, key: str, value: Any) -> Any:
    """``backend``'s option ``key`` as :attr:`ModelOptions.extra <mindloop.models.base.ModelOptions.extra>` holds
    it, checked against :data:`MODEL_OPTS` (the command line checks it too; the Python API may not have): its value,
    or an :class:`InvalidArgumentError` naming the backend, the option and what was expected."""
    opt = MODEL_OPTS[backend][key]
    parsed = opt.parse(str(value)) if not isinstance(value, bool) else None
    if parsed is None or (isinstance(value, int | float) and parsed != value):
        raise InvalidArgumentError(f"{backend} option {key}={value!r}: expected {opt.expected}")
    return parsed


def checked_opts(backend: str, extra: Mapping[str, Any]) -> dict[str, Any]:
    """The options of ``extra`` that ``backend`` declares, each checked by :func:`checked_opt` (in ``extra``'s
    order); other backends' settings (``retry_seed``) travel in the same dict and are left out."""
    return {key: checked_opt(backend, key, value) for key, value in extra.items() if key in MODEL_OPTS[backend]}


def parse_model_opts(model: str | None, pairs: Sequence[str]) -> dict[str, Any]:
    """``KEY=VALUE`` strings for the backend of ``model`` (``BACKEND/NAME``) as a dict for ``ModelOptions.extra``.

    With ``model=None`` (a resumed run names its model in the store) the keys of every backend are accepted.
    Raises :class:`InvalidArgumentError` for a malformed pair, an unknown key (with a suggestion) or a bad value.
    """
    if not pairs:
        return {}
    backend = None if model is None else model.partition("/")[0]
    if backend is None:
        known: dict[str, ModelOpt] = {k: v for opts in MODEL_OPTS.values() for k, v in opts.items()}
        whose = "any backend"
    else:
        known = dict(MODEL_OPTS.get(backend, {}))
        whose = f"the {backend} backend"
    out: dict[str, Any] = {}
    for pair in pairs:
        key, sep, text = pair.partition("=")
        key = key.strip()
        if not sep or not key:
            raise InvalidArgumentError(f"--model-opt {pair!r} is not KEY=VALUE (e.g. --model-opt n_ctx=8192)")
        if not known:
            raise InvalidArgumentError(f"--model-opt {key!r}: {whose} takes no options")
        opt = known.get(key)
        if opt is None:
            hint = did_you_mean(key, known)
            raise InvalidArgumentError(
                f"unknown --model-opt {key!r} for {whose}{hint} (keys: {', '.join(sorted(known))})"
            )
        value = opt.parse(text)
        if value is None:
            raise InvalidArgumentError(f"--model-opt {key}={text!r}: expected {opt.expected}")
        out[key] = value
    return out
