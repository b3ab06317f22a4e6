"""CoBel-World agents: a collaborative belief world, belief prediction and adaptive communication."""
