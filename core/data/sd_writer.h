#pragma once
// Writes SD files (MDL SDfile): one record per call, a molblock followed by named data items and
// "$$$$". No RDKit here: the molblock comes from the caller (chem::molBlock2D). A record without a
// structure (an input row that could not be read) gets an empty molblock with its title, so a file
// of results keeps one record per input row. Item names lose the characters SD item headers cannot
// hold ('<', '>', line breaks); values are written on one line, so no value can end a record.
#include <ostream>
#include <string>
#include <utility>
#include <vector>

namespace gs::data {

class SdWriter {
 public:
  explicit SdWriter(std::ostream& out) : out_(out) {}
  // `molblock` "" = no structure; `title` is then the empty molblock's name line.
  void record(const std::string& molblock, const std::string& title,
              const std::vector<std::pair<std::string, std::string>>& items);

  static std::string emptyMolBlock(const std::string& title);

 private:
  std::ostream& out_;
};

}  // namespace gs::data
