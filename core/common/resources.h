#pragma once
// Locating files that ship with the application (the bundled default model).
#include <string>

namespace gs {

// The bundled default model directory, searched in this order:
//   $GRAPHORMER_DEFAULT_MODEL (a model file or directory),
//   <program dir>/../share/graphormer-studio/models/default   (installed layout),
//   the source tree's resources/models/default                  (build tree).
// "" when none holds a model.safetensors.
std::string defaultModelPath();

}  // namespace gs
