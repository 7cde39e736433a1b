#!/usr/bin/python3
"""Make a diverse organic molecule set from RDKit's NCI sample by seeded BRICS recombination.

Protocol (data/README.md):
1. Every molecule of the source file is parsed and broken into BRICS fragments
   (`BRICS.BRICSDecompose`, RDKit's rules; fragments keep their dummy atoms, whose isotope is the
   BRICS environment label).
2. New molecules are sampled with a seeded `random.Random(seed)`: a random fragment, then for each
   open attachment point a random fragment whose label the BRICS rules (`BRICS.reactionDefs`, the
   pairs `BRICS.BRICSBuild` joins) allow, joined by `Chem.molzip`; after `--max-joins` joins
   (drawn 1..max per molecule) only fragments with a single attachment point are taken, so every
   molecule ends complete. `BRICSBuild` itself enumerates exhaustively in a fixed order (all
   products of the first seed before the second; its scrambling is broken in RDKit 2022.09 on
   Python 3.11), which gives neither diversity nor speed at this size.
3. Candidates, the source molecules first, pass the filters in this order, each counted:
   RDKit sanitizes; one fragment; organic elements only (H C N O F P S Cl Br I); 5-60 heavy atoms;
   MMFF94 can type it (after AddHs); new canonical SMILES; new InChIKey.
4. Sampling stops when `--count` molecules are accepted (source molecules included).

Output: SMILES file (gzip when the name ends in .gz) `smiles<TAB>id`, ids `nci:<source id>` or
`brics:<n>`, and a JSON record (`OUTPUT.json`) of the counts per filter, the seed and the
fragment statistics. Needs python3-rdkit.

Usage: data/make_brics_set.py SOURCE.smi OUTPUT.smi[.gz] [--count N] [--seed S] [--max-joins K]
"""
import argparse
import gzip
import json
import os
import random
import subprocess
import sys
import tempfile
from collections import Counter, defaultdict

from rdkit import Chem, RDLogger
from rdkit.Chem import BRICS
from rdkit.Chem import AllChem
from rdkit.Chem.Scaffolds import MurckoScaffold

RDLogger.DisableLog("rdApp.*")
ORGANIC = {1, 6, 7, 8, 9, 15, 16, 17, 35, 53}
FILTERS = ["sanitize_failed", "multi_fragment", "non_organic_element", "heavy_atoms_out_of_5_60",
           "mmff_cannot_type", "duplicate_smiles", "duplicate_inchikey", "inchikey_failed_kept"]
BATCH = 5000


def compatible_labels():
    """BRICS label -> the labels it may join, from the rules BRICSBuild uses."""
    pairs = defaultdict(set)
    for group in BRICS.reactionDefs:
        for a, b, _bond in group:
            a, b = int(a.rstrip("ab")), int(b.rstrip("ab"))
            pairs[a].add(b)
            pairs[b].add(a)
    return {k: sorted(v) for k, v in pairs.items()}


def read_source(path):
    rows = []
    with open(path) as f:
        for n, line in enumerate(f, 1):
            parts = line.split()
            if parts and not parts[0].startswith("#"):
                rows.append((parts[0], parts[1] if len(parts) > 1 else str(n)))
    return rows


def fragments_of(mols):
    frags = set()
    for mol in mols:
        if mol is None:
            continue
        try:
            frags.update(f for f in BRICS.BRICSDecompose(mol) if "*" in f)
        except Exception:  # RDKit refuses a few exotic valences while fragmenting
            continue
    mols = {}
    for f in sorted(frags):
        m = Chem.MolFromSmiles(f)
        if m is not None:
            mols[f] = m
    return mols


class Sampler:
    def __init__(self, frags, seed, max_joins):
        self.rng = random.Random(seed)
        self.max_joins = max_joins
        self.compat = compatible_labels()
        self.smiles = sorted(frags)
        self.mols = [frags[s] for s in self.smiles]
        self.by_label = defaultdict(list)      # label -> [(fragment index, dummy atom index)]
        self.terminal = defaultdict(list)      # the same, fragments with one attachment point
        for i, m in enumerate(self.mols):
            dummies = [a for a in m.GetAtoms() if a.GetAtomicNum() == 0]
            for a in dummies:
                self.by_label[a.GetIsotope()].append((i, a.GetIdx()))
                if len(dummies) == 1:
                    self.terminal[a.GetIsotope()].append((i, a.GetIdx()))

    def sample(self):
        """One recombined molecule, or None when no partner fits."""
        mol = Chem.RWMol(self.rng.choice(self.mols))
        joins_allowed = self.rng.randint(1, self.max_joins)
        joins = 0
        while True:
            open_dummies = [a for a in mol.GetAtoms() if a.GetAtomicNum() == 0 and a.GetAtomMapNum() == 0]
            if not open_dummies:
                return mol
            dummy = self.rng.choice(open_dummies)
            pool = self.terminal if joins >= joins_allowed else self.by_label
            choices = [c for lab in self.compat.get(dummy.GetIsotope(), []) for c in pool[lab]]
            if not choices or joins > 3 * self.max_joins:
                return None
            frag_index, atom_index = self.rng.choice(choices)
            partner = Chem.RWMol(self.mols[frag_index])
            tag = joins + 1
            dummy.SetAtomMapNum(tag)
            partner.GetAtomWithIdx(atom_index).SetAtomMapNum(tag)
            mol = Chem.RWMol(Chem.molzip(mol, partner))
            joins += 1


