#!/usr/bin/env bash
# Renders the app icon (packaging/desktop/icons/*.svg) to the PNG sizes of the hicolor theme,
# committed next to it (packaging/CMakeLists.txt installs both). Run after editing the SVG.
set -euo pipefail
cd "$(dirname "$0")/../packaging/desktop/icons"
command -v rsvg-convert > /dev/null || { echo "render-icons: needs rsvg-convert (apt-get install librsvg2-bin)" >&2; exit 2; }
id=org.graphormerstudio.GraphormerStudio
for size in 16 22 24 32 48 64 128 256 512; do
  rsvg-convert -w "$size" -h "$size" "$id.svg" -o "$id-$size.png"
done
echo "render-icons: wrote $(ls "$id"-*.png | wc -l) PNG sizes"
