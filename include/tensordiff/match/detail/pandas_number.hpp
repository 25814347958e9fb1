// tensordiff — numbers parsed as pandas 1.5's pd.to_numeric parses strings (msprobe's
// statistics-mode diffs). Its tokenizer (precise_xstrtod) is not correctly rounded: it keeps the
// first 17 digits (leading zeros count), accumulating them as number * 10 + digit in double,
// drops the rest, then scales once by a correctly rounded power of ten. Spec
// msprobe-byte-parity.md §6; about 28 % of repr strings come out ≥ 1 ulp off.
#pragma once
#include <cmath>
#include <optional>
#include <string>

#include "../../core/config.hpp"

TD_NAMESPACE_BEGIN
namespace match {
namespace detail {

/// 10^k, k in [0, 308], correctly rounded (the compiler's decimal literal, as pandas' table).
inline double power_of_ten(int k) {
  static const double table[309] = {
#define TD_P10(a) 1e##a##0, 1e##a##1, 1e##a##2, 1e##a##3, 1e##a##4, 1e##a##5, 1e##a##6, 1e##a##7, 1e##a##8, 1e##a##9
      1e0, 1e1, 1e2, 1e3, 1e4, 1e5, 1e6, 1e7, 1e8, 1e9,
      TD_P10(1), TD_P10(2), TD_P10(3), TD_P10(4), TD_P10(5), TD_P10(6), TD_P10(7), TD_P10(8), TD_P10(9),
      TD_P10(10), TD_P10(11), TD_P10(12), TD_P10(13), TD_P10(14), TD_P10(15), TD_P10(16), TD_P10(17), TD_P10(18),
      TD_P10(19), TD_P10(20), TD_P10(21), TD_P10(22), TD_P10(23), TD_P10(24), TD_P10(25), TD_P10(26), TD_P10(27),
      TD_P10(28), TD_P10(29),
      1e300, 1e301, 1e302, 1e303, 1e304, 1e305, 1e306, 1e307, 1e308
#undef TD_P10
  };
  return table[k];
}

/// pd.to_numeric(s) for one string: nullopt when it is not a number (pandas' NaN under
/// errors='coerce'); an exponent above 308 or an infinite result is NaN as well.
inline std::optional<double> pandas_to_numeric(const std::string& s) {
  std::size_t p = 0;
  while (p < s.size() && std::isspace(static_cast<unsigned char>(s[p]))) ++p;
  bool negative = false;
  if (p < s.size() && (s[p] == '-' || s[p] == '+')) negative = s[p++] == '-';
  constexpr int max_digits = 17;
  // number·10 + digit with the product rounded on its own, as pandas' C code runs: a compiler
  // allowed to contract (GCC's default with FMA hardware) would fuse it into one FMA.
  auto append = [](double number, char c) {
    const volatile double tenfold = number * 10.0;
    return tenfold + (c - '0');
  };
  double number = 0;
  int exponent = 0, digits = 0, decimals = 0;
  auto digit = [&](std::size_t i) { return i < s.size() && s[i] >= '0' && s[i] <= '9'; };
  for (; digit(p); ++p) {
    if (digits < max_digits) {
      number = append(number, s[p]);
      ++digits;
    } else {
      ++exponent;
    }
  }
  if (p < s.size() && s[p] == '.') {
    ++p;
    for (; digits < max_digits && digit(p); ++p, ++digits, ++decimals) number = append(number, s[p]);
    while (digit(p)) ++p;
    exponent -= decimals;
  }
  if (digits == 0) return std::nullopt;
  if (negative) number = -number;
  if (p < s.size() && (s[p] == 'e' || s[p] == 'E')) {
    const std::size_t e = p++;
    bool eneg = false;
    if (p < s.size() && (s[p] == '-' || s[p] == '+')) eneg = s[p++] == '-';
    int n = 0, nd = 0;
    for (; nd < max_digits && digit(p); ++p, ++nd) n = n * 10 + (s[p] - '0');
    if (nd == 0) p = e;
    exponent += eneg ? -n : n;
  }
  while (p < s.size() && std::isspace(static_cast<unsigned char>(s[p]))) ++p;
  if (p != s.size()) return std::nullopt;
  if (exponent > 308) return std::nan("");
  if (exponent > 0) number *= power_of_ten(exponent);
  else if (exponent < -616) number = 0.0;
  else if (exponent < -308) number = number / power_of_ten(-308 - exponent) / power_of_ten(308);
  else number /= power_of_ten(-exponent);
  if (std::isinf(number)) return std::nan("");
  return number;
}

/// Whether pandas reads the string as an integer ("12", "-3"): a column of such strings stays int64.
inline bool pandas_integer_literal(const std::string& s) {
  std::size_t p = (!s.empty() && (s[0] == '-' || s[0] == '+')) ? 1 : 0;
  if (p == s.size() || s.size() - p > 18) return false;
  for (; p < s.size(); ++p)
    if (s[p] < '0' || s[p] > '9') return false;
  return true;
}

}  // namespace detail
}  // namespace match
TD_NAMESPACE_END
