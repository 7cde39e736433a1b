#include "data/sd_writer.h"

namespace gs::data {
namespace {

// One line of text: line breaks (and tabs) become spaces.
std::string oneLine(const std::string& text) {
  std::string out = text;
  for (char& c : out)
    if (c == '\n' || c == '\r' || c == '\t') c = ' ';
  return out;
}

std::string itemName(const std::string& name) {
  std::string out = oneLine(name);
  for (char& c : out)
    if (c == '<' || c == '>') c = '_';
  return out;
}

}  // namespace

std::string SdWriter::emptyMolBlock(const std::string& title) {
  return oneLine(title) + "\n  GraphormerStudio\n\n  0  0  0  0  0  0  0  0  0  0999 V2000\nM  END\n";
}

void SdWriter::record(const std::string& molblock, const std::string& title,
                      const std::vector<std::pair<std::string, std::string>>& items) {
  out_ << (molblock.empty() ? emptyMolBlock(title) : molblock);
  for (const auto& [name, value] : items) {
    const std::string v = oneLine(value);
    if (v.empty()) continue;  // a missing value is a missing item
    // A value line that starts with "$$$$" would end the record: a leading space keeps it a value.
    out_ << "> <" << itemName(name) << ">\n" << (v.rfind("$$$$", 0) == 0 ? " " + v : v) << "\n\n";
  }
  out_ << "$$$$\n";
}

}  // namespace gs::data
