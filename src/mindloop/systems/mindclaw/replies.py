"""Reading what models really write in MindClaw's tagged replies, and refusing replies that only echo the prompt.

Small models answer ``<Context> false_belief`` as ``**Context:** false_belief``, ``Context false_belief``,
``<context>false_belief</context>`` or ``<Context>`` on its own line with the value on the next; they wrap names
in backticks and emphasis, write ``kitchen cabinet`` for ``kitchen_cabinet``, and copy format lines from the
prompt (``<Context> one of: false_belief, ...``). The helpers here read every such form the same way:

* :func:`clean` takes markdown residue off a line (headers, bullets, numbering, emphasis, code quotes): the
  shared :func:`mindloop.models.replies.strip_markup`;
* :func:`read_tags` collects every value written for each tag (same line, after a colon or not, or on the
  following lines);
* :func:`find_names` matches candidate names as whole names, longest first, whatever their spacing and case;
* :func:`single` reduces a tag's values to one answer, refusing two different answers with a one-line reason.

Every refusal is a :class:`~mindloop.errors.ParseError` whose reason is one line, so
:func:`mindloop.models.replies.ask` can send it back to the model.

>>> read_tags("**Context:** false_belief\\n<Blocks>\\nyes", ("context", "blocks"))
{'context': ['false_belief'], 'blocks': ['yes']}
>>> find_names("in the Kitchen Cabinet, not the cabinet", frozenset({"kitchen_cabinet", "cabinet"}))
['kitchen_cabinet', 'cabinet']
"""

from __future__ import annotations

import re
from collections.abc import Callable, Iterable, Sequence
from pathlib import Path
from typing import Any, TypeVar

from pydantic import RootModel

from mindloop.datafiles import load_data_file
from mindloop.errors import ParseError
from mindloop.models.base import ChatModel, GenerationConfig, Message, message
from mindloop.models.replies import ask
from mindloop.models.replies import strip_markup as clean

__all__ = ["PROMPTS", "ModelPart", "chat", "clean", "find_names", "read_tags", "single", "words"]

T = TypeVar("T")


class _Prompts(RootModel[dict[str, str]]):
    """``prompts.yaml``: every model-driven part's system and user prompt, by name."""


PROMPTS: dict[str, str] = load_data_file(_Prompts, Path(__file__).with_name("prompts.yaml")).root
"""The prompts of MindClaw's model-driven parts (``prompts.yaml``); each module names its own."""


def chat(system: str, template: str, *images: Any, **fields: Any) -> list[dict[str, Any]]:
    """The chat messages of one question: the ``system`` prompt, and the user prompt ``template`` filled with
    ``fields`` (followed by any ``images``)."""
    return [message("system", system), message("user", template.format(**fields), *images)]


def words(text: str) -> list[str]:
    """The lower-case words of ``text`` (letters and digits; ``_``, ``-`` and spaces all separate words)."""
    return [w for w in re.split(r"[^a-z0-9]+", text.lower()) if w]


def find_names(text: str, names: Iterable[str]) -> list[str]:
    """The names of ``names`` written in ``text`` as whole names, in order of appearance, longest match first
    where names overlap (``kitchen_cabinet`` is not also ``cabinet``); case, spaces, ``_`` and ``-`` do not
    matter. A name found twice is listed twice."""
    toks = words(text)
    keyed = sorted(((tuple(words(n)), n) for n in names if words(n)), key=lambda kn: -len(kn[0]))
    taken = [False] * len(toks)
    hits: list[tuple[int, str]] = []
    for key, name in keyed:
        k = len(key)
        for i in range(len(toks) - k + 1):
            if tuple(toks[i : i + k]) == key and not any(taken[i : i + k]):
                hits.append((i, name))
                for j in range(i, i + k):
                    taken[j] = True
    return [name for _, name in sorted(hits)]


