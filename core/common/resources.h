#pragma once
// Locating files that ship with the application: the bundled models, each a directory under
// models/ named as users ask for it (`--model fast`, the app's model list), listed with a one-line
// trade-off in models/models.json.
#include <string>
#include <vector>

namespace gs {

struct BundledModel {
  std::string name;     // "accurate", "fast"
  std::string summary;  // the trade-off in words and numbers (models.json)
  std::string path;     // the model directory
  bool is_default = false;
};

// The directory the bundled models are in, searched in this order:
//   <program dir>/../share/graphormer-studio/models   (installed layout),
//   the source tree's resources/models                  (build tree).
// "" when neither has a models.json.
std::string bundledModelsDir();
// The bundled models that are installed, in the order of models.json (empty when none).
std::vector<BundledModel> bundledModels();
// The directory of the bundled model of that name, "" when there is none.
std::string bundledModelPath(const std::string& name);
// The default model: $GRAPHORMER_DEFAULT_MODEL (a model file or directory, or a bundled model's
// name), else the bundled model marked default. "" when there is none.
std::string defaultModelPath();

}  // namespace gs
