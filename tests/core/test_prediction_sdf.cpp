// Predictions written as an SD file (predict/prediction_writer.h): one record per input row in
// input order, read back by RDKit itself and by our reader (compressed too), every CSV column an
// item with the same value.
#include <GraphMol/FileParsers/MolSupplier.h>
#include <gtest/gtest.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>

#include "data/csv_reader.h"
#include "data/record_reader.h"
#include "jobs/predict_job.h"

namespace gs {
namespace {
namespace fs = std::filesystem;

struct Table {
  std::vector<std::string> columns;
  std::vector<std::vector<std::string>> rows;
};

Table readCsv(const std::string& path) {
  std::ifstream in(path);
  auto reader = data::makeReader(data::FileFormat::Csv, in);
  Table t{reader->columns(), {}};
  data::RawRecord r;
  while (reader->next(r)) t.rows.push_back(r.fields);
  return t;
}

Status predictTo(const std::string& input, const std::string& output) {
  jobs::PredictJobOptions o;
  o.input = input;
  o.output = output;
  o.predictor.session.threads = 1;
  return jobs::runPredict(o).status();
}

TEST(PredictionSdf, OneRecordPerInputRowInOrderEveryColumnAnItem) {
  const auto dir = fs::temp_directory_path() / ("gs_sdf_" + std::to_string(::getpid()));
  fs::create_directories(dir);
  const auto input = (dir / "in.smi").string();
  std::ofstream(input) << "c1ccccc1O phenol\nC1CC broken ring\nC[C@H](N)C(=O)O L-alanine\n"
                          "CC(=O)[O-].[Na+] sodium acetate\nnot_smiles junk\nCCOC(=O)C ethyl acetate\n";
  ASSERT_TRUE(predictTo(input, (dir / "out.csv").string()).isOk());
  ASSERT_TRUE(predictTo(input, (dir / "out.sdf").string()).isOk());
  ASSERT_TRUE(predictTo(input, (dir / "out.sdf.gz").string()).isOk());
  const Table csv = readCsv((dir / "out.csv").string());
  ASSERT_EQ(csv.rows.size(), 6u);

  RDKit::SDMolSupplier rdkit((dir / "out.sdf").string(), /*sanitize=*/true, /*removeHs=*/false);
  size_t i = 0;
  for (; !rdkit.atEnd(); ++i) {
    std::unique_ptr<RDKit::ROMol> mol(rdkit.next());
    ASSERT_NE(mol, nullptr) << "record " << i;
    ASSERT_LT(i, csv.rows.size());
    const auto& row = csv.rows[i];
    for (size_t c = 0; c < csv.columns.size(); ++c) {
      if (row[c].empty()) {
        EXPECT_FALSE(mol->hasProp(csv.columns[c])) << csv.columns[c] << " of record " << i;
        continue;
      }
      ASSERT_TRUE(mol->hasProp(csv.columns[c])) << csv.columns[c] << " of record " << i;
      EXPECT_EQ(mol->getProp<std::string>(csv.columns[c]), row[c]) << csv.columns[c];
    }
    const bool read = row[4] == "ok";                                     // status
    EXPECT_EQ(mol->getNumAtoms() > 0, read) << "record " << i;  // an unreadable row: no structure
    EXPECT_EQ(mol->getProp<std::string>("_Name"), row[1]);
  }
  EXPECT_EQ(i, 6u);

  // Our own reader, through gzip: the same records in the same order.
  data::ReaderOptions options;
  options.sdf_items = {"row", "status", "gap_ev"};
  auto reader = data::openReader((dir / "out.sdf.gz").string(), options);
  ASSERT_TRUE(reader.isOk()) << reader.status().toString();
  data::RawRecord r;
  std::vector<std::string> ids;
  while (reader.value()->next(r)) {
    ASSERT_EQ(r.fields.size(), 3u);
    EXPECT_EQ(r.fields[0], std::to_string(ids.size() + 1));
    EXPECT_EQ(r.fields[1], csv.rows[ids.size()][4]);
    ids.push_back(r.id);
  }
  EXPECT_EQ(
      ids, (std::vector<std::string>{"phenol", "broken ring", "L-alanine", "sodium acetate", "junk", "ethyl acetate"}));
  fs::remove_all(dir);
}

}  // namespace
}  // namespace gs
