// tensordiff — one typed table cell and msprobe's spelling of it.
#pragma once
#include <cmath>
#include <cstdint>
#include <string>

#include "../core/pyformat.hpp"

TD_NAMESPACE_BEGIN
namespace match {

/// A value of a result table: typed for JSON, with the CSV spelling msprobe uses.
struct Cell {
  /// Which field holds the value; null is Python's None ("None" in CSV, null in JSON).
  enum class Kind : std::uint8_t { text, real, integer, boolean, null };
  /// How a real is written to CSV: repr (raw), msprobe's 12 decimals, the
  /// cosine rule (12 decimals, 6 above 0.9999), or repr + '%'.
  enum class Style : std::uint8_t { repr, fixed12, cosine, percent };
  /// Which of the fields below holds the value.
  Kind kind = Kind::null;
  /// How `real` is written to CSV (JSON writes the number itself).
  Style style = Style::repr;
  /// The value of a text cell, written as is ("N/A", "Nan", a name, a message).
  std::string text;
  /// The value of a real cell.
  double real = 0;
  /// The value of an integer cell.
  std::int64_t integer = 0;
  /// The value of a boolean cell ("True" / "False" in CSV).
  bool boolean = false;

  /// A text cell.
  static Cell str(std::string s) {
    Cell c;
    c.kind = Kind::text;
    c.text = std::move(s);
    return c;
  }
  /// A real cell written in style `st`.
  static Cell number(double v, Style st = Style::repr) {
    Cell c;
    c.kind = Kind::real;
    c.real = v;
    c.style = st;
    return c;
  }
  /// An integer cell.
  static Cell integral(std::int64_t v) {
    Cell c;
    c.kind = Kind::integer;
    c.integer = v;
    return c;
  }
  /// A boolean cell.
  static Cell flag(bool v) {
    Cell c;
    c.kind = Kind::boolean;
    c.boolean = v;
    return c;
  }
  /// A null cell (Python's None).
  static Cell none() { return Cell{}; }
};

/// The value a real cell shows after msprobe's rounding.
inline double shown_value(const Cell& c) {
  switch (c.style) {
    case Cell::Style::fixed12: return pyformat::fixed12(c.real);
    case Cell::Style::cosine: return pyformat::cosine(c.real);
    default: return c.real;
  }
}

/// The cell as msprobe's CSV shows it: Python repr for floats, " inf" /
/// " -inf" (leading space, as msprobe writes np.inf), "Nan" for NaN, "None"
/// for None, "True"/"False".
inline std::string csv_text(const Cell& c) {
  switch (c.kind) {
    case Cell::Kind::text: return c.text;
    case Cell::Kind::integer: return std::to_string(c.integer);
    case Cell::Kind::boolean: return c.boolean ? "True" : "False";
    case Cell::Kind::null: return "None";
    case Cell::Kind::real: {
      const double v = shown_value(c);
      if (std::isnan(v)) return "Nan";
      if (std::isinf(v)) return v > 0 ? " inf" : " -inf";
      std::string s = pyformat::repr(v);
      if (c.style == Cell::Style::percent) s += '%';
      return s;
    }
  }
  return "";
}

}  // namespace match
TD_NAMESPACE_END
