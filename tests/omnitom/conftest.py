"""OmniToM test fixtures: none of its own (the ToMBench data and the offline sentence encoder, ``minilm``, are in
tests/conftest.py)."""
