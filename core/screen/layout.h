#pragma once
// Where a screen keeps its files, under the plan's directory:
//   plan.json                                 the immutable plan (screen/plan.h)
//   shards/<group>/<id>.<first_row>.<token><suffix>    shard output pieces (rows, no header)
//   receipts/<group>/<id>.json                a complete shard: every piece, counts, checksums
//   receipts/<group>/<id>.part-<first_row>.json        one committed piece of an unfinished shard
//   attempts/<group>/<id>.<token>.start|.end  attempts begun and ended (quarantine counts them)
//   merged/                                   merge output (unless --output says otherwise)
// <group> = id / 1000 (zero-padded), so a directory never holds more than ~3,000 files; <token>
// names one attempt (host, pid, time) so concurrent attempts never write the same file. Everything
// is written to a temporary name and renamed into place; a receipt is created with link(), so the
// first valid result wins. Nothing records "running": status is derived from receipts only.
#include <string>

namespace gs::screen {

std::string groupDir(const std::string& dir, const char* kind, int shard);
std::string receiptPath(const std::string& dir, int shard);
std::string partReceiptPath(const std::string& dir, int shard, int64_t first_row);
std::string piecePath(const std::string& dir, int shard, int64_t first_row, const std::string& token,
                      const std::string& suffix);
// host-pid-nanoseconds: unique per attempt.
std::string attemptToken();
// mkdir -p; false with errno set on failure.
bool makeDirs(const std::string& path);

}  // namespace gs::screen
