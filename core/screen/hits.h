#pragma once
// Hit lists from a merged screen, for chemists: the rows that pass every threshold (`--where
// 'gap_ev<2.5,gap_ev_sigma<0.3'`), and of those the top K by a column (`--top K --by COL
// [--ascending]`; by default the K highest of each model output). Each shard is reduced to a
// bounded heap while it is read, then the heaps are merged: memory is O(K x shards), never the
// library. Ties keep input order. Written as CSV (the prediction columns plus rank), SDF (2D
// structures with every column as a data item) and SQLite (table `hits`).
#include <cstdint>
#include <string>
#include <vector>

#include "common/status.h"
#include "screen/plan.h"
#include "screen/receipt.h"

namespace gs::screen {

struct Condition {
  int column = 0;
  std::string op;  // < <= > >= = !=
  double value = 0;
  bool holds(double v) const;
};

struct HitOptions {
  int64_t top = 0;              // 0: every row that passes the conditions
  std::vector<std::string> by;  // columns to rank by ("" = each model output)
  bool ascending = false;       // smallest first
  std::string where;            // "COL<X,COL>=Y" (all must hold)
  std::string prefix;           // output path prefix: <prefix>.<column>.csv/.sdf/.sqlite
  bool sdf = true, sqlite = true;
};

// Parses `where` against the header; errors name the unknown column or operator.
Result<std::vector<Condition>> parseConditions(const std::string& where, const std::vector<std::string>& header);

struct HitList {
  std::string column;
  std::vector<std::string> files;
  int64_t rows = 0;
};

// `receipts` in plan order (verified by merge).
Result<std::vector<HitList>> writeHitLists(const std::string& dir, const Plan& plan,
                                           const std::vector<Receipt>& receipts, const HitOptions& options);

}  // namespace gs::screen
