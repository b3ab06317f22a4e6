"""Chat model backends behind one async protocol, with a response cache and a token ledger.

The backend classes are imported on first access (``mindloop.models.OpenAIChatModel``), so importing this
package does not pay for httpx or SQLite until a backend is used.
"""

from __future__ import annotations

import importlib
from typing import TYPE_CHECKING, Any

from mindloop.models.base import (
    BACKENDS,
    CallRecord,
    ChatModel,
    Completion,
    GenerationConfig,
    Message,
    ModelOptions,
    RecordingModel,
    TokenLedger,
    image_part,
    load_model,
    message,
    message_text,
    split_model_name,
    text_part,
)

if TYPE_CHECKING:
    from mindloop.models.cache import CachedChatModel, ResponseCache
    from mindloop.models.fake_server import FakeChatServer
    from mindloop.models.llamacpp import LlamaCppChatModel
    from mindloop.models.openai_compat import OpenAIChatModel
    from mindloop.models.parallelism import InFlightLimit, ServerParallelism
    from mindloop.models.scripted import SCRIPTS, ScriptedChatModel
    from mindloop.models.tokens import TOKENIZER_NAME, count_tokens

_LAZY = {
    "CachedChatModel": "mindloop.models.cache",
    "ResponseCache": "mindloop.models.cache",
    "FakeChatServer": "mindloop.models.fake_server",
    "LlamaCppChatModel": "mindloop.models.llamacpp",
    "OpenAIChatModel": "mindloop.models.openai_compat",
    "InFlightLimit": "mindloop.models.parallelism",
    "ServerParallelism": "mindloop.models.parallelism",
    "SCRIPTS": "mindloop.models.scripted",
    "ScriptedChatModel": "mindloop.models.scripted",
    "TOKENIZER_NAME": "mindloop.models.tokens",
    "count_tokens": "mindloop.models.tokens",
}


def __getattr__(name: str) -> Any:
    """Import a backend class the first time it is asked for."""
    module = _LAZY.get(name)
    if module is None:
        raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
    value = getattr(importlib.import_module(module), name)
    globals()[name] = value
    return value


__all__ = [
    "BACKENDS",
    "SCRIPTS",
    "TOKENIZER_NAME",
    "CachedChatModel",
    "CallRecord",
    "ChatModel",
    "Completion",
    "FakeChatServer",
    "GenerationConfig",
    "InFlightLimit",
    "LlamaCppChatModel",
    "Message",
    "ModelOptions",
    "OpenAIChatModel",
    "RecordingModel",
    "ResponseCache",
    "ScriptedChatModel",
    "ServerParallelism",
    "TokenLedger",
    "count_tokens",
    "image_part",
    "load_model",
    "message",
    "message_text",
    "split_model_name",
    "text_part",
]
