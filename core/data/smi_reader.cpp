#include "data/smi_reader.h"

#include "data/text_lines.h"

namespace gs::data {

SmiReader::SmiReader(std::istream& in, int64_t first_row) : in_(in), row_(first_row - 1) { detail::skipBom(in_); }

bool SmiReader::next(RawRecord& out) {
  std::string line;
  while (detail::readLine(in_, line)) {
    if (!line.empty() && line[0] == '#') continue;  // comment lines are not rows
    out = RawRecord{};
    out.row = ++row_;
    out.kind = RecordKind::Smiles;
    const size_t begin = line.find_first_not_of(" \t");
    if (begin == std::string::npos) {
      out.id = std::to_string(out.row);
      return true;  // empty / whitespace-only: the parser gives it its status
    }
    const size_t end = line.find_first_of(" \t", begin);
    out.text = line.substr(begin, end == std::string::npos ? std::string::npos : end - begin);
    if (end != std::string::npos) {
      const size_t name_begin = line.find_first_not_of(" \t", end);
      if (name_begin != std::string::npos) {
        const size_t name_end = line.find_last_not_of(" \t");
        out.id = line.substr(name_begin, name_end - name_begin + 1);
      }
    }
    if (out.id.empty()) out.id = std::to_string(out.row);
    return true;
  }
  return false;
}

}  // namespace gs::data
