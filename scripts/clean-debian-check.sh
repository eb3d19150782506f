#!/bin/sh
# Runs the README's two commands in a clean Debian 12 root file system, the
# way a new user meets them: `debootstrap --variant=minbase bookworm` with
# nothing else installed, a clone of this repository's HEAD, then
# ./scripts/start.sh (it must install, build and answer /healthz) and
# ./scripts/test.sh (every test must pass). Once as root and once as a user
# who has sudo, each in its own fresh copy of the root.
#
# Not part of CI: it needs root on a Debian-like host with debootstrap, the
# network, a few GB of disk and, on two cores, about an hour per mode.
#
#   sudo scripts/clean-debian-check.sh [root|user|both]     (default: both)
#
# Environment: CLEAN_CHECK_DIR (work folder, default /var/tmp/tessera-clean),
# DEBIAN_MIRROR (default http://deb.debian.org/debian). The logs are
# CLEAN_CHECK_DIR/<mode>.log; the last lines say what passed and how long it
# took.
#
# What belongs to the machine running this, not to the product: the host's
# apt proxy settings and its extra certificate authorities
# (/usr/local/share/ca-certificates/*.crt, which a TLS-inspecting network
# needs for npm) are copied into the root, and NODE_EXTRA_CA_CERTS names
# them. Without such a network there is nothing to copy and nothing is set.
set -eu

mode=${1:-both}
case "$mode" in
    root | user | both) ;;
    *)
        echo "usage: $0 [root|user|both]" >&2
        exit 2
        ;;
esac
[ "$(id -u)" -eq 0 ] || {
    echo "$0: must run as root (debootstrap, chroot, mount)" >&2
    exit 2
}
command -v debootstrap >/dev/null || {
    echo "$0: needs debootstrap (apt-get install debootstrap)" >&2
    exit 2
}

# Every mount below lives in a private mount namespace: whatever happens, no
# mount outlives this script, and none reaches the host's /dev.
if [ -z "${CLEAN_CHECK_NAMESPACE:-}" ]; then
    CLEAN_CHECK_NAMESPACE=1 exec unshare --mount --propagation private "$0" "$@"
fi

