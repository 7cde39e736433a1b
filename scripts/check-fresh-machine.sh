#!/usr/bin/env bash
# Proves the README's two commands on a clean Debian 12 machine: makes a minimal Debian 12 root with
# debootstrap, clones the committed HEAD of this repository into it, and runs in it (chroot)
#   1. the README's test command:  CI=true bash scripts/test.sh   (as .ci/run does)
#   2. the README's run command:   bash scripts/run.sh            (no display: must print predictions)
#   3. with --only package: the Debian packages (scripts/package.sh, built here at HEAD when dist/
#      does not hold them) installed with apt-get and checked by scripts/check-installed-packages.sh
#      (screenshot and logs in WORKDIR/package-check/)
# It prints how long each took (for the test command also each phase: apt, configure, build, ctest,
# sanitizer build, sanitizer tests; the 15 slowest tests of each pass and the tests per label) and
# exits non-zero on any failure.
#
# Usage (as root): bash scripts/check-fresh-machine.sh [--workdir DIR] [--separate] [--only test|run] [--keep]
#   --workdir DIR  where roots and logs go (default /var/tmp/graphormer-fresh-machine); needs ~8 GiB
#   --separate     each command in its own fresh root, so each is proven alone (twice the install time)
#   --only CMD     run one command: test, run or package (package is not part of the default pair)
#   --keep         leave the root(s) in place for inspection
#   --prepare      only make (or check) the debootstrap base, run nothing
# The debootstrap base (minbase: Debian's essential packages and apt, nothing else) is kept as a
# tarball in the workdir and reused; every run unpacks it into a new root, so no package installed
# by an earlier run is ever reused. OPENBLAS_CORETYPE / OPENBLAS_L2_SIZE are passed into the root
# when this machine's environment sets them (the suite must pass with and without them).
set -euo pipefail
repo=$(cd "$(dirname "$0")/.." && pwd)
workdir=/var/tmp/graphormer-fresh-machine
separate=0; only=""; keep=0; prepare=0
while [ $# -gt 0 ]; do
  case "$1" in
    --workdir) workdir=$2; shift 2 ;;
    --separate) separate=1; shift ;;
    --only) only=$2; shift 2 ;;
    --keep) keep=1; shift ;;
    --prepare) prepare=1; shift ;;
    -h|--help) sed -n '2,20p' "$0"; exit 0 ;;
    *) echo "check-fresh-machine: unknown option '$1'" >&2; exit 2 ;;
  esac
done
case "$only" in ""|test|run|package) ;; *) echo "check-fresh-machine: --only takes test, run or package" >&2; exit 2 ;; esac
[ "$(id -u)" -eq 0 ] || { echo "check-fresh-machine: needs root (debootstrap, chroot, mounts)" >&2; exit 2; }
mirror=${DEBIAN_MIRROR:-http://deb.debian.org/debian}
mkdir -p "$workdir"
base="$workdir/bookworm-minbase.tar"
head=$(git -C "$repo" rev-parse HEAD)
log() { printf '[check-fresh-machine %s] %s\n' "$(date +%H:%M:%S)" "$*"; }

make_base() {
  [ -s "$base" ] && return 0
  command -v debootstrap >/dev/null || { apt-get update -qq && apt-get install -y -qq debootstrap; }
  local tmp="$workdir/base-root.$$"
  rm -rf "$tmp"
  log "debootstrap --variant=minbase bookworm ($mirror)"
  debootstrap --variant=minbase bookworm "$tmp" "$mirror" > "$workdir/debootstrap.log" 2>&1 \
    || { tail -20 "$workdir/debootstrap.log"; exit 1; }
  tar -C "$tmp" -cf "$base.part" . && mv "$base.part" "$base"
  rm -rf "$tmp"
}

mounted=()
cleanup() {
  local i
  for ((i = ${#mounted[@]} - 1; i >= 0; i--)); do umount -l "${mounted[i]}" 2>/dev/null || true; done
  mounted=()
}
trap cleanup EXIT

# Removes a root only when nothing is mounted below it (a bind-mounted /dev must never be emptied).
remove_root() {
  local root=$1
  [ -d "$root" ] || return 0
  if awk -v r="$(readlink -f "$root")" '$2 == r || index($2, r "/") == 1 {found = 1} END {exit !found}' /proc/mounts; then
    echo "check-fresh-machine: something is still mounted under $root; not removing it" >&2
    return 1
  fi
  rm -rf "$root"
}

# A new root from the base tarball, with the standard Debian 12 sources, DNS, and the kernel file
# systems a running machine has; the repository cloned at HEAD into /root/graphormer-studio.
new_root() {
  local root=$1
  remove_root "$root"
  mkdir -p "$root"
  tar -C "$root" -xf "$base"
  cat > "$root/etc/apt/sources.list" <<SRC
deb $mirror bookworm main
deb $mirror bookworm-updates main
deb http://deb.debian.org/debian-security bookworm-security main
SRC
  cp -L /etc/resolv.conf "$root/etc/resolv.conf"
  for fs in proc sys dev dev/pts; do
    mkdir -p "$root/$fs"
    case "$fs" in
      proc) mount -t proc proc "$root/proc" ;;
      sys) mount -t sysfs sys "$root/sys" ;;
      dev) mount --bind /dev "$root/dev" ;;
      dev/pts) mount --bind /dev/pts "$root/dev/pts" ;;
    esac
    mounted+=("$root/$fs")
  done
  mkdir -p "$root/dev/shm" && mount -t tmpfs shm "$root/dev/shm" && mounted+=("$root/dev/shm")
  git clone -q --no-local "$repo" "$root/root/graphormer-studio"
  git -C "$root/root/graphormer-studio" checkout -q "$head"
}

