#!/usr/bin/env bash
# Builds the Debian packages (docs/PACKAGING.md) into dist/ and checks them:
#   graphormer-cli, graphormer-studio, graphormer-screen-mpi, graphormer-model-default
# Version: the project version + the commit date and revision (0.1.0+git20261204.1a2b3c4d5e),
# so that a newer commit has a newer version. Built in build-package/ (Release, hardened flags,
# no tests) with SOURCE_DATE_EPOCH from the commit, then lintian (any error fails),
# desktop-file-validate and appstreamcli validate on the packaged files.
#   bash scripts/package.sh [--no-check]
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/setup-deps.sh --packaging
rev=$(git rev-parse --short=10 HEAD)
day=$(git log -1 --format=%cd --date=format:%Y%m%d)
project=$(sed -n 's/^project(GraphormerStudio VERSION \([0-9.]*\).*/\1/p' CMakeLists.txt)
version="$project+git$day.$rev"
git diff --quiet HEAD -- && dirty="" || dirty=".dirty"
version+=$dirty
export SOURCE_DATE_EPOCH=$(git log -1 --format=%ct)
build=${BUILD_DIR:-build-package}
mkdir -p "$build"
# Debian's hardening flags (dpkg-buildflags): fortified calls, stack protector, full RELRO, BIND_NOW.
cflags="-O2 -g0 -D_FORTIFY_SOURCE=2 -fstack-protector-strong -Wformat -Werror=format-security"
cmake -S . -B "$build" -G Ninja -DCMAKE_BUILD_TYPE=Release -DCMAKE_CXX_FLAGS_RELEASE="$cflags -DNDEBUG" \
  -DCMAKE_EXE_LINKER_FLAGS="-Wl,-z,relro -Wl,-z,now" -DGRAPHORMER_BUILD_TESTS=OFF -DGRAPHORMER_BUILD_BENCH=OFF \
  -DGRAPHORMER_PACKAGE_VERSION="$version" -DGRAPHORMER_PACKAGE_REVISION="$rev$dirty" > "$build/configure.log" \
  || { cat "$build/configure.log"; exit 1; }
cmake --build "$build" -j "$(nproc)"
rm -rf dist && mkdir -p dist
(cd "$build" && cpack -G DEB -B "$PWD/../dist/cpack" > ../dist/cpack.log) || { cat dist/cpack.log; exit 1; }
mv dist/cpack/*.deb dist/ && rm -rf dist/cpack
echo "== packages ($version)"
for deb in dist/*.deb; do
  printf '%-58s %8s  %s\n' "$(basename "$deb")" "$(du -h "$deb" | cut -f1)" "$(dpkg-deb -f "$deb" Depends | cut -c1-110)"
done
[ "${1:-}" = "--no-check" ] && exit 0

echo "== lintian"
lintian --fail-on error --display-info --suppress-tags-from-file packaging/debian/lintian-accepted dist/*.deb \
  | tee dist/lintian.txt
echo "lintian: $(grep -c '^E:' dist/lintian.txt || true) errors, $(grep -c '^W:' dist/lintian.txt || true) warnings" \
     "(accepted and explained: packaging/debian/lintian-accepted)"
tree=$(mktemp -d)
trap 'rm -rf "$tree"' EXIT
for deb in dist/*.deb; do dpkg-deb -x "$deb" "$tree"; done
echo "== desktop-file-validate"
desktop-file-validate "$tree"/usr/share/applications/*.desktop && echo "desktop entry: valid"
echo "== appstreamcli validate"
appstreamcli validate --no-net "$tree"/usr/share/metainfo/*.metainfo.xml
echo "package: PASSED ($version, dist/)"
