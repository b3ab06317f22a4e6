"""The ``scripted`` backend: deterministic replies for tests, demos and dry runs, with no model at all.

``scripted/NAME`` resolves ``NAME`` in this order:

1. a script registered in :data:`SCRIPTS` (built in: ``echo`` repeats the last user message, ``silent`` answers
   with an empty string);
2. ``package.module:function``: the function is imported and called as ``function(messages, config)``; it
   returns the reply text or a :class:`~mindloop.models.base.Completion` (it may be ``async``);
3. a reply file, relative to the working directory or absolute (``scripted/./replies.json``,
   ``scripted//abs/path/replies.jsonl``), read once when the model is built:

   - ``.txt``: the whole file is the one reply to every prompt (one trailing newline dropped);
   - ``.json``: ``{"rules": [RULE, ...], "default": "..."}`` and/or ``{"sequence": ["...", ...]}``; a bare
     list is taken as the rules;
   - ``.jsonl``: one RULE object per line (blank lines skipped).

   A RULE is ``{"match": "REGEX", "reply": "..."}``: the regex is searched in the last user message and the
   first matching rule answers; a rule without ``match`` matches everything (put it last: it is the default).
   ``sequence`` answers by turn: the reply for a conversation with ``k`` assistant messages is item ``k``, so a
   multi-turn exchange is scripted without any state. Rules are tried first, then the sequence, then
   ``default``; nothing left raises :class:`~mindloop.errors.ModelResponseError`.

Replies depend only on the messages, so the model is deterministic and is rebuilt from its name in worker
processes (pickling it pickles just the name and options).
"""

from __future__ import annotations

import inspect
import pkgutil
import re
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass, replace
from pathlib import Path
from typing import Any

from mindloop.errors import InvalidArgumentError, ModelResponseError, ParseError, UnknownNameError
from mindloop.models.base import Completion, GenerationConfig, Message, ModelOptions, message_text
from mindloop.models.tokens import reply_completion
from mindloop.registry import Registry

ScriptFn = Callable[[Sequence[Message], GenerationConfig], str]
"""A script: the reply text for ``(messages, config)``; it must depend on nothing else."""

_REPLY_SUFFIXES = (".json", ".jsonl", ".txt")
_CALLABLE = re.compile(r"^[A-Za-z_][\w.]*:[A-Za-z_][\w.]*$")


def last_user_text(messages: Sequence[Message]) -> str:
    """The text of the last user message (``""`` when there is none)."""
    for msg in reversed(messages):
        if msg.get("role") == "user":
            return message_text(msg)
    return ""


def _echo(messages: Sequence[Message], config: GenerationConfig) -> str:
    return last_user_text(messages)


def _silent(messages: Sequence[Message], config: GenerationConfig) -> str:
    return ""


SCRIPTS: Registry[ScriptFn] = Registry("script")
SCRIPTS.register("echo", _echo, description="repeat the last user message")
SCRIPTS.register("silent", _silent, description="always answer with an empty string")


@dataclass(frozen=True)
class _Rule:
    pattern: re.Pattern[str] | None
    reply: str


@dataclass(frozen=True)
class ReplyRules:
    """A parsed reply file: ordered rules, a by-turn sequence and a default (see the module docstring)."""

    rules: tuple[_Rule, ...] = ()
    sequence: tuple[str, ...] = ()
    default: str | None = None

    def __call__(self, messages: Sequence[Message], config: GenerationConfig) -> str:
        """The reply to ``messages``; raises :class:`ModelResponseError` when nothing applies."""
        prompt = last_user_text(messages)
        for rule in self.rules:
            if rule.pattern is None or rule.pattern.search(prompt):
                return rule.reply
        turn = sum(1 for m in messages if m.get("role") == "assistant")
        if turn < len(self.sequence):
            return self.sequence[turn]
        if self.default is not None:
            return self.default
        raise ModelResponseError(f"no scripted reply matches the prompt {prompt[:60]!r} (turn {turn})")


def _rule(item: Any, source: str, line: int | None) -> _Rule:
    if not isinstance(item, dict) or not isinstance(item.get("reply"), str):
        raise ParseError('a rule must be an object with a string "reply"', source=source, line=line, text=str(item))
    unknown = set(item) - {"match", "reply"}
    if unknown:
        raise ParseError(f"unknown rule keys {sorted(unknown)}; use match and reply", source=source, line=line)
    match = item.get("match")
    if match is None:
        return _Rule(None, item["reply"])
    if not isinstance(match, str):
        raise ParseError('"match" must be a regex string', source=source, line=line, text=str(match))
    try:
        return _Rule(re.compile(match), item["reply"])
    except re.error as exc:
        raise ParseError(f"bad regex in match: {exc}", source=source, line=line, text=match) from exc


