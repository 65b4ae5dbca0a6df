#!/usr/bin/env bash
# Makes installable tarballs of Federa's npm packages from this (built) checkout, for machines without it:
#   bash scripts/pack.sh [OUT_DIR]     (default: dist-packages/)
# Then, on the other machine: docs/install.md. The packages are scoped (@federa/…) and never looked up by name in a
# public registry: they are installed from these files, together, so that they find each other.
set -euo pipefail
ROOT="$(cd "$(dirname "$0")/.." && pwd)"
OUT="$(mkdir -p "${1:-$ROOT/dist-packages}" && cd "${1:-$ROOT/dist-packages}" && pwd)"
cd "$ROOT"
npx --no-install tsc --build >/dev/null
rm -f "$OUT"/federa-*.tgz
for pkg in common client algorithm-tools server node cli; do
  (cd "packages/$pkg" && npm pack --silent --pack-destination "$OUT" >/dev/null)
done
ls -1 "$OUT"/federa-*.tgz
