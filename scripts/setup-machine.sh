#!/usr/bin/env bash
# Installs what a fresh Debian machine lacks for Federa's tests and main job, and nothing it already has:
# the Python packages of the Python client (from Debian: PyPI is not reachable), Debian's R for the R client, the
# Docker engine, and checks
# that PostgreSQL answers (starting it with Debian's command when it has stopped).
set -euo pipefail
need=()
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
# Debian's R and the R packages of the R client (clients/r) and of the R base image; nothing from CRAN.
for deb in r-base-core r-cran-r6 r-cran-curl r-cran-httr r-cran-jsonlite r-cran-openssl r-cran-testthat; do
  dpkg -s "$deb" >/dev/null 2>&1 || need+=("$deb")
done
# The web UI's browser tests drive Debian's Chromium (no browser download; docs/ui.md).
[ -x /usr/bin/chromium ] || need+=(chromium)
if [ ${#need[@]} -gt 0 ]; then
  echo "setup: installing ${need[*]} (apt)"
  (apt-get install -y --no-install-recommends "${need[@]}" >/tmp/federa-apt.log 2>&1) ||
    (apt-get update >/tmp/federa-apt.log 2>&1 && apt-get install -y --no-install-recommends "${need[@]}" >>/tmp/federa-apt.log 2>&1) ||
    { echo "setup: apt-get install failed, see /tmp/federa-apt.log"; exit 1; }
fi
if ! pg_isready -h 127.0.0.1 -p 5432 -q 2>/dev/null; then
  echo "setup: starting PostgreSQL"
  pg_ctlcluster --skip-systemctl-redirect "$(ls /etc/postgresql | head -1)" main start || true
fi
if ! redis-cli -h 127.0.0.1 ping >/dev/null 2>&1; then
  echo "setup: starting Redis"
  redis-server --daemonize yes --bind 127.0.0.1 --port 6379 --save "" --appendonly no >/dev/null || true
fi
bash "$(dirname "$0")/docker-engine.sh"
echo "setup: machine ready"
