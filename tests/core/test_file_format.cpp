// The file-format table (data/file_format.h): every format has one row, every extension is
// recognised through it, each row's reader reads its own kind of file, and the generated MIME XML,
// desktop MIME list and dialog filters name what the readers accept.
#include <gtest/gtest.h>

#include <map>
#include <set>
#include <sstream>

#include "common/compression.h"
#include "data/file_format.h"
#include "data/record_reader.h"

namespace gs {
namespace {

using data::FileFormat;

const FileFormat kAll[] = {FileFormat::Smi, FileFormat::Csv, FileFormat::Tsv, FileFormat::Sdf, FileFormat::Cxsmiles};

// One small file of each format holding ethanol named "ethanol" (and a value where it has fields).
const std::map<FileFormat, std::string> kSamples = {
    {FileFormat::Smi, "# a comment\nCCO ethanol\n"},
    {FileFormat::Csv, "smiles;name;value\nCCO;ethanol;1.5\n"},
    {FileFormat::Tsv, "smiles\tname\tvalue\nCCO\tethanol\t1.5\n"},
    {FileFormat::Cxsmiles, "smiles\tid\tvalue\nCCO |$;;$|\tethanol\t1.5\n"},
    {FileFormat::Sdf,
     "ethanol\n  made by hand\n\n  3  2  0  0  0  0  0  0  0  0999 V2000\n"
     "    0.0000    0.0000    0.0000 C   0  0  0  0  0  0  0  0  0  0  0  0\n"
     "    1.5000    0.0000    0.0000 C   0  0  0  0  0  0  0  0  0  0  0  0\n"
     "    2.2500    1.2990    0.0000 O   0  0  0  0  0  0  0  0  0  0  0  0\n"
     "  1  2  1  0\n  2  3  1  0\nM  END\n>  <value>\n1.5\n\n$$$$\n"},
};

TEST(FileFormatTable, EveryFormatHasOneRowFoundByItsName) {
  std::set<std::string> names;
  ASSERT_EQ(data::fileFormats().size(), std::size(kAll));
  for (FileFormat f : kAll) {
    const auto& info = data::formatInfo(f);
    EXPECT_EQ(info.format, f);
    EXPECT_TRUE(names.insert(info.name).second) << info.name;
    EXPECT_FALSE(std::string(info.description).empty()) << info.name;
    ASSERT_TRUE(info.make != nullptr) << info.name;
    auto back = data::formatFromName(info.name);
    ASSERT_TRUE(back.isOk()) << back.status().message();
    EXPECT_EQ(back.value(), f);
  }
  const auto unknown = data::formatFromName("pdb");
  ASSERT_FALSE(unknown.isOk());
  for (const auto& name : names) EXPECT_NE(unknown.status().message().find(name), std::string::npos) << name;
}

TEST(FileFormatTable, EveryExtensionIsRecognisedInAnyCaseAndCompressed) {
  std::set<std::string> seen;
  for (const auto& info : data::fileFormats())
    for (const auto& ext : data::extensionsOf(info)) {
      EXPECT_TRUE(seen.insert(ext).second) << "." << ext << " belongs to two formats";
      std::string upper = ext;
      for (char& c : upper) c = static_cast<char>(std::toupper(static_cast<unsigned char>(c)));
      std::vector<std::string> paths = {"dir.v2/lib." + ext, "lib." + upper};
      for (const auto& s : codecSuffixes()) paths.push_back("lib." + ext + s.suffix);
      for (const auto& path : paths) {
        auto f = data::formatFromPath(path);
        ASSERT_TRUE(f.isOk()) << path << ": " << f.status().message();
        EXPECT_EQ(f.value(), info.format) << path;
      }
    }
  const auto unknown = data::formatFromPath("library.pdb.gz");
  ASSERT_FALSE(unknown.isOk());
  for (const auto& ext : seen) EXPECT_NE(unknown.status().message().find("." + ext), std::string::npos) << ext;
  EXPECT_FALSE(data::formatFromPath("dir.v2/library").isOk());
}

TEST(FileFormatTable, EachRowReadsItsOwnKindOfFile) {
  for (const auto& info : data::fileFormats()) {
    const auto sample = kSamples.find(info.format);
    ASSERT_NE(sample, kSamples.end()) << "no sample file for the format " << info.name;
    std::istringstream in(sample->second);
    auto reader = data::makeReader(info.format, in);
    data::RawRecord record;
    ASSERT_TRUE(reader->next(record)) << info.name;
    EXPECT_TRUE(record.status.isOk()) << info.name << ": " << record.status.message();
    EXPECT_EQ(record.id, "ethanol") << info.name;
    EXPECT_NE(record.text.find(info.fields == data::FieldLayout::DataItems ? "M  END" : "CCO"), std::string::npos)
        << info.name;
    EXPECT_FALSE(reader->next(record)) << info.name << " read a second record";
    const auto columns = reader->columns();
    if (info.fields == data::FieldLayout::None) {
      EXPECT_TRUE(columns.empty()) << info.name;
    } else {
      EXPECT_NE(std::find(columns.begin(), columns.end(), "value"), columns.end())
          << info.name << " lost its named field";
    }
  }
}

TEST(FileFormatTable, GeneratedMimeFilesAndFiltersNameWhatTheReadersAccept) {
  const std::string xml = data::mimeXml();
  const std::string desktop = data::desktopMimeTypes();
  const std::string all = data::dialogFilter("Molecules", false);
  const std::string labelled = data::dialogFilter("Molecules with values", true);
  size_t ours = 0;
  for (const auto& info : data::fileFormats())
    for (const auto& m : info.mime) {
      const std::string type = std::string("<mime-type type=\"") + m.type + "\"";
      EXPECT_EQ(xml.find(type) != std::string::npos, m.ours) << m.type;
      EXPECT_EQ(desktop.find(std::string(m.type) + ";") != std::string::npos, m.ours) << m.type;
      ours += m.ours;
      for (const char* ext : m.extensions) {
        const std::string glob = std::string("*.") + ext;
        if (m.ours) {
          EXPECT_NE(xml.find("<glob pattern=\"" + glob + "\"/>"), std::string::npos) << glob;
        }
        EXPECT_NE(all.find(glob + " "), std::string::npos) << glob;
        EXPECT_EQ(labelled.find(glob + " ") != std::string::npos, info.fields != data::FieldLayout::None) << glob;
      }
    }
  size_t opened = 0, closed = 0;
  for (size_t at = 0; (at = xml.find("<mime-type ", at)) != std::string::npos; ++at) ++opened;
  for (size_t at = 0; (at = xml.find("</mime-type>", at)) != std::string::npos; ++at) ++closed;
  EXPECT_EQ(opened, ours);
  EXPECT_EQ(closed, ours);
  for (const auto& s : codecSuffixes()) EXPECT_NE(all.find(std::string("*") + s.suffix), std::string::npos) << s.suffix;
  EXPECT_EQ(all.rfind("Molecules (", 0), 0u);
  EXPECT_EQ(all.back(), ')');
}

}  // namespace
}  // namespace gs
