#pragma once
// `screen plan`: fingerprints the inputs, measures how fast this machine predicts, cuts the inputs
// into shards and writes <dir>/plan.json (refusing to replace a different plan).
#include <functional>
#include <string>
#include <vector>

#include "screen/plan.h"

namespace gs::screen {

struct PlanOptions {
  std::vector<std::string> inputs;  // files, in the order their rows are merged
  std::string dir;
  predict::PredictorOptions predictor;
  data::ReaderOptions reader;
  Codec output_codec = Codec::Gzip;
  double shard_seconds = 300;  // target time per shard, from the measured rate
  int64_t shard_rows = 0;      // > 0: rows per shard instead (rounded up to whole chunks)
  int shards = 0;              // > 0: about this many shards instead (the chunks spread evenly)
  int chunk_rows = 0;          // rows predicted together (predict --chunk-rows); 0 = predict::kChunkRows
  std::function<void(const std::string&)> note;  // progress lines
};

// Byte offset and row count at record boundaries every `chunk_rows` records of an uncompressed
// file, read with the real reader (so quoted newlines, comments, BOM and CRLF are handled as
// predict handles them). boundaries[0] = {first data byte, 0}; the last = {file size, rows}.
struct Boundary {
  int64_t offset = 0;
  int64_t rows = 0;
};
Result<std::vector<Boundary>> scanBoundaries(const std::string& path, data::FileFormat format,
                                             const data::ReaderOptions& reader, int chunk_rows, int64_t* header_bytes);
// Splits `chunks` chunks into `parts` runs of whole chunks as evenly as possible (chunk counts).
std::vector<int64_t> spreadChunks(int64_t chunks, int64_t parts);

Result<Plan> buildPlan(const PlanOptions& options);

}  // namespace gs::screen
