#pragma once
// What `--version` prints for each program: the version, the git revision the binary was built
// from, and the versions of the libraries it runs on.
#include <string>

namespace gs::app {

const char* buildRevision();  // generated at build time (cmake/BuildRevision.cmake)

// "<program> 0.1.0 (git 1a2b3c4d5e)\nLibTorch 1.13.1, RDKit 2022.09.5" followed by `extra`
// (e.g. the Qt version) when given, each on its own line.
std::string versionText(const std::string& program, const std::string& extra = "");

}  // namespace gs::app
