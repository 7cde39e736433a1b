#include "version.h"

#include "predict/library_versions.h"

#ifndef GS_VERSION
#define GS_VERSION "unknown"
#endif

namespace gs::app {

std::string versionText(const std::string& program, const std::string& extra) {
  const auto libs = predict::libraryVersions();
  std::string text = program + " " + GS_VERSION + " (git " + buildRevision() + ")\n";
  text += "LibTorch " + libs.libtorch + ", RDKit " + libs.rdkit + "\n";
  if (!extra.empty()) text += extra + "\n";
  return text;
}

}  // namespace gs::app