class Filters:
    """The filters in order; InChIKeys are made in batches by the InChI Trust's program."""

    def __init__(self):
        self.removed = Counter()
        self.smiles = set()
        self.keys = set()

    def check(self, mol):
        """Canonical SMILES of a candidate that passes every filter but the InChIKey, or None."""
        try:
            smiles = Chem.MolToSmiles(mol)
            mol = Chem.MolFromSmiles(smiles)
        except Exception:
            mol = None
        reason = self._reason(mol, smiles if mol is not None else None)
        if reason:
            self.removed[reason] += 1
            return None
        self.smiles.add(smiles)
        return smiles

    def _reason(self, mol, smiles):
        if mol is None:
            return "sanitize_failed"
        if len(Chem.GetMolFrags(mol)) > 1:
            return "multi_fragment"
        if any(a.GetAtomicNum() not in ORGANIC for a in mol.GetAtoms()):
            return "non_organic_element"
        if not 5 <= mol.GetNumHeavyAtoms() <= 60:
            return "heavy_atoms_out_of_5_60"
        if not AllChem.MMFFHasAllMoleculeParams(Chem.AddHs(mol)):
            return "mmff_cannot_type"
        if smiles in self.smiles:
            return "duplicate_smiles"
        return None

    def keep_new_keys(self, batch):
        """The (smiles, id) rows of BATCH whose InChIKey is new, in order."""
        kept = []
        for (smiles, name), key in zip(batch, inchikeys([s for s, _ in batch])):
            if key is None:
                self.removed["inchikey_failed_kept"] += 1
            elif key in self.keys:
                self.removed["duplicate_inchikey"] += 1
                continue
            self.keys.add(key)
            kept.append((smiles, name))
        return kept


def inchikeys(smiles_list):
    """Standard InChIKeys (None where InChI fails) via inchi_main (Debian's libinchi-bin)."""
    with tempfile.TemporaryDirectory() as tmp:
        sdf = os.path.join(tmp, "in.sdf")
        writer = Chem.SDWriter(sdf)
        for s in smiles_list:
            writer.write(Chem.MolFromSmiles(s))
        writer.close()
        out = os.path.join(tmp, "out.txt")
        subprocess.run(["inchi_main", sdf, out, os.path.join(tmp, "log"), os.path.join(tmp, "prb"),
                        "-Key", "-AuxNone", "-W10"], capture_output=True, check=False, timeout=3600)
        keys, current = {}, None
        with open(out) as f:
            for line in f:
                if line.startswith("Structure:"):
                    current = int(line.split()[1])
                elif line.startswith("InChIKey=") and current is not None:
                    keys[current] = line.strip().split("=", 1)[1]
    return [keys.get(i + 1) for i in range(len(smiles_list))]


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("source")
    ap.add_argument("output")
    ap.add_argument("--count", type=int, default=55000)
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--max-joins", type=int, default=3)
    args = ap.parse_args()
    rows = read_source(args.source)
    mols = [Chem.MolFromSmiles(smiles) for smiles, _ in rows]
    filters = Filters()
    source = []
    for (_, name), mol in zip(rows, mols):
        kept = filters.check(mol)  # an unparsable row counts as sanitize_failed
        if kept:
            source.append((kept, "nci:" + name))
    accepted = filters.keep_new_keys(source)
    from_source = len(accepted)
    source_removed = dict(filters.removed)
    frags = fragments_of(mols)
    sampler = Sampler(frags, args.seed, args.max_joins)
    tries = no_partner = cut = 0
    while len(accepted) < args.count:
        batch = []
        while len(batch) < BATCH:
            tries += 1
            mol = sampler.sample()
            if mol is None:
                no_partner += 1
                continue
            kept = filters.check(mol)
            if kept:
                batch.append((kept, f"brics:{tries}"))
        new = filters.keep_new_keys(batch)
        cut += max(0, len(new) - (args.count - len(accepted)))  # passed, but past --count
        accepted += new[: args.count - len(accepted)]
        print(f"{tries} sampled, {len(accepted)} accepted", file=sys.stderr, flush=True)
    write_smiles(args.output, accepted)
    record = {
        "source": args.source, "seed": args.seed, "max_joins": args.max_joins, "count": len(accepted),
        "source_rows": len(rows), "source_accepted": from_source, "source_removed": source_removed,
        "fragments": len(frags), "sampled": tries, "sampled_without_partner": no_partner,
        "passed_past_count": cut,
        "removed": {k: filters.removed.get(k, 0) - source_removed.get(k, 0) for k in FILTERS},
        "bemis_murcko_scaffolds": len({scaffold(s) for s, _ in accepted}),
    }
    with open(args.output.removesuffix(".gz").removesuffix(".smi") + ".json", "w") as f:
        json.dump(record, f, indent=1)
        f.write("\n")
    print(json.dumps(record, indent=1))


def scaffold(smiles):
    try:
        return MurckoScaffold.MurckoScaffoldSmiles(smiles)
    except Exception:
        return smiles


def write_smiles(path, rows):
    text = "smiles\tid\n" + "".join(f"{smiles}\t{name}\n" for smiles, name in rows)
    data = text.encode()
    if path.endswith(".gz"):
        data = gzip.compress(data, compresslevel=9, mtime=0)  # the same bytes on every run
    with open(path, "wb") as f:
        f.write(data)


if __name__ == "__main__":
    main()
