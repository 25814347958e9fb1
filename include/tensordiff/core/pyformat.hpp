// tensordiff — Python's float formatting, as msprobe's tables show numbers.
//
// msprobe keeps metric values as Python floats and pandas writes them with
// repr(): the shortest string that round-trips, in fixed notation when the
// decimal exponent is in [-4, 16) and in scientific notation ("1e-05",
// "1.5e+16") otherwise. fixed12() is msprobe's float('{:.12f}'.format(x)).
#pragma once
#include <charconv>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <string>

#include "config.hpp"

TD_NAMESPACE_BEGIN
namespace pyformat {

/// repr(x) of a Python float: "0.1", "1e-05", "1.2345678901234568e+17",
/// "3.0", "-0.0", "inf", "nan".
inline std::string repr(double x) {
  if (std::isnan(x)) return "nan";
  if (std::isinf(x)) return x > 0 ? "inf" : "-inf";
  if (x == 0) return std::signbit(x) ? "-0.0" : "0.0";
  char buf[64];
  // Shortest round-trip digits, scientific: [-]d[.ddd]e[+-]XX
  const auto r = std::to_chars(buf, buf + sizeof buf, x, std::chars_format::scientific);
  std::string s(buf, r.ptr);
  std::string out;
  std::size_t i = 0;
  if (s[0] == '-') {
    out += '-';
    i = 1;
  }
  const std::size_t epos = s.find('e');
  std::string digits;
  for (std::size_t k = i; k < epos; ++k)
    if (s[k] != '.') digits += s[k];
  const int exp10 = std::atoi(s.c_str() + epos + 1);
  const int decpt = exp10 + 1;  // digits d1d2... represent 0.d1d2... * 10^decpt
  const int nd = static_cast<int>(digits.size());
  if (decpt > -4 && decpt <= 16) {
    if (decpt <= 0) {
      out += "0." + std::string(static_cast<std::size_t>(-decpt), '0') + digits;
    } else if (decpt >= nd) {
      out += digits + std::string(static_cast<std::size_t>(decpt - nd), '0') + ".0";
    } else {
      out += digits.substr(0, static_cast<std::size_t>(decpt)) + "." + digits.substr(static_cast<std::size_t>(decpt));
    }
  } else {
    out += digits.substr(0, 1);
    if (nd > 1) out += "." + digits.substr(1);
    out += 'e';
    out += exp10 < 0 ? '-' : '+';
    const int ae = exp10 < 0 ? -exp10 : exp10;
    if (ae < 10) out += '0';
    out += std::to_string(ae);
  }
  return out;
}

/// Python's round(x, ndigits) for a float: correctly rounded decimal, parsed back.
inline double round(double x, int ndigits) {
  if (!std::isfinite(x)) return x;
  char buf[512];
  std::snprintf(buf, sizeof buf, "%.*f", ndigits, x);
  return std::strtod(buf, nullptr);
}

/// msprobe's format_value: float('{:.12f}'.format(x)).
inline double fixed12(double x) { return round(x, 12); }

/// msprobe's Cosine cell value: 12 decimals, then round(x, 6) above 0.9999.
inline double cosine(double x) {
  const double v = fixed12(x);
  return v > 0.9999 ? round(v, 6) : v;
}

}  // namespace pyformat
TD_NAMESPACE_END
