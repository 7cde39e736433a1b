#include "predict/prediction_writer.h"

#include <utility>

#include "chem/depict.h"
#include "data/csv_writer.h"
#include "data/file_format.h"
#include "data/sd_writer.h"

namespace gs::predict {
namespace {

class CsvPredictionWriter final : public PredictionWriter {
 public:
  CsvPredictionWriter(std::ostream& out, const std::vector<std::string>& header) : csv_(out) { csv_.row(header); }
  void write(const std::vector<std::string>& fields, const PredictedRow&) override { csv_.row(fields); }

 private:
  data::CsvWriter csv_;
};

class SdPredictionWriter final : public PredictionWriter {
 public:
  SdPredictionWriter(std::ostream& out, std::vector<std::string> header) : sd_(out), header_(std::move(header)) {}
  void write(const std::vector<std::string>& fields, const PredictedRow& row) override {
    std::vector<std::pair<std::string, std::string>> items;
    for (size_t c = 0; c < header_.size() && c < fields.size(); ++c) items.emplace_back(header_[c], fields[c]);
    // A row whose molecule was read has its canonical SMILES; an unreadable one gets no structure.
    const std::string block = row.canonical.empty() ? "" : chem::molBlock2D(row.canonical, row.id);
    sd_.record(block, row.id, items);
  }

 private:
  data::SdWriter sd_;
  std::vector<std::string> header_;
};

}  // namespace

bool writesSdFile(const std::string& path) {
  const auto format = data::formatFromPath(path);
  return format.isOk() && format.value() == data::FileFormat::Sdf;
}

std::unique_ptr<PredictionWriter> makePredictionWriter(std::ostream& out, const std::string& path,
                                                       std::vector<std::string> header) {
  if (writesSdFile(path)) return std::make_unique<SdPredictionWriter>(out, std::move(header));
  return std::make_unique<CsvPredictionWriter>(out, header);
}

}  // namespace gs::predict
