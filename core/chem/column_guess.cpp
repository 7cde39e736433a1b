#include "chem/column_guess.h"

#include <algorithm>

#include "chem/molecule.h"

namespace gs::chem {
namespace {

bool parses(const std::string& cell) {
  if (cell.find_first_not_of(" \t") == std::string::npos) return false;
  // Plain numbers are valid SMILES for nothing but would read as atoms' ring closures: not molecules.
  if (cell.find_first_not_of("0123456789.,-+eE ") == std::string::npos) return false;
  return parseSmiles(cell).mol != nullptr;
}

}  // namespace

double smilesShare(const std::vector<std::vector<std::string>>& rows, int column, size_t first) {
  int cells = 0, good = 0;
  for (size_t r = first; r < rows.size(); ++r) {
    if (column < 0 || column >= static_cast<int>(rows[r].size())) continue;
    const std::string& cell = rows[r][static_cast<size_t>(column)];
    if (cell.find_first_not_of(" \t") == std::string::npos) continue;
    ++cells;
    good += parses(cell);
  }
  return cells == 0 ? 0.0 : double(good) / cells;
}

ColumnGuess guessSmilesColumn(const std::vector<std::vector<std::string>>& rows) {
  ColumnGuess g;
  size_t width = 0;
  for (const auto& r : rows) width = std::max(width, r.size());
  const size_t first = rows.size() > 1 ? 1 : 0;  // judge by the rows below a possible header
  for (size_t c = 0; c < width; ++c) g.shares.push_back(smilesShare(rows, static_cast<int>(c), first));
  double best = 0;
  for (size_t c = 0; c < width; ++c)
    if (g.shares[c] > best) best = g.shares[c], g.column = static_cast<int>(c);
  if (g.column >= 0 && first == 1 && static_cast<size_t>(g.column) < rows[0].size())
    g.first_row_is_header = !parses(rows[0][static_cast<size_t>(g.column)]);
  return g;
}

}  // namespace gs::chem
