#pragma once
// Errors cross the core boundary as values: a code a program can branch on and a message a chemist
// can read. Nothing in core's public API throws.
#include <optional>
#include <string>
#include <utility>
#include <variant>

namespace gs {

enum class StatusCode {
  Ok = 0,
  Empty,            // blank input
  SyntaxError,      // SMILES/SDF could not be read
  ChemistryError,   // RDKit sanitization rejected the molecule
  TooManyAtoms,     // larger than the configured atom limit
  NoAtoms,          // parsed, but the molecule has zero atoms
  MalformedRecord,  // CSV/SDF record structure is broken
  InvalidArgument,
  IoError,
  Cancelled,
  OutOfMemory,  // a batch (or one molecule) did not fit in memory
  Internal,
  Crashed,  // the worker process died on this molecule (screening quarantine)
};

// Stable, lower-case names used in CSV/JSON output ("ok", "syntax_error", ...).
const char* statusCodeName(StatusCode code);
// The code a name stands for; Internal for a name no code has.
StatusCode statusCodeFromName(const std::string& name);

class Status {
 public:
  Status() = default;
  Status(StatusCode code, std::string message) : code_(code), message_(std::move(message)) {}
  static Status ok() { return {}; }

  bool isOk() const { return code_ == StatusCode::Ok; }
  StatusCode code() const { return code_; }
  const std::string& message() const { return message_; }
  // "syntax_error: <message>" or "ok".
  std::string toString() const;

 private:
  StatusCode code_ = StatusCode::Ok;
  std::string message_;
};

template <typename T>
class Result {
 public:
  Result(T value) : value_(std::move(value)) {}          // NOLINT: implicit by design
  Result(Status status) : status_(std::move(status)) {}  // NOLINT
  bool isOk() const { return value_.has_value(); }
  const Status& status() const { return status_; }
  T& value() { return *value_; }
  const T& value() const { return *value_; }
  T* operator->() { return &*value_; }
  const T* operator->() const { return &*value_; }

 private:
  std::optional<T> value_;
  Status status_;
};

}  // namespace gs
