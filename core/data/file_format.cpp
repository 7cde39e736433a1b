#include "data/file_format.h"

#include <algorithm>
#include <cctype>

#include "common/compression.h"
#include "data/csv_reader.h"
#include "data/sdf_reader.h"
#include "data/smi_reader.h"

namespace gs::data {
namespace {

std::unique_ptr<RecordReader> smiReader(std::istream& in, const ReaderOptions& o) {
  return std::make_unique<SmiReader>(in, o.first_row);
}
std::unique_ptr<RecordReader> csvReader(std::istream& in, const ReaderOptions& o) {
  return std::make_unique<CsvReader>(in, o, o.csv_delimiter, ',');
}
std::unique_ptr<RecordReader> tsvReader(std::istream& in, const ReaderOptions& o) {
  return std::make_unique<CsvReader>(in, o, o.csv_delimiter, '\t');
}
std::unique_ptr<RecordReader> cxsmilesReader(std::istream& in, const ReaderOptions& o) {
  return std::make_unique<CsvReader>(in, o, o.csv_delimiter, '\t', /*cxsmiles=*/true);
}
std::unique_ptr<RecordReader> sdfReader(std::istream& in, const ReaderOptions& o) {
  return std::make_unique<SdfReader>(in, o);
}

const std::vector<FileFormatInfo> kFormats = {
    {FileFormat::Smi,
     "smi",
     "SMILES list: SMILES and an optional name per line, '#' starts a comment",
     {{"chemical/x-daylight-smiles", "SMILES molecule list", {"smi", "smiles"}, true},
      {"text/plain", "plain text", {"txt"}, false}},
     FieldLayout::None,
     false,
     smiReader},
    {FileFormat::Csv,
     "csv",
     "header row; comma, semicolon or tab separated; SMILES column by name or content",
     {{"text/csv", "comma-separated values", {"csv"}, false}},
     FieldLayout::HeaderRow,
     true,
     csvReader},
    {FileFormat::Tsv,
     "tsv",
     "tab-separated table with a header row (as .csv)",
     {{"text/tab-separated-values", "tab-separated values", {"tsv"}, false}},
     FieldLayout::HeaderRow,
     true,
     tsvReader},
    {FileFormat::Sdf,
     "sdf",
     "SD file or molfile: ID from the title or a data item; items kept as columns",
     {{"chemical/x-mdl-sdfile", "MDL structure-data file", {"sdf", "sd"}, true},
      {"chemical/x-mdl-molfile", "MDL molfile", {"mol"}, true}},
     FieldLayout::DataItems,
     true,
     sdfReader},
    {FileFormat::Cxsmiles,
     "cxsmiles",
     "vendor CXSMILES table (Enamine REAL): header row, tab or space separated, the |...| extension after the SMILES",
     {{"chemical/x-cxsmiles", "ChemAxon extended SMILES table (Enamine REAL)", {"cxsmiles", "cxsmi"}, true}},
     FieldLayout::HeaderRow,
     false,
     cxsmilesReader},
};

std::string lower(std::string s) {
  std::transform(s.begin(), s.end(), s.begin(), [](unsigned char c) { return static_cast<char>(std::tolower(c)); });
  return s;
}

std::string joined(const std::vector<std::string>& items, const std::string& separator) {
  std::string out;
  for (const auto& item : items) out += (out.empty() ? "" : separator) + item;
  return out;
}

std::vector<std::string> allExtensions(bool with_fields) {
  std::vector<std::string> out;
  for (const auto& f : kFormats)
    if (!with_fields || f.fields != FieldLayout::None)
      for (const auto& e : extensionsOf(f)) out.push_back(e);
  return out;
}

std::string expected() {
  return " (expected " + extensionList() + ", optionally compressed: " + compressionList() + ")";
}

std::string xmlEscaped(const std::string& s) {
  std::string out;
  for (char c : s) out += c == '&' ? "&amp;" : c == '<' ? "&lt;" : c == '>' ? "&gt;" : std::string(1, c);
  return out;
}

}  // namespace

const std::vector<FileFormatInfo>& fileFormats() { return kFormats; }

const FileFormatInfo& formatInfo(FileFormat format) {
  for (const auto& f : kFormats)
    if (f.format == format) return f;
  return kFormats.front();  // unreachable: every enumerator has a row (FileFormatTable test)
}

std::vector<std::string> extensionsOf(const FileFormatInfo& info) {
  std::vector<std::string> out;
  for (const auto& m : info.mime) out.insert(out.end(), m.extensions.begin(), m.extensions.end());
  return out;
}

Result<FileFormat> formatFromPath(const std::string& path) {
  const std::string plain = withoutCodecSuffix(path);
  const size_t slash = plain.find_last_of('/');
  const size_t dot = plain.find_last_of('.');
  if (dot == std::string::npos || (slash != std::string::npos && dot < slash))
    return Status{StatusCode::InvalidArgument, "file name has no type" + expected() + ": " + path};
  const std::string ext = lower(plain.substr(dot + 1));
  for (const auto& f : kFormats)
    for (const auto& e : extensionsOf(f))
      if (ext == e) return f.format;
  return Status{StatusCode::InvalidArgument, "unknown file type '." + ext + "'" + expected() + ": " + path};
}

Result<FileFormat> formatFromName(const std::string& name) {
  std::vector<std::string> names;
  for (const auto& f : kFormats) {
    if (name == f.name) return f.format;
    names.push_back(f.name);
  }
  return Status{StatusCode::InvalidArgument, "unknown file format '" + name + "' (known: " + joined(names, ", ") + ")"};
}

std::string extensionList() {
  std::vector<std::string> dotted;
  for (const auto& e : allExtensions(false)) dotted.push_back("." + e);
  return joined(dotted, ", ");
}

std::string compressionList() {
  std::vector<std::string> usual;
  for (const auto& s : codecSuffixes())
    if (s.usual) usual.push_back(s.suffix);
  return joined(usual, ", ");
}

std::string dialogFilter(const std::string& label, bool with_fields) {
  std::vector<std::string> globs;
  for (const auto& e : allExtensions(with_fields)) globs.push_back("*." + e);
  for (const auto& s : codecSuffixes()) globs.push_back(std::string("*") + s.suffix);
  return label + " (" + joined(globs, " ") + ")";
}

std::string mimeXml() {
  std::string out =
      "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n"
      "<!-- Molecule file types Graphormer Studio opens, generated from core/data/file_format.cpp.\n"
      "     The names are those of the chemical MIME convention (chemical-mime-data, Open Babel,\n"
      "     Avogadro) where one exists; shared-mime-info merges these with other applications'\n"
      "     definitions of the same types. -->\n"
      "<mime-info xmlns=\"http://www.freedesktop.org/standards/shared-mime-info\">\n";
  for (const auto& f : kFormats)
    for (const auto& m : f.mime) {
      if (!m.ours) continue;
      out += std::string("  <mime-type type=\"") + m.type + "\">\n    <comment>" + xmlEscaped(m.comment) +
             "</comment>\n    <sub-class-of type=\"text/plain\"/>\n";
      for (const char* e : m.extensions) out += std::string("    <glob pattern=\"*.") + e + "\"/>\n";
      out += "  </mime-type>\n";
    }
  return out + "</mime-info>\n";
}

std::string desktopMimeTypes() {
  std::string out;
  for (const auto& f : kFormats)
    for (const auto& m : f.mime)
      if (m.ours) out += std::string(m.type) + ";";
  return out;
}

}  // namespace gs::data
