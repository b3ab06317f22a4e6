"""``--model-opt KEY=VALUE``: each backend's keys, checked with one-line errors."""

from __future__ import annotations

import pytest

from mindloop.errors import InvalidArgumentError
from mindloop.models.backend_options import MODEL_OPTS, parse_model_opts


def test_llamacpp_keys_parse_to_typed_values() -> None:
    opts = ["n_ctx=8192", "n_threads=2", "n_gpu_layers=-1", "chat_format= chatml", "seed=7"]
    assert parse_model_opts("llamacpp/m.gguf", opts) == {
        "n_ctx": 8192,
        "n_threads": 2,
        "n_gpu_layers": -1,
        "chat_format": "chatml",
        "seed": 7,
    }
    assert parse_model_opts("llamacpp/m.gguf", ["n_ctx=1", "n_ctx=2"]) == {"n_ctx": 2}  # the last one wins
    assert parse_model_opts("llamacpp/m.gguf", []) == {}


def test_openai_takes_server_slots() -> None:
    assert parse_model_opts("openai/qwen", ["server_slots=1"]) == {"server_slots": 1}
    assert parse_model_opts("openai/qwen", ["server_slots=auto"]) == {"server_slots": "auto"}


@pytest.mark.parametrize(
    ("model", "pair", "message"),
    [
        (
            "llamacpp/m.gguf",
            "n_cxt=8192",
            "unknown --model-opt 'n_cxt' for the llamacpp backend; did you mean 'n_ctx'?",
        ),
        ("llamacpp/m.gguf", "server_slots=1", "unknown --model-opt 'server_slots' for the llamacpp backend"),
        ("openai/q", "n_ctx=8192", "unknown --model-opt 'n_ctx' for the openai backend"),
        ("scripted/echo", "n_ctx=1", "--model-opt 'n_ctx': the scripted backend takes no options"),
        ("llamacpp/m.gguf", "n_ctx", "--model-opt 'n_ctx' is not KEY=VALUE"),
        ("llamacpp/m.gguf", "=3", "--model-opt '=3' is not KEY=VALUE"),
        ("llamacpp/m.gguf", "n_ctx=big", "--model-opt n_ctx='big': expected a whole number of at least 1"),
        ("llamacpp/m.gguf", "n_ctx=0", "--model-opt n_ctx='0': expected a whole number of at least 1"),
        ("llamacpp/m.gguf", "n_gpu_layers=-2", "expected a whole number of at least -1"),
        ("llamacpp/m.gguf", "chat_format=", "--model-opt chat_format='': expected a format name"),
        ("openai/q", "server_slots=0", "expected a whole number of at least 1, or auto"),
    ],
)
def test_bad_pairs_are_refused_naming_the_key(model: str, pair: str, message: str) -> None:
    with pytest.raises(InvalidArgumentError) as err:
        parse_model_opts(model, [pair])
    assert message in str(err.value)


def test_without_a_model_every_backend_s_keys_are_accepted() -> None:
    # a resumed run names its model in the store, not on the command line
    assert parse_model_opts(None, ["n_ctx=2048", "server_slots=1"]) == {"n_ctx": 2048, "server_slots": 1}
    with pytest.raises(InvalidArgumentError, match="for any backend"):
        parse_model_opts(None, ["nope=1"])


def test_every_key_has_help_and_an_expectation() -> None:
    for backend, opts in MODEL_OPTS.items():
        for key, opt in opts.items():
            assert opt.help and opt.expected, (backend, key)