# Runs a command in the root as a new user's login shell would: clean environment, no display.
in_root() {
  local root=$1; shift
  local envs=(HOME=/root PATH=/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin LANG=C.UTF-8 TERM=dumb)
  for v in OPENBLAS_CORETYPE OPENBLAS_L2_SIZE; do [ -n "${!v:-}" ] && envs+=("$v=${!v}"); done
  chroot "$root" /usr/bin/env -i "${envs[@]}" "$@"
}

declare -A took
run_command() {  # name root
  local name=$1 root=$2 logf="$workdir/$1.log" t0 rc=0
  t0=$(date +%s)
  case "$name" in
    test) log "README test command in $root: CI=true bash scripts/test.sh (log: $logf)"
          in_root "$root" bash -c 'cd /root/graphormer-studio && CI=true bash scripts/test.sh' > "$logf" 2>&1 || rc=$? ;;
    run)  log "README run command in $root: bash scripts/run.sh (log: $logf)"
          in_root "$root" bash -c 'cd /root/graphormer-studio && bash scripts/run.sh' > "$logf" 2>&1 || rc=$? ;;
    package) log "packages installed in $root: scripts/check-installed-packages.sh (log: $logf)"
          cp -r "$repo/dist" "$root/root/graphormer-studio/dist"
          in_root "$root" bash -c 'cd /root/graphormer-studio && OUT_DIR=/root/package-check bash scripts/check-installed-packages.sh' \
            > "$logf" 2>&1 || rc=$?
          rm -rf "$workdir/package-check" && cp -r "$root/root/package-check" "$workdir/package-check" || true
          grep -E '^(== |downloaded|packages|predict:|man |completion:|studio:|unit |purge:|check-installed)' "$logf" ;;
  esac
  took[$name]=$(( $(date +%s) - t0 ))
  if [ "$name" = test ]; then
    # scripts/test.sh prints the wall time of each phase and the slowest tests of each pass.
    grep -E '^test\.sh: phase ' "$logf" | sed 's/^/  /' || true
    awk '/^test\.sh: the 15 slowest tests/ {show = 1; print "  " $0; next} show && /^  / {print "  " $0; next} {show = 0}' "$logf"
    echo "  tests per label (release pass, then the sanitizer pass):"
    grep -E '^(unit|model|gui|e2e|cluster|slow|sanitize|fuzz) += ' "$logf" | sed 's/^/    /' || true
  fi
  if [ "$name" = test ] && [ $rc -eq 0 ]; then
    grep -E 'tests passed|tests failed' "$logf" || { echo "no ctest summary in the test log"; rc=1; }
  fi
  if [ "$name" = run ] && [ $rc -eq 0 ]; then
    # Without a display the run command prints the example's predictions: at least one 'ok' row.
    sed -n '/== no display/,$p' "$logf" | head -20
    grep -qE '^ +[0-9]+ +.* ok +-?[0-9]' "$logf" || { echo "the run command printed no predictions"; rc=1; }
  fi
  [ $rc -eq 0 ] || { log "$name FAILED (exit $rc); last lines of $logf:"; tail -40 "$logf"; }
  return $rc
}

# The packages of HEAD, built here (the root gets only the .deb files).
ensure_packages() {
  local rev
  rev=$(git -C "$repo" rev-parse --short=10 HEAD)
  if ! ls "$repo"/dist/graphormer-cli_*"$rev"*.deb > /dev/null 2>&1; then
    log "building the packages of $rev: scripts/package.sh"
    bash "$repo/scripts/package.sh" > "$workdir/package-build.log" 2>&1 || { tail -40 "$workdir/package-build.log"; exit 1; }
  fi
}

make_base
[ $prepare -eq 1 ] && { log "base ready: $base"; exit 0; }
[ "$only" = package ] && ensure_packages
log "HEAD $head; base $(du -h "$base" | cut -f1)"
commands=(test run)
[ -n "$only" ] && commands=("$only")
status=0
for i in "${!commands[@]}"; do
  name=${commands[i]}
  root="$workdir/root"
  [ $separate -eq 1 ] && root="$workdir/root-$name"
  if [ "$i" -eq 0 ] || [ $separate -eq 1 ]; then
    cleanup
    t0=$(date +%s)
    new_root "$root"
    log "fresh root ready in $(( $(date +%s) - t0 )) s"
  fi
  run_command "$name" "$root" || status=1
done
cleanup
for name in "${commands[@]}"; do
  printf 'check-fresh-machine: %-4s command: %5d s (%d min %02d s)\n' "$name" "${took[$name]}" $(( took[$name] / 60 )) $(( took[$name] % 60 ))
done
if [ $keep -eq 0 ]; then for r in root root-test root-run root-package; do remove_root "$workdir/$r" || status=1; done; fi
if [ $status -eq 0 ]; then echo "check-fresh-machine: PASSED at $head"; else echo "check-fresh-machine: FAILED at $head"; fi
exit $status
