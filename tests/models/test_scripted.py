"""The scripted backend: registered scripts, Python callables and reply files, all deterministic."""

from __future__ import annotations

import asyncio
import json
import pickle
from collections.abc import Sequence
from pathlib import Path

import pytest

from mindloop.errors import InvalidArgumentError, ModelResponseError, ParseError, UnknownNameError
from mindloop.models import ChatModel, Completion, GenerationConfig, Message, ModelOptions, load_model, message
from mindloop.models.scripted import SCRIPTS, ScriptedChatModel
from mindloop.models.tokens import count_tokens


def _ask(model: ChatModel, *turns: tuple[str, str]) -> Completion:
    return asyncio.run(model.generate([message(role, text) for role, text in turns]))


def shout(messages: Sequence[Message], config: GenerationConfig) -> str:
    """A reply function, imported by the model from ``<this module>:shout``."""
    return f"{messages[-1]['content'].upper()} (t={config.temperature})"


def wrong_type(messages: Sequence[Message], config: GenerationConfig) -> int:
    return 42


async def full_completion(messages: Sequence[Message], config: GenerationConfig) -> Completion:
    return Completion("custom", prompt_tokens=1, completion_tokens=2)


def test_echo_and_silent() -> None:
    model = load_model("scripted/echo")
    assert isinstance(model, ScriptedChatModel)  # scripted models are never wrapped in the cache
    reply = _ask(model, ("system", "sys"), ("user", "first"), ("assistant", "ok"), ("user", "Where is Sally?"))
    assert reply.text == "Where is Sally?" and reply.model == "scripted/echo" and reply.finish_reason == "stop"
    assert reply.prompt_tokens == sum(count_tokens(t) for t in ("sys", "first", "ok", "Where is Sally?"))
    assert reply.completion_tokens == count_tokens("Where is Sally?")
    assert _ask(load_model("scripted/silent"), ("user", "hi")).text == ""
    assert _ask(model, ("system", "no user turn")).text == ""
    assert SCRIPTS.names() == ["echo", "silent"]


def test_python_callable() -> None:
    model = ScriptedChatModel(f"{__name__}:shout", ModelOptions())
    assert _ask(model, ("user", "hello")).text == "HELLO (t=0.0)"
    custom = asyncio.run(ScriptedChatModel(f"{__name__}:full_completion").generate([]))
    assert (custom.text, custom.prompt_tokens, custom.completion_tokens) == ("custom", 1, 2)
    assert custom.model == f"scripted/{__name__}:full_completion"
    with pytest.raises(InvalidArgumentError, match="cannot import"):
        ScriptedChatModel("no_such_module_xyz:reply")
    with pytest.raises(InvalidArgumentError, match="has no"):
        ScriptedChatModel(f"{__name__}:missing")
    with pytest.raises(InvalidArgumentError, match="not callable"):
        ScriptedChatModel("json:__doc__")
    with pytest.raises(ModelResponseError, match="script returned int, expected str or Completion"):
        _ask(ScriptedChatModel(f"{__name__}:wrong_type"), ("user", "x"))


