#include "screen/plan_builder.h"

#include <sys/stat.h>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdlib>
#include <ctime>
#include <fstream>

#include "common/atomic_file.h"
#include "common/sha256.h"
#include "data/file_segments.h"
#include "predict/predictor.h"
#include "screen/layout.h"

namespace gs::screen {
namespace {

std::string absolutePath(const std::string& path) {
  char* real = ::realpath(path.c_str(), nullptr);
  if (!real) return path;
  std::string out(real);
  std::free(real);
  return out;
}

std::string utcNow() {
  const std::time_t t = std::time(nullptr);
  char buf[32];
  std::strftime(buf, sizeof buf, "%Y-%m-%dT%H:%M:%SZ", std::gmtime(&t));
  return buf;
}

Result<InputFingerprint> fingerprint(const std::string& path) {
  struct stat st {};
  if (::stat(path.c_str(), &st) != 0 || !S_ISREG(st.st_mode))
    return Status{StatusCode::IoError, "cannot read input " + path + " (missing or not a file)"};
  InputFingerprint in;
  in.path = absolutePath(path);
  in.size = st.st_size;
  in.mtime_ns = static_cast<int64_t>(st.st_mtim.tv_sec) * 1000000000 + st.st_mtim.tv_nsec;
  auto format = data::formatFromPath(path);
  if (!format.isOk()) return format.status();
  in.format = format.value();
  auto file = InputFile::open(path);
  if (!file.isOk()) return file.status();
  in.codec = file.value()->codec();
  return in;
}

// Rates of one process: predicts the first records twice (the first pass warms up).
double measureRate(predict::Predictor& predictor, const std::string& path, const data::ReaderOptions& options) {
  auto reader = data::openReader(path, options);
  if (!reader.isOk()) return 0;
  std::vector<data::RawRecord> records;
  data::RawRecord r;
  while (records.size() < 384 && reader.value()->next(r)) records.push_back(r);
  if (records.empty()) return 0;
  predictor.predict(
      std::vector<data::RawRecord>(records.begin(), records.begin() + std::min<size_t>(64, records.size())));
  const auto start = std::chrono::steady_clock::now();
  predictor.predict(records);
  const double s = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  return s > 0 ? static_cast<double>(records.size()) / s : 0;
}

int64_t chunksPerShard(const PlanOptions& o, const Plan& plan, int64_t total_chunks) {
  if (o.shard_rows > 0) return std::max<int64_t>(1, (o.shard_rows + plan.chunk_rows - 1) / plan.chunk_rows);
  if (o.shards > 0) return 0;  // spread instead
  const double rows = plan.measured_rate * plan.shard_seconds;
  (void)total_chunks;
  return std::max<int64_t>(1, static_cast<int64_t>(rows / plan.chunk_rows));
}

Status addShards(Plan& plan, int input, const std::vector<Boundary>& b, int64_t parts) {
  const int64_t chunks = static_cast<int64_t>(b.size()) - 1;
  size_t at = 0;
  for (int64_t n : spreadChunks(chunks, parts)) {
    Shard s;
    s.id = static_cast<int>(plan.shards.size());
    s.input = input;
    s.begin = b[at].offset;
    s.end = b[at + static_cast<size_t>(n)].offset;
    s.first_row = b[at].rows + 1;
    s.rows = b[at + static_cast<size_t>(n)].rows - b[at].rows;
    auto sha = data::rangeSha256(plan.inputs[static_cast<size_t>(input)].path, s.begin, s.end);
    if (!sha.isOk()) return sha.status();
    s.sha256 = sha.value();
    plan.shards.push_back(s);
    at += static_cast<size_t>(n);
  }
  return Status::ok();
}

Status cutShards(const PlanOptions& o, Plan& plan, const std::vector<std::vector<Boundary>>& bounds) {
  int64_t total_chunks = 0;
  for (const auto& b : bounds) total_chunks += std::max<int64_t>(0, static_cast<int64_t>(b.size()) - 1);
  const int64_t per_shard = chunksPerShard(o, plan, total_chunks);
  for (size_t i = 0; i < plan.inputs.size(); ++i) {
    const auto& in = plan.inputs[i];
    if (in.codec != Codec::None) {  // compressed: one shard, the whole file
      Shard s;
      s.id = static_cast<int>(plan.shards.size());
      s.input = static_cast<int>(i);
      plan.shards.push_back(s);
      continue;
    }
    const int64_t chunks = static_cast<int64_t>(bounds[i].size()) - 1;
    const int64_t parts =
        per_shard > 0 ? (chunks + per_shard - 1) / per_shard
                      : std::llround(static_cast<double>(o.shards) * chunks / std::max<int64_t>(1, total_chunks));
    if (Status s = addShards(plan, static_cast<int>(i), bounds[i],
                             std::clamp<int64_t>(parts, 1, std::max<int64_t>(1, chunks)));
        !s.isOk())
      return s;
  }
  return Status::ok();
}

Status writeNewPlan(const std::string& dir, const Plan& plan) {
  const std::string path = dir + "/plan.json";
  if (std::ifstream(path).good())
    return {StatusCode::InvalidArgument, dir +
                                             " already holds a plan: plans are immutable (run it with "
                                             "`screen run " +
                                             dir + "`, or plan into a new directory)"};
  for (const char* sub : {"shards", "receipts", "attempts", "logs"})
    if (!makeDirs(dir + "/" + sub)) return {StatusCode::IoError, "cannot create " + dir + "/" + sub};
  AtomicFile file(path);
  if (!file.isOpen()) return file.openStatus();
  file.stream() << toJson(plan);
  return file.commit();
}

}  // namespace

std::vector<int64_t> spreadChunks(int64_t chunks, int64_t parts) {
  std::vector<int64_t> out;
  if (chunks <= 0) return {0};
  parts = std::clamp<int64_t>(parts, 1, chunks);
  for (int64_t p = 0; p < parts; ++p) out.push_back(chunks / parts + (p < chunks % parts ? 1 : 0));
  return out;
}

Result<std::vector<Boundary>> scanBoundaries(const std::string& path, data::FileFormat format,
                                             const data::ReaderOptions& options, int chunk_rows,
                                             int64_t* header_bytes) {
  auto in = data::SegmentStream::open(path, {{0, -1}});
  if (!in.isOk()) return in.status();
  data::SegmentStream& stream = *in.value();
  auto reader = data::makeReader(format, stream, options);
  const bool has_header = data::formatInfo(format).fields == data::FieldLayout::HeaderRow && options.csv_header;
  *header_bytes = has_header ? stream.position() : 0;
  std::vector<Boundary> out{{*header_bytes, 0}};
  data::RawRecord record;
  int64_t rows = 0;
  while (reader->next(record))
    if (++rows % chunk_rows == 0) out.push_back({stream.position(), rows});
  if (Status s = stream.error(); !s.isOk()) return s;
  stream.clear();
  // the end of the file (trailing comments or blank space after the last record belong to it)
  struct stat st {};
  ::stat(path.c_str(), &st);
  if (rows % chunk_rows != 0 || out.size() == 1)
    out.push_back({static_cast<int64_t>(st.st_size), rows});
  else
    out.back().offset = st.st_size;
  return out;
}

Result<Plan> buildPlan(const PlanOptions& o) {
  if (o.inputs.empty()) return Status{StatusCode::InvalidArgument, "no input files"};
  Plan plan;
  plan.created = utcNow();
  plan.predictor = o.predictor;
  // Threads are part of the plan: a multi-threaded run sums in another order and differs in the
  // last digits. One thread per process is how clusters are filled (one process per core).
  if (plan.predictor.session.threads <= 0) plan.predictor.session.threads = 1;
  plan.reader = o.reader;
  plan.output_codec = o.output_codec;
  plan.chunk_rows = o.chunk_rows > 0 ? o.chunk_rows : predict::kChunkRows;
  plan.shard_seconds = o.shard_seconds;
  if (!codecAvailable(o.output_codec))
    return Status{StatusCode::InvalidArgument, std::string("this build cannot write ") + codecName(o.output_codec)};
  for (const auto& path : o.inputs) {
    auto in = fingerprint(path);
    if (!in.isOk()) return in.status();
    plan.inputs.push_back(in.value());
  }
  auto predictor = predict::Predictor::open(o.predictor);
  if (!predictor.isOk()) return predictor.status();
  const auto record = predictor.value()->runRecord();
  plan.model_sha256 = record.model_sha256;
  plan.adapter_sha256 = record.adapter_sha256;
  if (!record.trust_path.empty())
    if (auto sha = sha256File(record.trust_path); sha.isOk()) plan.trust_sha256 = sha.value();
  plan.header = predictor.value()->header();
  plan.num_outputs = predictor.value()->numOutputs();
  std::vector<std::vector<Boundary>> bounds(plan.inputs.size());
  for (size_t i = 0; i < plan.inputs.size(); ++i) {
    auto& in = plan.inputs[i];
    if (o.note) o.note("fingerprinting " + in.path);
    if (in.codec != Codec::None) {
      auto sha = sha256File(in.path);
      if (!sha.isOk()) return sha.status();
      in.sha256 = sha.value();
      continue;
    }
    auto b = scanBoundaries(in.path, in.format, o.reader, plan.chunk_rows, &in.header_bytes);
    if (!b.isOk()) return b.status();
    bounds[i] = std::move(b.value());
    in.rows = bounds[i].back().rows;
  }
  if (o.note) o.note("measuring this machine's rate");
  plan.measured_rate = measureRate(*predictor.value(), plan.inputs[0].path, o.reader);
  if (Status s = cutShards(o, plan, bounds); !s.isOk()) return s;
  if (Status s = writeNewPlan(o.dir, plan); !s.isOk()) return s;
  return plan;
}

}  // namespace gs::screen
