// Each kind of bad SMILES gets its own, specific status; nothing throws and RDKit's explanation is
// carried in the message.
#include <gtest/gtest.h>

#include <random>
#include <sstream>
#include <string>

#include "chem/featurize.h"
#include "data/smi_reader.h"

namespace gs {
namespace {

StatusCode codeOf(const std::string& smiles) { return chem::parseSmiles(smiles).status.code(); }

TEST(BadSmiles, EachFailureHasItsOwnStatus) {
  EXPECT_EQ(codeOf(""), StatusCode::Empty);
  EXPECT_EQ(codeOf("   \t "), StatusCode::Empty);
  EXPECT_EQ(codeOf("C1CC"), StatusCode::SyntaxError);
  EXPECT_EQ(codeOf("[Xx]"), StatusCode::SyntaxError);
  EXPECT_EQ(codeOf("c1cccc1"), StatusCode::ChemistryError);
  EXPECT_EQ(codeOf("C(C)(C)(C)(C)C"), StatusCode::ChemistryError);
  EXPECT_EQ(codeOf("CCO"), StatusCode::Ok);
}

TEST(BadSmiles, MessagesCarryRdkitsExplanation) {
  EXPECT_NE(chem::parseSmiles("c1cccc1").status.message().find("kekulize"), std::string::npos);
  EXPECT_NE(chem::parseSmiles("C(C)(C)(C)(C)C").status.message().find("valence"), std::string::npos);
  const std::string ring = chem::parseSmiles("C1CC").status.message();
  EXPECT_NE(ring.find("ring"), std::string::npos) << ring;
}

TEST(BadSmiles, MegabyteStringIsRefusedWithoutParsing) {
  const std::string huge(1 << 20, 'C');
  const chem::ParsedMolecule p = chem::parseSmiles(huge);
  EXPECT_EQ(p.status.code(), StatusCode::TooManyAtoms);
  EXPECT_NE(p.status.message().find("limit 512"), std::string::npos);
}

TEST(BadSmiles, AtomLimitIsConfigurable) {
  chem::ParseOptions small;
  small.max_atoms = 5;
  EXPECT_EQ(chem::parseSmiles("CCCCCC", small).status.code(), StatusCode::TooManyAtoms);
  EXPECT_EQ(chem::parseSmiles("CCCCC", small).status.code(), StatusCode::Ok);
  // Hydrogens in brackets do not count; the post-parse count is exact.
  EXPECT_EQ(chem::parseSmiles("[CH3][CH2][CH2][CH2][CH3]", small).status.code(), StatusCode::Ok);
}

TEST(BadSmiles, RandomBytesNeverCrash) {
  std::mt19937 rng(7);
  for (int trial = 0; trial < 200; ++trial) {
    std::string s(1 + rng() % 64, '\0');
    for (char& c : s) c = static_cast<char>(rng() % 256);
    const chem::ParsedMolecule p = chem::parseSmiles(s);
    if (!p.status.isOk()) {
      EXPECT_FALSE(p.status.message().empty());
    }
  }
  std::string binary = "CC\x01\xff";
  const chem::ParsedMolecule p = chem::parseSmiles(binary);
  EXPECT_EQ(p.status.code(), StatusCode::SyntaxError);
  EXPECT_NE(p.status.message().find("0x01"), std::string::npos);
}

TEST(BadSmiles, LaterRowsStillComeThroughInOrder) {
  std::string huge(1 << 20, 'C');
  std::stringstream in;
  in << "CCO first\n\n   \nC1CC ring\nc1cccc1 kek\n[Xx] elem\nC(C)(C)(C)(C)C val\n" << huge << " big\n"
     << "CC\x01\xfe\x80 bytes\nc1ccccc1 last\n";
  data::SmiReader reader(in);
  data::RawRecord rec;
  std::vector<StatusCode> codes;
  std::vector<std::string> ids;
  while (reader.next(rec)) {
    chem::MoleculeRow row = chem::featurizeRecord(rec);
    codes.push_back(row.status.code());
    ids.push_back(row.id);
    EXPECT_EQ(row.features.has_value(), row.status.isOk());
  }
  const std::vector<StatusCode> want = {StatusCode::Ok, StatusCode::Empty, StatusCode::Empty,
                                        StatusCode::SyntaxError, StatusCode::ChemistryError,
                                        StatusCode::SyntaxError, StatusCode::ChemistryError,
                                        StatusCode::TooManyAtoms, StatusCode::SyntaxError, StatusCode::Ok};
  EXPECT_EQ(codes, want);
  ASSERT_EQ(ids.size(), want.size());
  EXPECT_EQ(ids.front(), "first");
  EXPECT_EQ(ids[1], "2");
  EXPECT_EQ(ids.back(), "last");
}

}  // namespace
}  // namespace gs
