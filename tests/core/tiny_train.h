#pragma once
// A labelled slice of the repository's xTB gap data and the options of a tiny, quick training run
// on it, for the tests of what training writes (trust data, re-centring).
#include <filesystem>
#include <string>

#include "jobs/train_job.h"
#include "temp_files.h"

namespace gs::testing_tiny {

// A labelled slice of the xTB gap data as a CSV in `dir`.
inline std::string slice(const std::filesystem::path& dir, const std::string& name, size_t begin, size_t count) {
  return testing_files::csvSlice(std::string(GS_SOURCE_DIR) + "/data/xtb_gap_nci5k.csv", dir, name, begin, count);
}

inline jobs::TrainJobOptions tinyTrain(const std::string& input, const std::string& output) {
  jobs::TrainJobOptions o;
  o.input = input;
  o.output_dir = output;
  o.targets = {"gap_ev"};
  o.config.num_hidden_layers = 2;
  o.config.embedding_dim = 16;
  o.config.ffn_embedding_dim = 16;
  o.config.num_attention_heads = 2;
  o.train.epochs = 2;
  o.train.learning_rate = 1e-3;
  o.train.threads = 1;
  o.snapshots = 2;
  o.snapshot_epochs = 1;
  o.split.seed = 3;
  return o;
}

}  // namespace gs::testing_tiny
