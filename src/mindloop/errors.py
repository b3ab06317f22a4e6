"""One exception family for everything mindloop raises on purpose.

Catching :class:`MindloopError` catches every error that is about the caller's input or set-up (bad files,
unknown names, malformed model output, missing optional dependencies). Anything else escaping mindloop is a bug.
The command line maps these to exit code 1 with a one-line message, and everything else to exit code 2.
"""

from __future__ import annotations

import difflib
import re
from collections.abc import Iterable


class MindloopError(Exception):
    """Base class of every error mindloop raises deliberately.

    ``replies``: the texts a model had replied before the error, when the error ends a question asked through
    :func:`mindloop.models.replies.ask` (its format retries' replies included), else empty.
    """

    replies: tuple[str, ...] = ()


class ParseError(MindloopError):
    """Input text or a file could not be read; the message names the file, line and offending text."""

    def __init__(self, message: str, *, source: str | None = None, line: int | None = None, text: str | None = None):
        where = ""
        if source is not None:
            where = f"{source}:{line}: " if line is not None else f"{source}: "
        detail = f" (got {text!r})" if text is not None else ""
        super().__init__(f"{where}{message}{detail}")
        self.reason = message
        self.source = source
        self.line = line
        self.text = text


class InvalidArgumentError(MindloopError, ValueError):
    """A function was called with an argument outside what it accepts (also a ``ValueError``)."""


class BeliefError(MindloopError):
    """An invalid operation on the belief core (e.g. events out of time order, a chain deeper than tracked)."""


class RegistryError(MindloopError):
    """A registry was used wrongly: a name registered twice, or a target that cannot be imported."""


class UnknownNameError(RegistryError, KeyError):
    """A name was looked up that no registry entry has; the message suggests close matches."""

    def __str__(self) -> str:  # KeyError would otherwise wrap the message in quotes
        return str(self.args[0]) if self.args else ""


class DependencyError(MindloopError, ImportError):
    """An optional dependency is missing; the message names the ``pip install`` extra that provides it."""


class ClusterError(MindloopError):
    """A compute cluster (Ray) could not be reached or refused the connection; the message names the address,
    the likely cause and what fixes it."""


class ModelError(MindloopError):
    """A model call failed for good (after the last retry); the message names the model and the cause."""

    def __init__(self, message: str, *, model: str | None = None, attempts: int | None = None):
        prefix = f"{model}: " if model else ""
        suffix = f" (after {attempts} attempt{'s' if attempts != 1 else ''})" if attempts else ""
        super().__init__(f"{prefix}{message}{suffix}")
        self.reason = message
        self.model = model
        self.attempts = attempts


class ModelTimeoutError(ModelError):
    """A model call did not answer within its per-request timeout, on every try."""


class ModelResponseError(ModelError):
    """A model endpoint answered with something that is not a valid chat completion (bad JSON, no choices)."""


class ModelUnavailableError(ModelError):
    """The model endpoint could not be reached or kept failing on its side (connection refused, DNS, TLS, HTTP
    5xx) on every try: an outage, not an answer. The runner's circuit breaker counts samples that end so (and those
    that time out), besides the requests that found no server (:mod:`mindloop.bench.breaker`)."""


SETUP_ERRORS: tuple[type[MindloopError], ...] = (DependencyError, InvalidArgumentError, RegistryError)
"""Errors that say a run cannot work as set up (a missing extra, a bad option or argument, an unknown or
unimportable name). Raised by a sample they stop the run instead of failing the sample, so code that turns
failures into recorded outcomes re-raises them (``except SETUP_ERRORS: raise`` before ``except MindloopError``)."""


_CONTROL = re.compile(
    r"\x1b\[[0-?]*[ -/]*[@-~]"  # CSI: colours, cursor moves, screen clears
    r"|\x1b\][^\x07\x1b]*(?:\x07|\x1b\\)?"  # OSC: window titles, hyperlinks (ended by BEL or ESC \\)
    r"|\x1b[PX^_][^\x1b]*(?:\x1b\\)?"  # DCS, SOS, PM, APC strings
    r"|\x1b[@-Z\\-_]?"  # any other escape (and a lone ESC)
    r"|[\x00-\x08\x0b-\x1f\x7f-\x9f]"  # other C0 and C1 controls (tab and newline are kept)
)


def printable(text: str) -> str:
    """``text`` with terminal control sequences and control characters removed, for showing text that came from
    outside (a server's error message) on a terminal: nothing in it can recolour, move the cursor, retitle the
    window or hide what follows. Tabs and newlines are kept; lone surrogates become U+FFFD.

    >>> printable("bad \\x1b[31mred\\x1b[0m \\x1b]0;title\\x07thing\\r")
    'bad red thing'
    """
    return _SURROGATE.sub("\ufffd", _CONTROL.sub("", text))


_SURROGATE = re.compile("[\ud800-\udfff]")


_ESCAPES = {code: repr(chr(code))[1:-1] for code in (*range(0x20), *range(0x7F, 0xA0))}


def escaped(text: str) -> str:
    """``text`` (a name or an id) fit for one line of a terminal: each control character written as Python writes it
    in a string literal, so that it shows instead of acting; everything else as it is.

    >>> escaped("openai/m\\x1b[31mx\\n")
    'openai/m\\\\x1b[31mx\\\\n'
    """
    return text.translate(_ESCAPES)


def did_you_mean(name: str, known: Iterable[str], n: int = 1) -> str:
    """``; did you mean 'a'?`` (``'a' or 'b'`` for several) naming the ``n`` entries of ``known`` closest to ``name``,
    or "" when none is close: the hint of an "unknown NAME" error, written once.

    >>> did_you_mean("n_cxt", ["n_ctx", "seed"]), did_you_mean("zzz", ["n_ctx"])
    ("; did you mean 'n_ctx'?", '')
    """
    close = difflib.get_close_matches(name, list(known), n=n)
    return f"; did you mean {' or '.join(map(repr, close))}?" if close else ""
