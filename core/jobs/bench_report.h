#pragma once
// Reports of a mode comparison (graphormer-cli bench, the app's Compare tab): an aligned text
// table, CSV and JSON, written atomically. The engine measures; this file only writes.
#include <string>
#include <vector>

#include "common/status.h"
#include "engine/compare.h"

namespace gs::jobs {

// Aligned text table; with several `outputs` (names with units), the mean |d| of each output too.
std::string formatComparison(const std::vector<engine::ModeResult>& results,
                             const std::vector<std::string>& outputs = {});
Status writeComparisonCsv(const std::string& path, const std::vector<engine::ModeResult>& results);
Status writeComparisonJson(const std::string& path, const std::vector<engine::ModeResult>& results);

}  // namespace gs::jobs
