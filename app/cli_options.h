#pragma once
// Flag groups shared by graphormer-cli's commands, each read by one function, so that every
// command that runs a model takes the same --model/--adapter/--device/--precision/--threads/
// --batch-size/--memory-budget-mib flags with the same meaning and the same errors.
#include <set>
#include <string>
#include <vector>

#include "cli_args.h"
#include "data/record_reader.h"
#include "data/split.h"
#include "predict/predictor_options.h"

namespace gs::app {

struct FlagSet {
  std::set<std::string> valued, switches;
};
FlagSet operator+(FlagSet a, const FlagSet& b);
// Parses argv[2...] against `flags`; false with `error` on an unknown flag or a missing value.
bool parseFlags(CliArgs& args, int argc, char** argv, const FlagSet& flags, std::string* error);

// What a command does with the model flags.
struct ModelFlagRules {
  int default_batch_size = 32;
  bool memory_budget = true;  // false: --memory-budget-mib is refused with `budget_note`
  bool gradients = false;     // true: precisions without gradients (int8) are refused
  std::string budget_note;
};

// --model --adapter --device --precision --threads --batch-size --memory-budget-mib
FlagSet modelFlags();
// --smiles-column --id-column --sdf-id-property --no-header --max-atoms --atom-order --verbose
FlagSet inputFlags();
// --convention --spatial-pos-max --no-bucketing: how prediction batches are indexed and formed.
FlagSet collationFlags();
// --split --seed --valid-fraction --test-fraction (train and evaluate).
FlagSet splitFlags();
FlagSet trustFlags();

bool readModelFlags(const CliArgs& args, const ModelFlagRules& rules, predict::PredictorOptions* out,
                    std::string* error);
// Reader settings, parse options and atom order; --verbose turns RDKit's own log on.
bool readInputFlags(const CliArgs& args, data::ReaderOptions* reader, predict::PredictorOptions* out,
                    std::string* error);
bool readCollationFlags(const CliArgs& args, engine::SessionOptions* out, std::string* error);
bool readSplitFlags(const CliArgs& args, data::SplitOptions* split, std::string* error);
// --no-trust, --confidence, --strip-salts.
bool readTrustFlags(const CliArgs& args, predict::PredictorOptions* out, std::string* error);

// Prints "graphormer-cli: message" to stderr and returns the exit status of a usage or job error.
int fail(const std::string& message);

// `train` and `calibrate` (cli_train.cpp).
int trainCommand(int argc, char** argv);
int calibrateCommand(int argc, char** argv);
int distillCommand(int argc, char** argv);
// `screen plan|run|work|status|merge` (cli_screen.cpp).
int screenCommand(int argc, char** argv);
// `serve` (cli_serve.cpp).
int serveCommand(int argc, char** argv);

// "a,b,,c" -> {"a", "b", "c"}
std::vector<std::string> splitList(const std::string& s);

}  // namespace gs::app
