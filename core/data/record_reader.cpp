#include "data/record_reader.h"

#include "common/compression.h"

namespace gs::data {
namespace {

// Keeps the stream alive for as long as the reader that reads it.
class OwningReader final : public RecordReader {
 public:
  OwningReader(std::unique_ptr<InputFile> in, FileFormat format, const ReaderOptions& options)
      : in_(std::move(in)), reader_(makeReader(format, *in_, options)) {}
  bool next(RawRecord& out) override { return reader_->next(out); }
  std::vector<std::string> columns() const override { return reader_->columns(); }
  std::vector<int> otherColumns() const override { return reader_->otherColumns(); }
  Status inputError() const override {
    if (Status s = in_->error(); !s.isOk()) return s;
    if (in_->bad()) return {StatusCode::IoError, "read error"};
    return Status::ok();
  }

 private:
  std::unique_ptr<InputFile> in_;
  std::unique_ptr<RecordReader> reader_;
};

}  // namespace

std::unique_ptr<RecordReader> makeReader(FileFormat format, std::istream& in, const ReaderOptions& options) {
  return formatInfo(format).make(in, options);
}

Result<std::vector<std::string>> scanSdfItems(const std::string& path, const ReaderOptions& options) {
  auto reader = openReader(path, options);
  if (!reader.isOk()) return reader.status();
  RawRecord record;
  while (reader.value()->next(record)) {
  }
  if (Status s = reader.value()->inputError(); !s.isOk()) return Status{s.code(), path + ": " + s.message()};
  return reader.value()->columns();
}

char detectDelimiter(const std::string& line, char fallback) {
  int commas = 0, semicolons = 0, tabs = 0;
  bool quoted = false;
  for (char c : line) {
    if (c == '"') quoted = !quoted;
    if (quoted) continue;
    commas += c == ',';
    semicolons += c == ';';
    tabs += c == '\t';
  }
  const std::pair<char, int> counts[] = {{',', commas}, {'\t', tabs}, {';', semicolons}};
  int best = 0;
  for (const auto& [c, n] : counts) best = std::max(best, n);
  if (best == 0) return fallback;
  for (const auto& [c, n] : counts)
    if (n == best && c == fallback) return fallback;
  for (const auto& [c, n] : counts)
    if (n == best) return c;
  return fallback;
}

Result<std::unique_ptr<RecordReader>> openReader(const std::string& path, const ReaderOptions& options) {
  Result<FileFormat> format = formatFromPath(path);
  if (!format.isOk()) return format.status();
  auto in = InputFile::open(path);
  if (!in.isOk()) return in.status();
  return std::unique_ptr<RecordReader>(std::make_unique<OwningReader>(std::move(in.value()), format.value(), options));
}

}  // namespace gs::data
