#!/usr/bin/env bash
# Build the infrastructure images federa/server and federa/node from this checkout, with no registry.
#
#   scripts/build-infra-images.sh                     # build TypeScript, stage, build what changed
#   scripts/build-infra-images.sh --force             # rebuild even when the inputs did not change
#   scripts/build-infra-images.sh --no-tsc            # use the dist/ folders as they are
#   scripts/build-infra-images.sh --allow-type-errors # go on when `tsc --build` reports errors but emitted dist/
#   scripts/build-infra-images.sh server              # only one kind (server | node)
#   scripts/build-infra-images.sh --tag test-<id>     # tag federa/<kind>:test-<id> only (what the tests run)
#
# Tags: federa/<kind>:<major> and federa/<kind>:<major.minor.patch> (version of packages/<kind>/package.json), or
# with --tag that tag alone: scripts/test-all.sh builds `test-<checkout id>` (scripts/lib/checkout.sh), the tag the
# tests of this checkout run (packages/testing/src/infra-image.ts), so that tests never re-tag the images others
# deploy from and two checkouts on one machine do not share them.
# Each image carries the label `federa.inputs-hash` (hash of the staged build context and the Dockerfile); a kind
# whose image already has the same hash is skipped. Base image: federa/base-node:local (scripts/build-images.sh
# builds it when missing), or BASE=<image>. Progress: one "[build-infra-images] step: detail (time)" line a step.
set -euo pipefail

HERE="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
ROOT="$(cd "$HERE/.." && pwd)"
source "$HERE/lib/checkout.sh"
BASE="${BASE:-federa/base-node:local}"
FORCE=0; TSC=1; ALLOW_TYPE_ERRORS=0; KINDS=(); TAG=""
want_tag=0
for arg in "$@"; do
  if [ "$want_tag" = 1 ]; then TAG="$arg"; want_tag=0; continue; fi
  case "$arg" in
    --tag) want_tag=1 ;;
    --force) FORCE=1 ;;
    --no-tsc) TSC=0 ;;
    --allow-type-errors) ALLOW_TYPE_ERRORS=1 ;;
    server|node) KINDS+=("$arg") ;;
    -h|--help) sed -n '2,19p' "${BASH_SOURCE[0]}"; exit 0 ;;
    *) echo "unknown argument: $arg" >&2; exit 2 ;;
  esac
