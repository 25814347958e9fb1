// tensordiff — plain-text verdict messages in torch.testing's shape.
//
//   Tensor-likes are not close!
//
//   Mismatched elements: 2 / 3 (66.7%)
//   Greatest absolute difference: 2.0 at index (1,) (up to 1e-05 allowed)
//   Greatest relative difference: 1.0 at index (1,) (up to 1.3e-06 allowed)
//   Cosine similarity: 0.9899494936611666
//   Standard: torch (rtol=1.3e-06, atol=1e-05)
//   Worst elements:
//     (1,): actual 4.0, expected 2.0, abs diff 2.0, rel diff 1.0, allowed 2.6e-05
//
// Numbers are Python's repr() of the double (core/pyformat.hpp) and indices
// Python tuples, so the first lines match torch.testing.assert_close byte for
// byte for the same inputs. Used by the GoogleTest matchers and the CLI.
#pragma once
#include <algorithm>
#include <cmath>
#include <cstdio>
#include <limits>
#include <string>

#include "../metrics/verdict.hpp"
#include "../core/pyformat.hpp"

TD_NAMESPACE_BEGIN
namespace report {

/// What the text (torch.testing-style) failure message shows.
struct TextOptions {
  std::size_t max_worst = 5;  ///< worst elements listed (the Verdict keeps at most its own count); 0 = none
  std::string label = "Tensor-likes";  ///< torch's identifier
};

/// A C-order flat index as a Python tuple: "()", "(3,)", "(0, 2)".
inline std::string index_tuple(const Shape& shape, std::uint64_t flat) {
  if (shape.empty()) return "()";
  Shape idx(shape.size());
  for (std::size_t i = shape.size(); i-- > 0;) {
    const auto d = static_cast<std::uint64_t>(shape[i] > 0 ? shape[i] : 1);
    idx[i] = static_cast<std::int64_t>(flat % d);
    flat /= d;
  }
  std::string s = "(";
  for (std::size_t i = 0; i < idx.size(); ++i) s += (i ? ", " : "") + std::to_string(idx[i]);
  return s + (idx.size() == 1 ? ",)" : ")");
}

/// Python's f"{x:.1%}".
inline std::string percent(double fraction) {
  char buf[64];
  std::snprintf(buf, sizeof buf, "%.1f%%", fraction * 100.0);
  return buf;
}

namespace detail {
/// A difference: an integer for integer tensors (torch prints int64 items), repr() otherwise.
inline std::string diff_text(double x, bool integral) {
  if (integral && std::isfinite(x)) {
    char buf[64];
    std::snprintf(buf, sizeof buf, "%.0f", x);
    return buf;
  }
  return pyformat::repr(x);
}

inline std::string header(const Verdict& v, const std::string& label) {
  switch (v.level) {
    case VerdictLevel::pass: return label + " are " + (v.equality ? "equal." : "close.");
    case VerdictLevel::warning: return label + " are close, with a warning!";
    case VerdictLevel::not_judged: return label + " could not be judged!";
    case VerdictLevel::error: break;
  }
  return label + " are not " + (v.equality ? "equal!" : "close!");
}
}  // namespace detail

/// The message for a verdict (failing or not).
inline std::string format_verdict(const Verdict& v, const TextOptions& o = {}) {
  constexpr double nan = std::numeric_limits<double>::quiet_NaN();
  // torch.testing calls a 0-d pair "Scalars" and gives no count or index
  const bool scalar = v.shape.empty();
  const std::string label = scalar && o.label == "Tensor-likes" ? std::string("Scalars") : o.label;
  std::string s = detail::header(v, label) + "\n\n";
  for (const auto& r : v.reasons) s += r + "\n";
  const bool elementwise = v.kind != VerdictKind::aggregate || v.standard == "polygraphy";
  const bool ran = v.cosine == v.cosine || v.mismatched || v.greatest_abs.valid();  // a pass over the data happened
  auto at = [&](const ElementDiff& d) { return scalar ? std::string() : " at index " + index_tuple(v.shape, d.index); };
  auto line = [&](const char* what, double diff, const ElementDiff& d, double tol, bool integral) {
    std::string w = what;
    if (scalar && w[0] >= 'a' && w[0] <= 'z') w[0] = static_cast<char>(w[0] - 'a' + 'A');
    std::string l = (scalar ? w : "Greatest " + w) + " difference: ";
    l += detail::diff_text(diff, integral) + at(d);
    if (!v.equality && tol == tol) l += " (up to " + detail::diff_text(tol, integral && v.kind == VerdictKind::ulp) + " allowed)";
    return l + "\n";
  };
  if (ran && elementwise && !scalar && v.numel > 0 && (v.mismatched || v.level != VerdictLevel::pass)) {
    s += "Mismatched elements: " + std::to_string(v.mismatched) + " / " + std::to_string(v.numel) + " (" +
         percent(static_cast<double>(v.mismatched) / static_cast<double>(v.numel)) + ")\n";
  }
  if (v.kind == VerdictKind::ulp && v.greatest_ulp.valid())
    s += line("ULP", v.greatest_ulp.ulp_diff, v.greatest_ulp, v.max_ulps, true);
  if (v.greatest_abs.valid())
    s += line("absolute", v.greatest_abs.abs_diff, v.greatest_abs, v.kind == VerdictKind::tolerance ? v.atol : nan,
              v.integral);
  if (v.greatest_rel.valid() && v.kind != VerdictKind::ulp && v.standard != "msprobe")
    s += line("relative", v.greatest_rel.rel_diff, v.greatest_rel, v.kind == VerdictKind::tolerance ? v.rtol : nan,
              false);
  if (v.cosine == v.cosine) s += "Cosine similarity: " + pyformat::repr(v.cosine) + "\n";
  if (!v.description.empty()) s += "Standard: " + v.description + "\n";
  const std::size_t listed = std::min(o.max_worst, v.worst.size());
  if (listed) {
    s += listed < v.mismatched ? "Worst elements (" + std::to_string(listed) + " of " + std::to_string(v.mismatched) + "):\n"
                               : std::string("Worst elements:\n");
    for (std::size_t i = 0; i < listed; ++i) {
      const ElementDiff& d = v.worst[i];
      s += "  " + index_tuple(v.shape, d.index) + ": actual " + pyformat::repr(d.actual) + ", expected " +
           pyformat::repr(d.expected) + ", abs diff " + detail::diff_text(d.abs_diff, v.integral) + ", rel diff " +
           pyformat::repr(d.rel_diff);
      if (d.ulp_diff == d.ulp_diff) s += ", ulp diff " + detail::diff_text(d.ulp_diff, true);
      if (v.kind != VerdictKind::aggregate || d.allowed != 0) s += ", allowed " + pyformat::repr(d.allowed);
      s += "\n";
    }
  }
  return s;
}

}  // namespace report
TD_NAMESPACE_END
