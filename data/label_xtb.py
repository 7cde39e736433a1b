#!/usr/bin/python3
"""Label molecules with GFN2-xTB properties: orbital energies, dipole, polarizability, solvation, log P.

Protocol (data/README.md), one molecule at a time, one thread per xtb run:
- RDKit parses the SMILES; multi-fragment molecules (salts, mixtures) are skipped. Formal charge and
  radical electrons go to xtb (`--chrg`, `--uhf`).
- Geometry: AddHs; ETKDGv3 with randomSeed=42; MMFF94 optimisation (maxIters=2000); molecules MMFF
  cannot type are skipped with that reason.
- Three GFN2-xTB single points on that geometry, in one directory (the gas-phase wavefunction is the
  start guess of the other two): gas phase; `--alpb water`; `--alpb octanol` (reference state
  `gsolv`, 1 M gas / 1 M solution, the same in both solvents).
- From the gas phase: HOMO-LUMO gap (eV), HOMO and LUMO energies (eV, the orbital table's "(HOMO)"
  and "(LUMO)" rows), dipole moment (Debye, the "full:" row), isotropic polarizability α(0)
  (bohr³; xtb's D4 charge-dependent model, not a response calculation). From the ALPB runs: the
  solvation free energies ΔG_water and ΔG_octanol (kcal/mol, 1 Eh = 627.509474 kcal/mol), and
  log P = (ΔG_water - ΔG_octanol) / (RT ln 10) with RT ln 10 = 1.364 kcal/mol (298.15 K).
- A calculation counts as failed (the molecule gets a status, no numbers) when xtb exits non-zero
  or does not end normally, the SCF did not converge, a value is missing, or a value is outside
  its sanity range: gap (0, 15] eV, HOMO and LUMO within [-30, 10] eV, dipole [0, 100] D,
  polarizability (0, 5000] bohr³, each ΔG within [-150, 50] kcal/mol.

Resumable: each finished molecule is appended to OUTPUT.journal (gzip members, flushed every
--flush-every molecules); a killed run started again reads the journal and labels only the
molecules not yet in it, so no molecule is labelled twice. When every molecule is done, OUTPUT is
written (CSV, gzip when its name ends in .gz): one row per input row, in input order, with a status
column ("ok" or the reason) and the seconds the molecule took.

Input: a SMILES file (optionally .gz) `smiles [id]` per line (a first line starting with "smiles"
is a header), or a CSV with a `smiles` column. Needs python3-rdkit and xtb.
Usage: data/label_xtb.py INPUT OUTPUT.csv[.gz] [--workers N] [--flush-every N] [--limit N]
"""
import argparse
import csv
import gzip
import io
import json
import math
import os
import re
import subprocess
import sys
import tempfile
import time
import zlib
from multiprocessing import Pool

from rdkit import Chem, RDLogger
from rdkit.Chem import AllChem

RDLogger.DisableLog("rdApp.*")
HARTREE_KCAL = 627.509474
RT_LN10 = 0.0019872043 * 298.15 * math.log(10)
PROPERTIES = ["gap_ev", "homo_ev", "lumo_ev", "dipole_debye", "polarizability_bohr3",
              "dg_water_kcal", "dg_octanol_kcal", "logp_xtb"]
RANGES = {"gap_ev": (1e-9, 15), "homo_ev": (-30, 10), "lumo_ev": (-30, 10), "dipole_debye": (0, 100),
          "polarizability_bohr3": (1e-9, 5000), "dg_water_kcal": (-150, 50), "dg_octanol_kcal": (-150, 50)}
PATTERNS = {
    "gap_ev": re.compile(r"HOMO-LUMO GAP\s+(-?[0-9.]+)\s+eV"),
    "homo_ev": re.compile(r"(-?[0-9.]+)\s+\(HOMO\)"),
    "lumo_ev": re.compile(r"(-?[0-9.]+)\s+\(LUMO\)"),
    "dipole_debye": re.compile(r"molecular dipole:\s*\n.*\n.*\n\s*full:\s+\S+\s+\S+\s+\S+\s+(-?[0-9.]+)"),
    "polarizability_bohr3": re.compile(r"Mol\. α\(0\) /au\s*:\s*(-?[0-9.]+)"),
}
GSOLV = re.compile(r"-> Gsolv\s+(-?[0-9.]+)\s+Eh")


