#pragma once
// The example molecule sets offered in the input panel.
namespace gs::ui {

struct Example {
  const char* name;
  const char* text;
};

inline const Example kExamples[] = {
    {"Common drugs",
     "CC(=O)Oc1ccccc1C(=O)O aspirin\nCC(C)Cc1ccc(cc1)C(C)C(=O)O ibuprofen\nCC(=O)Nc1ccc(O)cc1 paracetamol\n"
     "CN1C=NC2=C1C(=O)N(C(=O)N2C)C caffeine\nCN1CCC[C@H]1c1cccnc1 nicotine\n"
     "O=C(O)c1ccccc1O salicylic_acid\nCOc1ccc2nc(S(=O)Cc3ncc(C)c(OC)c3C)[nH]c2c1 omeprazole\n"
     "CN(C)CCCN1c2ccccc2CCc2ccccc21 imipramine\n"},
    {"Dyes and conjugated systems",
     "c1ccc2cc3ccccc3cc2c1 anthracene\nO=C1C=CC(=O)C=C1 benzoquinone\nc1ccc(cc1)N=Nc1ccccc1 azobenzene\n"
     "C(=C/c1ccccc1)\\c1ccccc1 stilbene\nc1ccc2c(c1)ccc1ccccc12 phenanthrene\nO=C1c2ccccc2C(=O)c2ccccc12 anthraquinone\n"},
    {"Rows that fail (to see statuses)",
     "CCO ethanol\nC1CC invalid_unclosed_ring\nc1ccccc1 benzene\nC(C)(C)(C)(C)C pentavalent_carbon\n\n[Na+].[Cl-] salt\nXyz not_smiles\n"},
};

}  // namespace gs::ui
