#pragma once
// Parsing SMILES and molblocks into RDKit molecules with a status per molecule. RDKit types stay
// behind a forward declaration so that callers (ui/, app/) need no RDKit headers.
#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "common/status.h"

namespace RDKit {
class ROMol;
}

namespace gs::chem {

struct MolDeleter {
  void operator()(RDKit::ROMol* mol) const;
};
using MolPtr = std::unique_ptr<RDKit::ROMol, MolDeleter>;

struct ParseOptions {
  int max_atoms = 512;  // heavy atoms; larger molecules get StatusCode::TooManyAtoms
};

struct ParsedMolecule {
  Status status;
  MolPtr mol;  // null unless status is ok
  int num_atoms = 0;
  // For chemistry errors: the atoms RDKit could not make sense of (0-based, in the input's atom
  // order); the status message numbers them from 1, as the app's atom tables do.
  std::vector<int> problem_atoms;
};

// A SMILES field as vendors write CXSMILES: "SMILES" or "SMILES |extension|" (enhanced stereo,
// coordinates, atom labels...; RDKit reads the extension, parts it does not know are skipped).
// Anything else after the SMILES is a syntax error: a field holds one molecule.
struct CxSmiles {
  std::string_view smiles, extension;  // extension "" or "|...|"
  Status status;
};
CxSmiles splitCxSmiles(std::string_view text);

// Never throw. Thread-safe: RDKit's messages are captured per thread.
ParsedMolecule parseSmiles(std::string_view smiles, const ParseOptions& options = {});
ParsedMolecule parseMolBlock(std::string_view molblock, const ParseOptions& options = {});

// The SMILES as written, without sanitization (no valence or aromaticity checks), with ring
// information: for drawing a molecule that failed with a chemistry error. Null on syntax errors.
MolPtr parseSmilesUnsanitized(std::string_view smiles);

// Canonical SMILES of a parsed molecule ("" for null).
std::string canonicalSmiles(const RDKit::ROMol* mol);
// The same molecule written with atoms in a random order, for invariance checks. Reseeds RDKit's
// process-wide generator: not for concurrent use.
std::string randomSmiles(const RDKit::ROMol& mol, unsigned seed);

// RDKit's own log is captured into row statuses and kept off stderr; pass true to also echo it
// to stderr (e.g. `--verbose`).
void setRdkitLogEcho(bool echo);

// "2022.09.x" of the RDKit this binary runs with, for run records.
std::string rdkitVersion();

}  // namespace gs::chem
