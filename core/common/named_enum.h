#pragma once
// Enums with user-facing names (CLI flags, CSV columns): one table gives both the name of a value
// and the parse of a name, with an error that lists the choices.
#include <cstddef>
#include <string>
#include <utility>

#include "common/status.h"

namespace gs {

template <typename E, size_t N>
using NameTable = std::pair<E, const char*>[N];

template <typename E, size_t N>
const char* nameIn(const NameTable<E, N>& table, E value) {
  for (const auto& [e, name] : table)
    if (e == value) return name;
  return table[0].second;
}

// `what` names the kind in the error: "unknown <what> 'x' (a, b or c)".
template <typename E, size_t N>
Result<E> parseIn(const NameTable<E, N>& table, const std::string& name, const std::string& what) {
  std::string choices;
  for (size_t i = 0; i < N; ++i) {
    if (i > 0) choices += i + 1 == N ? " or " : ", ";
    choices += table[i].second;
  }
  for (const auto& [e, n] : table)
    if (name == n) return e;
  return Status(StatusCode::InvalidArgument, "unknown " + what + " '" + name + "' (" + choices + ")");
}

}  // namespace gs
