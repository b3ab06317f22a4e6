"""Code lines of ``src/mindloop`` per package: lines holding code, not blank, comment or docstring lines.

A line counts when a token other than a comment, a newline or an indent starts or runs on it, and it is not part of
a docstring (the string expression statement that opens a module, class or function, as ``ast.get_docstring`` reads
it; a string after an assignment, an "attribute docstring", counts as code, as the budget's count has it). A
multi-line statement counts each line it spans. Packages are the first folder under
``src/mindloop`` (top-level modules count as ``(root)``).

    python benchmarks/code_size.py [ROOT]        # ROOT defaults to src/mindloop
    python benchmarks/code_size.py --json
"""

from __future__ import annotations

import ast
import io
import json
import sys
import tokenize
from collections import Counter
from pathlib import Path

__all__ = ["code_lines", "count_tree"]

_HAS_DOCSTRING = (ast.Module, ast.ClassDef, ast.FunctionDef, ast.AsyncFunctionDef)
_SKIP = {tokenize.COMMENT, tokenize.NL, tokenize.NEWLINE, tokenize.INDENT, tokenize.DEDENT, tokenize.ENDMARKER}


def _docstring_lines(tree: ast.Module) -> set[int]:
    """Lines of every module, class and function docstring."""
    lines: set[int] = set()
    for node in ast.walk(tree):
        if isinstance(node, _HAS_DOCSTRING) and ast.get_docstring(node, clean=False) is not None:
            doc = node.body[0]
            lines.update(range(doc.lineno, (doc.end_lineno or doc.lineno) + 1))
    return lines


def code_lines(source: str) -> int:
    """How many lines of ``source`` hold code (not blank, comment or docstring)."""
    docs = _docstring_lines(ast.parse(source))
    lines: set[int] = set()
    for tok in tokenize.generate_tokens(io.StringIO(source).readline):
        if tok.type in _SKIP:
            continue
        lines.update(range(tok.start[0], tok.end[0] + 1))
    return len(lines - docs)


def count_tree(root: Path) -> Counter[str]:
    """Code lines per package under ``root`` (``(root)`` for its top-level modules)."""
    out: Counter[str] = Counter()
    for path in sorted(root.rglob("*.py")):
        rel = path.relative_to(root)
        package = rel.parts[0] if len(rel.parts) > 1 else "(root)"
        out[package] += code_lines(path.read_text(encoding="utf-8"))
    return out


def main(argv: list[str]) -> int:
    args = [a for a in argv if a != "--json"]
    root = Path(args[0]) if args else Path(__file__).resolve().parents[1] / "src" / "mindloop"
    counts = count_tree(root)
    total = sum(counts.values())
    if "--json" in argv:
        print(json.dumps({"packages": dict(sorted(counts.items())), "total": total}))
        return 0
    for package, n in sorted(counts.items(), key=lambda kv: -kv[1]):
        print(f"{package:<12} {n:>7,}")
    print(f"{'total':<12} {total:>7,}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main(sys.argv[1:]))
