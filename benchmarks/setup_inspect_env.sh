#!/usr/bin/env bash
# The environment of benchmarks/bench_vs_inspect.py: .venv-inspect (gitignored) with inspect-ai and the openai
# client it drives OpenAI-compatible servers with, beside mindloop itself (editable, core install: the fake server
# and the `mindloop` command), so both harnesses run on one Python with the same httpx against the same server.
# Usage: benchmarks/setup_inspect_env.sh          (PYTHON=python3.11 to choose the interpreter)
# Needs PyPI once; safe to run again (pip skips what is there). Nothing the benchmark runs downloads anything.
set -euo pipefail
cd "$(dirname "$0")/.."
PY=${PYTHON:-python3}
VENV=.venv-inspect
if ! "$PY" -c 'import sys; sys.exit(sys.version_info < (3, 11))'; then
  echo "mindloop needs Python >= 3.11; $PY is $("$PY" --version 2>&1)" >&2
  exit 1
fi
[ -x "$VENV/bin/python" ] || "$PY" -m venv "$VENV"
"$VENV/bin/python" -m pip install --quiet --upgrade pip
"$VENV/bin/python" -m pip install --quiet inspect-ai openai -e .
"$VENV/bin/python" - <<'EOF'
from importlib.metadata import version

print(" ".join(f"{name} {version(name)}" for name in ("inspect-ai", "openai", "httpx", "mindloop")))
EOF
