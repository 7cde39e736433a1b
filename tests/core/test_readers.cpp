// Streaming readers: CSV quoting, CRLF, missing/extra columns, SDF with a broken record.
#include <GraphMol/ROMol.h>
#include <gtest/gtest.h>

#include <fstream>
#include <sstream>

#include "chem/featurize.h"
#include "chem/molecule.h"
#include "data/csv_reader.h"
#include "data/file_format.h"
#include "data/record_reader.h"
#include "data/sdf_reader.h"

namespace gs {
namespace {

std::vector<data::RawRecord> readAll(data::RecordReader& r) {
  std::vector<data::RawRecord> out;
  data::RawRecord rec;
  while (r.next(rec)) out.push_back(rec);
  return out;
}

TEST(CsvReader, QuotesCrlfMissingAndExtraColumns) {
  std::stringstream in(
      "name,SMILES,value\r\n"
      "\"ethanol, absolute\",CCO,1.0\r\n"
      "\"say \"\"hi\"\"\",c1ccccc1,2\r\n"
      "short\r\n"
      "toomany,CC,3,surprise\r\n"
      "trailing,CCN,4,\r\n"
      "\"multi\nline\",O,5\r\n"
      "last,CC(=O)O,6");
  data::CsvReader reader(in, {}, ',');
  const auto rows = readAll(reader);
  ASSERT_EQ(rows.size(), 7u);
  EXPECT_EQ(rows[0].id, "ethanol, absolute");
  EXPECT_EQ(rows[0].text, "CCO");
  EXPECT_EQ(rows[1].id, "say \"hi\"");
  EXPECT_EQ(rows[1].text, "c1ccccc1");
  EXPECT_EQ(rows[2].status.code(), StatusCode::MalformedRecord);
  EXPECT_NE(rows[2].status.message().find("1 fields"), std::string::npos);
  EXPECT_EQ(rows[3].status.code(), StatusCode::MalformedRecord);
  EXPECT_TRUE(rows[4].status.isOk());  // an empty trailing field is harmless
  EXPECT_EQ(rows[4].text, "CCN");
  EXPECT_EQ(rows[5].id, "multi\nline");
  EXPECT_EQ(rows[6].text, "CC(=O)O");
  for (size_t i = 0; i < rows.size(); ++i) EXPECT_EQ(rows[i].row, static_cast<int64_t>(i + 1));
}

TEST(CsvReader, ExplicitColumnsAndUnknownColumn) {
  std::stringstream in("a,b\nCCO,x1\n");
  data::ReaderOptions opt;
  opt.smiles_column = "#0";
  opt.id_column = "b";
  data::CsvReader reader(in, opt, ',');
  auto rows = readAll(reader);
  ASSERT_EQ(rows.size(), 1u);
  EXPECT_EQ(rows[0].text, "CCO");
  EXPECT_EQ(rows[0].id, "x1");

  std::stringstream in2("a,b\nCCO,x1\n");
  opt.smiles_column = "smiles";
  data::CsvReader bad(in2, opt, ',');
  EXPECT_EQ(bad.setupStatus().code(), StatusCode::InvalidArgument);
  rows = readAll(bad);
  ASSERT_EQ(rows.size(), 1u);  // the row is still reported, with the reason
  EXPECT_EQ(rows[0].status.code(), StatusCode::InvalidArgument);
}

TEST(CsvReader, UnterminatedQuoteAtEnd) {
  std::stringstream in("smiles,id\nCCO,1\n\"CC,2\n");
  data::CsvReader reader(in, {}, ',');
  auto rows = readAll(reader);
  ASSERT_EQ(rows.size(), 2u);
  EXPECT_TRUE(rows[0].status.isOk());
  EXPECT_EQ(rows[1].status.code(), StatusCode::MalformedRecord);
}

TEST(CsvReader, NoHeaderWithCommentLine) {
  std::ifstream in("/usr/share/RDKit/Data/NCI/first_5k.tpsa.csv");
  ASSERT_TRUE(in) << "rdkit-data is not installed";
  data::ReaderOptions opt;
  opt.csv_header = false;
  data::CsvReader reader(in, opt, ',');
  auto rows = readAll(reader);
  ASSERT_GT(rows.size(), 4000u);
  EXPECT_EQ(rows[0].text, "CC1=CC(=O)C=CC1=O");
  EXPECT_EQ(rows[0].fields.at(1), "34.14");
}

const char* kGoodMolBlock =
    "ethanol\n  test\n\n  3  2  0  0  0  0  0  0  0  0999 V2000\n"
    "    0.0000    0.0000    0.0000 C   0  0  0  0  0  0  0  0  0  0  0  0\n"
    "    1.5000    0.0000    0.0000 C   0  0  0  0  0  0  0  0  0  0  0  0\n"
    "    2.0000    1.0000    0.0000 O   0  0  0  0  0  0  0  0  0  0  0  0\n"
    "  1  2  1  0\n  2  3  1  0\nM  END\n";

TEST(SdfReader, BrokenRecordInTheMiddle) {
  std::stringstream in;
  in << kGoodMolBlock << "> <CAS>\n64-17-5\n\n$$$$\n"
     << "broken\n  test\n\n  3  2  0  0  0  0  0  0  0  0999 V2000\n    0.0 garbage\nM  END\n$$$$\n"
     << "no end\n\n\n  1  0  0  0  0  0  0  0  0  0999 V2000\n$$$$\n"
     << kGoodMolBlock << "> <CAS>\nsecond\n\n$$$$\n\n";
  data::ReaderOptions opt;
  data::SdfReader reader(in, opt);
  auto recs = readAll(reader);
  ASSERT_EQ(recs.size(), 4u);
  std::vector<chem::MoleculeRow> rows;
  for (const auto& r : recs) rows.push_back(chem::featurizeRecord(r));
  EXPECT_TRUE(rows[0].status.isOk()) << rows[0].status.toString();
  EXPECT_EQ(rows[0].id, "ethanol");
  EXPECT_EQ(rows[0].input, "CCO");
  EXPECT_EQ(rows[1].status.code(), StatusCode::SyntaxError) << rows[1].status.toString();
  EXPECT_EQ(rows[2].status.code(), StatusCode::MalformedRecord);
  EXPECT_TRUE(rows[3].status.isOk());
  EXPECT_EQ(rows[3].row, 4);

  std::stringstream in2;
  in2 << kGoodMolBlock << "> <CAS>\n64-17-5\n\n$$$$\n";
  opt.sdf_id_property = "CAS";
  data::SdfReader by_prop(in2, opt);
  recs = readAll(by_prop);
  ASSERT_EQ(recs.size(), 1u);
  EXPECT_EQ(recs[0].id, "64-17-5");
}

TEST(CsvReader, DelimiterIsDetectedFromTheFirstLine) {
  EXPECT_EQ(data::detectDelimiter("smiles;name;pIC50", ','), ';');
  EXPECT_EQ(data::detectDelimiter("Name\tSMILES", ','), '\t');
  EXPECT_EQ(data::detectDelimiter("smiles", '\t'), '\t');          // one column: the fallback
  EXPECT_EQ(data::detectDelimiter("\"a;b;c\",smiles", ','), ',');  // quoted semicolons do not count
  EXPECT_EQ(data::detectDelimiter("smiles,pIC50;nM", ','), ',');   // a tie keeps the fallback
  // A spreadsheet's European CSV: semicolons, decimal commas inside quotes, a measured value kept.
  std::stringstream in("Name;SMILES;pIC50\naspirin;CC(=O)Oc1ccccc1C(=O)O;\"5,2\"\nethanol;CCO;4\n");
  data::ReaderOptions options;
  auto reader = data::makeReader(data::FileFormat::Csv, in, options);
  const auto rows = readAll(*reader);
  ASSERT_EQ(rows.size(), 2u);
  EXPECT_TRUE(rows[0].status.isOk()) << rows[0].status.toString();
  EXPECT_EQ(rows[0].id, "aspirin");
  EXPECT_EQ(rows[0].text, "CC(=O)Oc1ccccc1C(=O)O");
  EXPECT_EQ(rows[0].fields[2], "5,2");
  EXPECT_EQ(reader->otherColumns(), std::vector<int>{2});
  EXPECT_EQ(reader->columns()[2], "pIC50");
  // An explicit delimiter wins over detection.
  std::stringstream forced("a;b,smiles\nx;y,CCO\n");
  options.csv_delimiter = ',';
  auto comma = data::makeReader(data::FileFormat::Csv, forced, options);
  const auto forced_rows = readAll(*comma);
  ASSERT_EQ(forced_rows.size(), 1u);
  EXPECT_EQ(forced_rows[0].text, "CCO");
  EXPECT_EQ(comma->otherColumns(), std::vector<int>{0});
}

TEST(SdfReader, DataItemsAreColumnsFixedWhenListed) {
  std::stringstream in;
  in << kGoodMolBlock << "> <CAS>\n64-17-5\n\n$$$$\n" << kGoodMolBlock << "> <MP>\n-114\n\n> <CAS>\nx\n\n$$$$\n";
  const std::string text = in.str();
  std::stringstream first(text);
  data::SdfReader growing(first, {});
  auto recs = readAll(growing);
  ASSERT_EQ(recs.size(), 2u);
  EXPECT_EQ(growing.columns(), (std::vector<std::string>{"CAS", "MP"}));
  EXPECT_EQ(recs[1].fields, (std::vector<std::string>{"x", "-114"}));
  // Listed items: the columns are known before the first record and other items are left out.
  std::stringstream second(text);
  data::ReaderOptions options;
  options.sdf_items = {"MP", "CAS"};
  options.sdf_id_property = "CAS";
  data::SdfReader fixed(second, options);
  EXPECT_EQ(fixed.columns(), (std::vector<std::string>{"MP", "CAS"}));
  EXPECT_EQ(fixed.otherColumns(), std::vector<int>{0});
  recs = readAll(fixed);
  EXPECT_EQ(recs[0].fields, (std::vector<std::string>{"", "64-17-5"}));
  EXPECT_EQ(recs[1].fields, (std::vector<std::string>{"-114", "x"}));
  EXPECT_EQ(recs[1].id, "x");
}

TEST(SdfReader, RdkitShippedFileReadsCompletely) {
  std::ifstream in("/usr/share/RDKit/Data/NCI/first_200.props.sdf");
  ASSERT_TRUE(in);
  data::SdfReader reader(in, {});
  int ok = 0, total = 0;
  data::RawRecord rec;
  while (reader.next(rec)) {
    ++total;
    ok += chem::featurizeRecord(rec).status.isOk();
  }
  EXPECT_EQ(total, 200);
  EXPECT_GE(ok, 195);
}

// A vendor CXSMILES table as Enamine ships them: a header row, the CXSMILES extension after a space
// inside the SMILES field (enhanced stereo, coordinates, atom labels), tab separated, and the same
// rows space separated. Every row reads as its molecule with the extension applied.
const char* const kCxRows[][3] = {
    {"C[C@H](O)CC |&1:1|", "m1", "C[C@H](O)CC"},
    {"C[C@@H](N)C(=O)O |o1:1|", "m2", "C[C@@H](N)C(=O)O"},
    {"CCO |(0.0,0.0,0.0;1.5,0.0,0.0;2.0,1.2,0.0)|", "m3", "CCO"},
    {"Cc1ccccc1 |$Me;;;;;;$|", "m4", "Cc1ccccc1"},
    {"C[C@H](Cl)[C@@H](C)Br |&1:1,3|", "m5", "C[C@H](Cl)[C@@H](C)Br"},
    {"CCN", "m6", "CCN"},
};

void checkCxTable(const std::string& text, const std::string& what, bool trailing_row) {
  std::stringstream in(text);
  auto reader = data::makeReader(data::FileFormat::Cxsmiles, in);
  EXPECT_EQ(reader->columns(), (std::vector<std::string>{"smiles", "idnumber", "Type"})) << what;
  const auto records = readAll(*reader);
  ASSERT_EQ(records.size(), trailing_row ? 8u : 7u) << what;
  for (size_t i = 0; i < 6; ++i) {
    const auto& r = records[i];
    EXPECT_EQ(r.id, kCxRows[i][1]) << what;
    EXPECT_EQ(r.text, kCxRows[i][0]) << what;
    EXPECT_EQ(r.fields.back(), "REAL") << what;
    const auto parsed = chem::parseSmiles(r.text);
    ASSERT_TRUE(parsed.status.isOk()) << what << " " << r.id << ": " << parsed.status.toString();
    EXPECT_EQ(chem::canonicalSmiles(parsed.mol.get()),
              chem::canonicalSmiles(chem::parseSmiles(kCxRows[i][2]).mol.get()))
        << what << " " << r.id;
  }
  // The extension is applied, not just cut off: enhanced stereo groups and coordinates arrive.
  EXPECT_EQ(chem::parseSmiles(records[0].text).mol->getStereoGroups().size(), 1u) << what;
  EXPECT_EQ(chem::parseSmiles(records[4].text).mol->getStereoGroups().size(), 1u) << what;
  EXPECT_EQ(chem::parseSmiles(records[2].text).mol->getNumConformers(), 1u) << what;
  // A broken SMILES with an extension and text after the extension are errors of their own rows.
  EXPECT_EQ(chem::parseSmiles(records[6].text).status.code(), StatusCode::SyntaxError) << what;
  if (!trailing_row) return;
  const auto trailing = chem::parseSmiles(records[7].text);
  EXPECT_EQ(trailing.status.code(), StatusCode::SyntaxError) << what;
  EXPECT_NE(trailing.status.message().find("after the CXSMILES extension"), std::string::npos)
      << trailing.status.message();
}

TEST(CxsmilesReader, EnamineStyleTablesTabOrSpaceSeparated) {
  std::string tabs = "smiles\tidnumber\tType\n", spaces = "smiles idnumber Type\n";
  for (const auto& row : kCxRows) {
    tabs += std::string(row[0]) + "\t" + row[1] + "\tREAL\n";
    spaces += std::string(row[0]) + " " + row[1] + "  REAL\n";  // runs of spaces separate like one
  }
  tabs += "C1CC |&1:1|\tbad\tREAL\nCCO |&1:1| junk\tworse\tREAL\n";
  spaces += "C1CC |&1:1| bad REAL\n";
  checkCxTable(tabs, "tab separated", true);
  checkCxTable(spaces, "space separated", false);  // there, text after an extension is the next field
}

}  // namespace
}  // namespace gs
