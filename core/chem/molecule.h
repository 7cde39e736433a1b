#pragma once
// Parsing SMILES and molblocks into RDKit molecules with a status per molecule. RDKit types stay
// behind a forward declaration so that callers (ui/, app/) need no RDKit headers.
#include <memory>
#include <string>
#include <string_view>

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
};

// Never throw. Thread-safe: RDKit's messages are captured per thread.
ParsedMolecule parseSmiles(std::string_view smiles, const ParseOptions& options = {});
ParsedMolecule parseMolBlock(std::string_view molblock, const ParseOptions& options = {});

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
