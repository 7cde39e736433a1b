#pragma once
// A screening plan (`graphormer-cli screen plan`): an immutable record of what a screen computes —
// every input's fingerprint, the model's SHA-256, every option that changes output — and the shards
// it is cut into. Uncompressed inputs are cut into byte ranges of the original file at record
// boundaries that are also prediction-chunk boundaries (so a shard's rows are predicted in exactly
// the batches `predict` uses and the merged output is byte-identical); compressed inputs are one
// shard per file. Shard results and receipts live next to the plan (screen/layout.h). LibTorch-free.
#include <cstdint>
#include <string>
#include <vector>

#include "common/compression.h"
#include "common/status.h"
#include "data/record_reader.h"
#include "predict/predictor_options.h"

namespace gs::screen {

struct InputFingerprint {
  std::string path;  // absolute
  int64_t size = 0;
  int64_t mtime_ns = 0;
  std::string sha256;  // of the file as stored
  data::FileFormat format = data::FileFormat::Smi;
  Codec codec = Codec::None;
  int64_t rows = -1;         // -1: not counted (compressed inputs are not read at plan time)
  int64_t header_bytes = 0;  // CSV/TSV/CXSMILES: bytes of the header every range is read with
};

struct Shard {
  int id = 0;
  int input = 0;                // index into Plan::inputs
  int64_t begin = 0, end = -1;  // byte range of the file; end -1 = the whole (compressed) file
  int64_t first_row = 1;        // row number (1-based, within the input) of the shard's first record
  int64_t rows = -1;            // -1: unknown until run (compressed)
  std::string sha256;           // of the bytes [begin, end) ("" for whole compressed files: see the input's)
};

struct Plan {
  static constexpr int kVersion = 1;
  std::vector<InputFingerprint> inputs;
  std::vector<Shard> shards;
  predict::PredictorOptions predictor;
  data::ReaderOptions reader;
  std::string model_sha256, adapter_sha256, trust_sha256;
  std::vector<std::string> header;  // the output's CSV columns
  int num_outputs = 0;              // the model's outputs
  Codec output_codec = Codec::Gzip;
  int chunk_rows = 0;        // rows predicted together (predict's chunk)
  double measured_rate = 0;  // molecules/s of one process, measured while planning
  double shard_seconds = 0;  // target time per shard
  std::string created;       // UTC, ISO 8601
};

// The plan as JSON (stable field order) and back; the plan's id is the SHA-256 of this text.
std::string toJson(const Plan& plan);
Result<Plan> planFromJson(const std::string& text);
// Reads <dir>/plan.json; also returns its id (SHA-256 of the file).
Result<Plan> readPlan(const std::string& dir, std::string* id = nullptr);

// Data file name suffix for shard outputs: ".csv" plus ".gz"/".zst"/".bz2".
std::string outputSuffix(Codec codec);

}  // namespace gs::screen
