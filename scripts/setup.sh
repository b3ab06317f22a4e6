#!/usr/bin/env bash
# Create .venv (if missing) and install mindloop into it, editable, with the extras named as arguments.
# Usage: scripts/setup.sh [EXTRA ...]      e.g. scripts/setup.sh dev
# Works on a fresh machine that reaches PyPI; safe to run again (pip skips what is already there).
set -euo pipefail
cd "$(dirname "$0")/.."
PY=${PYTHON:-python3}
if ! "$PY" -c 'import sys; sys.exit(sys.version_info < (3, 11))'; then
  echo "mindloop needs Python >= 3.11; $PY is $("$PY" --version 2>&1)" >&2
  exit 1
fi
[ -x .venv/bin/python ] || "$PY" -m venv .venv
.venv/bin/python -m pip install --quiet --upgrade pip
extras=$(IFS=,; echo "$*")
# torch must come first and pinned (a CPU build is on disk here; an unpinned torch pulls GBs of CUDA wheels).
case ",$extras," in
  *,metrics,*|*,all,*) .venv/bin/python -m pip install --quiet "torch==2.13.0" ;;
esac
if [ -n "$extras" ]; then
  .venv/bin/python -m pip install --quiet -e ".[${extras}]"
else
  .venv/bin/python -m pip install --quiet -e .
fi
