#pragma once
// A small, strict JSON reader (RFC 8259) for config.json, safetensors headers and run records.
// Bounded nesting depth, no exceptions across the API: parse errors come back as Status with the
// byte offset.
#include <cstdint>
#include <map>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "common/status.h"

namespace gs {

class JsonValue {
 public:
  enum class Type { Null, Bool, Number, String, Array, Object };

  JsonValue() = default;
  static Result<JsonValue> parse(std::string_view text);

  Type type() const { return type_; }
  bool isNull() const { return type_ == Type::Null; }
  bool isBool() const { return type_ == Type::Bool; }
  bool isNumber() const { return type_ == Type::Number; }
  bool isString() const { return type_ == Type::String; }
  bool isArray() const { return type_ == Type::Array; }
  bool isObject() const { return type_ == Type::Object; }

  bool asBool() const { return bool_; }
  double asNumber() const { return number_; }
  // True when the number is integral and fits in int64 (JSON has one number type).
  bool isInteger() const;
  int64_t asInteger() const { return static_cast<int64_t>(number_); }
  const std::string& asString() const { return string_; }
  const std::vector<JsonValue>& items() const { return array_; }
  // Members in file order (duplicates are rejected by the parser).
  const std::vector<std::pair<std::string, JsonValue>>& members() const { return object_; }
  // nullptr when absent or not an object.
  const JsonValue* find(std::string_view key) const;

 private:
  friend class JsonParser;
  Type type_ = Type::Null;
  bool bool_ = false;
  double number_ = 0.0;
  std::string string_;
  std::vector<JsonValue> array_;
  std::vector<std::pair<std::string, JsonValue>> object_;
};

}  // namespace gs
