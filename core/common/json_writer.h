#pragma once
// Minimal streaming JSON writer: objects, arrays, strings, numbers. Enough for JSON-lines output
// and run records without pulling a JSON library into core.
#include <cstdint>
#include <ostream>
#include <string>
#include <string_view>
#include <vector>

namespace gs {

class JsonWriter {
 public:
  explicit JsonWriter(std::ostream& out) : out_(out) {}
  JsonWriter& beginObject();
  JsonWriter& endObject();
  JsonWriter& beginArray();
  JsonWriter& endArray();
  JsonWriter& key(std::string_view k);
  JsonWriter& value(std::string_view s);
  JsonWriter& value(const char* s) { return value(std::string_view(s)); }
  JsonWriter& value(int64_t v);
  JsonWriter& value(int v) { return value(static_cast<int64_t>(v)); }
  JsonWriter& value(double v);
  JsonWriter& value(bool v);
  JsonWriter& null();
  // A value that is already JSON text (written as it is).
  JsonWriter& raw(std::string_view json);
  template <typename T>
  JsonWriter& field(std::string_view k, const T& v) {
    return key(k).value(v);
  }

  static std::string escape(std::string_view s);

 private:
  void separate();
  std::ostream& out_;
  std::vector<bool> first_;  // per open container: no element written yet
  bool after_key_ = false;
};

}  // namespace gs
