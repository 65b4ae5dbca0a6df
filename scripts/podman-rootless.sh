#!/usr/bin/env bash
# Rootless Podman for Federa's tests and main job (docs/deploy-node.md#rootless-podman): installs Debian's Podman,
# makes an unprivileged user, starts that user's Podman API socket and copies Federa's images from Docker into it.
# Idempotent: a second run only checks (a few seconds) and copies images whose Docker id changed.
#
#   sudo bash scripts/podman-rootless.sh             # set up, then print the socket (FEDERA_PODMAN_SOCKET=...)
#   sudo bash scripts/podman-rootless.sh --stop      # stop the user's API service
#
# Environment: FEDERA_PODMAN_USER (default federa-podman), FEDERA_PODMAN_IMAGES (space-separated Docker images to
# copy; default: every federa/*:local image Docker has).
# Needs root (apt-get, useradd, /run/user) and Docker for the images; exits non-zero, saying why, when a step fails.
set -euo pipefail
USER_NAME=${FEDERA_PODMAN_USER:-federa-podman}
log() { printf '[podman-rootless] %s\n' "$*"; }
die() { log "ERROR: $*" >&2; exit 1; }

[ "$(id -u)" = 0 ] || die "run as root: it installs packages, creates the user $USER_NAME and its /run/user folder"

