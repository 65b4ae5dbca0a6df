#!/usr/bin/env bash
# Builds the example algorithm images locally, without any registry:
#   federa/average-python:local  (algorithms/average-python, FROM federa/base-python:local)
#   federa/average-ts:local      (algorithms/average-ts,     FROM federa/base-node:local)
#   federa/start-line:local      (algorithms/start-line,     FROM federa/helper:local; the fault-injection tests)
#   federa/average-r:local       (algorithms/average-r,      FROM federa/base-r:local)
#   federa/average-v4:local      (algorithms/average-v4,     FROM federa/base-python:local; vantage6 4.x's conventions)
#   federa/group-means:local     (algorithms/group-means,    FROM federa/base-python:local)
# An image whose label federa.recipe-hash matches its sources is skipped. --force rebuilds.
# Needs the base images (scripts/build-images.sh). Override the bases with BASE_PYTHON / BASE_NODE / BASE_HELPER / BASE_R,
# and the tag of the images built with ALGORITHM_TAG (default local), e.g. to test tools of a checkout under a tag of its own.
set -euo pipefail
cd "$(dirname "$0")/.."
FORCE=0
[[ "${1:-}" == "--force" ]] && FORCE=1
BASE_PYTHON="${BASE_PYTHON:-federa/base-python:local}"
BASE_NODE="${BASE_NODE:-federa/base-node:local}"
BASE_HELPER="${BASE_HELPER:-federa/helper:local}"
BASE_R="${BASE_R:-federa/base-r:local}"
TAG="${ALGORITHM_TAG:-local}"
LOCK=/tmp/federa-build-algorithms.lock
exec 9>"$LOCK"
flock 9

log() { printf '[build-algorithms] %s\n' "$*"; }

# Compile the TypeScript algorithm and its tools.
start=$(date +%s.%N)
npx --no-install tsc --build packages/algorithm-tools >/dev/null
npx --no-install tsc -p algorithms/average-ts >/dev/null
# The TypeScript example and its tools as one file: Node.js loads it faster than their fifteen modules
# (docs/performance.md#task-roundtrip).
npx --no-install esbuild algorithms/average-ts/dist/main.js --bundle --platform=node --format=esm \
  --log-level=warning --outfile=algorithms/average-ts/dist/main.bundle.mjs
log "compile: $(printf '%.1f' "$(echo "$(date +%s.%N) - $start" | bc)") s"

# build IMAGE BASE DOCKERFILE PATH...   (paths relative to the repository root form the build context)
build() {
  local image="$1" base="$2" dockerfile="$3"; shift 3
  local base_id hash current ctx
  base_id=$(docker image inspect -f '{{.Id}}' "$base" 2>/dev/null) || { log "missing base image $base: run scripts/build-images.sh"; exit 1; }
  hash=$( { echo "$base_id"; cat "$dockerfile"; find "$@" -type f -not -name '*.map' -not -name '.tsbuildinfo' -not -path '*/__pycache__/*' | sort | xargs sha256sum; } | sha256sum | cut -c1-32)
  current=$(docker image inspect -f '{{index .Config.Labels "federa.recipe-hash"}}' "$image" 2>/dev/null || true)
  if [[ "$FORCE" == 0 && "$current" == "$hash" ]]; then
    log "$image: up to date"
    return
  fi
  ctx=$(mktemp -d)
  for p in "$@"; do mkdir -p "$ctx/$(dirname "$p")"; cp -r "$p" "$ctx/$p"; done
  find "$ctx" -name '__pycache__' -prune -exec rm -rf {} +
  cp "$dockerfile" "$ctx/Dockerfile"
  local t0; t0=$(date +%s.%N)
  docker build -q --build-arg "BASE=$base" --label "federa.recipe-hash=$hash" -t "$image" "$ctx" >/dev/null
  rm -rf "$ctx"
  log "$image: built in $(printf '%.1f' "$(echo "$(date +%s.%N) - $t0" | bc)") s"
}

build federa/average-python:$TAG "$BASE_PYTHON" algorithms/average-python/Dockerfile \
  clients/python/federa_algorithm_tools algorithms/average-python/average.py algorithms/average-python/main.py
build federa/group-means:$TAG "$BASE_PYTHON" algorithms/group-means/Dockerfile \
  clients/python/federa_algorithm_tools algorithms/group-means/group_means.py algorithms/group-means/main.py
build federa/average-ts:$TAG "$BASE_NODE" algorithms/average-ts/Dockerfile algorithms/average-ts/dist/main.bundle.mjs
build federa/start-line:$TAG "$BASE_HELPER" algorithms/start-line/Dockerfile algorithms/start-line/start-line.sh
# The R base image needs Debian's R on the build machine; without it the other images still build, and the R
# client's tests (which use this image) fail and say why.
if docker image inspect "$BASE_R" >/dev/null 2>&1; then
  build federa/average-r:$TAG "$BASE_R" algorithms/average-r/Dockerfile \
    clients/r/DESCRIPTION clients/r/NAMESPACE clients/r/R algorithms/average-r/DESCRIPTION algorithms/average-r/NAMESPACE algorithms/average-r/R
else
  log "federa/average-r:$TAG: NOT built, base image $BASE_R is missing (scripts/setup-machine.sh, then scripts/build-images.sh)"
fi
build federa/average-v4:$TAG "$BASE_PYTHON" algorithms/average-v4/Dockerfile \
  algorithms/average-v4/v4_tools.py algorithms/average-v4/average_v4.py
build federa/vpn-echo:$TAG "$BASE_PYTHON" algorithms/vpn-echo/Dockerfile \
  clients/python/federa_algorithm_tools algorithms/vpn-echo/vpn_echo.py algorithms/vpn-echo/main.py
