"""What defines a run (:class:`RunRequest`) and where its samples can run (:data:`EXECUTORS`).

Kept apart from :mod:`~mindloop.bench.runner` so the executors, which the runner drives, read a request without
importing the runner back.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Literal

from mindloop.errors import InvalidArgumentError
from mindloop.models.base import GenerationConfig, ModelOptions
from mindloop.models.chat import check_number, check_whole
from mindloop.models.replies import DEFAULT_FORMAT_RETRIES

Executor = Literal["local", "process", "ray"]
EXECUTORS: tuple[Executor, ...] = ("local", "process", "ray")


@dataclass(frozen=True)
class RunRequest:
    """Everything that defines a run. ``agent=None`` picks the benchmark's default (or its model agent when a
    model is given); ``options`` are benchmark-specific settings such as ``data`` (a file to read)."""

    benchmark: str
    agent: str | None = None
    model: str | None = None
    n: int | None = None
    seed: int = 0
    options: Mapping[str, str] = field(default_factory=dict)
    concurrency: int = 8
    executor: Executor = "local"
    ray_address: str | None = None
    model_options: ModelOptions = field(default_factory=ModelOptions)
    generation: GenerationConfig = field(default_factory=GenerationConfig)
    generation_source: Mapping[str, str] = field(default_factory=dict)
    """Where each generation field came from: ``paper``, ``cli`` or ``default`` (:mod:`mindloop.bench.generation`)."""
    format_retries: int = DEFAULT_FORMAT_RETRIES
    """How many times a reply the agent's parser refuses goes back to the model with the reason."""
    breaker: int = 5
    """The circuit breaker (:mod:`~mindloop.bench.breaker`): the run stops, leaving the samples not finished pending
    for ``--resume``, once this many requests in a row found no server (refused, reset, DNS, 502/503 without
    ``Retry-After``; any sample, any retry, any worker), or this many samples in a row failed for the endpoint
    after all their retries (timeouts, 5xx)."""
    progress_every: float = 10.0
    """When stderr is not a terminal (a log), a plain progress line every this many seconds (0: none)."""
    tags: tuple[str, ...] = ()
    """Tags the run gets (``--tag``; added to a resumed run's): ``mindloop runs --tag`` and ``board --tag`` filter by
    them."""

    def __post_init__(self) -> None:
        _check_request(self)


def _check_request(request: RunRequest) -> None:
    """Refuse a request whose fields have the wrong type or range, in one line naming the field (the numbers
    through :func:`~mindloop.models.chat.check_whole` and :func:`~mindloop.models.chat.check_number`)."""
    for name in ("benchmark", "agent", "model", "ray_address"):
        value = getattr(request, name)
        if not (value is None and name != "benchmark") and not isinstance(value, str):
            raise InvalidArgumentError(f"RunRequest {name} must be a string, got {type(value).__name__} {value!r:.40}")
    check_whole("RunRequest seed", request.seed)
    if request.n is not None:
        check_whole("RunRequest n", request.n, low=0)
    check_whole("RunRequest concurrency", request.concurrency, low=1)
    check_whole("RunRequest format_retries", request.format_retries, low=0)
    check_whole("RunRequest breaker", request.breaker, low=1)
    check_number("RunRequest progress_every", request.progress_every, low=0)
    if not isinstance(request.model_options, ModelOptions):
        raise InvalidArgumentError(
            f"RunRequest model_options must be a ModelOptions, got {request.model_options!r:.60}"
        )
    if not isinstance(request.generation, GenerationConfig):
        raise InvalidArgumentError(f"RunRequest generation must be a GenerationConfig, got {request.generation!r:.60}")
    if not isinstance(request.options, Mapping):
        raise InvalidArgumentError(f"RunRequest options must be a mapping, got {type(request.options).__name__}")
