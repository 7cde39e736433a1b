#!/usr/bin/python3
"""Label molecules with the GFN2-xTB HOMO-LUMO gap (eV), the default model's target.

Protocol (docs/MODEL.md): RDKit AddHs; ETKDGv3 embedding with randomSeed=42; MMFF94 optimisation
(maxIters=2000; molecules MMFF cannot type are skipped with that reason); a GFN2-xTB single point
`xtb m.xyz --gfn 2 --chrg <formal charge> --uhf <radical electrons>` with OMP_NUM_THREADS=1; the
label is the last "HOMO-LUMO GAP ... eV" line. Multi-fragment molecules (salts, mixtures) are
skipped; a gap outside (0, 15] eV counts as a failed calculation. Every input row gets an output
row `smiles,gap_ev,status` in input order; rows already in the output are not recomputed, so an
interrupted run resumes.

Needs python3-rdkit and xtb (apt-get install python3-rdkit xtb).
Usage: data/label_xtb_gap.py INPUT.smi OUTPUT.csv [--workers N]
"""
import csv
import os
import re
import subprocess
import sys
import tempfile
from concurrent.futures import ProcessPoolExecutor

from rdkit import Chem, RDLogger
from rdkit.Chem import AllChem, rdmolops

RDLogger.DisableLog("rdApp.*")
GAP = re.compile(r"HOMO-LUMO GAP\s+(-?[0-9.]+)\s+eV")


def label(smiles):
    mol = Chem.MolFromSmiles(smiles)
    if mol is None:
        return "", "rdkit_parse_error"
    if len(rdmolops.GetMolFrags(mol)) > 1:
        return "", "skipped_multi_fragment"
    charge = Chem.GetFormalCharge(mol)
    radicals = sum(a.GetNumRadicalElectrons() for a in mol.GetAtoms())
    mol = Chem.AddHs(mol)
    params = AllChem.ETKDGv3()
    params.randomSeed = 42
    try:
        if AllChem.EmbedMolecule(mol, params) != 0:
            return "", "embedding_failed"
    except Exception as e:  # RDKit's "Invariant Violation" and friends
        return "", "embedding_error: " + str(e).splitlines()[0][:80]
    if not AllChem.MMFFHasAllMoleculeParams(mol):
        return "", "mmff_cannot_type"
    try:
        AllChem.MMFFOptimizeMolecule(mol, maxIters=2000)
    except Exception as e:
        return "", "mmff_error: " + str(e).splitlines()[0][:80]
    with tempfile.TemporaryDirectory() as tmp:
        with open(os.path.join(tmp, "m.xyz"), "w") as f:
            f.write(Chem.MolToXYZBlock(mol))
        env = dict(os.environ, OMP_NUM_THREADS="1", OMP_STACKSIZE="500M")
        try:
            run = subprocess.run(["xtb", "m.xyz", "--gfn", "2", "--chrg", str(charge), "--uhf", str(radicals)],
                                 cwd=tmp, env=env, capture_output=True, text=True, timeout=600)
        except subprocess.TimeoutExpired:
            return "", "xtb_timeout"
    gaps = GAP.findall(run.stdout)
    if run.returncode != 0 or not gaps:
        return "", "xtb_failed"
    gap = float(gaps[-1])
    if not 0 < gap <= 15:
        return "", "gap_out_of_range"
    return f"{gap:.4f}", "ok"


def main():
    src, dst = sys.argv[1], sys.argv[2]
    workers = int(sys.argv[sys.argv.index("--workers") + 1]) if "--workers" in sys.argv else 1
    smiles = []
    with open(src) as f:
        for line in f:
            if line.strip() and not line.startswith("#"):
                smiles.append(line.split()[0])
    done = {}
    if os.path.exists(dst):
        with open(dst) as f:
            for row in csv.DictReader(f):
                done[row["smiles"]] = (row["gap_ev"], row["status"])
    todo = [s for s in dict.fromkeys(smiles) if s not in done]
    with ProcessPoolExecutor(workers) as pool:
        for n, (s, result) in enumerate(zip(todo, pool.map(label, todo, chunksize=8)), 1):
            done[s] = result
            if n % 100 == 0 or n == len(todo):
                write(dst, smiles, done)
                print(f"{n}/{len(todo)} labelled", file=sys.stderr, flush=True)
    write(dst, smiles, done)


def write(dst, smiles, done):
    tmp = dst + ".tmp"
    with open(tmp, "w", newline="") as f:
        w = csv.writer(f)
        w.writerow(["smiles", "gap_ev", "status"])
        for s in smiles:
            gap, status = done.get(s, ("", "pending"))
            w.writerow([s, gap, status])
    os.replace(tmp, dst)


if __name__ == "__main__":
    main()
