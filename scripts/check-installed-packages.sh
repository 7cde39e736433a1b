#!/usr/bin/env bash
# Installs the Debian packages of dist/ on this (clean, Debian 12, root) system and checks what a
# user and an administrator get; run by `scripts/check-fresh-machine.sh --only package` inside a
# fresh debootstrap root, not on a machine you use (it installs and purges system packages).
#   1. `apt-get install ./dist/graphormer-*.deb` resolves every dependency from Debian's archive;
#   2. `graphormer-cli --version` and `predict` on the packaged example with the default model;
#   3. the manual pages open (man) and the bash completion completes;
#   4. graphormer-studio, started through its desktop entry's Exec line with a file under Xvfb,
#      shows its main window: a screenshot goes to $OUT_DIR/installed-studio.png;
#   5. the service unit is installed and not enabled, its config is a conffile, no user was made;
#   6. `apt-get purge` leaves no file behind: the file list after purging equals the one before
#      installing (dependencies kept installed in both, so only our packages' files can differ).
set -euo pipefail
cd "$(dirname "$0")/.."
out=${OUT_DIR:-/root/package-check}
mkdir -p "$out"
export DEBIAN_FRONTEND=noninteractive
ours=(graphormer-cli graphormer-studio graphormer-screen-mpi graphormer-model-default)
debs=(dist/*.deb)
[ -e "${debs[0]}" ] || { echo "check-installed: no dist/*.deb (run scripts/package.sh)" >&2; exit 2; }
step() { printf '\n== %s\n' "$*"; }
fail() { echo "check-installed: FAILED: $*" >&2; exit 1; }
# Every file outside the volatile places (apt and dpkg state and caches, logs, /tmp, home dirs:
# a user's settings in $HOME are theirs, not the package's).
snapshot() {
  find / -xdev \( -path /proc -o -path /sys -o -path /dev -o -path /tmp -o -path /root -o -path /home \
    -o -path /var/cache -o -path /var/lib/apt -o -path /var/lib/dpkg -o -path /var/log -o -path /run \) -prune \
    -o -print | sort > "$1"
}

step "tools for this check (not dependencies of the packages): Xvfb, xwd, netpbm, man-db"
apt-get update -qq
apt-get install -y -qq --no-install-recommends xvfb xauth x11-apps x11-utils netpbm man-db > /dev/null

step "0. what each use pulls (apt-get --simulate)"
headless=$(apt-get install -s --no-install-recommends ./dist/graphormer-cli_*.deb ./dist/graphormer-model-default_*.deb | grep -c '^Inst ')
desktop=$(apt-get install -s --no-install-recommends ./dist/graphormer-studio_*.deb ./dist/graphormer-model-default_*.deb | grep -c '^Inst ')
everything=$(apt-get install -s --no-install-recommends "${debs[@]/#/./}" | grep -c '^Inst ')
qt=$(apt-get install -s --no-install-recommends ./dist/graphormer-cli_*.deb ./dist/graphormer-model-default_*.deb | grep -c '^Inst libqt6' || true)
echo "packages installed: headless (cli + model) $headless (Qt libraries among them: $qt), desktop (studio + model) $desktop, all four $everything"
[ "$qt" -eq 0 ] || fail "the headless install pulls Qt"

step "1. apt-get install ./dist/*.deb (the root's only sources are Debian's)"
apt-get install -y --no-install-recommends "${debs[@]/#/./}" 2>&1 | tee "$out/install.log" | grep -E '^(Get|Setting up graphormer)' | tail -5
grep -q '^E:' "$out/install.log" && fail "apt-get install reported errors"
for p in "${ours[@]}"; do dpkg-query -W -f='${Status} ${Version}\n' "$p" | grep -q 'install ok installed' || fail "$p not installed"; done
echo "downloaded from: $(grep -oE '^Get:[0-9]+ [^ ]+' "$out/install.log" | awk '{print $2}' | sort -u | tr '\n' ' ')"
echo "packages pulled: $(grep -c '^Get:' "$out/install.log")"
# The first install also installed the dependencies; purge ours and take the "before" list again
# with the dependencies present, so that the purge comparison sees only our packages' files.
apt-get purge -y -qq "${ours[@]}" > /dev/null
snapshot "$out/files-deps-only.txt"
apt-get install -y -qq --no-install-recommends "${debs[@]/#/./}" > /dev/null

step "2. graphormer-cli --version and predict with the default model"
graphormer-cli --version | tee "$out/version.txt"
grep -q '(git ' "$out/version.txt" && grep -q 'LibTorch ' "$out/version.txt" || fail "--version lacks the revision or library versions"
example=/usr/share/doc/graphormer-cli/examples/quickstart.smi
graphormer-cli predict --input "$example" --output /tmp/installed.csv --quiet 2> "$out/predict.err" || { cat "$out/predict.err"; fail "predict"; }
head -4 /tmp/installed.csv | cut -c1-120
ok=$(awk -F, 'NR > 1 && $5 == "ok"' /tmp/installed.csv | wc -l)
[ "$ok" -gt 0 ] || fail "predict gave no 'ok' row"
grep -q '/usr/share/graphormer-studio/models/accurate' /tmp/installed.csv.json || fail "the run record does not name the installed default model"
echo "predict: $ok ok rows with /usr/share/graphormer-studio/models/accurate"

step "3. manual pages and bash completion"
for page in graphormer-cli graphormer-studio graphormer-screen-mpi; do
  MANWIDTH=80 man -P cat "$page" > "$out/$page.man.txt" 2> "$out/man.err" || fail "man $page"
  echo "man $page: $(wc -l < "$out/$page.man.txt") lines"
done
grep -q 'screen merge' "$out/graphormer-cli.man.txt" || fail "graphormer-cli(1) lacks the screen commands"
words=$(bash -c 'source /usr/share/bash-completion/completions/graphormer-cli
  COMP_WORDS=(graphormer-cli predict --prec); COMP_CWORD=2; _graphormer_cli; echo "${COMPREPLY[*]}"')
[ "$words" = "--precision" ] || fail "bash completion of 'predict --prec' gave '$words'"
echo "completion: predict --prec -> $words"

step "4. graphormer-studio through its desktop entry, under Xvfb"
desktop=/usr/share/applications/org.graphormerstudio.GraphormerStudio.desktop
exec_line=$(sed -n 's/^Exec=//p' "$desktop")
cp "$example" /tmp/from-file-manager.smi
command=${exec_line//%f//tmp/from-file-manager.smi}
echo "Exec: $exec_line  ->  $command"
Xvfb :71 -screen 0 1400x900x24 -nolisten tcp > "$out/xvfb.log" 2>&1 &
xvfb=$!
trap 'kill $xvfb 2> /dev/null || true' EXIT
for _ in $(seq 100); do xdpyinfo -display :71 > /dev/null 2>&1 && break; sleep 0.1; done
HOME=/tmp/studio-home DISPLAY=:71 $command > "$out/studio.log" 2>&1 &
studio=$!
shown=""
for _ in $(seq 300); do  # up to 60 s for the window (and the model) to come up
  kill -0 $studio 2> /dev/null || break
  windows=$(xwininfo -display :71 -root -tree 2> /dev/null || true)  # not piped into grep -q: SIGPIPE under pipefail
  if grep -q '"Graphormer Studio"' <<< "$windows"; then shown=1; sleep 3; break; fi
  sleep 0.2
done
[ -n "$shown" ] || { cat "$out/studio.log"; fail "no 'Graphormer Studio' window appeared"; }
xwd -display :71 -root -silent | xwdtopnm 2> /dev/null | pnmtopng > "$out/installed-studio.png"
kill $studio; wait $studio 2> /dev/null || true
echo "studio: main window shown; screenshot $out/installed-studio.png"

step "5. the server's unit and configuration"
unit=/lib/systemd/system/graphormer-serve.service
[ -f "$unit" ] || fail "no $unit"
if find /etc/systemd -name graphormer-serve.service 2> /dev/null | grep -q .; then fail "the unit is enabled"; fi
dpkg-query -W -f='${Conffiles}\n' graphormer-cli | grep -q /etc/graphormer/serve.env || fail "serve.env is not a conffile"
grep -qiE 'graphormer' /etc/passwd && fail "a user was created"
echo "unit installed, not enabled; /etc/graphormer/serve.env is a conffile; no user created"

step "6. apt-get purge leaves nothing behind"
apt-get purge -y -qq "${ours[@]}" > /dev/null
snapshot "$out/files-after-purge.txt"
if ! diff "$out/files-deps-only.txt" "$out/files-after-purge.txt" > "$out/purge.diff"; then
  cat "$out/purge.diff"; fail "files differ after purge"
fi
left=$(grep -c graphormer "$out/files-after-purge.txt" || true)
[ "$left" -eq 0 ] || fail "$left paths named graphormer remain"
echo "purge: the file list equals the one before installing ($(wc -l < "$out/files-after-purge.txt") paths)"
echo "check-installed: PASSED"
