#include "common/json_value.h"

#include <cmath>
#include <cstdlib>
#include <limits>
#include <unordered_set>

namespace gs {

class JsonParser {
 public:
  explicit JsonParser(std::string_view text) : s_(text) {}

  Result<JsonValue> run() {
    JsonValue v;
    skipSpace();
    if (!value(v, 0)) return fail();
    skipSpace();
    if (pos_ != s_.size()) {
      error_ = "unexpected trailing characters";
      return fail();
    }
    return v;
  }

 private:
  static constexpr int kMaxDepth = 64;

  Status fail() const { return {StatusCode::MalformedRecord, "JSON: " + error_ + " at byte " + std::to_string(pos_)}; }
  bool err(const char* message) {
    if (error_.empty()) error_ = message;
    return false;
  }
  void skipSpace() {
    while (pos_ < s_.size() && (s_[pos_] == ' ' || s_[pos_] == '\t' || s_[pos_] == '\n' || s_[pos_] == '\r')) ++pos_;
  }
  bool literal(std::string_view word) {
    if (s_.substr(pos_, word.size()) != word) return err("invalid literal");
    pos_ += word.size();
    return true;
  }

  bool value(JsonValue& v, int depth) {
    if (depth > kMaxDepth) return err("nesting too deep");
    if (pos_ >= s_.size()) return err("unexpected end of input");
    switch (s_[pos_]) {
      case '{': return object(v, depth);
      case '[': return array(v, depth);
      case '"': v.type_ = JsonValue::Type::String; return string(v.string_);
      case 't':
        v.type_ = JsonValue::Type::Bool;
        v.bool_ = true;
        return literal("true");
      case 'f':
        v.type_ = JsonValue::Type::Bool;
        v.bool_ = false;
        return literal("false");
      case 'n': v.type_ = JsonValue::Type::Null; return literal("null");
      default: return number(v);
    }
  }

  bool object(JsonValue& v, int depth) {
    v.type_ = JsonValue::Type::Object;
    ++pos_;
    skipSpace();
    if (pos_ < s_.size() && s_[pos_] == '}') return ++pos_, true;
    std::unordered_set<std::string> seen;
    while (true) {
      skipSpace();
      std::string key;
      if (pos_ >= s_.size() || s_[pos_] != '"') return err("expected a string key");
      if (!string(key)) return false;
      if (!seen.insert(key).second) return err("duplicate key");
      skipSpace();
      if (pos_ >= s_.size() || s_[pos_] != ':') return err("expected ':'");
      ++pos_;
      skipSpace();
      JsonValue member;
      if (!value(member, depth + 1)) return false;
      v.object_.emplace_back(std::move(key), std::move(member));
      skipSpace();
      if (pos_ < s_.size() && s_[pos_] == ',') {
        ++pos_;
        continue;
      }
      if (pos_ < s_.size() && s_[pos_] == '}') return ++pos_, true;
      return err("expected ',' or '}'");
    }
  }

  bool array(JsonValue& v, int depth) {
    v.type_ = JsonValue::Type::Array;
    ++pos_;
    skipSpace();
    if (pos_ < s_.size() && s_[pos_] == ']') return ++pos_, true;
    while (true) {
      skipSpace();
      JsonValue item;
      if (!value(item, depth + 1)) return false;
      v.array_.push_back(std::move(item));
      skipSpace();
      if (pos_ < s_.size() && s_[pos_] == ',') {
        ++pos_;
        continue;
      }
      if (pos_ < s_.size() && s_[pos_] == ']') return ++pos_, true;
      return err("expected ',' or ']'");
    }
  }

  bool hex4(uint32_t& out) {
    if (pos_ + 4 > s_.size()) return err("truncated \\u escape");
    out = 0;
    for (int i = 0; i < 4; ++i) {
      const char c = s_[pos_++];
      out <<= 4;
      if (c >= '0' && c <= '9')
        out |= static_cast<uint32_t>(c - '0');
      else if (c >= 'a' && c <= 'f')
        out |= static_cast<uint32_t>(c - 'a' + 10);
      else if (c >= 'A' && c <= 'F')
        out |= static_cast<uint32_t>(c - 'A' + 10);
      else
        return err("invalid \\u escape");
    }
    return true;
  }

