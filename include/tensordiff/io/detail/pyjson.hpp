// tensordiff — JSON text exactly as Python's json.dump(obj, f, indent=N) writes it.
//
// msprobe writes dump.json / stack.json / construct.json with json.dump(...,
// indent=1): keys in insertion order, ", " never used (indent puts one item per
// line, "," at line ends), ": " between key and value, "{}" / "[]" for empty
// containers, floats as repr() ("1e-05", "3.0"), non-finite floats as the bare
// tokens NaN / Infinity / -Infinity, and ensure_ascii escapes (\uXXXX, lower-case
// hex, surrogate pairs above U+FFFF). Matching it byte for byte keeps a written
// dump diffable against one made by msprobe.
#pragma once
#include <cmath>
#include <cstdint>
#include <string>

#include <nlohmann/json.hpp>

#include "../../core/pyformat.hpp"

TD_NAMESPACE_BEGIN
namespace io {
namespace detail {

/// Appends `s` as a Python json string literal (ensure_ascii=True).
inline void py_json_string(std::string& out, const std::string& s) {
  static const char* hex = "0123456789abcdef";
  auto u4 = [&](std::uint32_t c) {
    out += "\\u";
    for (int sh = 12; sh >= 0; sh -= 4) out += hex[(c >> sh) & 0xF];
  };
  out += '"';
  for (std::size_t i = 0; i < s.size();) {
    const auto b = static_cast<unsigned char>(s[i]);
    if (b == '"') out += "\\\"", ++i;
    else if (b == '\\') out += "\\\\", ++i;
    else if (b == '\n') out += "\\n", ++i;
    else if (b == '\r') out += "\\r", ++i;
    else if (b == '\t') out += "\\t", ++i;
    else if (b == '\b') out += "\\b", ++i;
    else if (b == '\f') out += "\\f", ++i;
    else if (b >= 0x20 && b < 0x7F) out += static_cast<char>(b), ++i;
    else if (b < 0x80) u4(b), ++i;
    else {
      // UTF-8 sequence; a malformed byte is taken as Latin-1 (never throws).
      int len = b >= 0xF0 && b < 0xF8 ? 4 : b >= 0xE0 ? 3 : b >= 0xC0 ? 2 : 0;
      std::uint32_t cp = len == 4 ? b & 0x07u : len == 3 ? b & 0x0Fu : b & 0x1Fu;
      bool ok = len > 0 && i + static_cast<std::size_t>(len) <= s.size();
      for (int k = 1; ok && k < len; ++k) {
        const auto c = static_cast<unsigned char>(s[i + static_cast<std::size_t>(k)]);
        ok = (c & 0xC0) == 0x80;
        cp = (cp << 6) | (c & 0x3Fu);
      }
      if (!ok) {
        u4(b);
        ++i;
        continue;
      }
      if (cp >= 0x10000) {
        cp -= 0x10000;
        u4(0xD800 | (cp >> 10));
        u4(0xDC00 | (cp & 0x3FF));
      } else {
        u4(cp);
      }
      i += static_cast<std::size_t>(len);
    }
  }
  out += '"';
}

/// Python's json float token: repr(), or NaN / Infinity / -Infinity.
inline std::string py_json_float(double x) {
  if (std::isnan(x)) return "NaN";
  if (std::isinf(x)) return x > 0 ? "Infinity" : "-Infinity";
  return pyformat::repr(x);
}

/// Appends `j` as json.dump(j, indent=indent) would, its first line already
/// placed at nesting `depth` (callers embed a value inside a larger document).
inline void py_json_dump(std::string& out, const nlohmann::ordered_json& j, int indent, int depth) {
  using J = nlohmann::ordered_json;
  auto newline = [&](int d) {
    out += '\n';
    out.append(static_cast<std::size_t>(indent * d), ' ');
  };
  switch (j.type()) {
    case J::value_t::null: out += "null"; return;
    case J::value_t::boolean: out += j.get<bool>() ? "true" : "false"; return;
    case J::value_t::number_integer: out += std::to_string(j.get<std::int64_t>()); return;
    case J::value_t::number_unsigned: out += std::to_string(j.get<std::uint64_t>()); return;
    case J::value_t::number_float: out += py_json_float(j.get<double>()); return;
    case J::value_t::string: py_json_string(out, j.get_ref<const std::string&>()); return;
    case J::value_t::array: {
      if (j.empty()) {
        out += "[]";
        return;
      }
      out += '[';
      bool first = true;
      for (const auto& e : j) {
        if (!first) out += ',';
        first = false;
        newline(depth + 1);
        py_json_dump(out, e, indent, depth + 1);
      }
      newline(depth);
      out += ']';
      return;
    }
    case J::value_t::object: {
      if (j.empty()) {
        out += "{}";
        return;
      }
      out += '{';
      bool first = true;
      for (auto it = j.begin(); it != j.end(); ++it) {
        if (!first) out += ',';
        first = false;
        newline(depth + 1);
        py_json_string(out, it.key());
        out += ": ";
        py_json_dump(out, it.value(), indent, depth + 1);
      }
      newline(depth);
      out += '}';
      return;
    }
    default: out += "null"; return;  // binary / discarded: never produced by the writer
  }
}

/// json.dumps(j, indent=indent).
inline std::string py_json_dumps(const nlohmann::ordered_json& j, int indent = 1) {
  std::string out;
  py_json_dump(out, j, indent, 0);
  return out;
}

}  // namespace detail
}  // namespace io
TD_NAMESPACE_END
