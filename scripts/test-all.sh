#!/usr/bin/env bash
# Runs every test of Federa on a fresh machine: installs what is missing (and nothing that is there), builds,
# lints, type-checks, then runs the whole suite against SQLite and the database/API suite again against
# PostgreSQL, the Python client's tests and the R client's tests. Ends with one line: "N passed, N failed".
set -uo pipefail
cd "$(dirname "$0")/.."
source scripts/lib/checkout.sh
ROOT=$PWD
OUT=${FEDERA_TEST_OUT:-$ROOT/.data/test-results}
rm -rf "$OUT" && mkdir -p "$OUT"
t0=$(date +%s)
step() { printf '\n== %s (%ss)\n' "$*" "$(( $(date +%s) - t0 ))"; }
failures=0
echo "A first run on a fresh machine spends 10 to 15 minutes on set-up (Debian packages, npm packages: a database"
echo "module compiles for about 8 minutes; images) before lint and the tests; each step prints its elapsed time."
echo "Set-up logs: $FEDERA_SETUP_LOGS; results: $OUT."
fail_step() { echo "!! $1 failed"; failures=$((failures + 1)); }

step "setup: system packages"
bash scripts/setup-machine.sh tests || { echo "machine setup failed"; exit 1; }

step "setup: npm packages"
if [ ! -d node_modules ] || [ package-lock.json -nt node_modules/.package-lock.json ]; then
  # `npm install` honours package-lock.json; `npm ci` is not used because this registry lacks the other
  # platforms' optional packages (e.g. @rollup/rollup-android-*), which npm ci then reports as missing.
  quietly "npm install" "$FEDERA_SETUP_LOGS/npm-install.log" npm install --no-audit --no-fund || exit 1
fi

step "build (tsc --build)"
npx tsc --build || fail_step "typecheck"
# The web UI (packages/ui): type-checked and built once; the server serves this build in the browser tests.
quietly "web UI build" "$FEDERA_SETUP_LOGS/ui-build.log" npm run build -w packages/ui || fail_step "web UI build"
# The build leaves tests out; this checks them (and the benchmarks) too.
npx tsc -p tsconfig.eslint.json || fail_step "typecheck of tests"

step "lint (eslint, prettier)"
quietly "eslint (about 4 minutes)" "$OUT/eslint.log" npx eslint . || { cat "$OUT/eslint.log"; fail_step "eslint"; }
npx prettier --check . >/dev/null || { npx prettier --list-different . | head -20; fail_step "prettier"; }

step "docker images (built once per run)"
bash scripts/build-images.sh || fail_step "base image build"
bash scripts/build-algorithms.sh || fail_step "algorithm image build"
bash scripts/build-infra-images.sh --tag "test-$FEDERA_CHECKOUT_ID" || fail_step "server/node image build"

step "rootless Podman (an unprivileged user, its API socket, the images copied from Docker once)"
# The runtime conformance suite and the Podman main job fail, not skip, when this step could not set it up.
bash scripts/podman-rootless.sh || fail_step "rootless Podman setup"

step "tests: everything, SQLite"
FEDERA_TEST_DB=sqlite npx vitest run --reporter=default --reporter=json --outputFile="$OUT/vitest-sqlite.json" || true

step "main job on rootless Podman (the encrypted average; the nodes run as the unprivileged user)"
# The images are those scripts/podman-rootless.sh copied above; a free port, so nothing else on the machine clashes.
podman_job_start=$(date +%s)
podman_job=0
node scripts/federation.mjs --once --port 0 --runtime podman >"$OUT/federation-podman.log" 2>&1 || podman_job=1
podman_job_seconds=$(($(date +%s) - podman_job_start))
[ "$podman_job" = 0 ] || tail -n 30 "$OUT/federation-podman.log"
node scripts/lib/junit-one.mjs "$OUT/federation-podman.xml" "main job on rootless Podman" "$podman_job" \
  "$podman_job_seconds" "$OUT/federation-podman.log"
echo "   main job on rootless Podman: $([ "$podman_job" = 0 ] && echo passed || echo FAILED) in ${podman_job_seconds} s"

step "tests: database and API, PostgreSQL"
FEDERA_TEST_DB=postgres npx vitest run packages/server --reporter=default --reporter=json --outputFile="$OUT/vitest-postgres.json" || true

step "tests: Python client"
if [ -d clients/python/tests ]; then
  (cd clients/python && /usr/bin/python3 -m pytest -q -p no:cacheprovider --junitxml="$OUT/pytest.xml" tests) || true
fi

step "tests: R client (testthat, a real server and two real nodes)"
# Writes $OUT/testthat-r.xml (JUnit, counted by test-summary.mjs); a set-up failure leaves no file: a failed step.
node clients/r/tests/run-tests.mjs --junit "$OUT/testthat-r.xml" || [ -f "$OUT/testthat-r.xml" ] || fail_step "R client tests"

step "summary"
node scripts/test-summary.mjs "$OUT" "$failures"