  static void appendUtf8(std::string& out, uint32_t cp) {
    if (cp < 0x80) {
      out += static_cast<char>(cp);
    } else if (cp < 0x800) {
      out += static_cast<char>(0xC0 | (cp >> 6));
      out += static_cast<char>(0x80 | (cp & 0x3F));
    } else if (cp < 0x10000) {
      out += static_cast<char>(0xE0 | (cp >> 12));
      out += static_cast<char>(0x80 | ((cp >> 6) & 0x3F));
      out += static_cast<char>(0x80 | (cp & 0x3F));
    } else {
      out += static_cast<char>(0xF0 | (cp >> 18));
      out += static_cast<char>(0x80 | ((cp >> 12) & 0x3F));
      out += static_cast<char>(0x80 | ((cp >> 6) & 0x3F));
      out += static_cast<char>(0x80 | (cp & 0x3F));
    }
  }

  bool escape(std::string& out) {
    if (pos_ >= s_.size()) return err("truncated escape");
    const char c = s_[pos_++];
    switch (c) {
      case '"':
      case '\\':
      case '/': out += c; return true;
      case 'b': out += '\b'; return true;
      case 'f': out += '\f'; return true;
      case 'n': out += '\n'; return true;
      case 'r': out += '\r'; return true;
      case 't': out += '\t'; return true;
      case 'u': break;
      default: return err("invalid escape");
    }
    uint32_t cp = 0;
    if (!hex4(cp)) return false;
    if (cp >= 0xD800 && cp < 0xDC00) {  // surrogate pair
      uint32_t low = 0;
      if (s_.substr(pos_, 2) != "\\u") return err("unpaired surrogate");
      pos_ += 2;
      if (!hex4(low) || low < 0xDC00 || low > 0xDFFF) return err("unpaired surrogate");
      cp = 0x10000 + ((cp - 0xD800) << 10) + (low - 0xDC00);
    } else if (cp >= 0xDC00 && cp <= 0xDFFF) {
      return err("unpaired surrogate");
    }
    appendUtf8(out, cp);
    return true;
  }

  bool string(std::string& out) {
    ++pos_;  // opening quote
    while (pos_ < s_.size()) {
      const char c = s_[pos_++];
      if (c == '"') return true;
      if (static_cast<unsigned char>(c) < 0x20) return err("control character in string");
      if (c != '\\') {
        out += c;
      } else if (!escape(out)) {
        return false;
      }
    }
    return err("unterminated string");
  }

  bool number(JsonValue& v) {
    const size_t start = pos_;
    if (pos_ < s_.size() && s_[pos_] == '-') ++pos_;
    auto digits = [&] {
      const size_t from = pos_;
      while (pos_ < s_.size() && s_[pos_] >= '0' && s_[pos_] <= '9') ++pos_;
      return pos_ - from;
    };
    if (pos_ < s_.size() && s_[pos_] == '0')
      ++pos_;
    else if (digits() == 0)
      return err("invalid value");
    if (pos_ < s_.size() && s_[pos_] == '.') {
      ++pos_;
      if (digits() == 0) return err("invalid number");
    }
    if (pos_ < s_.size() && (s_[pos_] == 'e' || s_[pos_] == 'E')) {
      ++pos_;
      if (pos_ < s_.size() && (s_[pos_] == '+' || s_[pos_] == '-')) ++pos_;
      if (digits() == 0) return err("invalid number");
    }
    const std::string text(s_.substr(start, pos_ - start));
    v.type_ = JsonValue::Type::Number;
    v.number_ = std::strtod(text.c_str(), nullptr);
    if (!std::isfinite(v.number_)) return err("number out of range");
    return true;
  }

  std::string_view s_;
  size_t pos_ = 0;
  std::string error_;
};

Result<JsonValue> JsonValue::parse(std::string_view text) { return JsonParser(text).run(); }

bool JsonValue::isInteger() const {
  return type_ == Type::Number && std::floor(number_) == number_ && std::fabs(number_) < 9.007199254740992e15;
}

const JsonValue* JsonValue::find(std::string_view key) const {
  if (type_ != Type::Object) return nullptr;
  for (const auto& [k, v] : object_)
    if (k == key) return &v;
  return nullptr;
}

}  // namespace gs
