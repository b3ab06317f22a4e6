"""Views of the belief store in other systems' vocabularies (CoBel-World's Symbolic Belief Language, ...)."""
