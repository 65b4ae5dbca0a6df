#!/usr/bin/env bash
# Make sure a Docker engine runs on this machine. Idempotent: safe to run again at any time.
#
#   scripts/docker-engine.sh            # install (if needed) and start dockerd, wait until it answers
#   DOCKER_WAIT_TIMEOUT=120 scripts/docker-engine.sh
#
# Uses Debian's docker.io package (no external registry or repository). Needs root for the install/start.
# Progress lines have the form "[docker-engine] <step>: <detail>".
set -euo pipefail
source "$(dirname "$0")/lib/checkout.sh"
APT_LOG="$FEDERA_SETUP_LOGS/docker-engine-apt.log"

TIMEOUT="${DOCKER_WAIT_TIMEOUT:-60}"
LOG="${DOCKERD_LOG:-/var/log/dockerd.log}"
log() { printf '[docker-engine] %s\n' "$*"; }
now() { date +%s.%N; }
elapsed() { awk -v a="$1" -v b="$(now)" 'BEGIN { printf "%.1fs", b - a }'; }

t0=$(now)

# 1. Binaries. The docker CLI may exist on its own (e.g. a static build in /usr/local/bin); dockerd is what counts.
if command -v dockerd >/dev/null 2>&1; then
  log "install: dockerd present ($(command -v dockerd))"
else
  log "install: dockerd missing, installing Debian's docker.io"
  if [ "$(id -u)" != 0 ]; then
    log "install: needs root: run  sudo apt-get install -y --no-install-recommends docker.io  then this again"
    exit 1
  fi
  t=$(now)
  export DEBIAN_FRONTEND=noninteractive
  if ! apt-get install -y --no-install-recommends docker.io >"$APT_LOG" 2>&1; then
    log "install: apt-get install failed, trying apt-get update first"
    apt-get update >>"$APT_LOG" 2>&1
    apt-get install -y --no-install-recommends docker.io >>"$APT_LOG" 2>&1 || {
      log "install: FAILED (see $APT_LOG)"
      exit 1
    }
  fi
  log "install: done in $(elapsed "$t")"
fi
if ! command -v docker >/dev/null 2>&1; then
  log "install: docker CLI missing after install"
  exit 1
fi

# 2. Daemon.
if docker info >/dev/null 2>&1; then
  log "daemon: already answering (server $(docker version --format '{{.Server.Version}}' 2>/dev/null || echo '?'))"
else
  if pgrep -x dockerd >/dev/null 2>&1; then
    log "daemon: dockerd process exists but does not answer yet, waiting"
  else
    log "daemon: starting dockerd in the background (log: $LOG)"
    # A stale pid file from a previous (killed) daemon prevents a new start.
    if [ -f /var/run/docker.pid ] && ! kill -0 "$(cat /var/run/docker.pid 2>/dev/null)" 2>/dev/null; then
      rm -f /var/run/docker.pid
    fi
    setsid dockerd >"$LOG" 2>&1 < /dev/null &
    disown || true
  fi
  t=$(now)
  deadline=$(( $(date +%s) + TIMEOUT ))
  n=0
  until docker info >/dev/null 2>&1; do
    if [ "$(date +%s)" -ge "$deadline" ]; then
      log "daemon: FAILED, no answer within ${TIMEOUT}s; last lines of $LOG:"
      tail -n 20 "$LOG" 2>/dev/null | sed 's/^/    /'
      exit 1
    fi
    n=$((n + 1))
    if [ $((n % 5)) -eq 0 ]; then log "daemon: waiting ($(elapsed "$t"))"; fi
    sleep 1
  done
  log "daemon: answering after $(elapsed "$t") (server $(docker version --format '{{.Server.Version}}' 2>/dev/null || echo '?'))"
fi

log "ready: $(docker info --format 'storage={{.Driver}} cgroup={{.CgroupDriver}} containers={{.Containers}} images={{.Images}}' 2>/dev/null) total $(elapsed "$t0")"
