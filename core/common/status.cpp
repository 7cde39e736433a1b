#include "common/status.h"

namespace gs {

const char* statusCodeName(StatusCode code) {
  switch (code) {
    case StatusCode::Ok: return "ok";
    case StatusCode::Empty: return "empty";
    case StatusCode::SyntaxError: return "syntax_error";
    case StatusCode::ChemistryError: return "chemistry_error";
    case StatusCode::TooManyAtoms: return "too_many_atoms";
    case StatusCode::NoAtoms: return "no_atoms";
    case StatusCode::MalformedRecord: return "malformed_record";
    case StatusCode::InvalidArgument: return "invalid_argument";
    case StatusCode::IoError: return "io_error";
    case StatusCode::Cancelled: return "cancelled";
    case StatusCode::OutOfMemory: return "out_of_memory";
    case StatusCode::Internal: return "internal_error";
    case StatusCode::Crashed: return "crashed";
  }
  return "unknown";
}

StatusCode statusCodeFromName(const std::string& name) {
  for (int c = 0; c <= static_cast<int>(StatusCode::Crashed); ++c)
    if (name == statusCodeName(static_cast<StatusCode>(c))) return static_cast<StatusCode>(c);
  return StatusCode::Internal;
}

std::string Status::toString() const {
  if (isOk()) return "ok";
  std::string s = statusCodeName(code_);
  if (!message_.empty()) s += ": " + message_;
  return s;
}

}  // namespace gs
