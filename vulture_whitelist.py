"""Names vulture cannot see used, because an external protocol requires them (``vulture src vulture_whitelist.py``).

Only a name whose presence another library's interface demands belongs here, each with the reason; dead code is
deleted, never listed. Vulture reads this file and counts every name in it as used; it is never imported.
"""
# ruff: noqa: B018, F821

# gymnasium.spaces.Space.sample(self, mask=None, probability=None) is the signature every space overrides;
# ObservationSpace.sample (systems/cobel/worlds/common.py) keeps it although symbolic observations cannot be sampled.
mask
probability
