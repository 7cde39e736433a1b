#pragma once
// Which column of a table holds the molecules, judged by content (the share of cells that parse
// as SMILES), and whether its first row is a header: what an import needs when the column names
// do not say ("Structure", "Molecule", a spreadsheet's "A") or when the user picks a wrong one.
#include <string>
#include <vector>

namespace gs::chem {

struct ColumnGuess {
  int column = -1;             // best column, -1 when no column has a cell that parses
  std::vector<double> shares;  // per column: parsing share of its non-empty cells (0 when none)
  bool first_row_is_header = false;
};

// `rows`: the first rows of the table as read (include the would-be header row as rows[0]).
ColumnGuess guessSmilesColumn(const std::vector<std::vector<std::string>>& rows);

// Share of the non-empty cells of column `column` that parse as SMILES (rows from `first`).
double smilesShare(const std::vector<std::vector<std::string>>& rows, int column, size_t first = 0);

}  // namespace gs::chem
