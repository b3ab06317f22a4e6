"""Token counting: the packaged WordPiece tokenizer when present, the regex estimate otherwise."""

from __future__ import annotations

import pytest

from mindloop.models import tokens
from mindloop.models.tokens import REGEX_TOKENIZER_NAME, TOKENIZER_NAME, WORDPIECE_TOKENIZER_NAME, count_tokens


def test_regex_estimate_counts_words_and_marks() -> None:
    assert tokens.regex_count("") == 0
    assert tokens.regex_count("Sally's ball, please!") == 7  # Sally ' s ball , please !
    assert tokens.regex_count("  two\n\twords ") == 2


def test_fallback_is_used_without_the_tokenizer(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(tokens, "_TOKENIZER_FILE", None)
    assert count_tokens("Where will Sally look for the ball?") == 8


def test_counts_are_deterministic_and_untruncated() -> None:
    assert TOKENIZER_NAME in {WORDPIECE_TOKENIZER_NAME, REGEX_TOKENIZER_NAME}
    text = "Anne moves the ball to the box. " * 100
    assert count_tokens(text) == count_tokens(text) >= 800  # no 128/512-token truncation
    assert count_tokens("") == 0


@pytest.mark.metrics
def test_wordpiece_splits_rare_words_into_pieces() -> None:
    assert count_tokens("the ball") == 2  # no [CLS]/[SEP]
    assert count_tokens("Theoryofmindness") > tokens.regex_count("Theoryofmindness")
