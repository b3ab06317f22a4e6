"""Chat model backends behind one async protocol, with a response cache and a token ledger.

The backend classes are imported on first access (``mindloop.models.OpenAIChatModel``), so importing this
package does not pay for httpx or SQLite until a backend is used.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from mindloop.lazy import lazy_attributes
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

__getattr__ = lazy_attributes(
    __name__,
    {
        "cache": ("CachedChatModel", "ResponseCache"),
        "fake_server": ("FakeChatServer",),
        "llamacpp": ("LlamaCppChatModel",),
        "openai_compat": ("OpenAIChatModel",),
        "parallelism": ("InFlightLimit", "ServerParallelism"),
        "scripted": ("SCRIPTS", "ScriptedChatModel"),
        "tokens": ("TOKENIZER_NAME", "count_tokens"),
    },
)


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
