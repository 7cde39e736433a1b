#include "screen/merge.h"

#include <chrono>
#include <fstream>
#include <sstream>

#include "common/atomic_file.h"
#include "common/compression.h"
#include "common/json_writer.h"
#include "common/sha256.h"
#include "data/csv_writer.h"
#include "jobs/output_check.h"
#include "screen/layout.h"

namespace gs::screen {
namespace {

Status shardError(int shard, const std::string& why) {
  return {StatusCode::InvalidArgument, "shard " + std::to_string(shard) + ": " + why};
}

// Copies a piece into the output, checking its SHA-256 on the way (one read per piece): the output
// is a temporary file until every piece matched, so a mismatch leaves nothing behind.
Status appendVerified(const std::string& dir, int shard, const Piece& piece, std::ostream& out) {
  std::ifstream in(dir + "/" + piece.file, std::ios::binary);
  if (!in) return shardError(shard, "output piece " + piece.file + " is missing");
  Sha256 h;
  std::vector<char> buf(1 << 16);
  int64_t bytes = 0;
  while (in.read(buf.data(), static_cast<std::streamsize>(buf.size())) || in.gcount() > 0) {
    h.update(buf.data(), static_cast<size_t>(in.gcount()));
    out.write(buf.data(), in.gcount());
    bytes += in.gcount();
  }
  if (!out) return {StatusCode::IoError, "error writing the merged output (disk full?)"};
  const std::string sha = h.hexDigest();
  if (bytes != piece.bytes || sha != piece.sha256)
    return shardError(shard, "output piece " + piece.file + " differs from its receipt (SHA-256 " + sha +
                                 ", receipt says " + piece.sha256 + "): delete the shard's receipt and run it again");
  return Status::ok();
}

void writeRecord(const std::string& path, const Plan& plan, const std::string& plan_id, const MergeSummary& m,
                 const std::vector<Receipt>& receipts) {
  AtomicFile file(path);
  JsonWriter w(file.stream());
  std::map<std::string, int64_t> devices;
  for (const auto& r : receipts) devices[r.host + " " + r.device] += r.rows_out;
  w.beginObject()
      .field("tool", "graphormer-cli screen merge")
      .field("plan_id", plan_id)
      .field("model_sha256", plan.model_sha256)
      .field("output", m.output)
      .field("rows", m.rows)
      .field("shards", static_cast<int64_t>(plan.shards.size()));
  w.key("predictor").raw(predict::toJson(plan.predictor));
  w.key("inputs").beginArray();
  for (const auto& in : plan.inputs) w.value(in.path);
  w.endArray().key("by_status").beginObject();
  for (const auto& [k, v] : m.by_status) w.field(k, v);
  w.endObject().key("rows_by_host_device").beginObject();
  for (const auto& [k, v] : devices) w.field(k, v);
  w.endObject()
      .key("shard_seconds")
      .beginObject()
      .field("read", m.seconds.read)
      .field("featurize", m.seconds.featurize)
      .field("infer", m.seconds.infer)
      .field("write", m.seconds.write)
      .field("total", m.seconds.total)
      .endObject();
  w.field("merge_seconds", m.merge_seconds).endObject();
  file.stream() << '\n';
  file.commit();
}

}  // namespace

Result<Receipt> verifiedShard(const std::string& dir, const std::string& plan_id, const Plan& plan, int shard) {
  auto r = readReceipt(receiptPath(dir, shard));
  if (!r.isOk()) return shardError(shard, "not complete (no receipt): run `graphormer-cli screen run " + dir + "`");
  if (r->plan_id != plan_id || r->shard != shard || !r->complete)
    return shardError(shard, "its receipt belongs to another plan (" + r->plan_id + ")");
  if (r->model_sha256 != plan.model_sha256)
    return shardError(shard, "computed with another model (SHA-256 " + r->model_sha256 + ", the plan's is " +
                                 plan.model_sha256 + ")");
  const Shard& s = plan.shards[static_cast<size_t>(shard)];
  int64_t rows = 0, next = s.first_row;
  for (const auto& p : r->pieces) {
    if (p.first_row != next) return shardError(shard, "its pieces leave a gap at row " + std::to_string(next));
    next += p.rows;
    rows += p.rows;
  }
  if (s.rows >= 0 && rows != s.rows)
    return shardError(shard, "has " + std::to_string(rows) + " rows, the plan says " + std::to_string(s.rows));
  return r;
}

Result<MergeSummary> mergeScreen(const MergeOptions& o) {
  const auto start = std::chrono::steady_clock::now();
  std::string plan_id;
  auto plan = readPlan(o.dir, &plan_id);
  if (!plan.isOk()) return plan.status();
  MergeSummary m;
  m.output = o.output.empty() ? o.dir + "/merged/predictions" + outputSuffix(plan->output_codec) : o.output;
  if (codecFromPath(m.output) != plan->output_codec)
    return Status{StatusCode::InvalidArgument, std::string("the shards are ") + codecName(plan->output_codec) +
                                                   " pieces: name the output *" + outputSuffix(plan->output_codec)};
  std::vector<std::string> inputs;
  for (const auto& in : plan->inputs) inputs.push_back(in.path);
  if (Status s = jobs::checkOutputs({m.output, m.output + ".json"}, inputs, plan->predictor.model); !s.isOk()) return s;
  std::vector<Receipt> receipts;
  for (const auto& s : plan->shards) {
    auto r = verifiedShard(o.dir, plan_id, plan.value(), s.id);
    if (!r.isOk()) return r.status();
    receipts.push_back(r.value());
  }
  makeDirs(m.output.substr(0, m.output.find_last_of('/')));
  AtomicFile file(m.output, true);
  if (!file.isOpen()) return file.openStatus();
  {
    CompressingStream header(file.stream(), plan->output_codec);
    data::CsvWriter(header).row(plan->header);
    if (Status s = header.finish(); !s.isOk()) return s;
  }
  for (const auto& r : receipts) {
    for (const auto& p : r.pieces)
      if (Status s = appendVerified(o.dir, r.shard, p, file.stream()); !s.isOk()) return s;
    m.rows += r.rows_out;
    for (const auto& [k, v] : r.by_status) m.by_status[k] += v;
    m.seconds += r.seconds;
  }
  m.bytes = static_cast<int64_t>(file.stream().tellp());
  if (Status s = file.commit(); !s.isOk()) return s;
  m.merge_seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  writeRecord(m.output + ".json", plan.value(), plan_id, m, receipts);
  if (o.hits) {
    HitOptions h = *o.hits;
    if (h.prefix.empty()) h.prefix = o.dir + "/merged/hits";
    auto lists = writeHitLists(o.dir, plan.value(), receipts, h);
    if (!lists.isOk()) return lists.status();
    m.hit_lists = lists.value();
  }
  return m;
}

}  // namespace gs::screen