need=()
command -v podman >/dev/null || need+=(podman)
command -v newuidmap >/dev/null || need+=(uidmap)
command -v slirp4netns >/dev/null || need+=(slirp4netns)
command -v fuse-overlayfs >/dev/null || need+=(fuse-overlayfs)
# Network names (aliases on a private network) and gateway addresses come with netavark and aardvark-dns. Without
# recommended packages apt satisfies Podman with the CNI plug-ins instead, whose networks have neither.
[ -x /usr/lib/podman/netavark ] || need+=(netavark)
[ -x /usr/lib/podman/aardvark-dns ] || need+=(aardvark-dns)
if [ ${#need[@]} -gt 0 ]; then
  log "installing ${need[*]} (apt)"
  (apt-get install -y --no-install-recommends "${need[@]}" >/tmp/federa-podman-apt.log 2>&1) ||
    (apt-get update >/tmp/federa-podman-apt.log 2>&1 &&
      apt-get install -y --no-install-recommends "${need[@]}" >>/tmp/federa-podman-apt.log 2>&1) ||
    die "apt-get install ${need[*]} failed, see /tmp/federa-podman-apt.log"
fi

if ! id "$USER_NAME" >/dev/null 2>&1; then
  log "creating the unprivileged user $USER_NAME"
  useradd -m -s /bin/bash "$USER_NAME"
fi
USER_ID=$(id -u "$USER_NAME")
# Rootless containers map their users onto a range of the host's: without one, only one user id exists inside.
for f in /etc/subuid /etc/subgid; do
  grep -q "^$USER_NAME:" "$f" 2>/dev/null || {
    log "adding a subordinate id range for $USER_NAME to $f"
    echo "$USER_NAME:$((100000 + USER_ID * 65536)):65536" >>"$f"
  }
done

RUN_DIR=/run/user/$USER_ID
SOCKET=$RUN_DIR/podman/podman.sock
PID_FILE=$RUN_DIR/podman/federa-service.pid
install -d -m 700 -o "$USER_NAME" -g "$(id -g "$USER_NAME")" "$RUN_DIR" "$RUN_DIR/podman"
as_user() { runuser -u "$USER_NAME" -- env XDG_RUNTIME_DIR="$RUN_DIR" HOME="$(getent passwd "$USER_NAME" | cut -d: -f6)" "$@"; }

answers() { curl -sf --max-time 3 --unix-socket "$SOCKET" http://d/_ping >/dev/null 2>&1; }
# The API service reads the configuration when it starts: one that runs is stopped before the configuration
# changes. It is found by the socket it listens on, and stopped only when it is this user's.
service_pid() { ss -xlpn 2>/dev/null | grep -F " $SOCKET " | grep -o 'pid=[0-9]*' | head -n 1 | cut -d= -f2; }
stop_own_service() {
  answers || return 0
  local pid
  pid=$(service_pid)
  [ -n "$pid" ] && [ "$(stat -c %U "/proc/$pid" 2>/dev/null)" = "$USER_NAME" ] ||
    die "the Podman API service on $SOCKET must be stopped to $1, and it is not a process of $USER_NAME: stop it, then run this script again"
  kill "$pid"
  log "stopped the Podman API service of $USER_NAME (process $pid) to $1"
  for _ in $(seq 1 50); do answers || break; sleep 0.1; done
  ! answers || die "the Podman API service on $SOCKET still answers after it was stopped"
}

if [ "${1:-}" = "--stop" ]; then
  stop_own_service "end it, as asked"
  rm -f "$PID_FILE"
  exit 0
fi

# slirp4netns, which gives the user's network namespace its way to the host, opens /dev/net/tun as that user.
[ -c /dev/net/tun ] || die "/dev/net/tun is missing: load the kernel module tun ('modprobe tun')"
if ! runuser -u "$USER_NAME" -- test -r /dev/net/tun -a -w /dev/net/tun; then
  log "making /dev/net/tun usable by unprivileged users (mode 0666, as most distributions ship it)"
  chmod 0666 /dev/net/tun
fi

# Podman keeps the network backend it first used while CNI networks exist; the user's configuration names netavark.
HOME_DIR=$(getent passwd "$USER_NAME" | cut -d: -f6)
conf_dir=$HOME_DIR/.config/containers
as_user mkdir -p "$conf_dir"
if ! grep -qs '^network_backend *= *"netavark"' "$conf_dir/containers.conf"; then
  log "choosing the netavark network backend for $USER_NAME ($conf_dir/containers.conf)"
  if grep -qs '^\[network\]' "$conf_dir/containers.conf"; then
    as_user sed -i '/^\[network\]/a network_backend = "netavark"' "$conf_dir/containers.conf"
  else
    printf '[network]\nnetwork_backend = "netavark"\n' | as_user tee -a "$conf_dir/containers.conf" >/dev/null
  fi
fi

# Storage: with no driver configured, this Podman chooses vfs, which copies an image's whole file system for every
# container (a second or more per run for a 50 MB image). overlay shares the image's layers: native in a user
# namespace from kernel 5.13, else through fuse-overlayfs. The choice is made once, before the user's first image.
storage_conf=$conf_dir/storage.conf
if [ ! -f "$storage_conf" ]; then
  probe=$(as_user mktemp -d)
  try_driver() { as_user podman --storage-driver overlay "$@" --root "$probe/root" --runroot "$probe/run" info >/dev/null 2>&1; }
  if try_driver; then
    driver=overlay options=''
  elif command -v fuse-overlayfs >/dev/null && try_driver --storage-opt overlay.mount_program=/usr/bin/fuse-overlayfs; then
    driver=overlay options='mount_program = "/usr/bin/fuse-overlayfs"'
  else
    driver=vfs options=''
  fi
  as_user podman unshare rm -rf "$probe" 2>/dev/null || rm -rf "$probe"
  current=vfs
  [ -d "$HOME_DIR/.local/share/containers/storage/overlay-images" ] && current=overlay
  if [ -d "$HOME_DIR/.local/share/containers/storage/$current-images" ] && [ "$current" != "$driver" ]; then
    stop_own_service "change its storage driver"
    log "emptying the $current storage of $USER_NAME (its images are copied again below)"
    as_user podman --storage-driver "$current" system reset --force >/dev/null 2>&1 ||
      die "could not empty the $current storage of $USER_NAME ('podman system reset' as that user)"
    rm -rf "$HOME_DIR/.federa-images"
  fi
  log "storage driver $driver for $USER_NAME ($storage_conf)"
  printf '[storage]\ndriver = "%s"\n%s' "$driver" "${options:+[storage.options.overlay]
$options
}" | as_user tee "$storage_conf" >/dev/null
fi

# A service started before the configuration changed runs with the old one.
if answers; then
  service_info=$(curl -sf --max-time 5 --unix-socket "$SOCKET" http://d/v4.0.0/libpod/info || true)
  want_driver=$(sed -n 's/^driver *= *"\(.*\)"/\1/p' "$storage_conf")
  if [[ $service_info != *'"networkBackend":"netavark"'* || $service_info != *"\"graphDriverName\":\"$want_driver\""* ]]; then
    stop_own_service "start it again with the netavark network backend and the $want_driver storage driver"
  fi
fi

# A network namespace file left by a Podman that was killed makes every start fail ("failed to mount runtime
# directory for rootless netns"): it is dropped when the namespace cannot be entered.
if ! as_user podman unshare --rootless-netns true >/dev/null 2>&1; then
  log "dropping the stale rootless network namespace of $USER_NAME"
  rm -f "$RUN_DIR"/netns/rootless-netns-*
  rm -rf "$RUN_DIR/libpod/tmp/rootless-netns"
fi

# A service started in a folder removed since (a deleted checkout) hands that missing working directory to every
# container it starts, and they fail at once ("write child: broken pipe"): it is started again, from /.
if answers; then
  pid=$(service_pid)
  if [ -n "$pid" ] && [[ $(readlink "/proc/$pid/cwd" 2>/dev/null) == *' (deleted)' ]]; then
    stop_own_service "start it again from an existing folder (it runs in one removed since)"
  fi
fi

if ! answers; then
  log "starting the Podman API service of $USER_NAME on $SOCKET"
  rm -f "$SOCKET"
  # The service's own process id is kept (not that of runuser, which a signal would not pass on to it).
  rm -f "$PID_FILE"
  as_user setsid sh -c 'cd /; echo $$ >"$0"; exec podman system service --time=0 "$1"' "$PID_FILE" "unix://$SOCKET" \
    >/tmp/federa-podman-service.log 2>&1 </dev/null &
  for _ in $(seq 1 100); do answers && break; sleep 0.1; done
  answers || die "the Podman API service did not answer on $SOCKET (log: /tmp/federa-podman-service.log)"
fi

# Images: copied from Docker when Podman lacks them or holds another build (Docker's id is kept as a label file).
if command -v docker >/dev/null && docker info >/dev/null 2>&1; then
  images=${FEDERA_PODMAN_IMAGES:-$(docker images --format '{{.Repository}}:{{.Tag}}' | grep '^federa/.*:local$' | sort -u || true)}
  stamp_dir=$HOME_DIR/.federa-images
  as_user mkdir -p "$stamp_dir"
  copy=()
  for image in $images; do
    id=$(docker image inspect -f '{{.Id}}' "$image" 2>/dev/null) || { log "no Docker image $image: skipped"; continue; }
    stamp="$stamp_dir/$(echo "$image" | tr '/:' '__')"
    if [ "$(cat "$stamp" 2>/dev/null)" = "$id" ] && as_user podman image exists "$image"; then continue; fi
    copy+=("$image")
  done
  if [ ${#copy[@]} -gt 0 ]; then
    log "copying ${#copy[@]} image(s) from Docker: ${copy[*]}"
    docker save "${copy[@]}" | as_user podman load -q >/dev/null ||
      die "podman load failed for ${copy[*]}"
    for image in "${copy[@]}"; do
      # Podman names a loaded image localhost/NAME; the node asks for NAME, as with Docker.
      as_user podman tag "localhost/$image" "docker.io/$image" 2>/dev/null || true
      docker image inspect -f '{{.Id}}' "$image" | as_user tee "$stamp_dir/$(echo "$image" | tr '/:' '__')" >/dev/null
    done
  fi
fi
echo "FEDERA_PODMAN_SOCKET=$SOCKET"
