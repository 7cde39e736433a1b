#include "jobs/predict_job.h"

#include <chrono>

#include "common/atomic_file.h"
#include "common/compression.h"
#include "jobs/output_check.h"
#include "model/checkpoint.h"
#include "predict/prediction_writer.h"
#include "tensor/precision.h"

namespace gs::jobs {
namespace {

// The input's reader; for an SD file kept columns need every data item before the header is
// written, so the file's item names are read first (a pass over the file without chemistry).
Result<std::unique_ptr<data::RecordReader>> openInput(const PredictJobOptions& options) {
  auto format = data::formatFromPath(options.input);
  if (!format.isOk()) return format.status();
  data::ReaderOptions reader = options.reader;
  if (options.keep_input_columns && data::formatInfo(format.value()).fields == data::FieldLayout::DataItems &&
      reader.sdf_items.empty()) {
    auto items = data::scanSdfItems(options.input, reader);
    if (!items.isOk()) return items.status();
    reader.sdf_items = items.value();
  }
  return data::openReader(options.input, reader);
}

}  // namespace

Result<PredictSummary> runPredict(const PredictJobOptions& options, const PredictCallbacks& callbacks) {
  const auto start = std::chrono::steady_clock::now();
  if (Status s = checkOutputs({options.output, options.output + ".json"}, {options.input}, options.predictor.model);
      !s.isOk())
    return s;
  auto predictor = predict::Predictor::open(options.predictor);
  if (!predictor.isOk()) return predictor.status();
  auto& p = *predictor.value();
  auto reader = openInput(options);
  if (!reader.isOk()) return reader.status();
  const auto kept =
      options.keep_input_columns
          ? predict::InputColumns::choose(reader.value()->columns(), reader.value()->otherColumns(), p.header())
          : predict::InputColumns{};
  AtomicFile file(options.output, true);
  if (!file.isOpen()) return file.openStatus();
  CompressingStream out(file.stream(), codecFromPath(options.output));  // ".csv.gz" etc. compress
  auto header = p.header();
  header.insert(header.end(), kept.names.begin(), kept.names.end());
  const auto writer = predict::makePredictionWriter(out, options.output, header);
  const int outputs = p.numOutputs();
  int64_t done = 0;
  auto sink = [&](const std::vector<predict::PredictedRow>& rows) {
    for (const auto& row : rows) {
      auto fields = predict::predictionFields(row, outputs);
      const auto extra = kept.values(row.fields);
      fields.insert(fields.end(), extra.begin(), extra.end());
      writer->write(fields, row);
    }
    done += static_cast<int64_t>(rows.size());
    if (callbacks.progress) callbacks.progress(done);
    return Status::ok();
  };
  engine::RunCallbacks run;
  run.cancelled = callbacks.cancelled;
  auto streamed = predict::predictStream(p, *reader.value(), sink, run, options.chunk_rows);
  if (!streamed.isOk()) return streamed.status();
  if (Status s = reader.value()->inputError(); !s.isOk()) return Status{s.code(), options.input + ": " + s.message()};
  if (Status s = out.finish(); !s.isOk()) return s;
  if (Status s = file.commit(); !s.isOk()) return s;
  PredictSummary summary;
  summary.rows = streamed->rows;
  summary.by_status = streamed->by_status;
  summary.notes = p.model().notes;
  if (Status pays = tensor::precisionPays(options.predictor.session.precision, p.model().config.embedding_dim);
      !pays.isOk())
    summary.notes.push_back(pays.message());
  summary.seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  summary.record = p.runRecord();
  summary.record.input = options.input;
  summary.record.seconds = summary.seconds;
  if (Status s = predict::writeRunRecord(options.output, summary.record, summary.rows, summary.by_status); !s.isOk())
    return s;
  return summary;
}

}  // namespace gs::jobs
