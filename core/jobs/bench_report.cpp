#include "jobs/bench_report.h"

#include <cstdio>
#include <sstream>

#include "common/atomic_file.h"
#include "common/json_writer.h"
#include "data/csv_writer.h"

namespace gs::jobs {

using engine::ModeResult;

namespace {
// Mean |prediction - FP32| of each output in its unit, a line per mode.
void formatOutputDeltas(const std::vector<engine::ModeResult>& results, const std::vector<std::string>& outputs,
                        std::ostream& out) {
  out << "mean |d| per output (in its unit):";
  for (const auto& name : outputs) out << "  " << name;
  out << "\n";
  char cell[64];
  for (const auto& r : results) {
    if (!r.status.isOk()) continue;
    std::snprintf(cell, sizeof cell, "%-22s", r.mode.label().c_str());
    out << cell;
    for (double d : r.output_mean_abs_delta) {
      std::snprintf(cell, sizeof cell, " %10.2e", d);
      out << cell;
    }
    out << "\n";
  }
}
}  // namespace

std::string formatComparison(const std::vector<engine::ModeResult>& results, const std::vector<std::string>& outputs) {
  std::ostringstream out;
  char line[512];
  std::snprintf(line, sizeof line, "%-22s %-9s %10s %9s %12s %12s %11s %11s\n", "mode", "workload", "ms/mol", "mol/s",
                "peak tensor", "peak RSS", "max |d|", "mean |d|");
  out << line;
  for (const auto& r : results) {
    if (!r.status.isOk()) {
      std::snprintf(line, sizeof line, "%-22s %-9s unavailable: %s\n", r.mode.label().c_str(),
                    engine::workloadName(r.workload), r.status.message().c_str());
    } else {
      std::snprintf(line, sizeof line, "%-22s %-9s %10.3f %9.1f %8.1f MiB %8.1f MiB %11.2e %11.2e\n",
                    r.mode.label().c_str(), engine::workloadName(r.workload), r.ms_per_molecule, r.molecules_per_s,
                    r.peak_tensor_bytes / 1048576.0, r.peak_rss_bytes / 1048576.0, r.max_abs_delta, r.mean_abs_delta);
    }
    out << line;
  }
  if (outputs.size() > 1) formatOutputDeltas(results, outputs, out);
  return out.str();
}

namespace {
// A byte count, or an empty cell when it was not measured (negative: no such device or counter).
std::string measured(int64_t bytes) { return bytes < 0 ? std::string() : std::to_string(bytes); }
}  // namespace

Status writeComparisonCsv(const std::string& path, const std::vector<engine::ModeResult>& results) {
  AtomicFile file(path);
  if (!file.isOpen()) return file.openStatus();
  data::CsvWriter csv(file.stream());
  csv.row({"mode", "precision", "checkpoint_ratio", "batch_size", "workload", "status", "molecules", "ms_per_molecule",
           "molecules_per_s", "peak_tensor_bytes", "peak_rss_bytes", "peak_cuda_allocated_bytes",
           "peak_device_used_bytes", "max_abs_delta", "mean_abs_delta", "message"});
  for (const auto& r : results)
    csv.row({r.mode.label(), tensor::precisionName(r.mode.precision), data::CsvWriter::number(r.mode.checkpoint_ratio),
             std::to_string(r.mode.batch_size), engine::workloadName(r.workload), statusCodeName(r.status.code()),
             std::to_string(r.molecules), data::CsvWriter::number(r.ms_per_molecule),
             data::CsvWriter::number(r.molecules_per_s), measured(r.peak_tensor_bytes), measured(r.peak_rss_bytes),
             measured(r.peak_cuda_allocated_bytes), measured(r.peak_device_used_bytes),
             data::CsvWriter::number(r.max_abs_delta), data::CsvWriter::number(r.mean_abs_delta),
             r.status.isOk() ? "" : r.status.message()});
  return file.commit();
}

Status writeComparisonJson(const std::string& path, const std::vector<engine::ModeResult>& results) {
  AtomicFile file(path);
  if (!file.isOpen()) return file.openStatus();
  JsonWriter w(file.stream());
  w.beginArray();
  for (const auto& r : results) {
    w.beginObject()
        .field("mode", r.mode.label())
        .field("precision", tensor::precisionName(r.mode.precision))
        .field("checkpoint_ratio", r.mode.checkpoint_ratio)
        .field("batch_size", r.mode.batch_size)
        .field("workload", engine::workloadName(r.workload))
        .field("status", statusCodeName(r.status.code()))
        .field("message", r.status.isOk() ? std::string() : r.status.message())
        .field("molecules", r.molecules)
        .field("ms_per_molecule", r.ms_per_molecule)
        .field("molecules_per_s", r.molecules_per_s)
        .field("peak_tensor_bytes", r.peak_tensor_bytes)
        .field("peak_rss_bytes", r.peak_rss_bytes)
        .field("peak_cuda_allocated_bytes", r.peak_cuda_allocated_bytes)
        .field("peak_device_used_bytes", r.peak_device_used_bytes)
        .field("max_abs_delta", r.max_abs_delta)
        .field("mean_abs_delta", r.mean_abs_delta);
    for (const auto* per : {&r.output_max_abs_delta, &r.output_mean_abs_delta}) {
      w.key(per == &r.output_max_abs_delta ? "output_max_abs_delta" : "output_mean_abs_delta").beginArray();
      for (double d : *per) w.value(d);
      w.endArray();
    }
    w.endObject();
  }
  w.endArray();
  file.stream() << '\n';
  return file.commit();
}

}  // namespace gs::jobs
