#pragma once
// Receipts: what a shard (or one committed piece of it) produced. A piece's output file is renamed
// into place first, then its receipt is created with link(), which fails when a receipt of that
// name exists: the first valid result wins and a duplicate attempt discards its own output. A
// shard is done when its complete receipt exists; the complete receipt lists its pieces in row
// order. Receipts are the only state: nothing records that a shard is running.
#include <cstdint>
#include <map>
#include <string>
#include <vector>

#include "common/status.h"
#include "screen/plan.h"

namespace gs::screen {

struct Piece {
  std::string file;  // relative to the plan directory
  int64_t first_row = 0;
  int64_t rows = 0;
  int64_t bytes = 0;
  std::string sha256;
};

struct StageSeconds {
  double read = 0, featurize = 0, infer = 0, write = 0, total = 0;
  StageSeconds& operator+=(const StageSeconds& o);
};

struct Receipt {
  static constexpr int kVersion = 1;
  std::string plan_id;
  int shard = 0;
  bool complete = false;  // false: one piece of an unfinished shard
  std::string model_sha256;
  int64_t first_row = 0;
  int64_t rows_in = 0, rows_out = 0;
  int64_t next_offset = -1;  // part, uncompressed input: byte where the next record starts
  bool reached_end = false;  // the input range was read to its end
  std::map<std::string, int64_t> by_status;
  std::vector<Piece> pieces;
  StageSeconds seconds;
  std::string host, device, precision, attempt, started, finished;
  int threads = 0;
  int attempts = 1;  // complete: attempts that contributed pieces
};

std::string toJson(const Receipt& receipt);
Result<Receipt> receiptFromJson(const std::string& text);
Result<Receipt> readReceipt(const std::string& path);
// Writes the receipt to a temporary file, fsyncs it and links it to `path`. Returns false in
// *won when a receipt already exists there (another attempt was first).
Status publishReceipt(const std::string& path, const Receipt& receipt, bool* won);

// The complete receipt of a shard, when it exists and belongs to the plan.
Result<Receipt> completeReceipt(const std::string& dir, const std::string& plan_id, int shard);
// Every part receipt of a shard that belongs to the plan, by first row.
std::vector<Receipt> partReceipts(const std::string& dir, const std::string& plan_id, int shard);
// When the parts cover the whole shard without gaps, publishes its complete receipt (once).
// Returns whether the shard is complete afterwards.
Result<bool> completeIfCovered(const std::string& dir, const std::string& plan_id, const Plan& plan, int shard);

// SHA-256 and size of a file.
Status fileChecksum(const std::string& path, std::string* sha256, int64_t* bytes);
// Writes a file durably: temporary name, fsync, rename.
Status fsyncFile(const std::string& path);

}  // namespace gs::screen
