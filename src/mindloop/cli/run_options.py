"""Command-line options that ``bench run`` and ``suite run`` declare alike: one declaration each, so the two
commands cannot drift apart in names, ranges or help."""

from __future__ import annotations

from enum import StrEnum
from typing import Annotated

import typer

__all__ = ["Cache", "Executor", "ModelOptArg", "ProgressEveryArg"]


class Executor(StrEnum):
    """Where samples run: asyncio in this process, a process pool, or Ray."""

    local = "local"
    process = "process"
    ray = "ray"


class Cache(StrEnum):
    """The response cache: on at temperature 0 only, always, or never."""

    auto = "auto"
    on = "on"
    off = "off"


ModelOptArg = Annotated[
    list[str] | None,
    typer.Option(
        "--model-opt",
        help="Backend option KEY=VALUE (repeatable): llamacpp n_ctx, n_threads, n_gpu_layers, chat_format, seed; "
        "openai server_slots, max_reply_bytes.",
    ),
]

ProgressEveryArg = Annotated[
    float,
    typer.Option(
        "--progress-every",
        min=0.0,
        help="When stderr is not a terminal, a progress line every this many seconds (0: none).",
    ),
]