def read_tags(reply: str, tags: Sequence[str]) -> dict[str, list[str]]:
    """Every value written for each of ``tags`` (lower-case names) in ``reply``, in order.

    A tag is ``<Tag>``, ``[Tag]`` or a bare ``Tag`` at the start of a (cleaned) line, with or without a colon.
    Its value is the rest of the line (a closing ``</Tag>`` removed), or, when that is empty, the following lines
    up to a blank line or the next tag (joined with ``", "``). Several tags on one line are split first.
    """
    wanted = [t.lower() for t in tags]
    alts = "|".join(re.escape(t) for t in sorted(wanted, key=len, reverse=True))
    text = re.sub(rf"(?<!^)(?=[<\[]\s*(?:{alts})\s*[>\]])", "\n", reply, flags=re.IGNORECASE | re.MULTILINE)
    closing = re.compile(rf"</\s*(?:{alts})\s*>", re.IGNORECASE)
    lines = [clean(closing.sub("", line)) for line in text.splitlines()]
    # [<[]TAG[>\]] with an optional colon; or TAG alone at the start of a line followed by a colon, a dash or space
    pattern = re.compile(
        rf"^\s*(?:[<\[]\s*({alts})\s*[>\]]|({alts})(?![A-Za-z0-9_]))\s*[:=\-\u2013]?\s*(.*?)\s*$", re.IGNORECASE
    )
    out: dict[str, list[str]] = {t: [] for t in wanted}
    i = 0
    while i < len(lines):
        m = pattern.match(lines[i])
        i += 1
        if m is None:
            continue
        tag = (m.group(1) or m.group(2)).lower()
        value = m.group(3).strip()
        if not value:
            more: list[str] = []
            while i < len(lines) and lines[i] and pattern.match(lines[i]) is None:
                more.append(lines[i])
                i += 1
            value = ", ".join(more)
        out[tag].append(value.strip())
    return out


def single(tag: str, values: Sequence[str], read: Callable[[str], T], *, show: Callable[[T], str] = str) -> T:
    """The one answer the values written for ``tag`` give: each value is read with ``read`` (which raises
    :class:`~mindloop.errors.ParseError` for a value it cannot use); values it refuses are skipped when another
    value is readable, and two different readable answers are refused as ambiguous.

    >>> single("blocks", ["yes or no", "yes"], lambda v: {"yes": True, "no": False}[v] if v in ("yes", "no")
    ...        else (_ for _ in ()).throw(ParseError("not yes/no")))
    True
    """
    if not values:
        raise ParseError(f"no <{tag.capitalize()}> line")
    got: list[T] = []
    first_error: ParseError | None = None
    for v in values:
        try:
            value = read(v)
        except ParseError as exc:
            first_error = first_error or exc
            continue
        if value not in got:
            got.append(value)
    if len(got) > 1:
        listed = " and ".join(show(g) for g in got[:2])
        raise ParseError(f"two different <{tag.capitalize()}> answers ({listed}); give one")
    if not got:
        assert first_error is not None
        raise first_error
    return got[0]


class ModelPart:
    """A runtime component a chat model plays: the model, its generation settings, and how many times a reply its
    parser refused goes back with the reason (``retries``, :func:`~mindloop.models.replies.ask`)."""

    def __init__(self, model: ChatModel, config: GenerationConfig | None = None, *, retries: int = 1) -> None:
        self.model = model
        self.config = config or GenerationConfig()
        self.retries = retries

    async def ask(
        self, messages: Sequence[Message], read: Callable[[str], T], failure: str
    ) -> tuple[T | None, tuple[str, ...], str]:
        """Ask the model (:func:`~mindloop.models.replies.ask`, with format retries): what ``read`` makes of its
        reply, every reply, and ``""``; for a reply still refused, ``None``, every reply, and the failure as the
        part records it (``"{failure}: {reason}"``)."""
        try:
            got = await ask(self.model, messages, read, self.config, retries=self.retries)
        except ParseError as exc:
            return None, exc.replies, f"{failure}: {exc}"
        return got.value, got.replies, ""