def _json_rules(data: Any, source: str) -> ReplyRules:
    if isinstance(data, list):
        data = {"rules": data}
    if not isinstance(data, dict):
        expected = 'expected an object with "rules", "sequence" and/or "default", or a list of rules'
        raise ParseError(expected, source=source)
    unknown = set(data) - {"rules", "sequence", "default"}
    if unknown:
        raise ParseError(f"unknown keys {sorted(unknown)}; use rules, sequence and default", source=source)
    rules, sequence, default = data.get("rules", []), data.get("sequence", []), data.get("default")
    if not isinstance(rules, list):
        raise ParseError('"rules" must be a list of rule objects', source=source)
    if not isinstance(sequence, list) or not all(isinstance(s, str) for s in sequence):
        raise ParseError('"sequence" must be a list of strings', source=source)
    if default is not None and not isinstance(default, str):
        raise ParseError('"default" must be a string', source=source, text=str(default))
    parsed = tuple(_rule(item, source, None) for item in rules)
    if not parsed and not sequence and default is None:
        raise ParseError("the reply file defines no rules, sequence or default", source=source)
    return ReplyRules(parsed, tuple(sequence), default)


def load_reply_file(path: Path) -> ScriptFn:
    """Parse a ``.txt``, ``.json`` or ``.jsonl`` reply file; errors name the file (and line)."""
    source = str(path)
    try:
        text = path.read_text(encoding="utf-8-sig")  # a byte-order mark is accepted
    except (OSError, UnicodeDecodeError) as exc:
        raise ParseError(f"cannot read reply file: {exc}", source=source) from exc
    if path.suffix == ".txt":
        return ReplyRules(default=text.removesuffix("\n"))
    from mindloop.datafiles import iter_json_lines, read_json_file  # here: a run without a reply file loads no YAML

    if path.suffix == ".json":
        return _json_rules(read_json_file(path, text=text), source)
    rules = [_rule(item, source, number) for number, item in iter_json_lines(path, text=text)]
    if not rules:
        raise ParseError("the reply file has no rules", source=source)
    return ReplyRules(tuple(rules))


def _import_callable(target: str) -> Callable[..., Any]:
    module_name, _, attr = target.partition(":")
    try:
        obj: Any = pkgutil.resolve_name(target)
    except ImportError as exc:
        message = f"scripted reply function {target!r}: cannot import {module_name!r} ({exc})"
        raise InvalidArgumentError(message) from exc
    except AttributeError:
        raise InvalidArgumentError(f"scripted reply function {target!r}: {module_name!r} has no {attr!r}") from None
    if not callable(obj):
        raise InvalidArgumentError(f"scripted reply function {target!r} is not callable")
    return obj  # type: ignore[no-any-return]


def _resolve(name: str) -> Callable[..., Any]:
    if name in SCRIPTS:
        return SCRIPTS.get(name)
    path = Path(name).expanduser()
    if path.suffix in _REPLY_SUFFIXES or path.is_file():
        if not path.is_file():
            raise InvalidArgumentError(f"scripted reply file {name!r} does not exist (resolved to {path.resolve()})")
        if path.suffix not in _REPLY_SUFFIXES:
            raise InvalidArgumentError(f"scripted reply file {name!r} must end in {', '.join(_REPLY_SUFFIXES)}")
        return load_reply_file(path)
    if _CALLABLE.match(name):
        return _import_callable(name)
    try:
        return SCRIPTS.get(name)
    except UnknownNameError as exc:
        hint = "a registered script, package.module:function, or a .txt/.json/.jsonl reply file"
        raise UnknownNameError(f"{exc}; scripted/NAME takes {hint}") from None


class ScriptedChatModel:
    """A deterministic chat model (``scripted/NAME``); see the module docstring for what ``NAME`` may be."""

    def __init__(self, name: str, options: ModelOptions | None = None) -> None:
        if not name:
            raise InvalidArgumentError("scripted model name is empty; use e.g. scripted/echo")
        self.script_name = name
        self.options = options or ModelOptions()
        self._script = _resolve(name)

    @classmethod
    def preflight(cls, name: str, options: ModelOptions) -> None:
        """Before a run (:func:`~mindloop.models.base.preflight`): build the model, so an unknown script or a
        malformed reply file fails before a run is recorded (reading a script is cheap)."""
        cls(name, options)

    @property
    def name(self) -> str:
        """The full model string, ``scripted/NAME``."""
        return f"scripted/{self.script_name}"

    def __repr__(self) -> str:
        return f"ScriptedChatModel({self.script_name!r})"

    def __reduce__(self) -> tuple[Any, ...]:
        return (type(self), (self.script_name, self.options))

    async def generate(self, messages: Sequence[Message], config: GenerationConfig | None = None) -> Completion:
        """The scripted reply, with token counts from :func:`~mindloop.models.tokens.token_usage`."""
        config = config or GenerationConfig()
        start = time.perf_counter()
        try:
            result = self._script(messages, config)
            if inspect.isawaitable(result):
                result = await result
        except ModelResponseError as exc:
            raise ModelResponseError(exc.reason, model=self.name) from exc
        if isinstance(result, Completion):
            return result if result.model else replace(result, model=self.name)
        if not isinstance(result, str):
            got = type(result).__name__
            raise ModelResponseError(f"script returned {got}, expected str or Completion", model=self.name)
        latency = time.perf_counter() - start
        return reply_completion(result, messages, usage=None, latency_s=latency, model=self.name, finish="stop")

    async def aclose(self) -> None:
        """Nothing to release."""
