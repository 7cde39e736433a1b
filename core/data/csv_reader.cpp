#include "data/csv_reader.h"

#include <algorithm>
#include <cctype>

#include "data/text_lines.h"

namespace gs::data {
namespace {

std::string lower(std::string s) {
  std::transform(s.begin(), s.end(), s.begin(), [](unsigned char c) { return std::tolower(c); });
  return s;
}

const char* const kSmilesNames[] = {"smiles", "smi", "canonical_smiles", "mol", nullptr};
const char* const kIdNames[] = {"id", "name", "title", "compound_id", "mol_id", "idnumber", nullptr};

}  // namespace

CsvReader::CsvReader(std::istream& in, const ReaderOptions& options, char delimiter, char fallback, bool cxsmiles)
    : in_(in), delim_(delimiter), cxsmiles_(cxsmiles), row_(options.first_row - 1) {
  detail::skipBom(in_);
  if (!delim_) {
    while ((has_pending_ = detail::readLine(in_, pending_)) && !pending_.empty() && pending_[0] == '#') {
    }
    if (cxsmiles_)
      delim_ = !has_pending_ || pending_.find('\t') != std::string::npos ? '\t' : ' ';
    else
      delim_ = has_pending_ ? detectDelimiter(pending_, fallback) : fallback;
  }
  if (options.csv_header) {
    bool unterminated = false;
    if (!readRow(header_, &unterminated)) {
      setup_ = {StatusCode::MalformedRecord, "the file is empty (no header row)"};
      return;
    }
    if (!header_.empty() && !header_[0].empty() && header_[0].rfind("\xEF\xBB\xBF", 0) == 0)
      header_[0].erase(0, 3);  // UTF-8 byte-order mark
  }
  smiles_col_ = resolveColumn(options.smiles_column, kSmilesNames, 0);
  id_col_ = resolveColumn(options.id_column, kIdNames, -1);
  if (smiles_col_ < 0 && setup_.isOk())
    setup_ = {StatusCode::InvalidArgument, "no column named '" + options.smiles_column + "' in the header"};
  if (!options.id_column.empty() && id_col_ < 0 && setup_.isOk())
    setup_ = {StatusCode::InvalidArgument, "no column named '" + options.id_column + "' in the header"};
}

int CsvReader::resolveColumn(const std::string& spec, const char* const* auto_names, int fallback) {
  if (!spec.empty() && spec[0] == '#') {
    try {
      return std::stoi(spec.substr(1));
    } catch (...) {
      return -1;
    }
  }
  if (!spec.empty()) {
    for (size_t c = 0; c < header_.size(); ++c)
      if (lower(header_[c]) == lower(spec)) return static_cast<int>(c);
    return -1;
  }
  for (const char* const* name = auto_names; *name; ++name)
    for (size_t c = 0; c < header_.size(); ++c)
      if (lower(header_[c]) == *name) return static_cast<int>(c);
  return fallback;
}

bool CsvReader::readRow(std::vector<std::string>& fields, bool* unterminated) {
  fields.clear();
  *unterminated = false;
  std::string line;
  if (has_pending_) {
    line = std::move(pending_);
    has_pending_ = false;
  } else {
    while (true) {  // skip comment lines between rows
      if (!detail::readLine(in_, line)) return false;
      if (line.empty() || line[0] != '#') break;
    }
  }
  std::string field;
  bool quoted = false;
  bool was_quoted = false;
  for (;;) {
    for (size_t i = 0; i < line.size(); ++i) {
      const char c = line[i];
      if (quoted) {
        if (c == '"') {
          if (i + 1 < line.size() && line[i + 1] == '"') {
            field.push_back('"');
            ++i;
          } else {
            quoted = false;
          }
        } else {
          field.push_back(c);
        }
      } else if (c == '"' && field.empty() && !was_quoted) {
        quoted = was_quoted = true;
      } else if (c == delim_) {
        fields.push_back(std::move(field));
        field.clear();
        was_quoted = false;
      } else {
        field.push_back(c);
      }
    }
    if (!quoted) break;
    // A quoted field continues on the next physical line.
    if (!detail::readLine(in_, line)) {
      *unterminated = true;
      break;
    }
    field.push_back('\n');
  }
  fields.push_back(std::move(field));
  if (cxsmiles_ && delim_ == ' ') joinCxExtensions(fields);
  return true;
}

// Space-separated CXSMILES: "SMILES |ext| name" splits into three fields; the extension (which may
// itself hold spaces, e.g. in atom labels) goes back onto the SMILES before it, and runs of spaces
// separate like one.
void CsvReader::joinCxExtensions(std::vector<std::string>& fields) const {
  std::vector<std::string> out;
  bool open = false;  // inside an extension that has not closed yet
  for (auto& f : fields) {
    if (f.empty() && !open) continue;
    if (!out.empty() && (open || (!f.empty() && f.front() == '|'))) {
      out.back() += ' ' + f;
      const size_t bars = static_cast<size_t>(std::count(out.back().begin(), out.back().end(), '|'));
      open = bars % 2 == 1;
    } else {
      out.push_back(std::move(f));
    }
  }
  fields = std::move(out);
}

std::vector<int> CsvReader::otherColumns() const {
  std::vector<int> out;
  for (int c = 0; c < static_cast<int>(header_.size()); ++c)
    if (c != smiles_col_ && c != id_col_) out.push_back(c);
  return out;
}

bool CsvReader::next(RawRecord& out) {
  std::vector<std::string> fields;
  bool unterminated = false;
  if (!readRow(fields, &unterminated)) return false;
  out = RawRecord{};
  out.row = ++row_;
  out.kind = RecordKind::Smiles;
  const int needed = std::max(smiles_col_, id_col_) + 1;
  const size_t width = header_.empty() ? fields.size() : header_.size();
  if (id_col_ >= 0 && id_col_ < static_cast<int>(fields.size())) out.id = fields[id_col_];
  if (out.id.empty()) out.id = std::to_string(out.row);
  if (!setup_.isOk()) {
    out.status = setup_;
  } else if (unterminated) {
    out.status = {StatusCode::MalformedRecord, "unterminated quoted field"};
  } else if (static_cast<int>(fields.size()) < needed ||
             (fields.size() > width &&  // extra fields are fine only when empty (trailing commas)
              std::any_of(fields.begin() + static_cast<long>(width), fields.end(),
                          [](const std::string& f) { return !detail::isBlank(f); }))) {
    out.status = {StatusCode::MalformedRecord,
                  "row has " + std::to_string(fields.size()) + " fields, the header has " + std::to_string(width)};
  } else {
    out.text = fields[smiles_col_];
  }
  out.fields = std::move(fields);
  return true;
}

}  // namespace gs::data