done
[ "$want_tag" = 0 ] || { echo "--tag needs a tag" >&2; exit 2; }
[[ -z "$TAG" || "$TAG" =~ ^[A-Za-z0-9_][A-Za-z0-9_.-]{0,127}$ ]] || { echo "not a Docker tag: $TAG" >&2; exit 2; }
[ ${#KINDS[@]} -gt 0 ] || KINDS=(server node)

log() { printf '[build-infra-images] %s\n' "$*"; }
now() { date +%s.%N; }
elapsed() { awk -v a="$1" -v b="$(now)" 'BEGIN { printf "%.1fs", b - a }'; }
die() { log "ERROR: $*"; exit 1; }
T_ALL=$(now)
dockerfile="$ROOT/images/federa/Dockerfile"

exec 9>/tmp/federa-build-infra-images.lock
if ! flock -n 9; then log "lock: another run holds /tmp/federa-build-infra-images.lock, waiting"; flock 9; fi

docker info >/dev/null 2>&1 || die "the Docker engine does not answer; run scripts/docker-engine.sh first"
if ! docker image inspect "$BASE" >/dev/null 2>&1; then
  [ "$BASE" = federa/base-node:local ] || die "base image $BASE not found"
  log "base: $BASE missing, running scripts/build-images.sh"
  "$ROOT/scripts/build-images.sh" --no-verify
fi

# 1. TypeScript
if [ "$TSC" = 1 ]; then
  t=$(now)
  if (cd "$ROOT" && npx --no-install tsc --build) >"$FEDERA_SETUP_LOGS/infra-tsc.log" 2>&1; then
    log "tsc: built in $(elapsed "$t")"
  elif [ "$ALLOW_TYPE_ERRORS" = 1 ]; then
    log "tsc: type errors after $(elapsed "$t") ($(grep -c 'error TS' "$FEDERA_SETUP_LOGS/infra-tsc.log") errors, see $FEDERA_SETUP_LOGS/infra-tsc.log); going on with the emitted dist/"
  else
    grep 'error TS' "$FEDERA_SETUP_LOGS/infra-tsc.log" | head -n 10 >&2 || true
    die "tsc --build failed (see $FEDERA_SETUP_LOGS/infra-tsc.log; --allow-type-errors goes on with what was emitted)"
  fi
fi
# The web UI the server serves (packages/ui/dist goes into the image with the other dist/ folders).
if [ "$TSC" = 1 ] || [ ! -f "$ROOT/packages/ui/dist/index.html" ]; then
  (cd "$ROOT" && npm run build -w packages/ui) >"$FEDERA_SETUP_LOGS/infra-ui.log" 2>&1 ||
    die "the web UI did not build (see $FEDERA_SETUP_LOGS/infra-ui.log)"
fi
for f in packages/server/dist/bin/vserver-local.js packages/node/dist/bin/vnode-local.js; do
  [ -f "$ROOT/$f" ] || log "warning: $f is missing; the image will not be able to run it"
done

# 2. Stage the build context: built packages + production node_modules.
t=$(now)
WORK="$(mktemp -d /tmp/federa-infra.XXXXXX)"
trap 'rm -rf "$WORK"' EXIT
APP="$WORK/app"
mkdir -p "$APP/packages" "$WORK/bin"
cp "$ROOT/package.json" "$APP/"
for dir in "$ROOT"/packages/*/; do
  pkg="$(basename "$dir")"
  [ -f "$dir/package.json" ] || continue
  mkdir -p "$APP/packages/$pkg"
  cp "$dir/package.json" "$APP/packages/$pkg/"
  if [ -d "$dir/dist" ]; then
    (cd "$dir" && tar -cf - --exclude='*.test.js' --exclude='*.test.js.map' --exclude='*.test.d.ts*' \
      --exclude='*.d.ts' --exclude='*.d.ts.map' --exclude='.tsbuildinfo' --exclude='e2e' --exclude='test-support' dist) |
      tar -C "$APP/packages/$pkg" -xf -
  fi
done
# The production dependency closure as npm sees it (top-level folders of node_modules), workspace links kept.
(cd "$ROOT" && npm ls --omit=dev --all --parseable 2>/dev/null) | sed -n "s#^$ROOT/node_modules/##p" |
  awk -F/ '{ if ($1 ~ /^@/) print $1 "/" $2; else print $1 }' | sort -u >"$WORK/modules.txt"
[ -s "$WORK/modules.txt" ] || die "npm ls found no production dependencies (run npm install first)"
(cd "$ROOT/node_modules" && tar -cf - \
  --exclude='better-sqlite3/deps' --exclude='better-sqlite3/src' --exclude='better-sqlite3/build/Release/obj*' \
  --exclude='better-sqlite3/build/Release/.deps' --exclude='better-sqlite3/build/deps' --exclude='*.md' \
  --exclude='*.ts.map' --exclude='.bin' -T "$WORK/modules.txt") | (mkdir -p "$APP/node_modules" && tar -C "$APP/node_modules" -xf -)
printf '#!/bin/sh\nexec /usr/bin/node /federa/packages/server/dist/bin/vserver-local.js "$@"\n' >"$WORK/bin/vserver-local"
printf '#!/bin/sh\nexec /usr/bin/node /federa/packages/node/dist/bin/vnode-local.js "$@"\n' >"$WORK/bin/vnode-local"
chmod 755 "$WORK/bin/"*
CONTEXT_HASH="$(cd "$WORK" && { find . -type l -printf '%p -> %l\n'; find . -type f -print0 | LC_ALL=C sort -z | xargs -0 md5sum; } | LC_ALL=C sort | sha256sum | cut -c1-16)"
log "stage: $(wc -l <"$WORK/modules.txt") dependency folders, $(du -sh "$WORK" | cut -f1) staged in $(elapsed "$t") (context $CONTEXT_HASH)"

# 3. Build each kind (a stage of images/federa/Dockerfile) unless its image carries the same inputs hash.
for kind in "${KINDS[@]}"; do
  t=$(now)
  version="$(node -p "require('$ROOT/packages/$kind/package.json').version")"
  major="${version%%.*}"
  if [ -n "$TAG" ]; then tags=("$TAG"); else tags=("$version" "$major"); fi
  hash="${CONTEXT_HASH}-$(cat "$dockerfile" | sha256sum | cut -c1-8)-$(docker image inspect --format '{{.Id}}' "$BASE" | cut -c8-15)"
  have="$(docker image inspect --format '{{ index .Config.Labels "federa.inputs-hash" }}' "federa/$kind:${tags[0]}" 2>/dev/null || true)"
  if [ "$FORCE" = 0 ] && [ "$have" = "$hash" ] && docker image inspect "federa/$kind:${tags[-1]}" >/dev/null 2>&1; then
    log "$kind: federa/$kind:${tags[0]} up to date (inputs $hash), skipped"
    continue
  fi
  log "$kind: building federa/$kind:${tags[*]} from $BASE${have:+ (was $have)}"
  old="$(docker image inspect --format '{{.Id}}' "federa/$kind:${tags[0]}" 2>/dev/null || true)"
  tag_args=()
  for tg in "${tags[@]}"; do tag_args+=(-t "federa/$kind:$tg"); done
  if ! docker build --network none -f "$dockerfile" --target "$kind" --build-arg "BASE=$BASE" --build-arg "VERSION=$version" \
      --label "federa.inputs-hash=$hash" "${tag_args[@]}" "$WORK" >"$WORK/build-$kind.log" 2>&1; then
    tail -n 20 "$WORK/build-$kind.log" >&2
    die "$kind: docker build failed"
  fi
  size="$(docker image inspect --format '{{.Size}}' "federa/$kind:${tags[0]}" | awk '{ printf "%.1f MB", $1 / 1000000 }')"
  log "$kind: built in $(elapsed "$t"), size $size"
  new="$(docker image inspect --format '{{.Id}}' "federa/$kind:${tags[0]}")"
  if [ -n "$old" ] && [ "$old" != "$new" ]; then docker image rm "$old" >/dev/null 2>&1 || true; fi
done

log "done in $(elapsed "$T_ALL"):"
docker image ls --format '{{.Repository}}:{{.Tag}}  {{.ID}}  {{.Size}}' | grep -E '^federa/(server|node):' | sed 's/^/  /' || true