repo=$(cd "$(dirname "$0")/.." && pwd)
work=${CLEAN_CHECK_DIR:-/var/tmp/tessera-clean}
mirror=${DEBIAN_MIRROR:-http://deb.debian.org/debian}
base=$work/base
mkdir -p "$work"

now() { date +%s; }
say() { echo "clean-check: $*"; }

# The Debian 12 root, made once per run; each mode gets a copy.
make_base() {
    rm -rf "$base"
    say "debootstrap bookworm ($mirror)"
    debootstrap --variant=minbase bookworm "$base" "$mirror" >"$work/debootstrap.log" 2>&1 ||
        {
            tail -20 "$work/debootstrap.log"
            return 1
        }
    # The suites a Debian 12 installation enables: the release, its
    # updates and its security updates (Chromium comes from the latter).
    rm -f "$base/etc/apt/sources.list"
    cat >"$base/etc/apt/sources.list.d/debian.sources" <<EOF
Types: deb
URIs: $mirror
Suites: bookworm bookworm-updates
Components: main
Signed-By: /usr/share/keyrings/debian-archive-keyring.gpg

Types: deb
URIs: ${mirror%/debian}/debian-security
Suites: bookworm-security
Components: main
Signed-By: /usr/share/keyrings/debian-archive-keyring.gpg
EOF
    # The host's way to the mirror: any apt proxy setting.
    for conf in /etc/apt/apt.conf /etc/apt/apt.conf.d/*; do
        if [ -f "$conf" ] && grep -qi 'proxy' "$conf"; then
            cp "$conf" "$base/etc/apt/apt.conf.d/"
        fi
    done
    # The host network's certificate authorities, for npm (see above).
    mkdir -p "$base/etc/ssl"
    : >"$base/etc/ssl/host-extra-ca.pem"
    for crt in /usr/local/share/ca-certificates/*.crt; do
        [ -f "$crt" ] && cat "$crt" >>"$base/etc/ssl/host-extra-ca.pem"
    done
    cp /etc/resolv.conf "$base/etc/resolv.conf"
}

root_dir=""
mount_root() {
    mount -t proc proc "$root_dir/proc"
    mount -t sysfs sysfs "$root_dir/sys"
    mount --bind /dev "$root_dir/dev"
    mount -t devpts -o newinstance,ptmxmode=0666 devpts "$root_dir/dev/pts"
    mount -t tmpfs -o mode=1777 shm "$root_dir/dev/shm" # Chromium's shared memory
}
unmount_root() {
    [ -n "$root_dir" ] || return 0
    for point in dev/shm dev/pts dev sys proc; do
        umount "$root_dir/$point" 2>/dev/null || umount -l "$root_dir/$point" 2>/dev/null || true
    done
    root_dir=""
}
trap unmount_root EXIT
trap 'exit 130' INT TERM

# Runs a shell command in the root as the mode's user, in its clone; it
# replaces the calling shell, so call it in a subshell. The root is entered
# with pivot_root, not chroot alone: a chrooted process may not create a user
# namespace, and test_disk_full, when not root, mounts its tmpfs in one. So
# the root becomes its mount namespace's own root, as on a booted system.
# shellcheck disable=SC2016 # expanded by the shell that runs it
ENTER='root=$1; shift
mount --rbind "$root" "$root"
cd "$root"
mkdir -p .host
pivot_root . .host
exec chroot . /bin/sh -c '\''umount -l /.host; rmdir /.host 2>/dev/null; exec "$@"'\'' sh "$@"'
in_root() {
    extra_ca=""
    [ -s "$root_dir/etc/ssl/host-extra-ca.pem" ] && extra_ca=NODE_EXTRA_CA_CERTS=/etc/ssl/host-extra-ca.pem
    # shellcheck disable=SC2086 # $extra_ca is one word or none
    exec unshare --mount --propagation private /bin/sh -c "$ENTER" sh "$root_dir" \
        chroot --userspec="$user:$user" / /usr/bin/env -i HOME="$home" USER="$user" \
        LOGNAME="$user" PATH=/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin \
        LANG=C.UTF-8 $extra_ca /bin/sh -c "cd '$home/tessera' && $1"
}

free_port() {
    port=$((18080 + $$ % 1000)) # two checks at once start apart
    while [ -n "$(ss -Htln "sport = :$port" 2>/dev/null)" ]; do port=$((port + 1)); done
    echo "$port"
}

# ./scripts/start.sh serve --port P: installs, builds and serves; /healthz
# must answer, then SIGTERM must stop it with status 0.
check_start() {
    port=$(free_port)
    log=$work/$mode_name.start.log
    (in_root "exec ./scripts/start.sh serve --port $port") >"$log" 2>&1 &
    server=$!
    deadline=$(($(now) + 3600))
    until grep -q '^listening on ' "$log"; do
        if ! kill -0 "$server" 2>/dev/null || [ "$(now)" -gt "$deadline" ]; then
            tail -20 "$log"
            return 1
        fi
        sleep 2 # polls a log another process writes; there is no event to await
    done
    health=$(curl -fsS --max-time 5 "http://127.0.0.1:$port/healthz") || health="no answer"
    kill -TERM "$server"
    status=0
    wait "$server" || status=$?
    say "$mode_name: start.sh served; /healthz: $health; exit status after SIGTERM: $status"
    [ "$status" -eq 0 ] && [ "$health" != "no answer" ]
}

run_mode() {
    mode_name=$1
    root_dir=$work/$mode_name
    started=$(now)
    rm -rf "$root_dir"
    cp -a "$base" "$root_dir"
    mount_root
    if [ "$mode_name" = root ]; then
        user=root
        home=/root
    else
        user=tester
        home=/home/tester
        # A user who may use sudo without a password, as install-deps.sh expects.
        chroot "$root_dir" /usr/bin/env DEBIAN_FRONTEND=noninteractive \
            apt-get install -y -qq --no-install-recommends sudo >/dev/null
        chroot "$root_dir" useradd -m -s /bin/sh "$user"
        echo "$user ALL=(ALL) NOPASSWD: ALL" >"$root_dir/etc/sudoers.d/$user"
        chmod 0440 "$root_dir/etc/sudoers.d/$user"
    fi
    git clone -q --no-hardlinks "$repo" "$root_dir$home/tessera"
    chroot "$root_dir" chown -R "$user:$user" "$home/tessera"
    result=fail
    say "$mode_name: ./scripts/start.sh"
    if check_start; then
        start_time=$(($(now) - started))
        say "$mode_name: ./scripts/test.sh"
        if (in_root ./scripts/test.sh) >"$work/$mode_name.test.log" 2>&1; then
            result=pass
        else
            grep -E 'tests passed|tests failed|\(Failed\)|\(Timeout\)|Error|error:' \
                "$work/$mode_name.test.log" | tail -30
        fi
        tail -3 "$work/$mode_name.test.log"
    else
        start_time=$(($(now) - started))
    fi
    unmount_root
    say "RESULT $mode_name: $result; start.sh after ${start_time}s," \
        "total $(($(now) - started))s (logs: $work/$mode_name.start.log, $work/$mode_name.test.log)"
    [ "$result" = pass ]
}

begun=$(now)
say "HEAD $(git -C "$repo" rev-parse --short HEAD), mode $mode"
make_base
say "base root ready after $(($(now) - begun))s"
failed=0
case "$mode" in
    root) run_mode root || failed=1 ;;
    user) run_mode user || failed=1 ;;
    both)
        run_mode root || failed=1
        run_mode user || failed=1
        ;;
esac
say "all done in $(($(now) - begun))s; $([ "$failed" -eq 0 ] && echo PASS || echo FAIL)"
exit "$failed"
