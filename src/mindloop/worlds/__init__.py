"""Worlds shared by more than one system: the household (MindPower, MindClaw) and ToMi-style stories (ToM, OmniToM)."""
