#!/usr/bin/env bash
# Build Federa's local base images without any registry, from what is installed on this host.
#
#   scripts/build-images.sh            # build what is missing or out of date, then verify
#   scripts/build-images.sh --force    # rebuild every image
#   scripts/build-images.sh --no-verify
#   scripts/build-images.sh --no-r       # leave out federa/base-r:local (it needs Debian's R on this machine)
#
# Images (see docs/docker.md):
#   federa/base-node:local    host /usr/bin/node + its ldd libraries + CA certificates + busybox (/bin/sh)
#   federa/base-python:local  host /usr/bin/python3 + its standard library (/usr/lib/python3.X) + ldd libraries
#                             of the interpreter and of every lib-dynload extension + CA certificates + busybox
#   federa/base-r:local       Debian's R (r-base-core) + r-cran-{r6,httr,jsonlite,openssl} files as installed on this host
#   federa/helper:local       busybox only; default command `sleep infinity` (network-namespace helper)
#   federa/vpn:local          busybox + host OpenVPN, iproute2 and iptables (nft) with their libraries; tagged
#                             federa/vpn-server:local (the server's VPN in Docker mode) and
#                             federa/vpn-client:local (a node's VPN client), docs/vpn.md
#
# Each image carries the label `federa.recipe-hash`: a hash of this script and of the content of every file
# put into the image. An image whose label matches is skipped, so running the script again is cheap.
# Dockerfiles built on these images take the base as a build argument:  ARG BASE=federa/base-node:local
# FROM ${BASE}.  Needs a running Docker engine (scripts/docker-engine.sh) and root for apt-get (busybox-static).
set -euo pipefail

HERE="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
ROOT="$(cd "$HERE/.." && pwd)"
source "$HERE/lib/checkout.sh"
FORCE=0
VERIFY=1
WITH_R=1
for arg in "$@"; do
  case "$arg" in
    --force) FORCE=1 ;;
    --no-verify) VERIFY=0 ;;
    --no-r) WITH_R=0 ;;
    -h | --help) sed -n '2,21p' "${BASH_SOURCE[0]}"; exit 0 ;;
    *) echo "unknown argument: $arg" >&2; exit 2 ;;
  esac
done

NODE_BIN="${FEDERA_NODE_BIN:-$(readlink -f "$(command -v node)")}"
PYTHON_BIN="${FEDERA_PYTHON_BIN:-/usr/bin/python3}"   # Debian's python (not a pyenv shim)
BUSYBOX="/bin/busybox"
LABEL_KEY="federa.recipe-hash"

log() { printf '[build-images] %s\n' "$*"; }
now() { date +%s.%N; }
elapsed() { awk -v a="$1" -v b="$(now)" 'BEGIN { printf "%.1fs", b - a }'; }
die() { log "ERROR: $*"; exit 1; }

T_ALL=$(now)

# One build at a time on this machine (several engineers share it).
exec 9>/tmp/federa-build-images.lock
if ! flock -n 9; then
  log "another build-images run holds /tmp/federa-build-images.lock, waiting"
  flock 9
fi

docker info >/dev/null 2>&1 || die "Docker engine not answering; run scripts/docker-engine.sh first"

if [ ! -x "$BUSYBOX" ] || ! "$BUSYBOX" --list >/dev/null 2>&1; then
  log "busybox: installing Debian's busybox-static"
  t=$(now)
  DEBIAN_FRONTEND=noninteractive apt-get install -y --no-install-recommends busybox-static >"$FEDERA_SETUP_LOGS/build-images-apt.log" 2>&1 ||
    die "apt-get install busybox-static failed (see $FEDERA_SETUP_LOGS/build-images-apt.log)"
  log "busybox: installed in $(elapsed "$t")"
fi
file "$BUSYBOX" 2>/dev/null | grep -q 'statically linked' || log "busybox: warning, $BUSYBOX is not static"

WORK="$(mktemp -d /tmp/federa-images.XXXXXX)"
trap 'rm -rf "$WORK"' EXIT
SCRIPT_HASH="$(sha256sum "${BASH_SOURCE[0]}" | cut -c1-16)"

# ---- helpers -------------------------------------------------------------------------------------------------

# Copy absolute paths (files, symlinks resolved) into a root file system, keeping their paths.
copy_in() { # rootfs path...
  local rootfs="$1"; shift
  local p
  for p in "$@"; do
    [ -e "$p" ] || die "missing on host: $p"
    mkdir -p "$rootfs$(dirname "$p")"
    cp -L "$p" "$rootfs$p"
  done
}

# Shared libraries `ldd` lists for the given ELF files (absolute paths, deduplicated).
ldd_libs() {
  local f
  for f in "$@"; do ldd "$f" 2>/dev/null || true; done |
    awk '/=> \// { print $3 } /^[[:space:]]*\/[^ ]+ \(0x/ { print $1 }' | sort -u
}

