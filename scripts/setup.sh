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
# pip byte-compiles what it installs one file at a time, most of its time here: it installs without, and compileall
# compiles the environment's packages on every core after (skipping what is compiled already, so a re-run is quick).
install() { "$VENV/bin/python" -m pip install --quiet --no-compile "$@"; }
# torch must come first and pinned (a CPU build is on disk here; an unpinned torch pulls GBs of CUDA wheels).
case ",$extras," in
  *,metrics,*|*,all,*) install "torch==2.13.0" ;;
esac
install -e ".${extras:+[$extras]}"
site=$("$VENV/bin/python" -c 'import sysconfig; print(sysconfig.get_path("purelib"))')
# -qq: a package's files for other Pythons (templates, Python 2 examples) fail to compile, as pip ignores them too
"$VENV/bin/python" -m compileall -qq -j 0 "$site" || true
