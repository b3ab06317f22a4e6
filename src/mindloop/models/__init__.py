"""Chat model backends behind one async protocol, with a response cache and a token ledger.

The backend classes are imported on first access (``mindloop.models.OpenAIChatModel``), so importing this
package does not pay for httpx or SQLite until a backend is used.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from mindloop.lazy import lazy_exports
from mindloop.models.base import BACKENDS as BACKENDS
from mindloop.models.base import CallRecord as CallRecord
from mindloop.models.base import ChatModel as ChatModel
from mindloop.models.base import Completion as Completion
from mindloop.models.base import GenerationConfig as GenerationConfig
from mindloop.models.base import Message as Message
from mindloop.models.base import ModelOptions as ModelOptions
from mindloop.models.base import RecordingModel as RecordingModel
from mindloop.models.base import TokenLedger as TokenLedger
from mindloop.models.base import image_part as image_part
from mindloop.models.base import load_model as load_model
from mindloop.models.base import message as message
from mindloop.models.base import message_text as message_text
from mindloop.models.base import split_model_name as split_model_name
from mindloop.models.base import text_part as text_part

if TYPE_CHECKING:
    from mindloop.models.cache import CachedChatModel as CachedChatModel
    from mindloop.models.cache import ResponseCache as ResponseCache
    from mindloop.models.fake_server import FakeChatServer as FakeChatServer
    from mindloop.models.llamacpp import LlamaCppChatModel as LlamaCppChatModel
    from mindloop.models.openai_compat import OpenAIChatModel as OpenAIChatModel
    from mindloop.models.parallelism import InFlightLimit as InFlightLimit
    from mindloop.models.parallelism import ServerParallelism as ServerParallelism
    from mindloop.models.scripted import SCRIPTS as SCRIPTS
    from mindloop.models.scripted import ScriptedChatModel as ScriptedChatModel
    from mindloop.models.tokens import TOKENIZER_NAME as TOKENIZER_NAME
    from mindloop.models.tokens import count_tokens as count_tokens

__getattr__ = lazy_exports(__name__)
