#include "screen/shard_worker.h"

#include <dirent.h>
#include <sys/stat.h>

#include <unistd.h>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <ctime>
#include <fstream>
#include <set>

#include "common/atomic_file.h"
#include "data/csv_writer.h"
#include "data/file_segments.h"
#include "predict/predictor.h"
#include "screen/layout.h"

namespace gs::screen {
namespace {

using Clock = std::chrono::steady_clock;

double since(Clock::time_point t) { return std::chrono::duration<double>(Clock::now() - t).count(); }

std::string utcNow() {
  const std::time_t t = std::time(nullptr);
  char buf[32];
  std::strftime(buf, sizeof buf, "%Y-%m-%dT%H:%M:%SZ", std::gmtime(&t));
  return buf;
}

// Where this call starts and stops reading.
struct Range {
  int64_t from_row = 0, to_row = 0;  // to_row 0: to the end of the shard
  int64_t offset = -1;               // byte where from_row starts, when known
};

Range resolveRange(const WorkOptions& o, const std::string& plan_id, const Shard& s) {
  Range r;
  r.from_row = s.first_row;
  r.offset = s.end >= 0 ? s.begin : -1;
  for (const auto& p : partReceipts(o.dir, plan_id, s.id)) {  // continue after committed pieces
    if (p.first_row != r.from_row) continue;
    r.from_row = p.first_row + p.rows_in;
    r.offset = p.next_offset;
  }
  if (o.from_row > 0) {
    r.offset = o.from_row == s.first_row && s.end >= 0 ? s.begin : -1;
    r.from_row = o.from_row;
  }
  r.to_row = o.to_row;
  return r;
}

// The records of a shard from a row on, read from the original file.
struct RangeReader {
  std::unique_ptr<data::SegmentStream> segments;
  std::unique_ptr<data::RecordReader> reader;
  int64_t next_row = 0;
  int64_t position() const { return segments ? segments->position() : -1; }
  Status error() const {
    if (segments) return segments->error();
    return reader->inputError();
  }
};

Result<RangeReader> openRange(const Plan& plan, const Shard& s, const Range& r) {
  const InputFingerprint& in = plan.inputs[static_cast<size_t>(s.input)];
  RangeReader out;
  data::ReaderOptions options = plan.reader;
  const bool at_offset = s.end >= 0 && r.offset >= 0;
  options.first_row = at_offset ? r.from_row : (s.end >= 0 ? s.first_row : 1);
  if (s.end >= 0) {
    std::vector<data::Segment> segments;
    if (in.header_bytes > 0) segments.push_back({0, in.header_bytes});
    const int64_t begin = at_offset ? r.offset : s.begin;
    segments.push_back({begin, s.end - begin});
    auto stream = data::SegmentStream::open(in.path, segments);
    if (!stream.isOk()) return stream.status();
    out.segments = std::move(stream.value());
    out.reader = data::makeReader(in.format, *out.segments, options);
  } else {
    auto reader = data::openReader(in.path, options);
    if (!reader.isOk()) return reader.status();
    out.reader = std::move(reader.value());
  }
  out.next_row = options.first_row;
  data::RawRecord skip;
  while (out.next_row < r.from_row && out.reader->next(skip)) ++out.next_row;
  return out;
}

// The input is the file the plan describes: same size and time, and (when a shard is read from its
// start) the same bytes in its range.
Status checkInput(const Plan& plan, const Shard& s, bool whole_range) {
  const InputFingerprint& in = plan.inputs[static_cast<size_t>(s.input)];
  struct stat st {};
  if (::stat(in.path.c_str(), &st) != 0)
    return {StatusCode::InvalidArgument, "input " + in.path + " is gone (moved or deleted since the plan was made)"};
  const int64_t mtime = static_cast<int64_t>(st.st_mtim.tv_sec) * 1000000000 + st.st_mtim.tv_nsec;
  if (st.st_size != in.size || mtime != in.mtime_ns)
    return {StatusCode::InvalidArgument, "input " + in.path + " changed since the plan was made (size or time differ)"};
  if (!whole_range || s.end < 0) return Status::ok();
  auto sha = data::rangeSha256(in.path, s.begin, s.end);
  if (!sha.isOk()) return sha.status();
  if (sha.value() != s.sha256)
    return {StatusCode::InvalidArgument, "input " + in.path + " changed since the plan was made (bytes " +
                                             std::to_string(s.begin) + "-" + std::to_string(s.end) + " differ)"};
  return Status::ok();
}

// Everything one call writes: the piece file, then its receipt.
struct PieceWriter {
  std::string relative, path;
  std::unique_ptr<AtomicFile> file;
  std::unique_ptr<CompressingStream> zip;
  std::unique_ptr<data::CsvWriter> csv;
};

PieceWriter openPiece(const WorkOptions& o, const Plan& plan, int64_t first_row, const std::string& token) {
  PieceWriter w;
  w.path = piecePath(o.dir, o.shard, first_row, token, outputSuffix(plan.output_codec));
  w.relative = w.path.substr(o.dir.size() + 1);
  makeDirs(groupDir(o.dir, "shards", o.shard));
  w.file = std::make_unique<AtomicFile>(w.path, true);
  w.zip = std::make_unique<CompressingStream>(w.file->stream(), plan.output_codec);
  w.csv = std::make_unique<data::CsvWriter>(*w.zip);
  return w;
}

struct Loop {
  int64_t rows = 0;
  bool reached_end = false, stopped = false;
  StageSeconds seconds;
  std::map<std::string, int64_t> by_status;
  int64_t next_offset = -1;
};

std::vector<data::RawRecord> readChunk(RangeReader& in, int64_t max_rows) {
  std::vector<data::RawRecord> chunk;
  data::RawRecord record;
  while (static_cast<int64_t>(chunk.size()) < max_rows && in.reader->next(record)) chunk.push_back(std::move(record));
  in.next_row += static_cast<int64_t>(chunk.size());
  return chunk;
}

std::vector<predict::PredictedRow> predictChunk(predict::Predictor* p, const std::vector<data::RawRecord>& chunk,
                                                const WorkOptions& o, StageSeconds& seconds) {
  std::vector<predict::PredictedRow> rows;
  if (o.mark_crashed) {
    for (const auto& r : chunk) rows.push_back(predict::pendingRow(r, Status(StatusCode::Crashed, o.crash_message)));
    return rows;
  }
  static const char* crash_on = std::getenv("GS_SCREEN_TEST_CRASH_SMILES");  // test hook: a poison molecule
  auto t = Clock::now();
  std::vector<chem::MoleculeRow> molecules;
  molecules.reserve(chunk.size());
  for (const auto& r : chunk) {
    if (crash_on && *crash_on && r.text == crash_on) std::abort();
    molecules.push_back(p->featurize(r));
  }
  seconds.featurize += since(t);
  t = Clock::now();
  rows = p->predict(molecules);
  seconds.infer += since(t);
  return rows;
}

Loop runLoop(predict::Predictor* p, const Plan& plan, const Shard& s, const Range& r, RangeReader& in, PieceWriter& out,
             const WorkOptions& o) {
  Loop loop;
  const int64_t shard_end = s.rows >= 0 ? s.first_row + s.rows : INT64_MAX;
  const int64_t end_row = r.to_row > 0 ? std::min(r.to_row, shard_end) : shard_end;
  while (in.next_row < end_row) {
    const int64_t want = std::min<int64_t>(plan.chunk_rows, end_row - in.next_row);
    auto t = Clock::now();
    const auto chunk = readChunk(in, want);
    loop.seconds.read += since(t);
    const auto rows = predictChunk(p, chunk, o, loop.seconds);
    t = Clock::now();
    for (const auto& row : rows) {
      out.csv->row(predict::predictionFields(row, plan.num_outputs));
      ++loop.by_status[statusCodeName(row.status.code())];
    }
    loop.seconds.write += since(t);
    loop.rows += static_cast<int64_t>(rows.size());
    if (static_cast<int64_t>(chunk.size()) < want) {  // the input ended
      loop.reached_end = true;
      break;
    }
    if (o.stop && o.stop() && in.next_row < end_row) {
      loop.stopped = true;
      break;
    }
  }
  if (in.next_row >= shard_end) loop.reached_end = true;
  data::RawRecord extra;
  if (!loop.reached_end && !loop.stopped && s.rows < 0 && !in.reader->next(extra)) loop.reached_end = true;
  loop.next_offset = in.position();
  return loop;
}

}  // namespace

namespace {

Receipt pieceReceipt(const WorkOptions& o, const std::string& plan_id, const Plan& plan, const Range& r,
                     const Loop& loop, const Piece& piece, predict::Predictor* p, const std::string& started) {
  Receipt rc;
  rc.plan_id = plan_id;
  rc.shard = o.shard;
  rc.model_sha256 = plan.model_sha256;
  rc.first_row = r.from_row;
  rc.rows_in = loop.rows;
  rc.rows_out = piece.rows;
  rc.next_offset = loop.next_offset;
  rc.reached_end = loop.reached_end;
  rc.by_status = loop.by_status;
  rc.pieces = {piece};
  rc.seconds = loop.seconds;
  char host[256] = "";
  ::gethostname(host, sizeof host - 1);
  rc.host = host;
  if (p) {
    const auto record = p->runRecord();
    rc.device = record.device;
    rc.precision = record.precision;
    rc.threads = record.threads;
  }
  rc.started = started;
  rc.finished = utcNow();
  return rc;
}

Result<std::unique_ptr<predict::Predictor>> openPredictor(const WorkOptions& o, const Plan& plan) {
  predict::PredictorOptions options = plan.predictor;
  if (!o.device.empty()) options.session.device = o.device;
  auto p = predict::Predictor::open(options);
  if (!p.isOk()) return p.status();
  const auto record = p.value()->runRecord();
  if (record.model_sha256 != plan.model_sha256 || record.adapter_sha256 != plan.adapter_sha256)
    return Status{StatusCode::InvalidArgument, "the model (or adapter) changed since the plan was made: SHA-256 " +
                                                   record.model_sha256 + " is not the plan's " + plan.model_sha256};
  return p;
}

Result<WorkResult> commit(const WorkOptions& o, const std::string& plan_id, const Plan& plan, const Range& r,
                          const Loop& loop, PieceWriter& out, predict::Predictor* p, const std::string& started) {
  WorkResult result;
  result.stopped = loop.stopped;
  if (Status s = out.zip->finish(); !s.isOk()) return s;
  if (Status s = out.file->commit(); !s.isOk()) return s;
  Piece piece{out.relative, r.from_row, loop.rows, 0, ""};
  if (Status s = fileChecksum(out.path, &piece.sha256, &piece.bytes); !s.isOk()) return s;
  bool won = false;
  const Receipt rc = pieceReceipt(o, plan_id, plan, r, loop, piece, p, started);
  if (Status s = publishReceipt(partReceiptPath(o.dir, o.shard, r.from_row), rc, &won); !s.isOk()) return s;
  if (!won) {
    std::remove(out.path.c_str());
    result.duplicate = true;
  } else {
    result.rows = loop.rows;
  }
  auto complete = completeIfCovered(o.dir, plan_id, plan, o.shard);
  if (!complete.isOk()) return complete.status();
  result.complete = complete.value();
  return result;
}

}  // namespace

Result<WorkResult> runShard(const WorkOptions& o) {
  std::string plan_id;
  auto plan = readPlan(o.dir, &plan_id);
  if (!plan.isOk()) return plan.status();
  if (o.shard < 0 || o.shard >= static_cast<int>(plan->shards.size()))
    return Status{StatusCode::InvalidArgument, "no shard " + std::to_string(o.shard) + " in the plan (it has " +
                                                   std::to_string(plan->shards.size()) + ")"};
  const Shard& s = plan->shards[static_cast<size_t>(o.shard)];
  WorkResult done;
  done.complete = true;
  if (completeReceipt(o.dir, plan_id, o.shard).isOk()) return done;
  const Range r = resolveRange(o, plan_id, s);
  if (Status st = checkInput(plan.value(), s, r.from_row == s.first_row); !st.isOk()) return st;
  if (s.rows >= 0 && r.from_row >= s.first_row + s.rows && r.to_row == 0) {
    auto complete = completeIfCovered(o.dir, plan_id, plan.value(), o.shard);
    if (!complete.isOk()) return complete.status();
    done.complete = complete.value();
    return done;
  }
  std::unique_ptr<predict::Predictor> predictor;
  if (!o.mark_crashed) {
    auto p = openPredictor(o, plan.value());
    if (!p.isOk()) return p.status();
    predictor = std::move(p.value());
  }
  auto in = openRange(plan.value(), s, r);
  if (!in.isOk()) return in.status();
  const std::string started = utcNow();
  const auto start = Clock::now();
  PieceWriter out = openPiece(o, plan.value(), r.from_row, attemptToken());
  if (!out.file->isOpen()) return out.file->openStatus();
  Loop loop = runLoop(predictor.get(), plan.value(), s, r, in.value(), out, o);
  loop.seconds.total = since(start);
  if (Status st = in->error(); !st.isOk())  // damaged input: fatal, retrying reads the same bytes
    return Status{StatusCode::MalformedRecord, plan->inputs[static_cast<size_t>(s.input)].path + ": " + st.message() +
                                                   " (the file is damaged: replace it and plan again)"};
  return commit(o, plan_id, plan.value(), r, loop, out, predictor.get(), started);
}

void markAttempt(const std::string& dir, int shard, const std::string& token, bool ended) {
  const std::string group = groupDir(dir, "attempts", shard);
  makeDirs(group);
  std::ofstream(group + "/" + std::to_string(shard) + "." + token + (ended ? ".end" : ".start"));
}

int failedAttempts(const std::string& dir, int shard) {
  const std::string group = groupDir(dir, "attempts", shard);
  const std::string prefix = std::to_string(shard) + ".";
  std::set<std::string> started, ended;
  DIR* d = ::opendir(group.c_str());
  if (!d) return 0;
  while (dirent* e = ::readdir(d)) {
    const std::string name = e->d_name;
    if (name.rfind(prefix, 0) != 0) continue;
    const size_t dot = name.find_last_of('.');
    const std::string token = name.substr(prefix.size(), dot - prefix.size());
    (name.compare(dot, std::string::npos, ".start") == 0 ? started : ended).insert(token);
  }
  ::closedir(d);
  int failed = 0;
  for (const auto& t : started) failed += ended.count(t) ? 0 : 1;
  return failed;
}

}  // namespace gs::screen