def geometry(smiles):
    """(xyz block, charge, unpaired electrons) or (None, reason)."""
    mol = Chem.MolFromSmiles(smiles)
    if mol is None:
        return None, "rdkit_parse_error"
    if len(Chem.GetMolFrags(mol)) > 1:
        return None, "skipped_multi_fragment"
    charge = Chem.GetFormalCharge(mol)
    unpaired = sum(a.GetNumRadicalElectrons() for a in mol.GetAtoms())
    mol = Chem.AddHs(mol)
    params = AllChem.ETKDGv3()
    params.randomSeed = 42
    try:
        if AllChem.EmbedMolecule(mol, params) != 0:
            return None, "embedding_failed"
    except Exception as e:  # RDKit's "Invariant Violation" and friends
        return None, "embedding_error: " + str(e).splitlines()[0][:80]
    if not AllChem.MMFFHasAllMoleculeParams(mol):
        return None, "mmff_cannot_type"
    try:
        AllChem.MMFFOptimizeMolecule(mol, maxIters=2000)
    except Exception as e:
        return None, "mmff_error: " + str(e).splitlines()[0][:80]
    return (Chem.MolToXYZBlock(mol), charge, unpaired), None


def run_xtb(tmp, charge, unpaired, solvent=None):
    """xtb's output text, or raises RuntimeError with the reason."""
    cmd = ["xtb", "m.xyz", "--gfn", "2", "--chrg", str(charge), "--uhf", str(unpaired)]
    if solvent:
        cmd += ["--alpb", solvent]
    env = dict(os.environ, OMP_NUM_THREADS="1", MKL_NUM_THREADS="1", OMP_STACKSIZE="500M")
    try:
        run = subprocess.run(cmd, cwd=tmp, env=env, capture_output=True, text=True, timeout=600)
    except subprocess.TimeoutExpired:
        raise RuntimeError("xtb_timeout" + (f"_{solvent}" if solvent else ""))
    where = f" ({solvent or 'gas'})"
    if "SCF not converged" in run.stdout or "convergence criteria satisfied" not in run.stdout:
        raise RuntimeError("scf_not_converged" + where)
    if run.returncode != 0 or "normal termination of xtb" not in run.stderr + run.stdout:
        raise RuntimeError("xtb_failed" + where)
    return run.stdout


def last_float(pattern, text, name):
    found = pattern.findall(text)
    if not found:
        raise RuntimeError("missing_" + name)
    return float(found[-1])


def properties(xyz, charge, unpaired):
    """Every property of PROPERTIES, or raises RuntimeError with the reason."""
    with tempfile.TemporaryDirectory() as tmp:
        with open(os.path.join(tmp, "m.xyz"), "w") as f:
            f.write(xyz)
        gas = run_xtb(tmp, charge, unpaired)
        values = {name: last_float(p, gas, name) for name, p in PATTERNS.items()}
        for solvent in ("water", "octanol"):
            out = run_xtb(tmp, charge, unpaired, solvent)
            values[f"dg_{solvent}_kcal"] = last_float(GSOLV, out, "gsolv_" + solvent) * HARTREE_KCAL
    for name, (low, high) in RANGES.items():
        if not low <= values[name] <= high:
            raise RuntimeError(f"{name}_out_of_range")
    values["logp_xtb"] = (values["dg_water_kcal"] - values["dg_octanol_kcal"]) / RT_LN10
    return values


def label(smiles):
    """One journal record: smiles, status, seconds and (when ok) every property."""
    start = time.monotonic()
    record = {"smiles": smiles}
    geo, reason = geometry(smiles)
    if geo is None:
        record["status"] = reason
    else:
        try:
            record.update({k: round(v, 4) for k, v in properties(*geo).items()})
            record["status"] = "ok"
        except RuntimeError as e:
            record["status"] = str(e)
    record["seconds"] = round(time.monotonic() - start, 3)
    return record


