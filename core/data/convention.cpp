#include "data/convention.h"

namespace gs::data {

const char* conventionName(Convention c) { return c == Convention::Official ? "official" : "hf"; }

bool parseConvention(const std::string& name, Convention* out) {
  if (name == "official") *out = Convention::Official;
  else if (name == "hf" || name == "huggingface") *out = Convention::HuggingFace;
  else return false;
  return true;
}

}  // namespace gs::data
