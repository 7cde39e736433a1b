#!/usr/bin/env bash
# Installs every Debian 12 package Graphormer Studio needs to build, test and run.
# Idempotent: packages already present are skipped by apt-get.
set -euo pipefail
PKGS=(
  build-essential cmake ninja-build pkg-config git python3
  libtorch-dev libopenblas0-pthread
  librdkit-dev rdkit-data libboost-dev libboost-serialization-dev libboost-iostreams-dev
  libboost-system-dev libboost-program-options-dev libeigen3-dev libfreetype-dev
  libgtest-dev libgmock-dev nlohmann-json3-dev
  qt6-base-dev libqt6svg6-dev libqcustomplot-dev
  xvfb xauth
)
missing=()
for p in "${PKGS[@]}"; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing+=("$p")
done
if [ ${#missing[@]} -eq 0 ]; then
  echo "setup-deps: all packages present"
  exit 0
fi
SUDO=""
[ "$(id -u)" -eq 0 ] || SUDO=sudo
export DEBIAN_FRONTEND=noninteractive
$SUDO apt-get update -qq
$SUDO apt-get install -y -qq --no-install-recommends "${missing[@]}"
# LibTorch links libblas.so.3; make sure the OpenBLAS pthread build is the one chosen.
if command -v update-alternatives >/dev/null; then
  for alt in libblas.so.3-x86_64-linux-gnu liblapack.so.3-x86_64-linux-gnu; do
    cand=$(update-alternatives --list "$alt" 2>/dev/null | grep openblas-pthread | head -1 || true)
    [ -n "$cand" ] && $SUDO update-alternatives --set "$alt" "$cand" >/dev/null || true
  done
fi
echo "setup-deps: installed ${missing[*]}"