# Skeleton every image gets: busybox with an applet symlink for every command it offers, /tmp, minimal /etc.
skeleton() { # rootfs
  local rootfs="$1" applet
  mkdir -p "$rootfs"/{bin,etc,tmp,root,usr/bin,usr/local/bin,mnt,proc,sys,dev}
  chmod 1777 "$rootfs/tmp"
  cp "$BUSYBOX" "$rootfs/bin/busybox"
  for applet in $("$BUSYBOX" --list); do
    [ -e "$rootfs/bin/$applet" ] || ln -s busybox "$rootfs/bin/$applet"
  done
  printf 'root:x:0:0:root:/root:/bin/sh\nnobody:x:65534:65534:nobody:/nonexistent:/bin/false\n' >"$rootfs/etc/passwd"
  printf 'root:x:0:\nnogroup:x:65534:\n' >"$rootfs/etc/group"
  printf 'hosts: files dns\n' >"$rootfs/etc/nsswitch.conf"
}

certs() { # rootfs
  local rootfs="$1"
  if [ -f /etc/ssl/certs/ca-certificates.crt ]; then
    copy_in "$rootfs" /etc/ssl/certs/ca-certificates.crt
    mkdir -p "$rootfs/usr/lib/ssl"
    ln -s /etc/ssl/certs "$rootfs/usr/lib/ssl/certs"
  fi
}

# Hash of the recipe: this script + the content of every file and the target of every symlink of the root fs.
rootfs_hash() { # rootfs
  (cd "$1" && {
    find . -type l -printf '%p -> %l\n'
    find . -type f -print0 | LC_ALL=C sort -z | xargs -0 md5sum
  } | LC_ALL=C sort | sha256sum | cut -c1-16)
}

current_label() { # image
  docker image inspect --format "{{ index .Config.Labels \"$LABEL_KEY\" }}" "$1" 2>/dev/null || true
}

# Import a root file system as an image unless the image already carries the same recipe hash.
import_rootfs() { # image rootfs prepare-seconds change...
  local image="$1" rootfs="$2" tprep="$3"; shift 3
  local hash have t size old
  hash="${SCRIPT_HASH}-$(rootfs_hash "$rootfs")"
  have="$(current_label "$image")"
  if [ "$FORCE" = 0 ] && [ "$have" = "$hash" ]; then
    log "$image: up to date (recipe $hash), skipped (inputs checked in ${tprep})"
    return 0
  fi
  log "$image: building (recipe $hash${have:+, was $have}); root fs prepared in ${tprep}, $(du -sh "$rootfs" | cut -f1)"
  old="$(docker image inspect --format '{{.Id}}' "$image" 2>/dev/null || true)"
  t=$(now)
  local changes=(-c "LABEL $LABEL_KEY=$hash" -c "LABEL org.opencontainers.image.title=$image")
  local c
  for c in "$@"; do changes+=(-c "$c"); done
  tar -C "$rootfs" --numeric-owner -cf - . | docker import "${changes[@]}" - "$image" >/dev/null
  size="$(docker image inspect --format '{{.Size}}' "$image" | awk '{ printf "%.1f MB", $1 / 1000000 }')"
  log "$image: imported in $(elapsed "$t"), size $size"
  # Drop the previous build if nothing else uses it (no error when a container or another tag still does).
  if [ -n "$old" ] && [ "$old" != "$(docker image inspect --format '{{.Id}}' "$image")" ]; then
    docker image rm "$old" >/dev/null 2>&1 || true
  fi
}

# ---- federa/helper:local ---------------------------------------------------------------------------------------
t=$(now)
R="$WORK/helper"
skeleton "$R"
import_rootfs federa/helper:local "$R" "$(elapsed "$t")" \
  'ENV PATH=/usr/local/bin:/usr/bin:/bin' 'CMD ["/bin/sleep", "infinity"]'

# ---- federa/base-node:local ------------------------------------------------------------------------------------
t=$(now)
R="$WORK/node"
skeleton "$R"
certs "$R"
copy_in "$R" $(ldd_libs "$NODE_BIN")
mkdir -p "$R/usr/bin"
cp "$NODE_BIN" "$R/usr/bin/node"
import_rootfs federa/base-node:local "$R" "$(elapsed "$t")" \
  'ENV PATH=/usr/local/bin:/usr/bin:/bin' 'CMD ["/usr/bin/node"]'

