#pragma once
// `screen merge`: verifies every shard's receipt against the plan and its pieces' checksums (a
// missing shard, a receipt of another plan or model, a piece that differs from its receipt are
// refused, naming the shard), then writes one output in input order by concatenating the pieces
// behind the header — gzip members and zstd frames concatenate into one valid stream, so nothing
// is re-sorted or re-compressed. For one input the result equals what `predict` writes for it (after
// decompression); for several, rows are numbered within their input and the output is their
// predict outputs one after the other under one header. A merged run record goes next to it.
#include <string>

#include <optional>
#include "common/status.h"

#include "screen/hits.h"
#include "screen/plan.h"
#include "screen/receipt.h"

namespace gs::screen {

struct MergeOptions {
  std::string dir;
  std::string output;              // "" = <dir>/merged/predictions<suffix>
  std::optional<HitOptions> hits;  // hit lists too (prefix "" = <dir>/merged/hits)
};

struct MergeSummary {
  std::string output;
  int64_t rows = 0;
  std::map<std::string, int64_t> by_status;
  StageSeconds seconds;  // summed over shards
  double merge_seconds = 0;
  int64_t bytes = 0;
  std::vector<HitList> hit_lists;
};

// Checks one shard's receipt against the plan (plan id, model, rows, pieces without gaps); the
// pieces' checksums are checked while merge copies them.
Result<Receipt> verifiedShard(const std::string& dir, const std::string& plan_id, const Plan& plan, int shard);
Result<MergeSummary> mergeScreen(const MergeOptions& options);

}  // namespace gs::screen
