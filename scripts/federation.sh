#!/usr/bin/env bash
# The main job: does all set-up a fresh Debian machine needs (Debian packages, Docker engine, npm packages, build,
# local images), then runs a whole federation (scripts/federation.mjs). Flags go to it: --once, --port N, --r (the R example algorithm).
set -euo pipefail
cd "$(dirname "$0")/.."
t0=$(date +%s)
step() { printf '== %s (%ss)\n' "$*" "$(( $(date +%s) - t0 ))"; }
step "set-up: machine (Docker engine, Debian packages)"
bash scripts/setup-machine.sh
step "set-up: npm packages"
if [ ! -d node_modules ] || [ package-lock.json -nt node_modules/.package-lock.json ]; then
  # `npm install` honours package-lock.json; `npm ci` is not used because this registry lacks the other
  # platforms' optional packages (e.g. @rollup/rollup-android-*), which npm ci then reports as missing.
  npm install --no-audit --no-fund >/tmp/federa-npm-install.log 2>&1 ||
    { tail -20 /tmp/federa-npm-install.log; echo "npm install failed (log: /tmp/federa-npm-install.log)"; exit 1; }
fi
step "set-up: build (tsc --build)"
npx tsc --build
npm run build -w packages/ui >/tmp/federa-ui-build.log 2>&1 || { tail -20 /tmp/federa-ui-build.log; exit 1; }
step "set-up: images (base images, example algorithm)"
bash scripts/build-images.sh
bash scripts/build-algorithms.sh
step "federation"
exec node scripts/federation.mjs "$@"