# ---- federa/base-python:local ----------------------------------------------------------------------------------
t=$(now)
[ -x "$PYTHON_BIN" ] || die "$PYTHON_BIN not found"
PYVER="$("$PYTHON_BIN" -c 'import sys; print("%d.%d" % sys.version_info[:2])')"
PYLIB="/usr/lib/python$PYVER"
R="$WORK/python"
skeleton "$R"
certs "$R"
mkdir -p "$R/usr/lib"
# The standard library without its test suite, the static libpython (config-*) and GUI/IDE parts.
tar -C /usr/lib -cf - \
  --exclude="python$PYVER/test" --exclude="python$PYVER/config-*" --exclude="python$PYVER/idlelib" \
  --exclude="python$PYVER/tkinter" --exclude="python$PYVER/turtledemo" --exclude="python$PYVER/ensurepip" \
  --exclude="python$PYVER/site-packages" --exclude="python$PYVER/dist-packages" --exclude='*_test*.so' \
  "python$PYVER" | tar -C "$R/usr/lib" -xf -
cp "$(readlink -f "$PYTHON_BIN")" "$R/usr/bin/python$PYVER"
ln -s "python$PYVER" "$R/usr/bin/python3"
ln -s python3 "$R/usr/bin/python"
copy_in "$R" $(ldd_libs "$(readlink -f "$PYTHON_BIN")" "$PYLIB"/lib-dynload/*.so)
import_rootfs federa/base-python:local "$R" "$(elapsed "$t")" \
  'ENV PATH=/usr/local/bin:/usr/bin:/bin' 'ENV LANG=C.UTF-8' 'ENV PYTHONUNBUFFERED=1' 'CMD ["/usr/bin/python3"]'

# ---- federa/vpn:local (tags vpn-server, vpn-client) -----------------------------------------------------------
t=$(now)
OPENVPN_BIN="$(command -v openvpn || true)"
if [ -z "$OPENVPN_BIN" ]; then
  log "openvpn: installing Debian's openvpn"
  DEBIAN_FRONTEND=noninteractive apt-get install -y --no-install-recommends openvpn >"$FEDERA_SETUP_LOGS/build-images-apt.log" 2>&1 ||
    die "apt-get install openvpn failed (see $FEDERA_SETUP_LOGS/build-images-apt.log)"
  OPENVPN_BIN="$(command -v openvpn)"
fi
XT_MULTI="$(readlink -f /usr/sbin/xtables-nft-multi)"
IP_BIN="$(readlink -f /bin/ip)"
XT_DIR=/usr/lib/x86_64-linux-gnu/xtables
[ -d "$XT_DIR" ] || XT_DIR="$(dirname "$(find /usr/lib -name 'libxt_DNAT.so' -print -quit)")"
R="$WORK/vpn"
skeleton "$R"
mkdir -p "$R/usr/sbin" "$R/sbin" "$R/etc/openvpn" "$R/run" "$R$XT_DIR"
cp "$(readlink -f "$OPENVPN_BIN")" "$R/usr/sbin/openvpn"
cp "$XT_MULTI" "$R/usr/sbin/xtables-nft-multi"
for cmd in iptables iptables-save iptables-restore; do ln -sf xtables-nft-multi "$R/usr/sbin/$cmd"; done
rm -f "$R/bin/ip" && cp "$IP_BIN" "$R/bin/ip" && ln -sf /bin/ip "$R/sbin/ip"
cp "$XT_DIR"/*.so "$R$XT_DIR/"
copy_in "$R" $(ldd_libs "$(readlink -f "$OPENVPN_BIN")" "$XT_MULTI" "$IP_BIN" "$XT_DIR"/*.so)
import_rootfs federa/vpn:local "$R" "$(elapsed "$t")" \
  'ENV PATH=/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin' 'CMD ["/bin/sleep", "infinity"]'
docker tag federa/vpn:local federa/vpn-server:local
docker tag federa/vpn:local federa/vpn-client:local

# ---- federa/base-r:local ---------------------------------------------------------------------------------------
# Debian's R (r-base-core) and the R packages the Federa R package needs, as installed on this host by
# scripts/setup-machine.sh: the files of those Debian packages (docs and manuals left out) and the ldd libraries
# of R and of every compiled R package. See docs/client-r.md.
if [ "$WITH_R" = 1 ]; then
  t=$(now)
  R_DEBS="r-base-core r-cran-r6 r-cran-httr r-cran-jsonlite r-cran-openssl r-cran-curl r-cran-mime r-cran-askpass r-cran-sys"
  for deb in $R_DEBS; do
    dpkg -s "$deb" >/dev/null 2>&1 || die "$deb is not installed; run scripts/setup-machine.sh"
  done
  R="$WORK/r"
  skeleton "$R"
  certs "$R"
  # shellcheck disable=SC2086
  dpkg -L $R_DEBS | grep -Ev '^/usr/share/(doc|man|info|lintian|bug)/' | while read -r f; do
    if [ -d "$f" ] && [ ! -L "$f" ]; then continue; fi
    if [ -e "$f" ] || [ -L "$f" ]; then printf '%s\n' "${f#/}"; fi
  done | sort -u >"$WORK/r-files"
  tar -C / --no-recursion -cf - -T "$WORK/r-files" | tar -C "$R" -xf -
  # /etc/R/Renviron is made at install time (ucf) rather than shipped; LANG=C.UTF-8 needs glibc's C.utf8 locale.
  copy_in "$R" /etc/R/Renviron
  mkdir -p "$R/usr/lib/locale" && cp -r /usr/lib/locale/C.utf8 "$R/usr/lib/locale/"
  # R's front-end scripts (/usr/bin/R, R CMD ...) are bash scripts.
  rm -f "$R/bin/bash"
  cp /bin/bash "$R/bin/bash"
  ln -sf ../../bin/busybox "$R/usr/bin/which" # R's utils package runs /usr/bin/which when it loads
  R_ELF=(/bin/bash /usr/lib/R/bin/exec/R /usr/lib/R/lib/*.so /usr/lib/R/modules/lapack.so /usr/lib/R/modules/internet.so)
  for so in /usr/lib/R/library/*/libs/*.so /usr/lib/R/site-library/*/libs/*.so; do
    case "$so" in */tcltk/*) continue ;; esac
    R_ELF+=("$so")
  done
  copy_in "$R" $(ldd_libs "${R_ELF[@]}")
  import_rootfs federa/base-r:local "$R" "$(elapsed "$t")" \
    'ENV PATH=/usr/local/bin:/usr/bin:/bin' 'ENV LANG=C.UTF-8' 'ENV R_HOME=/usr/lib/R' 'CMD ["/usr/bin/R", "--version"]'
fi

# ---- verification ----------------------------------------------------------------------------------------------
if [ "$VERIFY" = 1 ]; then
  t=$(now)
  out="$(docker run --rm --network none federa/base-node:local node -e 'console.log(1)')"
  [ "$out" = 1 ] || die "federa/base-node:local: node -e 'console.log(1)' printed '$out'"
  out="$(docker run --rm --network none federa/base-python:local python3 -c \
    'import json, pickle, csv, base64, os, ssl, hashlib, sqlite3, urllib.request, decimal, zoneinfo; print(json.dumps(pickle.loads(pickle.dumps({"ok": 1}))))')"
  [ "$out" = '{"ok": 1}' ] || die "federa/base-python:local: stdlib check printed '$out'"
  [ "$WITH_R" = 0 ] || out="$(docker run --rm --network none federa/base-r:local Rscript -e 'suppressPackageStartupMessages({library(R6); library(httr); library(jsonlite); library(openssl)}); cat(jsonlite::toJSON(list(ok = 1L), auto_unbox = TRUE))')"
  [ "$WITH_R" = 0 ] || [ "$out" = '{"ok":1}' ] || die "federa/base-r:local: R package check printed '$out'"
  out="$(docker run --rm --network none federa/helper:local sh -c 'echo ok')"
  [ "$out" = ok ] || die "federa/helper:local: sh printed '$out'"
  out="$(docker run --rm --network none federa/vpn:local sh -c 'openvpn --version >/dev/null && iptables -V >/dev/null && /bin/ip -V >/dev/null && echo ok')"
  [ "$out" = ok ] || die "federa/vpn:local: openvpn/iptables/ip check printed '$out'"
  log "verify: node, python3 stdlib, /bin/sh, openvpn and iptables run in the images ($(elapsed "$t"))"

  # `docker build` FROM the local bases, with the base as a build argument (images/smoke/*.Dockerfile).
  t=$(now)
  for kind in node python; do
    docker build -q --network none -f "$ROOT/images/smoke/$kind.Dockerfile" \
      --build-arg "BASE=federa/base-$kind:local" -t "federa/smoke-$kind:local" "$ROOT/images/smoke" \
      >/dev/null 2>"$WORK/build-$kind.log" ||
      { cat "$WORK/build-$kind.log" >&2; die "docker build FROM federa/base-$kind:local failed"; }
    out="$(docker run --rm --network none "federa/smoke-$kind:local")"
    [ "$out" = "smoke-$kind ok" ] || die "federa/smoke-$kind:local printed '$out'"
    docker image rm "federa/smoke-$kind:local" >/dev/null
  done
  log "verify: docker build FROM federa/base-node:local and federa/base-python:local works ($(elapsed "$t"))"
fi

log "done in $(elapsed "$T_ALL"):"
docker image ls --format '{{.Repository}}:{{.Tag}}  {{.ID}}  {{.Size}}' | grep -E 'federa/(base-node|base-python|base-r|helper|vpn[a-z-]*):local' | sed 's/^/  /' || true
