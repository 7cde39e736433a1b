// Build tool (not installed): writes the files that name the molecule file types, from the format
// table (core/data/file_format.h), so that they cannot drift from what the readers accept.
//   gs-format-files mime-xml OUT            the shared-mime-info XML
//   gs-format-files desktop IN OUT          IN with @MIME_TYPES@ replaced by the desktop MimeType list
#include <fstream>
#include <iostream>
#include <sstream>
#include <string>

#include "data/file_format.h"

namespace {

int write(const std::string& path, const std::string& text) {
  std::ofstream out(path, std::ios::binary);
  out << text;
  if (out.flush()) return 0;
  std::cerr << "gs-format-files: cannot write " << path << "\n";
  return 1;
}

int desktop(const std::string& in_path, const std::string& out_path) {
  std::ifstream in(in_path, std::ios::binary);
  std::stringstream text;
  text << in.rdbuf();
  std::string s = text.str();
  const std::string key = "@MIME_TYPES@";
  const size_t at = s.find(key);
  if (!in || at == std::string::npos) {
    std::cerr << "gs-format-files: " << in_path << " is unreadable or has no " << key << "\n";
    return 1;
  }
  return write(out_path, s.replace(at, key.size(), gs::data::desktopMimeTypes()));
}

}  // namespace

int main(int argc, char** argv) {
  const std::string mode = argc > 1 ? argv[1] : "";
  if (mode == "mime-xml" && argc == 3) return write(argv[2], gs::data::mimeXml());
  if (mode == "desktop" && argc == 4) return desktop(argv[2], argv[3]);
  std::cerr << "usage: gs-format-files mime-xml OUT | desktop IN OUT\n";
  return 2;
}