def read_input(path):
    """The SMILES of every input row, in order."""
    opener = gzip.open if path.endswith(".gz") else open
    with opener(path, "rt", newline="") as f:
        text = f.read()
    if path.removesuffix(".gz").endswith(".csv"):
        return [row["smiles"] for row in csv.DictReader(io.StringIO(text))]
    rows = []
    for n, line in enumerate(text.splitlines()):
        parts = line.split()
        if not parts or parts[0].startswith("#") or (n == 0 and parts[0].lower() == "smiles"):
            continue
        rows.append(parts[0])
    return rows


def read_journal(path):
    """(records, bytes of whole members) of a journal: a member cut short by a kill loses only
    its own records, and the caller cuts it off before appending."""
    if not os.path.exists(path):
        return {}, 0
    with open(path, "rb") as f:
        data = f.read()
    text, good, rest = bytearray(), 0, data
    while rest:
        d = zlib.decompressobj(16 + zlib.MAX_WBITS)
        try:
            chunk = d.decompress(rest)
        except zlib.error:
            break
        if not d.eof:
            break
        text += chunk
        good += len(rest) - len(d.unused_data)
        rest = d.unused_data
    done = {}
    for line in text.decode(errors="replace").split("\n"):
        try:
            record = json.loads(line)
        except json.JSONDecodeError:
            continue
        if isinstance(record, dict) and "smiles" in record and "status" in record:
            done[record["smiles"]] = record
    return done, good


def append_journal(path, records):
    payload = "".join(json.dumps(r, sort_keys=True) + "\n" for r in records).encode()
    with open(path, "ab") as f:
        f.write(gzip.compress(payload, mtime=0))
        f.flush()
        os.fsync(f.fileno())


def write_output(path, smiles, done):
    columns = ["smiles", "status"] + PROPERTIES + ["seconds"]
    buf = io.StringIO()
    w = csv.writer(buf, lineterminator="\n")
    w.writerow(columns)
    for s in smiles:
        r = done[s]
        w.writerow([s, r["status"]] + [r.get(p, "") for p in PROPERTIES] + [r.get("seconds", "")])
    data = buf.getvalue().encode()
    if path.endswith(".gz"):
        data = gzip.compress(data, compresslevel=9, mtime=0)
    tmp = path + ".tmp"
    with open(tmp, "wb") as f:
        f.write(data)
    os.replace(tmp, path)


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("input")
    ap.add_argument("output")
    ap.add_argument("--workers", type=int, default=1)
    ap.add_argument("--flush-every", type=int, default=50)
    ap.add_argument("--limit", type=int, default=0, help="label only the first N input rows")
    args = ap.parse_args()
    smiles = read_input(args.input)
    if args.limit:
        smiles = smiles[: args.limit]
    journal = args.output + ".journal"
    done, good = read_journal(journal)
    if os.path.exists(journal) and good < os.path.getsize(journal):
        print(f"{journal}: dropping a damaged tail after byte {good}", file=sys.stderr)
        os.truncate(journal, good)
    todo = [s for s in dict.fromkeys(smiles) if s not in done]
    print(f"{len(smiles)} rows, {len(done)} in the journal, {len(todo)} to label", file=sys.stderr, flush=True)
    pending = []
    with Pool(args.workers) as pool:
        for n, record in enumerate(pool.imap_unordered(label, todo, chunksize=1), 1):
            done[record["smiles"]] = record
            pending.append(record)
            if len(pending) >= args.flush_every or n == len(todo):
                append_journal(journal, pending)
                pending = []
                print(f"{n}/{len(todo)} labelled", file=sys.stderr, flush=True)
    write_output(args.output, smiles, done)
    print(f"wrote {args.output}", file=sys.stderr)


if __name__ == "__main__":
    main()
