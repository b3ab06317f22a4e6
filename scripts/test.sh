#!/usr/bin/env bash
# The test command (CI runs it through .ci/run), on two installs:
# 1. .venv with the dev, scale, metrics, train and frames extras (idempotent): ruff (lint and format), mypy,
#    import-linter's layer contracts and vulture's dead-code check run beside the whole suite, in parallel
#    (pytest-xdist), where a missing one of those extras is an error, not a skip;
# 2. .venv-core with the core + dev install only (no torch): the tests marked `install` (what depends on what is
#    installed: every module imports, every benchmark runs small, the demo), not the whole suite again; it runs while
#    1 is being set up.
#
# Usage: scripts/test.sh [PYTEST-ARGS]           the whole command
#        scripts/test.sh --quick [PYTEST-ARGS]   the quick loop: ruff (lint and format) and every test but the
#                                                `boundary` ones (subprocesses, signals, Ray heads, Chromium, pip
#                                                installs) on .venv as it is (set up only when missing)
# MINDLOOP_TEST_WORKERS sets pytest-xdist's worker count (default: one per CPU). Each phase's time is printed.
set -euo pipefail
cd "$(dirname "$0")/.."
quick=0
if [ "${1:-}" = "--quick" ]; then
  quick=1
  shift
fi
# Bytecode is cached in the checkout (git ignores __pycache__): pytest's rewritten test modules and mindloop's own. With
# PYTHONDONTWRITEBYTECODE set (as some images do), every pytest worker rewrote all 324 test modules again (a collection
# took 40 s instead of 9 on a loaded 2-core machine) and every CLI subprocess compiled what it imported.
unset PYTHONDONTWRITEBYTECODE
workers=${MINDLOOP_TEST_WORKERS:-auto}
pytest_args=(-n "$workers" --dist loadgroup -p no:cacheprovider)
start=$SECONDS
phase() { echo "test.sh: $1 took $((SECONDS - $2)) s" >&2; }

if [ "$quick" = 1 ]; then
  # One OpenMP thread per test process: the quick loop keeps both CPUs busy with its own xdist workers, and torch's
  # threads (one per CPU again, spinning while they wait) cost 12 % of the MindPower and OmniToM tests' CPU time on a
  # 2-core machine. The full pass keeps torch's default: its boundary tests leave a CPU idle for much of the run.
  export OMP_NUM_THREADS="${OMP_NUM_THREADS:-1}"
  [ -x .venv/bin/pytest ] && [ -x .venv/bin/ruff ] || scripts/setup.sh dev scale metrics train frames
  .venv/bin/ruff check src tests benchmarks
  .venv/bin/ruff format --check src tests benchmarks
  .venv/bin/python -m pytest "${pytest_args[@]}" -m "not boundary" --durations=10 "$@"
  phase "the quick loop" "$start"
  exit 0
fi

# The core + dev install and its pass run beside the full install's set-up (pip waits on the disk and the index much
# of its time, and the core pass needs nothing from .venv); its output is printed at the end.
core_log=$(mktemp)
(
  MINDLOOP_VENV=.venv-core scripts/setup.sh dev
  if ! .venv-core/bin/python -c 'import importlib.util as u, sys; sys.exit(u.find_spec("torch") is not None)'; then
    echo "the core + dev install (.venv-core) has torch: a core or dev dependency pulls it in" >&2
    exit 1
  fi
  t=$SECONDS
  core=0
  .venv-core/bin/python -m pytest "${pytest_args[@]}" -m install "$@" || core=$?
  if [ "$core" = 5 ] && [ $# -gt 0 ]; then
    echo "test.sh: no test marked install among the given tests: nothing for the core-install pass" >&2
    core=0
  fi
  phase "the core-install pass (beside the full install's set-up)" "$t"
  exit "$core"
) >"$core_log" 2>&1 &
core_pass=$!
trap 'kill "$core_pass" 2>/dev/null || true' EXIT
scripts/setup.sh dev scale metrics train frames
phase "set-up of the full install" "$start"

t=$SECONDS
static_log=$(mktemp)
(
  set -e
  .venv/bin/ruff check src tests benchmarks
  .venv/bin/ruff format --check src tests benchmarks
  .venv/bin/mypy
  .venv/bin/lint-imports
  .venv/bin/vulture src vulture_whitelist.py --min-confidence 80
) >"$static_log" 2>&1 &
static=$!
tests=0
MINDLOOP_REQUIRE_EXTRAS=metrics,scale,train,frames .venv/bin/python -m pytest "${pytest_args[@]}" --durations=15 "$@" || tests=$?
static_rc=0
wait "$static" || static_rc=$?
cat "$static_log"
rm -f "$static_log"
phase "static checks and the full-install suite" "$t"
core=0
wait "$core_pass" || core=$?
cat "$core_log"
rm -f "$core_log"
if [ "$static_rc" != 0 ]; then
  echo "test.sh: a static check failed (above)" >&2
  exit "$static_rc"
fi
[ "$tests" = 0 ] || exit "$tests"
[ "$core" = 0 ] || exit "$core"
phase "the test command (set-up included)" "$start"
