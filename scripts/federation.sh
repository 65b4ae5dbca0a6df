#!/usr/bin/env bash
# The main job: does the set-up a fresh Debian machine needs for it (Docker engine, npm packages, build, local
# images), then runs a whole federation (scripts/federation.mjs). Flags go to it: --once, --port N, --r (the R
# example algorithm, which also needs Debian's R on this machine).
# Set-up logs: .data/setup/ of this checkout.
# --runtime podman: the nodes as an unprivileged user on rootless Podman, set up by scripts/podman-rootless.sh.
set -euo pipefail
cd "$(dirname "$0")/.."
source scripts/lib/checkout.sh
t0=$(date +%s)
step() { printf '== %s (%ss)\n' "$*" "$(($(date +%s) - t0))"; }
r=0
for arg in "$@"; do [ "$arg" = --r ] && r=1; done
if [ ! -d node_modules ] || ! docker image inspect federa/base-node:local >/dev/null 2>&1; then
  echo "A first run on a fresh machine takes 10 to 15 minutes: Debian packages, npm packages (a database module"
  echo "compiles for about 8 minutes), the build and the local images. Later runs start in about a minute."
fi
step "set-up: machine (Docker engine$([ "$r" = 1 ] && echo ", Debian's R"))"
bash scripts/setup-machine.sh main $([ "$r" = 1 ] && echo r)
step "set-up: npm packages"
if [ ! -d node_modules ] || [ package-lock.json -nt node_modules/.package-lock.json ]; then
  # `npm install` honours package-lock.json; `npm ci` is not used because this registry lacks the other
  # platforms' optional packages (e.g. @rollup/rollup-android-*), which npm ci then reports as missing.
  quietly "npm install" "$FEDERA_SETUP_LOGS/npm-install.log" npm install --no-audit --no-fund
fi
step "set-up: build (tsc --build, the web UI)"
npx tsc --build
quietly "web UI build" "$FEDERA_SETUP_LOGS/ui-build.log" npm run build -w packages/ui
step "set-up: images (base images, example algorithm)"
bash scripts/build-images.sh $([ "$r" = 1 ] || echo --no-r)
bash scripts/build-algorithms.sh
if [[ " $* " == *" --runtime podman "* ]]; then
  step "set-up: rootless Podman (its user, API socket, images)"
  bash scripts/podman-rootless.sh
fi
step "federation"
exec node scripts/federation.mjs "$@"
