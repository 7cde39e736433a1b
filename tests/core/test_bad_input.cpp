// Each kind of bad SMILES gets its own, specific status; nothing throws and RDKit's explanation is
// carried in the message.
#include <gtest/gtest.h>

#include <cmath>
#include <random>
#include <sstream>
#include <string>

#include "chem/depict.h"
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

TEST(BadSmiles, ChemistryErrorsNameTheirAtomsFromOne) {
  // Atom 2 (0-based index 1) is the five-bonded nitrogen; RDKit itself says "atom # 1".
  const auto valence = chem::parseSmiles("C[N](C)(C)(C)C");
  EXPECT_NE(valence.status.message().find("atom 2 (N) has 5 bonds"), std::string::npos) << valence.status.message();
  EXPECT_EQ(valence.problem_atoms, std::vector<int>{1});
  const auto ring = chem::parseSmiles("CCc1cccc1");
  EXPECT_NE(ring.status.message().find("atoms 3, 4, 5, 6, 7"), std::string::npos) << ring.status.message();
  EXPECT_EQ(ring.problem_atoms, (std::vector<int>{2, 3, 4, 5, 6}));
  const auto chain = chem::parseSmiles("CCc");
  EXPECT_EQ(chain.status.code(), StatusCode::ChemistryError);
  EXPECT_NE(chain.status.message().find("atom 3 "), std::string::npos) << chain.status.message();
  EXPECT_EQ(chain.problem_atoms, std::vector<int>{2});
  EXPECT_TRUE(chem::parseSmiles("C1CC").problem_atoms.empty());  // syntax, not chemistry
}

TEST(BadSmiles, ChemistryErrorsAreDrawnWithTheirAtomsMarked) {
  // Drawn as written, the offending atom in red (RDKit writes the highlight colour into the SVG).
  const std::string red = "#FF5959";
  const std::string bad = chem::depictSvg("C[N](C)(C)(C)C");
  ASSERT_FALSE(bad.empty());
  EXPECT_NE(bad.find(red), std::string::npos);
  EXPECT_FALSE(chem::depictSvg("c1cccc1").empty());
  EXPECT_EQ(chem::depictSvg("CCN").find(red), std::string::npos);
  EXPECT_TRUE(chem::depictSvg("C1CC").empty());  // nothing to draw from a syntax error
}

TEST(Depiction, FragmentsOfAMixtureDoNotRunTogether) {
  // Cisplatin as a mixture: RDKit alone packs the two NH3 next to each other so that their labels
  // touch ("NH3NH3"). Every pair of fragments stays more than a bond length and a half apart.
  const auto d = chem::depictHeatmapSvg("N.N.Cl[Pt]Cl", std::vector<double>(5, 0.0));
  ASSERT_EQ(d.atom_xy.size(), 5u);
  auto dist = [&](int a, int b) {
    return std::hypot(d.atom_xy[a].first - d.atom_xy[b].first, d.atom_xy[a].second - d.atom_xy[b].second);
  };
  const double bond = dist(2, 3);  // Cl-Pt
  ASSERT_GT(bond, 0);
  EXPECT_GT(dist(0, 1), 1.5 * bond);
  for (int frag_atom : {2, 3, 4}) {
    EXPECT_GT(dist(0, frag_atom), 1.2 * bond);
    EXPECT_GT(dist(1, frag_atom), 1.2 * bond);
  }
  // One fragment keeps RDKit's own layout.
  const auto one = chem::depictHeatmapSvg("N[Pt](N)(Cl)Cl", std::vector<double>(5, 0.0));
  EXPECT_EQ(one.atom_xy.size(), 5u);
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
  in << "CCO first\n\n   \nC1CC ring\nc1cccc1 kek\n[Xx] elem\nC(C)(C)(C)(C)C val\n"
     << huge << " big\n"
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
  const std::vector<StatusCode> want = {StatusCode::Ok,
                                        StatusCode::Empty,
                                        StatusCode::Empty,
                                        StatusCode::SyntaxError,
                                        StatusCode::ChemistryError,
                                        StatusCode::SyntaxError,
                                        StatusCode::ChemistryError,
                                        StatusCode::TooManyAtoms,
                                        StatusCode::SyntaxError,
                                        StatusCode::Ok};
  EXPECT_EQ(codes, want);
  ASSERT_EQ(ids.size(), want.size());
  EXPECT_EQ(ids.front(), "first");
  EXPECT_EQ(ids[1], "2");
  EXPECT_EQ(ids.back(), "last");
}

}  // namespace
}  // namespace gs
