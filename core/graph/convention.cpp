#include "graph/convention.h"

#include "common/named_enum.h"

namespace gs::graph {
namespace {
constexpr NameTable<Convention, 2> kConventions{{Convention::Official, "official"}, {Convention::HuggingFace, "hf"}};
}  // namespace

const char* conventionName(Convention c) { return nameIn(kConventions, c); }

Result<Convention> parseConvention(const std::string& name) {
  if (name == "huggingface") return Convention::HuggingFace;
  return parseIn(kConventions, name, "index convention");
}

}  // namespace gs::graph
