#include "data/sdf_reader.h"

#include "data/text_lines.h"

namespace gs::data {
namespace {

// "> <NAME>" or ">  <NAME> (1)": the text between the first '<' and the next '>'.
std::string dataItemName(const std::string& line) {
  const size_t open = line.find('<');
  const size_t close = open == std::string::npos ? open : line.find('>', open);
  if (close == std::string::npos) return {};
  return line.substr(open + 1, close - open - 1);
}

}  // namespace

void SdfReader::setItem(RawRecord& out, const std::string& name, const std::string& line) {
  size_t index = 0;
  while (index < columns_.size() && columns_[index] != name) ++index;
  if (index == columns_.size()) {
    if (fixed_columns_) return;
    columns_.push_back(name);
  }
  if (out.fields.size() <= index) out.fields.resize(index + 1);
  auto& value = out.fields[index];
  value += (value.empty() ? "" : "\n") + line;
}

SdfReader::SdfReader(std::istream& in, const ReaderOptions& options)
    : in_(in),
      id_property_(options.sdf_id_property),
      columns_(options.sdf_items),
      fixed_columns_(!options.sdf_items.empty()),
      row_(options.first_row - 1) {
  detail::skipBom(in_);
}

std::vector<int> SdfReader::otherColumns() const {
  std::vector<int> out;
  for (int c = 0; c < static_cast<int>(columns_.size()); ++c)
    if (columns_[c] != id_property_) out.push_back(c);
  return out;
}

bool SdfReader::next(RawRecord& out) {
  std::string line;
  std::string molblock;
  std::string title;
  std::string property_id;
  bool in_block = true;
  bool terminated = false;
  bool nonblank = false;
  int line_no = 0;
  std::string current_item;
  RawRecord items;
  while (detail::readLine(in_, line)) {
    if (line.rfind("$$$$", 0) == 0) {
      terminated = true;
      break;
    }
    nonblank = nonblank || !detail::isBlank(line);
    if (line_no++ == 0) title = line;
    if (in_block) {
      molblock += line;
      molblock += '\n';
      if (line.rfind("M  END", 0) == 0) in_block = false;
      continue;
    }
    if (!line.empty() && line[0] == '>') {
      current_item = dataItemName(line);
    } else if (detail::isBlank(line)) {
      current_item.clear();
    } else if (!current_item.empty()) {
      if (current_item == id_property_ && property_id.empty()) property_id = line;
      std::string value = line;
      while (!value.empty() && (value.back() == ' ' || value.back() == '\t')) value.pop_back();
      setItem(items, current_item, value);
    }
  }
  if (!terminated && !nonblank) return false;  // trailing blank lines after the last record
  out = RawRecord{};
  out.fields = std::move(items.fields);
  out.fields.resize(columns_.size());
  out.row = ++row_;
  out.kind = RecordKind::MolBlock;
  out.text = std::move(molblock);
  out.id = id_property_.empty() ? title : property_id;
  while (!out.id.empty() && (out.id.back() == ' ' || out.id.back() == '\t')) out.id.pop_back();
  if (out.id.empty()) out.id = std::to_string(out.row);
  if (in_block && nonblank) out.status = {StatusCode::MalformedRecord, "record has no 'M  END' line"};
  return true;
}

}  // namespace gs::data
