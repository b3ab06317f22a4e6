"""The prompt texts moved from Python literals to package data (``data/prompts.yaml``, ``data/baselines.yaml``) and
must stay byte for byte what they were: each text's SHA-256 (first 16 hex digits) as the literals gave it."""

from __future__ import annotations

import hashlib

import pytest

from mindloop.systems.cobel import baselines, prompts

DIGESTS = {
    "TDW_TASK": "984690671cb7406c",
    "TDW_ABILITIES": "355e9823d0829775",
    "TDW_ATOMIC": "bf79762bd1746e2f",
    "CWAH_ABILITIES": "275495cd2dc8a74d",
    "CWAH_ATOMIC": "64807040ef8476d3",
    "RULES_INIT": "8e2afa4605c17af7",
    "RULES_REFINE": "76556c7af26c45f5",
    "RULES_DISCUSS": "e18f822c9aa1ab2b",
    "FIRST_ORDER_UPDATE": "af88e828ab11111f",
    "ZERO_ORDER_UPDATE": "6a8d8d59f6655a07",
    "NL_ZERO_ORDER_UPDATE": "b52a1663ba6f55d8",
    "NL_FIRST_ORDER_UPDATE": "e0f3c168289b29f5",
    "FIRST_ORDER_PREDICTION": "c5d34a9df0ea5317",
    "ZERO_ORDER_PREDICTION": "51f7e0ed3d043d5b",
    "ADAPTIVE_COLLABORATION": "f3d40a657eda0df0",
    "COMMUNICATION": "6a47700cc8a9a73d",
    "PLANNING": "d5f2933e0561b4e6",
    "REPLANNING": "aa8f5c33bf34b650",
    "COELA_COMMUNICATION": "fafa0a2ff27a3b08",
    "COELA_PLANNING": "947a01b603f029ff",
    "CAPO_META_PLAN": "daf1e997f53b4ba3",
    "CAPO_FEEDBACK": "c6cf7eaa5102b339",
    "CAPO_REFINE": "1e5a49ed38ba9fe9",
    "CAPO_PLANNING": "8428d4b46c686cdb",
}


@pytest.mark.parametrize("name", sorted(DIGESTS))
def test_every_prompt_text_is_the_one_the_literals_gave(name: str) -> None:
    text = getattr(prompts if hasattr(prompts, name) else baselines, name)
    assert "[[" not in text  # every shared part written out
    assert hashlib.sha256(text.encode()).hexdigest()[:16] == DIGESTS[name]


def test_the_echo_markers_are_the_ones_the_literals_gave() -> None:
    assert len(prompts.ECHO_MARKERS) == 26
    assert prompts.ECHO_MARKERS[:2] == ("<room>(id)", "<object>(id)")
    assert prompts.ECHO_MARKERS[10:12] == ("[about what", "belief rule format]")
    assert prompts.ECHO_MARKERS[-3:] == ("5388017", "<apple>(12123)", "<banana>(12234)")
