#pragma once
// The served model: one loaded model and one Predictor per inference worker on its shared,
// read-only weights (predict/predictor.h), loaded and warmed before it is used. Reload loads and
// warms a new generation beside the current one and swaps the pointer; batches already running
// finish on the generation they started with, which is freed after the last of them.
#include <memory>
#include <mutex>
#include <string>
#include <vector>

#include "common/status.h"
#include "predict/predictor.h"
#include "serve/api.h"

namespace gs::serve {

struct Generation {
  int64_t number = 0;
  std::vector<std::unique_ptr<predict::Predictor>> predictors;  // predictors[w] for worker w only
  ModelInfo info;
  bool trust = false;
  std::string trust_note;
  double load_seconds = 0;
};

class ModelHost {
 public:
  ModelHost(predict::PredictorOptions options, std::string model_name, int workers);
  // Loads the model named by the options (a new read of the files), opens a predictor per worker
  // and warms each with a few molecules. Does not swap.
  Result<std::shared_ptr<Generation>> load(const predict::PredictorOptions& options) const;
  // Loads the configured model and makes it current; on failure the current one stays.
  Status reload();
  std::shared_ptr<Generation> current() const;
  void install(std::shared_ptr<Generation> generation);
  const predict::PredictorOptions& options() const { return options_; }
  int workers() const { return workers_; }

 private:
  predict::PredictorOptions options_;
  std::string name_;
  int workers_;
  mutable std::mutex mutex_;
  std::mutex reload_mutex_;  // one reload at a time
  std::shared_ptr<Generation> current_;
  mutable int64_t loads_ = 0;
};

}  // namespace gs::serve