def test_rules_file_json(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    rules = {
        "rules": [{"match": r"(?i)where is sally", "reply": "basket"}, {"match": r"\bball\b", "reply": "box"}],
        "default": "I do not know",
    }
    (tmp_path / "replies.json").write_text(json.dumps(rules))
    monkeypatch.chdir(tmp_path)
    model = load_model("scripted/./replies.json")
    assert model.name == "scripted/./replies.json"
    assert _ask(model, ("user", "WHERE IS SALLY looking?")).text == "basket"
    assert _ask(model, ("user", "where is the ball"), ("assistant", "x"), ("user", "hm")).text == "I do not know"
    assert _ask(model, ("user", "Is the ball there?")).text == "box"
    absolute = load_model(f"scripted/{tmp_path / 'replies.json'}")  # scripted//abs/path.json
    assert absolute.name.startswith("scripted//")
    assert _ask(absolute, ("user", "the ball")).text == "box"


def test_rules_file_jsonl_first_match_and_catch_all(tmp_path: Path) -> None:
    path = tmp_path / "r.jsonl"
    lines = [{"match": "a", "reply": "first"}, {"match": "ab", "reply": "never"}, {"reply": "fallback"}]
    path.write_text("\n".join(json.dumps(x) for x in lines[:2]) + "\n\n" + json.dumps(lines[2]) + "\n")
    model = ScriptedChatModel(str(path), ModelOptions())
    assert _ask(model, ("user", "abc")).text == "first"
    assert _ask(model, ("user", "xyz")).text == "fallback"


def test_sequence_answers_by_turn(tmp_path: Path) -> None:
    path = tmp_path / "s.json"
    path.write_text(json.dumps({"sequence": ["one", "two"]}))
    model = ScriptedChatModel(str(path))
    assert _ask(model, ("user", "go")).text == "one"
    assert _ask(model, ("user", "go"), ("assistant", "one"), ("user", "more")).text == "two"
    assert _ask(model, ("user", "go")).text == "one"  # the same conversation always gets the same reply
    with pytest.raises(ModelResponseError, match=r"scripted/.*no scripted reply matches.*turn 2"):
        _ask(model, ("user", "a"), ("assistant", "b"), ("user", "c"), ("assistant", "d"), ("user", "e"))


def test_no_match_names_the_prompt(tmp_path: Path) -> None:
    path = tmp_path / "r.jsonl"
    path.write_text(json.dumps({"match": "^yes$", "reply": "ok"}) + "\n")
    with pytest.raises(ModelResponseError, match="Anne moves the ball"):
        _ask(ScriptedChatModel(str(path)), ("user", "Anne moves the ball to the box."))


def test_text_file_is_one_fixed_reply(tmp_path: Path) -> None:
    path = tmp_path / "reply.txt"
    path.write_text("<Belief>Sally thinks the ball is in the basket</Belief>\n")
    model = ScriptedChatModel(str(path))
    assert _ask(model, ("user", "anything")).text == "<Belief>Sally thinks the ball is in the basket</Belief>"


@pytest.mark.parametrize(
    ("name", "content", "pattern"),
    [
        ("bad.jsonl", '{"match": "a", "reply": "x"}\n{"match": "b", "reply": \n', r"bad\.jsonl:2: not valid JSON"),
        ("bad.json", '{\n  "rules": [\n  ]\n  "default": 1}', r"bad\.json:4: not valid JSON at column 3"),
        ("noreply.jsonl", '{"match": "a"}\n', r"noreply\.jsonl:1: a rule must be an object"),
        ("regex.jsonl", '{"reply": "x"}\n{"match": "(", "reply": "y"}\n', r"regex\.jsonl:2: bad regex"),
        ("keys.json", '{"rules": [], "fallback": "x"}', r"unknown keys \['fallback'\]"),
        ("empty.json", "{}", "defines no rules"),
        ("empty.jsonl", "\n\n", "has no rules"),
        ("seq.json", '{"sequence": [1, 2]}', "list of strings"),
    ],
)
def test_malformed_files_raise_parse_errors(tmp_path: Path, name: str, content: str, pattern: str) -> None:
    path = tmp_path / name
    path.write_text(content)
    with pytest.raises(ParseError, match=pattern):
        ScriptedChatModel(str(path))


def test_unknown_names() -> None:
    with pytest.raises(UnknownNameError, match=r"unknown script 'ecko'; did you mean 'echo'\?.*reply file"):
        load_model("scripted/ecko")
    with pytest.raises(InvalidArgumentError, match="does not exist"):
        ScriptedChatModel("missing/replies.jsonl")
    with pytest.raises(InvalidArgumentError, match="empty"):
        ScriptedChatModel("")


def test_pickles_by_rebuilding_from_its_name(tmp_path: Path) -> None:
    path = tmp_path / "r.json"
    path.write_text(json.dumps({"default": "fixed"}))
    model = ScriptedChatModel(str(path), ModelOptions(timeout_s=5))
    clone = pickle.loads(pickle.dumps(model))
    assert clone.name == model.name and clone.options == model.options
    assert _ask(clone, ("user", "x")).text == "fixed"
    assert pickle.loads(pickle.dumps(ScriptedChatModel("echo"))).name == "scripted/echo"
