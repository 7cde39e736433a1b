#!/usr/bin/env bash
# Starts the real desktop app under Xvfb, pastes molecules through the X clipboard, runs them and
# saves PNGs of the whole screen to docs/screenshots/ (or $1):
#   main-window.png        drugs pasted and predicted, one row selected
#   chart-during-run.png   the live memory chart while RDKit's NCI set (4,999 molecules) runs
#   invalid-rows.png       a table with rows that cannot be read, statuses and reasons
#   compare.png            the Compare tab: five modes, fine-tuning workload, 256 NCI molecules
#   explain-heatmap.png    integrated-gradients attributions of one molecule as a heatmap
#   trust-panel.png        intervals and domain marks; the Trust tab of a molecule outside the domain
#   train-during-run.png   the Train tab fine-tuning the default model on 600 NCI molecules' TPSA
#   train-results.png      the same run finished: baselines, parity plot, error by size, trust
#   server-run.png         a run through a prediction server (graphormer-cli serve on loopback):
#                          the chart shows the server's memory and throughput
#   import-dialog.png      a semicolon CSV from a spreadsheet in the import dialog (preview, columns)
#   kept-columns.png       its predictions with the file's own columns (pIC50, supplier) kept
#   row-menu.png           a result row's menu: copy SMILES / molfile / picture, save picture
#   help-guide.png         Help > Guide (F1)
#   window-1024x700.png    the window at 1024x700: results first, docks narrowed
#   window-1920x1080.png   the window at 1920x1080 (separate Xvfb screen of that size)
#   compare-after-run.png  the Compare tab after a comparison of three modes on the same molecules
#   fast-model.png         the bundled fast model chosen in the model panel: its trade-off in words
#   compare-models.png     the Compare tab's Models preset: accurate and fast in FP32 and BF16
# ONLY_TRUST=1, ONLY_TRAIN=1, ONLY_SERVER=1, ONLY_WORKFLOW=1 or ONLY_MODELS=1 takes just those shots; SKIP_TRAIN=1
# leaves out the training shots (the longest).
# Uses the bundled default model unless GRAPHORMER_DEFAULT_MODEL says otherwise.
set -euo pipefail
cd "$(dirname "$0")/.."
out=${1:-docs/screenshots}
need=()
for tool in xvfb-run:xvfb xdotool:xdotool xclip:xclip import:imagemagick xauth:xauth; do
  command -v "${tool%%:*}" >/dev/null || need+=("${tool##*:}")
