# Sourced by the scripts: what names this checkout apart from another on the same machine.
#   FEDERA_ROOT         the checkout's absolute path (symbolic links resolved)
#   FEDERA_CHECKOUT_ID  8 hex digits of that path (scripts/lib/checkout.mjs computes the same): the tests' image
#                       tags and the main job's Docker objects carry it, so two checkouts never share them
#   FEDERA_SETUP_LOGS   the checkout's .data/setup: the logs of npm install, the builds and apt-get
FEDERA_ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd -P)"
FEDERA_CHECKOUT_ID="$(printf '%s' "$FEDERA_ROOT" | sha256sum | cut -c1-8)"
FEDERA_SETUP_LOGS="$FEDERA_ROOT/.data/setup"
mkdir -p "$FEDERA_SETUP_LOGS"
export FEDERA_ROOT FEDERA_CHECKOUT_ID FEDERA_SETUP_LOGS

# quietly WHAT LOG COMMAND...: runs COMMAND with its output in LOG, saying every 30 s that it still runs (a silent
# step of minutes looks hung); on failure shows the end of LOG. Returns COMMAND's status.
quietly() {
  local what="$1" log="$2" started pid rc=0
  shift 2
  started=$(date +%s)
  "$@" >"$log" 2>&1 &
  pid=$!
  while ! wait_for "$pid" 30; do
    printf '   … %s: still running (%ss; log: %s)\n' "$what" "$(($(date +%s) - started))" "$log"
  done
  wait "$pid" || rc=$?
  if [ "$rc" != 0 ]; then
    tail -n 20 "$log"
    printf '!! %s failed (log: %s)\n' "$what" "$log"
  fi
  return "$rc"
}

# wait_for PID SECONDS: true once PID has ended, false when it still runs after SECONDS.
wait_for() {
  local i
  for ((i = 0; i < $2; i++)); do
    kill -0 "$1" 2>/dev/null || return 0
    sleep 1
  done
  ! kill -0 "$1" 2>/dev/null
}
