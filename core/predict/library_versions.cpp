#include "predict/library_versions.h"

#include "chem/molecule.h"
#include "tensor/torch_compat.h"

namespace gs::predict {

LibraryVersions libraryVersions() {
  LibraryVersions v;
  v.libtorch = compat::torchVersion();
  v.rdkit = chem::rdkitVersion();
  return v;
}

}  // namespace gs::predict
