#include "jobs/predict_job.h"

#include <chrono>

#include "common/atomic_file.h"
#include "common/compression.h"
#include "data/csv_writer.h"
#include "jobs/output_check.h"
#include "model/checkpoint.h"

namespace gs::jobs {

Result<PredictSummary> runPredict(const PredictJobOptions& options, const PredictCallbacks& callbacks) {
  const auto start = std::chrono::steady_clock::now();
  if (Status s = checkOutputs({options.output, options.output + ".json"}, {options.input}, options.predictor.model); !s.isOk())
    return s;
  auto predictor = predict::Predictor::open(options.predictor);
  if (!predictor.isOk()) return predictor.status();
  auto& p = *predictor.value();
  auto reader = data::openReader(options.input, options.reader);
  if (!reader.isOk()) return reader.status();
  AtomicFile file(options.output, true);
  if (!file.isOpen()) return file.openStatus();
  CompressingStream out(file.stream(), codecFromPath(options.output));  // ".csv.gz" etc. compress
  data::CsvWriter csv(out);
  csv.row(p.header());
  const int outputs = p.numOutputs();
  int64_t done = 0;
  auto sink = [&](const std::vector<predict::PredictedRow>& rows) {
    for (const auto& row : rows) csv.row(predict::predictionFields(row, outputs));
    done += static_cast<int64_t>(rows.size());
    if (callbacks.progress) callbacks.progress(done);
    return Status::ok();
  };
  engine::RunCallbacks run;
  run.cancelled = callbacks.cancelled;
  auto streamed = predict::predictStream(p, *reader.value(), sink, run);
  if (!streamed.isOk()) return streamed.status();
  if (Status s = reader.value()->inputError(); !s.isOk()) return Status{s.code(), options.input + ": " + s.message()};
  if (Status s = out.finish(); !s.isOk()) return s;
  if (Status s = file.commit(); !s.isOk()) return s;
  PredictSummary summary;
  summary.rows = streamed->rows;
  summary.by_status = streamed->by_status;
  summary.notes = p.model().notes;
  summary.seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  summary.record = p.runRecord();
  summary.record.input = options.input;
  summary.record.seconds = summary.seconds;
  if (Status s = predict::writeRunRecord(options.output, summary.record, summary.rows, summary.by_status); !s.isOk()) return s;
  return summary;
}

}  // namespace gs::jobs
