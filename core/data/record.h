#pragma once
// One input row as read from a file, before any chemistry: readers are RDKit-free and stream.
#include <cstdint>
#include <string>
#include <vector>

#include "common/status.h"

namespace gs::data {

enum class RecordKind { Smiles, MolBlock };

struct RawRecord {
  int64_t row = 0;   // 1-based data row (CSV header and comment lines are not rows)
  std::string id;    // name/ID column, SDF title or property; row number when absent
  std::string text;  // SMILES or molblock
  RecordKind kind = RecordKind::Smiles;
  Status status;                    // not ok when the record itself is malformed (text then empty)
  std::vector<std::string> fields;  // CSV: every field of the row; SDF: unused
};

// Which input row a result belongs to and how it went: shared by featurized rows, predictions and
// explanations, so results carry it along as one piece.
struct RowIdentity {
  int64_t row = 0;
  std::string id;
  std::string input;      // SMILES as given (SDF: the canonical SMILES)
  std::string canonical;  // "" when the molecule could not be read
  Status status;
  std::string note;  // what was done to an ok row's molecule (e.g. a salt stripped); "" = nothing
};

}  // namespace gs::data
