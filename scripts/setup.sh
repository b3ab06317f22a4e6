#!/usr/bin/env bash
# Create a virtual environment (if missing) and install mindloop into it, editable, with the extras named as arguments.
# Usage: scripts/setup.sh [EXTRA ...]      e.g. scripts/setup.sh dev
# The environment is .venv unless MINDLOOP_VENV names another (the test command puts the core + dev install in
# MINDLOOP_VENV=.venv-core). Works on a fresh machine that reaches PyPI; safe to run again (pip skips what is there).
set -euo pipefail
cd "$(dirname "$0")/.."
PY=${PYTHON:-python3}
VENV=${MINDLOOP_VENV:-.venv}
if ! "$PY" -c 'import sys; sys.exit(sys.version_info < (3, 11))'; then
  echo "mindloop needs Python >= 3.11; $PY is $("$PY" --version 2>&1)" >&2
  exit 1
fi
[ -x "$VENV/bin/python" ] || "$PY" -m venv "$VENV"
# A venv starts with the setuptools Python bundled (65 on 3.11), which cannot build a wheel without `wheel`;
# >= 70.1 can, which the test that builds a plug-in package offline (no build isolation) relies on.
"$VENV/bin/python" -m pip install --quiet --upgrade pip "setuptools>=70.1"
extras=$(IFS=,; echo "$*")
# Bytecode: pip installs without compiling (it compiles every file, one at a time: most of its time here). A process
# compiles what it imports on first use and keeps it in __pycache__, and a run imports about a quarter of what is
# installed (some 4,500 of 19,000 modules with every extra: torch, transformers and ray ship 7,800 between them), so
# compiling the whole environment ahead cost more than it saved. The CLI's start-up path is compiled here, so the
# first `mindloop` is as quick as the next ones.
install() { "$VENV/bin/python" -m pip install --quiet --no-compile "$@"; }
# torch must come first and pinned (a CPU build is on disk here; an unpinned torch pulls GBs of CUDA wheels).
case ",$extras," in
  *,metrics,*|*,all,*) install "torch==2.13.0" ;;
esac
install -e ".${extras:+[$extras]}"
env -u PYTHONDONTWRITEBYTECODE "$VENV/bin/mindloop" --help >/dev/null
