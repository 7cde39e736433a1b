#include "screen/receipt.h"

#include <dirent.h>
#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstdio>
#include <cstring>
#include <fstream>
#include <sstream>

#include "common/json_value.h"
#include "common/json_writer.h"
#include "common/sha256.h"
#include "screen/layout.h"

namespace gs::screen {
namespace {

int64_t integer(const JsonValue& j, const char* key, Status* status) {
  const JsonValue* v = j.find(key);
  if (v && v->isInteger()) return v->asInteger();
  if (status->isOk())
    *status = {StatusCode::InvalidArgument, std::string("receipt: '") + key + "' missing or not an integer"};
  return 0;
}

std::string text(const JsonValue& j, const char* key) {
  const JsonValue* v = j.find(key);
  return v && v->isString() ? v->asString() : std::string();
}

double number(const JsonValue& j, const char* key) {
  const JsonValue* v = j.find(key);
  return v && v->isNumber() ? v->asNumber() : 0;
}

// A small informational count (threads, attempts): an integer in [0, 2^30], else 0. A receipt is
// read from a shared file system; a double such as 1e300 must not reach an int conversion.
int count(const JsonValue& j, const char* key) {
  const JsonValue* v = j.find(key);
  if (!v || !v->isInteger()) return 0;
  const int64_t n = v->asInteger();
  return n >= 0 && n <= (int64_t{1} << 30) ? static_cast<int>(n) : 0;
}

void writeSeconds(JsonWriter& w, const StageSeconds& s) {
  w.beginObject()
      .field("read", s.read)
      .field("featurize", s.featurize)
      .field("infer", s.infer)
      .field("write", s.write)
      .field("total", s.total)
      .endObject();
}

StageSeconds readSeconds(const JsonValue* j) {
  StageSeconds s;
  if (!j) return s;
  s.read = number(*j, "read");
  s.featurize = number(*j, "featurize");
  s.infer = number(*j, "infer");
  s.write = number(*j, "write");
  s.total = number(*j, "total");
  return s;
}

Result<Receipt> combine(const std::vector<Receipt>& parts, const std::string& plan_id, int shard) {
  Receipt r;
  r.plan_id = plan_id;
  r.shard = shard;
  r.complete = true;
  r.reached_end = true;
  r.first_row = parts.front().first_row;
  r.model_sha256 = parts.front().model_sha256;
  r.attempts = static_cast<int>(parts.size());
  for (const auto& p : parts) {
    r.rows_in += p.rows_in;
    r.rows_out += p.rows_out;
    for (const auto& [k, v] : p.by_status) r.by_status[k] += v;
    r.pieces.insert(r.pieces.end(), p.pieces.begin(), p.pieces.end());
    r.seconds += p.seconds;
  }
  const Receipt& last = parts.back();
  r.host = last.host;
  r.device = last.device;
  r.precision = last.precision;
  r.threads = last.threads;
  r.attempt = last.attempt;
  r.started = parts.front().started;
  r.finished = last.finished;
  return r;
}

}  // namespace

StageSeconds& StageSeconds::operator+=(const StageSeconds& o) {
  read += o.read;
  featurize += o.featurize;
  infer += o.infer;
  write += o.write;
  total += o.total;
  return *this;
}

std::string toJson(const Receipt& r) {
  std::ostringstream out;
  JsonWriter w(out);
  w.beginObject()
      .field("version", Receipt::kVersion)
      .field("plan_id", r.plan_id)
      .field("shard", r.shard)
      .field("complete", r.complete)
      .field("model_sha256", r.model_sha256)
      .field("first_row", r.first_row)
      .field("rows_in", r.rows_in)
      .field("rows_out", r.rows_out)
      .field("next_offset", r.next_offset)
      .field("reached_end", r.reached_end);
  w.key("by_status").beginObject();
  for (const auto& [k, v] : r.by_status) w.field(k, v);
  w.endObject().key("pieces").beginArray();
  for (const auto& p : r.pieces)
    w.beginObject()
        .field("file", p.file)
        .field("first_row", p.first_row)
        .field("rows", p.rows)
        .field("bytes", p.bytes)
        .field("sha256", p.sha256)
        .endObject();
  w.endArray().key("seconds");
  writeSeconds(w, r.seconds);
  w.field("host", r.host)
      .field("device", r.device)
      .field("precision", r.precision)
      .field("threads", r.threads)
      .field("attempt", r.attempt)
      .field("attempts", r.attempts)
      .field("started", r.started)
      .field("finished", r.finished)
      .endObject();
  out << '\n';
  return out.str();
}

Result<Receipt> receiptFromJson(const std::string& json_text) {
  auto json = JsonValue::parse(json_text);
  if (!json.isOk()) return Status{StatusCode::InvalidArgument, "receipt: " + json.status().message()};
  const JsonValue& j = json.value();
  Status status;
  if (integer(j, "version", &status) != Receipt::kVersion)
    return Status{StatusCode::InvalidArgument, "receipt: unknown version"};
  Receipt r;
  r.plan_id = text(j, "plan_id");
  r.shard = static_cast<int>(integer(j, "shard", &status));
  const JsonValue* complete = j.find("complete");
  r.complete = complete && complete->isBool() && complete->asBool();
  r.model_sha256 = text(j, "model_sha256");
  r.first_row = integer(j, "first_row", &status);
  r.rows_in = integer(j, "rows_in", &status);
  r.rows_out = integer(j, "rows_out", &status);
  r.next_offset = integer(j, "next_offset", &status);
  const JsonValue* end = j.find("reached_end");
  r.reached_end = end && end->isBool() && end->asBool();
  if (const JsonValue* by = j.find("by_status"))
    for (const auto& [k, v] : by->members()) r.by_status[k] = v.isInteger() ? v.asInteger() : 0;
  if (const JsonValue* pieces = j.find("pieces"))
    for (const auto& p : pieces->items())
      r.pieces.push_back({text(p, "file"), integer(p, "first_row", &status), integer(p, "rows", &status),
                          integer(p, "bytes", &status), text(p, "sha256")});
  r.seconds = readSeconds(j.find("seconds"));
  r.host = text(j, "host");
  r.device = text(j, "device");
  r.precision = text(j, "precision");
  r.threads = count(j, "threads");
  r.attempt = text(j, "attempt");
  r.attempts = count(j, "attempts");
  r.started = text(j, "started");
  r.finished = text(j, "finished");
  if (!status.isOk()) return status;
  return r;
}

Result<Receipt> readReceipt(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  if (!in) return Status{StatusCode::IoError, "no receipt " + path};
  std::ostringstream s;
  s << in.rdbuf();
  auto r = receiptFromJson(s.str());
  if (!r.isOk()) return Status{r.status().code(), path + ": " + r.status().message()};
  return r;
}

Status fsyncFile(const std::string& path) {
  const int fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC);
  if (fd < 0) return {StatusCode::IoError, "cannot open " + path + ": " + std::strerror(errno)};
  const int rc = ::fsync(fd);
  ::close(fd);
  if (rc != 0) return {StatusCode::IoError, "cannot sync " + path + ": " + std::strerror(errno)};
  return Status::ok();
}

