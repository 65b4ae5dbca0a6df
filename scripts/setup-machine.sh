#!/usr/bin/env bash
# Installs what a fresh Debian machine lacks for one command, and nothing it already has:
#   scripts/setup-machine.sh main      the main job (scripts/federation.sh): the Docker engine
#   scripts/setup-machine.sh main r    the main job with the R example algorithm: also Debian's R
#   scripts/setup-machine.sh tests     every test (scripts/test-all.sh; the default): also the Python client's
#                                      packages (from Debian: PyPI is not reachable), Debian's R and the R client's
#                                      packages, nginx, a Docker registry, Prometheus and Chromium; and it checks that
#                                      PostgreSQL and Redis answer (starting them when they have stopped)
# Installing Debian packages needs root; as another user it names what is missing and the command to run as root.
# The apt-get log: .data/setup/apt.log of this checkout.
set -euo pipefail
source "$(dirname "$0")/lib/checkout.sh"
what=${1:-tests}
with_r=0
[ "$what" = tests ] || [ "${2:-}" = r ] && with_r=1
case "$what" in main | tests) ;; *) echo "setup: unknown command '$what' (main | tests)" >&2; exit 2 ;; esac

need=()
if [ "$what" = tests ]; then
  /usr/bin/python3 -c 'import requests' 2>/dev/null || need+=(python3-requests)
  /usr/bin/python3 -c 'import cryptography' 2>/dev/null || need+=(python3-cryptography)
  /usr/bin/python3 -c 'import pytest' 2>/dev/null || need+=(python3-pytest)
  # The Python client waits on the server's socket events with these (it polls without them; docs/client-python.md).
  /usr/bin/python3 -c 'import socketio' 2>/dev/null || need+=(python3-socketio)
  /usr/bin/python3 -c 'import websocket' 2>/dev/null || need+=(python3-websocket)
  /usr/bin/python3 -c 'import yaml' 2>/dev/null || need+=(python3-yaml)
  /usr/bin/python3 -c 'import pandas' 2>/dev/null || need+=(python3-pandas)
  command -v openssl >/dev/null || need+=(openssl)
  command -v nginx >/dev/null || need+=(nginx-light)
  command -v docker-registry >/dev/null || need+=(docker-registry)
  # The observability end-to-end test scrapes a server and a node with Debian's Prometheus, run as a plain binary.
  command -v prometheus >/dev/null || need+=(prometheus)
  # The web UI's browser tests drive Debian's Chromium (no browser download; docs/ui.md).
  [ -x /usr/bin/chromium ] || need+=(chromium)
fi
if [ "$with_r" = 1 ]; then
  # Debian's R and the R packages of the R client (clients/r) and of the R base image; nothing from CRAN.
  for deb in r-base-core r-cran-r6 r-cran-curl r-cran-httr r-cran-jsonlite r-cran-openssl r-cran-testthat; do
    dpkg -s "$deb" >/dev/null 2>&1 || need+=("$deb")
  done
fi
if [ ${#need[@]} -gt 0 ]; then
  if [ "$(id -u)" != 0 ]; then
    echo "setup: these Debian packages are missing and installing them needs root:"
    echo "  sudo apt-get install -y --no-install-recommends ${need[*]}"
    exit 1
  fi
  log="$FEDERA_SETUP_LOGS/apt.log"
  echo "setup: installing ${need[*]} (apt-get; log: $log)"
  (apt-get install -y --no-install-recommends "${need[@]}" >"$log" 2>&1) ||
    (apt-get update >"$log" 2>&1 && apt-get install -y --no-install-recommends "${need[@]}" >>"$log" 2>&1) ||
    { echo "setup: apt-get install failed, see $log"; exit 1; }
fi
if [ "$what" = tests ]; then
  if ! pg_isready -h 127.0.0.1 -p 5432 -q 2>/dev/null; then
    echo "setup: starting PostgreSQL"
    pg_ctlcluster --skip-systemctl-redirect "$(ls /etc/postgresql | head -1)" main start || true
  fi
  if ! redis-cli -h 127.0.0.1 ping >/dev/null 2>&1; then
    echo "setup: starting Redis"
    redis-server --daemonize yes --bind 127.0.0.1 --port 6379 --save "" --appendonly no >/dev/null || true
  fi
fi
bash "$(dirname "$0")/docker-engine.sh"
echo "setup: machine ready for $what"
