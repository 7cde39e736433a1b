#include "screen/hits.h"

#include <sqlite3.h>

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <queue>

#include "chem/depict.h"
#include "common/atomic_file.h"
#include "data/csv_reader.h"
#include "data/csv_writer.h"
#include "data/sd_writer.h"

namespace gs::screen {
namespace {

struct Hit {
  double key = 0;
  int64_t ordinal = 0;  // position in the merged output: ties keep input order
  std::vector<std::string> fields;
};

// Orders hits best first.
struct Better {
  bool ascending;
  bool operator()(const Hit& a, const Hit& b) const {
    if (a.key != b.key) return ascending ? a.key < b.key : a.key > b.key;
    return a.ordinal < b.ordinal;
  }
};

bool number(const std::string& text, double* out) {
  if (text.empty()) return false;
  char* end = nullptr;
  *out = std::strtod(text.c_str(), &end);
  return end && *end == '\0';
}

// Bounded: keeps the `top` best (all when top is 0).
class Ranking {
 public:
  Ranking(int64_t top, bool ascending) : top_(top), better_{ascending}, heap_(better_) {}
  void offer(Hit&& hit) {
    if (top_ > 0 && static_cast<int64_t>(heap_.size()) >= top_ && !better_(hit, heap_.top())) return;
    heap_.push(std::move(hit));
    if (top_ > 0 && static_cast<int64_t>(heap_.size()) > top_) heap_.pop();
  }
  std::vector<Hit> take() {  // best first
    std::vector<Hit> out;
    while (!heap_.empty()) {
      out.push_back(heap_.top());
      heap_.pop();
    }
    std::reverse(out.begin(), out.end());
    return out;
  }