done
if [ ${#need[@]} -gt 0 ]; then
  SUDO=""; [ "$(id -u)" -eq 0 ] || SUDO=sudo
  $SUDO apt-get update -qq && $SUDO env DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends "${need[@]}"
fi
[ -x build/app/graphormer-studio ] || { cmake -S . -B build -G Ninja -DCMAKE_BUILD_TYPE=Release && cmake --build build --target graphormer-studio; }
mkdir -p "$out"
out=$(cd "$out" && pwd)
export XDG_CONFIG_HOME=$(mktemp -d)  # fresh settings: the shots show the defaults
trap 'rm -rf "$XDG_CONFIG_HOME"' EXIT

cat > "$XDG_CONFIG_HOME/drive.sh" <<'DRIVE'
set -euo pipefail
out=$1
start_app() {
  ./build/app/graphormer-studio "$@" >/dev/null 2>&1 &
  app=$!
  for _ in $(seq 100); do wid=$(xdotool search --name "^Graphormer Studio$" 2>/dev/null | head -1 || true); [ -n "$wid" ] && break; sleep 0.2; done
  [ -n "$wid" ] || { echo "the app window did not appear"; exit 1; }
  xdotool windowsize "$wid" ${WIN_W:-1440} ${WIN_H:-900} windowmove "$wid" 0 0
  sleep 2  # model loading
  xdotool windowfocus --sync "$wid"
}
server_shot() {  # 8. The NCI set through a prediction server; the chart plots the server's memory.
  ./build/app/graphormer-cli serve --listen 127.0.0.1:0 --port-file "$XDG_CONFIG_HOME/port" --threads 1 2>/dev/null &
  server=$!
  trap 'kill $server 2>/dev/null || true' EXIT  # also when a step below fails
  for _ in $(seq 300); do [ -s "$XDG_CONFIG_HOME/port" ] && break; sleep 0.2; done
  mkdir -p "$XDG_CONFIG_HOME/Graphormer Studio"
  printf '[run]\ndevice=server\nserver_url=http://127.0.0.1:%s\n' "$(cat "$XDG_CONFIG_HOME/port")" \
    > "$XDG_CONFIG_HOME/Graphormer Studio/Graphormer Studio.conf"
  sleep 3  # the server loads and warms its model
  start_app --input /usr/share/RDKit/Data/NCI/first_5K.smi
  xdotool key ctrl+Return
  sleep ${SERVER_SHOT_AFTER:-10}
  import -window root "$out/server-run.png"
  kill $app; wait $app 2>/dev/null || true
  kill $server; wait $server 2>/dev/null || true
  rm -f "$XDG_CONFIG_HOME/Graphormer Studio/Graphormer Studio.conf"
}
paste_text() {
  printf '%b' "$1" | xclip -selection clipboard
  xdotool mousemove 160 150 click 1
  sleep 0.3
  xdotool key ctrl+v
  sleep 0.5
}

drugs='CC(=O)Oc1ccccc1C(=O)O aspirin\nCC(C)Cc1ccc(cc1)C(C)C(=O)O ibuprofen\nCC(=O)Nc1ccc(O)cc1 paracetamol\nCN1C=NC2=C1C(=O)N(C(=O)N2C)C caffeine\nN[C@@H](C)C(=O)O L-alanine\nN[C@H](C)C(=O)O D-alanine\nCN1CCC[C@H]1c1cccnc1 nicotine\nc1ccc(cc1)N=Nc1ccccc1 azobenzene\nC1CC unclosed_ring\n'
workflow_shots() {  # 9. The everyday workflow: import, kept columns, row menu, help, sizes, Compare.
  printf 'Name;Structure;pIC50;Supplier\naspirin;CC(=O)Oc1ccccc1C(=O)O;5,2;Acme\nibuprofen;CC(C)Cc1ccc(cc1)C(C)C(=O)O;4,9;Acme\nparacetamol;CC(=O)Nc1ccc(O)cc1;4,1;Chem Co\ncaffeine;CN1C=NC2=C1C(=O)N(C(=O)N2C)C;3,0;Chem Co\nbroken;C1CC;;Acme\n' > "$out/.assay.csv"
  start_app
  xdotool key ctrl+o; sleep 1.5
  xdotool type --delay 20 "$out/.assay.csv"; xdotool key Return; sleep 1.5
  import -window root "$out/import-dialog.png"
  xdotool key Return; sleep 0.5
  xdotool windowfocus --sync "$wid"; xdotool key ctrl+Return; sleep 4
  xdotool mousemove 750 120 click 1; sleep 0.5
  import -window root "$out/kept-columns.png"
  xdotool mousemove 750 210 click 3; sleep 1
  import -window root "$out/row-menu.png"
  xdotool key Escape; sleep 0.3
  xdotool key F1; sleep 1.5
  import -window root "$out/help-guide.png"
  kill $app; wait $app 2>/dev/null || true
  rm -f "$out/.assay.csv"
  WIN_W=1024 WIN_H=700 start_app
  paste_text "$drugs"; xdotool key ctrl+Return; sleep 4
  import -window root -crop 1024x700+0+0 "$out/window-1024x700.png"
  kill $app; wait $app 2>/dev/null || true
  start_app
  paste_text "$drugs"; xdotool key ctrl+Return; sleep 4
  xdotool mousemove ${COMPARE_TAB_X:-475} ${COMPARE_TAB_Y:-32} click 1; sleep 0.5
  xdotool mousemove ${COMPARE_BUTTON_X:-1302} ${COMPARE_BUTTON_Y:-92} click 1
  sleep ${COMPARE_AFTER:-30}
  import -window root "$out/compare-after-run.png"
  kill $app; wait $app 2>/dev/null || true
}
big_shot() {  # the window at 1920x1080
  WIN_W=1920 WIN_H=1080 start_app
  paste_text "$drugs"; xdotool key ctrl+Return; sleep 4
  xdotool mousemove 900 200 click 1; sleep 0.5
  import -window root "$out/window-1920x1080.png"
  kill $app; wait $app 2>/dev/null || true
}
models_shots() {  # the bundled models by name: fast loaded, then both compared
  GRAPHORMER_DEFAULT_MODEL=fast start_app --input /usr/share/RDKit/Data/NCI/first_5K.smi
  sleep 1
  import -window root "$out/fast-model.png"
  xdotool mousemove ${COMPARE_TAB_X:-475} ${COMPARE_TAB_Y:-32} click 1; sleep 0.5
  xdotool mousemove ${MODELS_BUTTON_X:-1375} ${MODELS_BUTTON_Y:-64} click 1; sleep 0.3   # the "Models" preset
  xdotool mousemove ${COMPARE_BUTTON_X:-1302} ${COMPARE_BUTTON_Y:-92} click 1
  sleep ${COMPARE_MODELS_AFTER:-40}
  import -window root "$out/compare-models.png"
  kill $app; wait $app 2>/dev/null || true
}
if [ "${1:-}" = big ]; then out=$2; big_shot; exit 0; fi
if [ -n "${ONLY_MODELS:-}" ]; then models_shots; exit 0; fi
if [ -n "${ONLY_SERVER:-}" ]; then server_shot; exit 0; fi
if [ -n "${ONLY_WORKFLOW:-}" ]; then workflow_shots; exit 0; fi
if [ -z "${ONLY_TRUST:-}${ONLY_TRAIN:-}" ]; then
# 1. Drugs, pasted and predicted; a row selected.
start_app
paste_text 'CC(=O)Oc1ccccc1C(=O)O aspirin\nCC(C)Cc1ccc(cc1)C(C)C(=O)O ibuprofen\nCC(=O)Nc1ccc(O)cc1 paracetamol\nCN1C=NC2=C1C(=O)N(C(=O)N2C)C caffeine\nCN1CCC[C@H]1c1cccnc1 nicotine\nO=C1C=CC(=O)C=C1 benzoquinone\nc1ccc2cc3ccccc3cc2c1 anthracene\nc1ccc(cc1)N=Nc1ccccc1 azobenzene\n'
xdotool key ctrl+Return
sleep 3
xdotool mousemove 700 300 click 1   # select the third row
sleep 1
import -window root "$out/main-window.png"
kill $app; wait $app 2>/dev/null || true

# 2. The chart during a run over RDKit's NCI set.
start_app --input /usr/share/RDKit/Data/NCI/first_5K.smi
xdotool key ctrl+Return
sleep 3.5  # mid-run: the 4,999 molecules take about 5 s on 2 cores
import -window root "$out/chart-during-run.png"
kill $app; wait $app 2>/dev/null || true

# 3. Rows that cannot be read: statuses with their reasons.
start_app
paste_text 'CCO ethanol\nC1CC unclosed_ring\nc1ccccc1 benzene\nC(C)(C)(C)(C)C pentavalent_carbon\nc1cccc1 bad_aromaticity\nOC(=O)CC(O)(CC(O)=O)C(O)=O citric_acid\nXyz not_smiles\n'
xdotool key ctrl+Return
sleep 3
xdotool mousemove 700 210 click 1   # select the unclosed ring
sleep 1
import -window root "$out/invalid-rows.png"
kill $app; wait $app 2>/dev/null || true

# 4. The Compare tab on the first 256 NCI molecules, fine-tuning workload (forward + backward).
head -256 /usr/share/RDKit/Data/NCI/first_5K.smi > "$out/.nci256.smi"
start_app --input "$out/.nci256.smi"
xdotool mousemove ${COMPARE_TAB_X:-475} ${COMPARE_TAB_Y:-32} click 1      # the "Compare modes" tab
sleep 0.5
xdotool mousemove 540 92 click 1      # workload: forward + backward
sleep 0.5
xdotool key Down Return
sleep 0.5
xdotool mousemove ${COMPARE_BUTTON_X:-1302} ${COMPARE_BUTTON_Y:-92} click 1     # Compare
sleep 45
import -window root "$out/compare.png"
kill $app; wait $app 2>/dev/null || true
rm -f "$out/.nci256.smi"

# 5. An explanation: integrated gradients for 4-nitroaniline, drawn as a heatmap.
start_app
paste_text 'Nc1ccc(cc1)[N+](=O)[O-] 4-nitroaniline\nCC(=O)Oc1ccccc1C(=O)O aspirin\nO=C1C=CC(=O)C=C1 benzoquinone\n'
xdotool key ctrl+Return
sleep 3
xdotool mousemove 700 120 click 1   # select the first row
sleep 0.5
xdotool key ctrl+e
sleep 6
import -window root "$out/explain-heatmap.png"
kill $app; wait $app 2>/dev/null || true

fi
if [ -z "${ONLY_TRAIN:-}" ]; then
# 6. Trust: intervals and domain marks in the table, the Trust tab of a molecule with a rare group.
start_app
paste_text 'CC(=O)Oc1ccccc1C(=O)O aspirin\nCC(=O)Nc1ccc(O)cc1 paracetamol\nCN1C=NC2=C1C(=O)N(C(=O)N2C)C caffeine\nO=S(=O)(N)c1ccc(N)cc1 sulfanilamide\nFC(F)(F)c1ccc(cc1)OC(F)(F)F trifluoromethoxy\n[Na+].CC(=O)[O-] sodium_acetate\n[Fe+2].[Cl-].[Cl-] iron_chloride\n'
xdotool key ctrl+Return
sleep 4
xdotool mousemove 700 ${TRUST_ROW_Y:-486} click 1   # select a row
sleep 0.5
xdotool mousemove ${TRUST_TAB_X:-1185} ${TRUST_TAB_Y:-57} click 1   # the "Trust" tab beside "Molecule"
sleep 1.5
import -window root "$out/trust-panel.png"
kill $app; wait $app 2>/dev/null || true
fi

if [ -z "${SKIP_TRAIN:-}" ]; then
# 7. Training: the default model fine-tuned on 600 NCI molecules' TPSA, during the run and after.
{ echo "smiles,tpsa"; awk '!/^#/ && n < 600 { print; n++ }' /usr/share/RDKit/Data/NCI/first_5k.tpsa.csv; } > "$out/.tpsa.csv"
start_app --train "$out/.tpsa.csv" --targets tpsa
sleep 2
xdotool mousemove ${TRAIN_TAB_X:-563} ${TRAIN_TAB_Y:-32} click 1   # the "Train" tab
sleep 1
xdotool mousemove ${TRAIN_BUTTON_X:-399} ${TRAIN_BUTTON_Y:-629} click 1   # "Train"
sleep ${TRAIN_SHOT_AFTER:-25}
import -window root "$out/train-during-run.png"
sleep ${TRAIN_RESULTS_AFTER:-200}
xdotool mousemove ${TRAIN_RESULTS_TAB_X:-936} ${TRAIN_RESULTS_TAB_Y:-66} click 1   # the run's "Results" page
sleep 1
xdotool mousemove ${PARITY_X:-1100} ${PARITY_Y:-330}   # hover a point of the parity plot
sleep 1
import -window root "$out/train-results.png"
kill $app; wait $app 2>/dev/null || true
rm -f "$out/.tpsa.csv"
fi
server_shot
workflow_shots
models_shots
DRIVE
# The drive script takes its first argument as the output folder, or "big" and the folder.
if [ -z "${ONLY_BIG:-}" ]; then xvfb-run -a -s "-screen 0 1440x900x24" bash "$XDG_CONFIG_HOME/drive.sh" "$out"; fi
if [ -z "${ONLY_TRUST:-}${ONLY_TRAIN:-}${ONLY_SERVER:-}" ]; then
  xvfb-run -a -s "-screen 0 1920x1080x24" bash "$XDG_CONFIG_HOME/drive.sh" big "$out"
fi
echo "screenshots in $out"
