#include "chem/molecule.h"

#include <RDGeneral/versions.h>

#include <GraphMol/FileParsers/FileParsers.h>
#include <GraphMol/GraphMol.h>
#include <GraphMol/SanitException.h>
#include <GraphMol/SmilesParse/SmilesParse.h>
#include <GraphMol/SmilesParse/SmilesWrite.h>
#include <RDGeneral/utils.h>

#include <algorithm>
#include <cctype>
#include <cstdio>
#include <regex>
#include <string>

#include "chem/rdkit_log.h"

namespace gs::chem {

void MolDeleter::operator()(RDKit::ROMol* mol) const { delete mol; }

namespace {

// Characters that can appear in a SMILES string. Anything else (control bytes, non-ASCII) is
// rejected before RDKit sees it, with its position.
bool isSmilesChar(unsigned char c) { return c > 32 && c < 127; }

// Lower bound on the number of atoms, counted from the text without parsing: bracket atoms and
// organic-subset atoms outside brackets. Lets a 1 MB string be refused in microseconds.
int atomLowerBound(std::string_view s) {
  int atoms = 0;
  bool in_bracket = false;
  for (size_t i = 0; i < s.size(); ++i) {
    const char c = s[i];
    if (in_bracket) {
      if (c == ']') in_bracket = false;
      continue;
    }
    if (c == '[') {
      in_bracket = true;
      ++atoms;
    } else if (std::isupper(static_cast<unsigned char>(c)) || c == '*') {
      ++atoms;
      if ((c == 'C' || c == 'B') && i + 1 < s.size() && (s[i + 1] == 'l' || s[i + 1] == 'r')) ++i;
    } else if (c == 'b' || c == 'c' || c == 'n' || c == 'o' || c == 'p' || c == 's') {
      ++atoms;
    }
  }
  return atoms;
}

// RDKit's SmilesToMol(text) with default parameters, minus work that cannot change the result:
// removeHs (which re-sanitizes) only when the molecule has hydrogen atoms, and legacy stereo
// perception only when the SMILES has stereo marks ('@', '/', '\\'). Without marks there are no
// chiral tags or bond directions for it to keep, clean or turn into bond stereo. A test checks
// that features are identical to the default path on RDKit's NCI set.
RDKit::ROMol* smilesToMolFast(const std::string& text, bool cx) {
  RDKit::SmilesParserParams params;
  params.sanitize = false;
  params.removeHs = false;
  params.allowCXSMILES = cx;
  params.strictCXSMILES = false;  // a part RDKit does not know is skipped, not the molecule
  params.parseName = false;
  std::unique_ptr<RDKit::RWMol> mol(RDKit::SmilesToMol(text, params));
  if (!mol) return nullptr;
  bool has_h = false;
  for (const RDKit::Atom* a : mol->atoms()) has_h = has_h || a->getAtomicNum() == 1;
  if (has_h) {
    RDKit::MolOps::removeHs(*mol, /*implicitOnly=*/false, /*updateExplicitCount=*/true, /*sanitize=*/true);
  } else {
    RDKit::MolOps::sanitizeMol(*mol);
  }
  if (text.find_first_of("@/\\&") != std::string::npos)
    RDKit::MolOps::assignStereochemistry(*mol, /*cleanIt=*/true, /*force=*/true, /*flagPossibleStereoCenters=*/true);
  return mol.release();
}

Status preCheck(std::string_view smiles, const ParseOptions& options) {
  for (size_t i = 0; i < smiles.size(); ++i) {
    const auto c = static_cast<unsigned char>(smiles[i]);
    if (!isSmilesChar(c)) {
      char buf[96];
      std::snprintf(buf, sizeof buf, "byte 0x%02X at position %zu is not a SMILES character", c, i);
      return {StatusCode::SyntaxError, buf};
    }
  }
  const int lower = atomLowerBound(smiles);
  if (lower > options.max_atoms)
    return {StatusCode::TooManyAtoms,
            "at least " + std::to_string(lower) + " atoms (limit " + std::to_string(options.max_atoms) + ")"};
  return Status::ok();
}

std::string_view trim(std::string_view s) {
  const auto ws = [](char c) { return c == ' ' || c == '\t' || c == '\r' || c == '\n'; };
  while (!s.empty() && ws(s.front())) s.remove_prefix(1);
  while (!s.empty() && ws(s.back())) s.remove_suffix(1);
  return s;
}

ParsedMolecule finish(RDKit::ROMol* raw, const ParseOptions& options, const char* what) {
  ParsedMolecule out;
  out.mol.reset(raw);
  if (!out.mol) {
    std::string msg = detail::takeCapturedLog();
    out.status = {StatusCode::SyntaxError, msg.empty() ? std::string(what) + " could not be parsed" : msg};
    return out;
  }
  detail::clearCapturedLog();
  out.num_atoms = static_cast<int>(out.mol->getNumAtoms());
  if (out.num_atoms == 0) {
    out.status = {StatusCode::NoAtoms, "the molecule has no atoms"};
    out.mol.reset();
  } else if (out.num_atoms > options.max_atoms) {
    out.status = {StatusCode::TooManyAtoms,
                  std::to_string(out.num_atoms) + " atoms (limit " + std::to_string(options.max_atoms) + ")"};
    out.mol.reset();
  }
  return out;
}

ParsedMolecule failed(Status status) {
  ParsedMolecule out;
  out.status = std::move(status);
  return out;
}

// RDKit's sanitization message in words, with atoms numbered from 1 and the atoms it names.
ParsedMolecule sanitizeFailure(const RDKit::MolSanitizeException& e) {
  ParsedMolecule out;
  std::string message = e.what();
  if (const auto* k = dynamic_cast<const RDKit::KekulizeException*>(&e)) {
    std::string atoms;
    for (unsigned a : k->getAtomIndices()) {
      out.problem_atoms.push_back(static_cast<int>(a));
      atoms += (atoms.empty() ? "" : ", ") + std::to_string(a + 1);
    }
    message = "aromatic ring cannot be drawn with alternating single and double bonds (kekulized) at atoms " + atoms +
              " (numbered from 1); an aromatic nitrogen may need its hydrogen written as [nH]";
  } else if (const auto* a = dynamic_cast<const RDKit::AtomSanitizeException*>(&e)) {
    const unsigned idx = a->getAtomIdx();
    out.problem_atoms.push_back(static_cast<int>(idx));
    static const std::regex valence(R"(Explicit valence for atom # \d+ (\w+), (\d+), is greater than permitted)");
    static const std::regex atom_number(R"(atom #? ?\d+)");
    std::smatch m;
    if (std::regex_search(message, m, valence)) {
      message = "atom " + std::to_string(idx + 1) + " (" + m[1].str() + ") has " + m[2].str() +
                " bonds (explicit valence), more than " + m[1].str() + " allows; a charge may be missing";
    } else if (message.find("non-ring atom") != std::string::npos && message.find("aromatic") != std::string::npos) {
      message = "atom " + std::to_string(idx + 1) + " is written aromatic (lowercase) but is not in a ring";
    } else {
      message = std::regex_replace(message, atom_number, "atom " + std::to_string(idx + 1));
    }
  }
  out.status = {StatusCode::ChemistryError, message};
  return out;
}

template <typename Fn>
ParsedMolecule guarded(Fn&& parse, const ParseOptions& options, const char* what) {
  detail::installLogCapture();
  detail::clearCapturedLog();
  try {
    return finish(parse(), options, what);
  } catch (const RDKit::MolSanitizeException& e) {
    detail::clearCapturedLog();
    return sanitizeFailure(e);
  } catch (const std::exception& e) {
    detail::clearCapturedLog();
    return failed({StatusCode::SyntaxError, e.what()});
  } catch (...) {
    detail::clearCapturedLog();
    return failed({StatusCode::Internal, "unknown error while reading the molecule"});
  }
}

}  // namespace

CxSmiles splitCxSmiles(std::string_view text) {
  CxSmiles out;
  text = trim(text);
  const size_t space = text.find_first_of(" \t");
  out.smiles = text.substr(0, space);
  if (space == std::string_view::npos) return out;
  std::string_view rest = trim(text.substr(space));
  if (rest.empty() || rest.front() != '|') {
    out.status = {StatusCode::SyntaxError, "text after the SMILES ('" + std::string(rest.substr(0, 40)) +
                                               "'): a SMILES field holds one molecule, optionally with a "
                                               "CXSMILES extension |...|"};
    return out;
  }
  const size_t close = rest.find('|', 1);
  if (close == std::string_view::npos) {
    out.status = {StatusCode::SyntaxError, "the CXSMILES extension has no closing '|'"};
    return out;
  }
  out.extension = rest.substr(0, close + 1);
  if (!trim(rest.substr(close + 1)).empty())
    out.status = {StatusCode::SyntaxError, "text after the CXSMILES extension ('" +
                                               std::string(trim(rest.substr(close + 1)).substr(0, 40)) + "')"};
  return out;
}

ParsedMolecule parseSmiles(std::string_view smiles, const ParseOptions& options) {
  smiles = trim(smiles);
  if (smiles.empty()) return failed({StatusCode::Empty, "empty SMILES"});
  const CxSmiles cx = splitCxSmiles(smiles);
  if (!cx.status.isOk()) return failed(cx.status);
  if (Status pre = preCheck(cx.smiles, options); !pre.isOk()) return failed(pre);
  const std::string text = std::string(cx.smiles) + (cx.extension.empty() ? "" : " " + std::string(cx.extension));
  return guarded([&] { return smilesToMolFast(text, !cx.extension.empty()); }, options, "SMILES");
}

ParsedMolecule parseMolBlock(std::string_view molblock, const ParseOptions& options) {
  if (trim(molblock).empty()) return failed({StatusCode::Empty, "empty record"});
  const std::string text(molblock);
  return guarded([&] { return RDKit::MolBlockToMol(text, true, true); }, options, "molblock");
}

MolPtr parseSmilesUnsanitized(std::string_view text) {
  const CxSmiles cx = splitCxSmiles(text);  // the drawing needs the graph only: the extension is dropped
  const std::string_view smiles = cx.smiles;
  if (smiles.empty() || !cx.status.isOk() || !preCheck(smiles, {}).isOk()) return nullptr;
  detail::installLogCapture();
  try {
    RDKit::SmilesParserParams params;
    params.sanitize = false;
    params.removeHs = false;
    std::unique_ptr<RDKit::RWMol> mol(RDKit::SmilesToMol(std::string(smiles), params));
    detail::clearCapturedLog();
    if (!mol || mol->getNumAtoms() == 0) return nullptr;
    mol->updatePropertyCache(false);
    RDKit::MolOps::fastFindRings(*mol);
    return MolPtr(mol.release());
  } catch (...) {
    detail::clearCapturedLog();
    return nullptr;
  }
}

std::string canonicalSmiles(const RDKit::ROMol* mol) {
  if (!mol) return {};
  try {
    return RDKit::MolToSmiles(*mol);
  } catch (...) {
    return {};
  }
}

std::string randomSmiles(const RDKit::ROMol& mol, unsigned seed) {
  RDKit::SmilesWriteParams params;
  params.doRandom = true;
  params.canonical = false;
  RDKit::getRandomGenerator(static_cast<int>(seed));  // reseeds RDKit's shared generator
  return RDKit::MolToSmiles(mol, params);
}

void setRdkitLogEcho(bool echo) { detail::setLogEcho(echo); }

std::string rdkitVersion() { return RDKit::rdkitVersion; }

}  // namespace gs::chem