Status publishReceipt(const std::string& path, const Receipt& receipt, bool* won) {
  *won = false;
  const size_t slash = path.find_last_of('/');
  if (!makeDirs(path.substr(0, slash))) return {StatusCode::IoError, "cannot create the directory of " + path};
  const std::string temp = path + ".tmp-" + attemptToken();
  {
    std::ofstream out(temp, std::ios::binary | std::ios::trunc);
    out << toJson(receipt);
    out.flush();
    if (!out) return {StatusCode::IoError, "cannot write " + temp};
  }
  if (Status s = fsyncFile(temp); !s.isOk()) return s;
  const int rc = ::link(temp.c_str(), path.c_str());
  const int err = errno;
  std::remove(temp.c_str());
  if (rc == 0) {
    *won = true;
    return Status::ok();
  }
  if (err == EEXIST) return Status::ok();
  return {StatusCode::IoError, "cannot publish " + path + ": " + std::strerror(err)};
}

Result<Receipt> completeReceipt(const std::string& dir, const std::string& plan_id, int shard) {
  auto r = readReceipt(receiptPath(dir, shard));
  if (!r.isOk()) return r;
  if (r->plan_id != plan_id || !r->complete || r->shard != shard)
    return Status{StatusCode::InvalidArgument,
                  "receipt of shard " + std::to_string(shard) + " belongs to another plan"};
  return r;
}

std::vector<Receipt> partReceipts(const std::string& dir, const std::string& plan_id, int shard) {
  std::vector<Receipt> out;
  const std::string group = groupDir(dir, "receipts", shard);
  const std::string prefix = std::to_string(shard) + ".part-";
  DIR* d = ::opendir(group.c_str());
  if (!d) return out;
  while (dirent* e = ::readdir(d)) {
    const std::string name = e->d_name;
    if (name.rfind(prefix, 0) != 0 || name.size() < 5 || name.compare(name.size() - 5, 5, ".json") != 0) continue;
    auto r = readReceipt(group + "/" + name);
    if (r.isOk() && r->plan_id == plan_id && r->shard == shard && !r->complete) out.push_back(r.value());
  }
  ::closedir(d);
  std::sort(out.begin(), out.end(), [](const Receipt& a, const Receipt& b) { return a.first_row < b.first_row; });
  return out;
}

Result<bool> completeIfCovered(const std::string& dir, const std::string& plan_id, const Plan& plan, int shard) {
  if (completeReceipt(dir, plan_id, shard).isOk()) return true;
  const Shard& s = plan.shards[static_cast<size_t>(shard)];
  std::vector<Receipt> chain;
  int64_t next = s.first_row;
  for (const auto& p : partReceipts(dir, plan_id, shard)) {
    if (p.first_row != next) continue;  // a duplicate of a range already chained, or a gap
    chain.push_back(p);
    next = p.first_row + p.rows_in;
    const bool done = s.rows >= 0 ? next >= s.first_row + s.rows : p.reached_end;
    if (!done) continue;
    auto complete = combine(chain, plan_id, shard);
    bool won = false;
    if (Status st = publishReceipt(receiptPath(dir, shard), complete.value(), &won); !st.isOk()) return st;
    return true;
  }
  return false;
}

Status fileChecksum(const std::string& path, std::string* sha256, int64_t* bytes) {
  std::ifstream in(path, std::ios::binary);
  if (!in) return {StatusCode::IoError, "cannot read " + path};
  Sha256 h;
  std::vector<char> buf(1 << 16);
  int64_t n = 0;
  while (in.read(buf.data(), static_cast<std::streamsize>(buf.size())) || in.gcount() > 0) {
    h.update(buf.data(), static_cast<size_t>(in.gcount()));
    n += in.gcount();
  }
  *sha256 = h.hexDigest();
  *bytes = n;
  return Status::ok();
}

}  // namespace gs::screen
