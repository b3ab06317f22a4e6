#!/usr/bin/env bash
# The test command, on two installs:
# 1. .venv with the dev, scale, metrics and train extras (idempotent): ruff, mypy, import-linter's layer contracts,
#    vulture's dead-code check, then the whole suite, where a missing one of those extras is an error, not a skip;
# 2. .venv-core with the core + dev install only (no torch): the whole suite again, tests that need an extra
#    skipping with the reason. Arguments go to both pytest runs.
set -euo pipefail
cd "$(dirname "$0")/.."
scripts/setup.sh dev scale metrics train
.venv/bin/ruff check src tests benchmarks
.venv/bin/mypy
.venv/bin/lint-imports
.venv/bin/vulture src vulture_whitelist.py --min-confidence 80
MINDLOOP_REQUIRE_EXTRAS=metrics,scale,train .venv/bin/python -m pytest "$@"

MINDLOOP_VENV=.venv-core scripts/setup.sh dev
if ! .venv-core/bin/python -c 'import importlib.util as u, sys; sys.exit(u.find_spec("torch") is not None)'; then
  echo "the core + dev install (.venv-core) has torch: a core or dev dependency pulls it in" >&2
  exit 1
fi
exec .venv-core/bin/python -m pytest "$@"