 private:
  int64_t top_;
  Better better_;
  std::priority_queue<Hit, std::vector<Hit>, Better> heap_;  // worst on top
};

Status scanShard(const std::string& dir, const Receipt& r, const std::vector<Condition>& conditions,
                 const std::vector<int>& columns, int64_t* ordinal, std::vector<Ranking>* global, const HitOptions& o) {
  std::vector<Ranking> local;
  for (size_t c = 0; c < columns.size(); ++c) local.emplace_back(o.top, o.ascending);
  data::ReaderOptions options;
  options.csv_header = false;
  for (const auto& piece : r.pieces) {
    auto in = InputFile::open(dir + "/" + piece.file);
    if (!in.isOk()) return in.status();
    data::CsvReader reader(*in.value(), options, ',');
    data::RawRecord record;
    while (reader.next(record)) {
      const int64_t at = (*ordinal)++;
      if (record.fields.size() < 5 || record.fields[4] != "ok") continue;
      bool pass = true;
      for (const auto& cond : conditions) {
        double v = 0;
        pass = pass && static_cast<size_t>(cond.column) < record.fields.size() &&
               number(record.fields[static_cast<size_t>(cond.column)], &v) && cond.holds(v);
      }
      if (!pass) continue;
      for (size_t c = 0; c < columns.size(); ++c) {
        double v = 0;
        if (number(record.fields[static_cast<size_t>(columns[c])], &v)) local[c].offer({v, at, record.fields});
      }
    }
    if (Status s = in.value()->error(); !s.isOk()) return s;
  }
  for (size_t c = 0; c < columns.size(); ++c)
    for (auto& hit : local[c].take()) (*global)[c].offer(std::move(hit));
  return Status::ok();
}

Status writeCsv(const std::string& path, const std::vector<std::string>& header, const std::vector<Hit>& hits) {
  AtomicFile file(path);
  if (!file.isOpen()) return file.openStatus();
  data::CsvWriter csv(file.stream());
  std::vector<std::string> h{"rank"};
  h.insert(h.end(), header.begin(), header.end());
  csv.row(h);
  for (size_t i = 0; i < hits.size(); ++i) {
    std::vector<std::string> row{std::to_string(i + 1)};
    row.insert(row.end(), hits[i].fields.begin(), hits[i].fields.end());
    csv.row(row);
  }
  return file.commit();
}

Status writeSdf(const std::string& path, const std::vector<std::string>& header, const std::vector<Hit>& hits) {
  AtomicFile file(path);
  if (!file.isOpen()) return file.openStatus();
  data::SdWriter sd(file.stream());
  for (size_t i = 0; i < hits.size(); ++i) {
    const auto& f = hits[i].fields;
    const std::string block = chem::molBlock2D(f.size() > 3 && !f[3].empty() ? f[3] : f[2], f.size() > 1 ? f[1] : "");
    if (block.empty()) continue;
    std::vector<std::pair<std::string, std::string>> items{{"rank", std::to_string(i + 1)}};
    for (size_t c = 0; c < header.size() && c < f.size(); ++c) items.emplace_back(header[c], f[c]);
    sd.record(block, "", items);
  }
  return file.commit();
}

std::string quoted(const std::string& name) {
  std::string out = "\"";
  for (char c : name) out += c == '"' ? std::string("\"\"") : std::string(1, c);
  return out + "\"";
}

Status writeSqlite(const std::string& path, const std::vector<std::string>& header, const std::vector<Hit>& hits) {
  const std::string temp = path + ".tmp";
  std::remove(temp.c_str());
  sqlite3* db = nullptr;
  if (sqlite3_open(temp.c_str(), &db) != SQLITE_OK) {
    sqlite3_close(db);
    return {StatusCode::IoError, "cannot create " + path};
  }
  std::string create = "CREATE TABLE hits (rank INTEGER", insert = "INSERT INTO hits VALUES (?";
  for (const auto& h : header) {
    create += ", " + quoted(h);
    insert += ", ?";
  }
  create += ")";
  insert += ")";
  sqlite3_stmt* stmt = nullptr;
  bool ok = sqlite3_exec(db, ("BEGIN; " + create + ";").c_str(), nullptr, nullptr, nullptr) == SQLITE_OK &&
            sqlite3_prepare_v2(db, insert.c_str(), -1, &stmt, nullptr) == SQLITE_OK;
  for (size_t i = 0; ok && i < hits.size(); ++i) {
    sqlite3_reset(stmt);
    sqlite3_bind_int64(stmt, 1, static_cast<sqlite3_int64>(i + 1));
    for (size_t c = 0; c < header.size(); ++c) {
      const std::string& v = c < hits[i].fields.size() ? hits[i].fields[c] : std::string();
      double d = 0;
      if (c != 1 && number(v, &d))
        sqlite3_bind_double(stmt, static_cast<int>(c + 2), d);  // ids stay text
      else
        sqlite3_bind_text(stmt, static_cast<int>(c + 2), v.c_str(), static_cast<int>(v.size()), SQLITE_TRANSIENT);
    }
    ok = sqlite3_step(stmt) == SQLITE_DONE;
  }
  sqlite3_finalize(stmt);
  ok = ok && sqlite3_exec(db, "COMMIT;", nullptr, nullptr, nullptr) == SQLITE_OK;
  const std::string error = sqlite3_errmsg(db);
  sqlite3_close(db);
  if (!ok || std::rename(temp.c_str(), path.c_str()) != 0) {
    std::remove(temp.c_str());
    return {StatusCode::IoError, "cannot write " + path + ": " + error};
  }
  return Status::ok();
}

}  // namespace

bool Condition::holds(double v) const {
  if (op == "<") return v < value;
  if (op == "<=") return v <= value;
  if (op == ">") return v > value;
  if (op == ">=") return v >= value;
  if (op == "!=") return v != value;
  return v == value;
}

Result<std::vector<Condition>> parseConditions(const std::string& where, const std::vector<std::string>& header) {
  std::vector<Condition> out;
  size_t start = 0;
  while (start < where.size()) {
    const size_t comma = std::min(where.find(',', start), where.size());
    const std::string term = where.substr(start, comma - start);
    start = comma + 1;
    const size_t at = term.find_first_of("<>=!");
    if (at == std::string::npos || at == 0)
      return Status{StatusCode::InvalidArgument, "--where: '" + term + "' is not COL<X (or <=, >, >=, =, !=)"};
    Condition c;
    const size_t op_len = at + 1 < term.size() && term[at + 1] == '=' ? 2 : 1;
    c.op = term.substr(at, op_len);
    const std::string name = term.substr(0, at);
    const auto it = std::find(header.begin(), header.end(), name);
    if (it == header.end())
      return Status{StatusCode::InvalidArgument, "--where: no column '" + name + "' in the output"};
    c.column = static_cast<int>(it - header.begin());
    if (c.op == "!" || !number(term.substr(at + op_len), &c.value))
      return Status{StatusCode::InvalidArgument, "--where: '" + term + "' needs a number after the operator"};
    out.push_back(c);
  }
  return out;
}

Result<std::vector<HitList>> writeHitLists(const std::string& dir, const Plan& plan,
                                           const std::vector<Receipt>& receipts, const HitOptions& o) {
  auto conditions = parseConditions(o.where, plan.header);
  if (!conditions.isOk()) return conditions.status();
  std::vector<std::string> by = o.by;
  if (by.empty())
    for (int i = 0; i < plan.num_outputs; ++i) by.push_back(plan.header[static_cast<size_t>(5 + i)]);
  std::vector<int> columns;
  for (const auto& name : by) {
    const auto it = std::find(plan.header.begin(), plan.header.end(), name);
    if (it == plan.header.end())
      return Status{StatusCode::InvalidArgument, "--by: no column '" + name + "' in the output"};
    columns.push_back(static_cast<int>(it - plan.header.begin()));
  }
  std::vector<Ranking> rankings;
  for (size_t c = 0; c < columns.size(); ++c) rankings.emplace_back(o.top, o.ascending);
  int64_t ordinal = 0;
  for (const auto& r : receipts)
    if (Status s = scanShard(dir, r, conditions.value(), columns, &ordinal, &rankings, o); !s.isOk()) return s;
  std::vector<HitList> lists;
  for (size_t c = 0; c < columns.size(); ++c) {
    const auto hits = rankings[c].take();
    HitList list{by[c], {}, static_cast<int64_t>(hits.size())};
    const std::string base = o.prefix + "." + by[c];
    if (Status s = writeCsv(base + ".csv", plan.header, hits); !s.isOk()) return s;
    list.files.push_back(base + ".csv");
    if (o.sdf) {
      if (Status s = writeSdf(base + ".sdf", plan.header, hits); !s.isOk()) return s;
      list.files.push_back(base + ".sdf");
    }
    if (o.sqlite) {
      if (Status s = writeSqlite(base + ".sqlite", plan.header, hits); !s.isOk()) return s;
      list.files.push_back(base + ".sqlite");
    }
    lists.push_back(list);
  }
  return lists;
}

}  // namespace gs::screen
