// tensordiff — Verdict: what a named standard decided about two tensors.
#pragma once
#include <cmath>
#include <cstdint>
#include <limits>
#include <string>
#include <vector>

#include "../core/tensor_view.hpp"
#include "../kernels/partial.hpp"

TD_NAMESPACE_BEGIN

/// Outcome of a standard. msprobe's pre-check has three levels; the
/// tolerance standards use pass and error only. `not_judged` is msprobe's
/// "None": the standard could not decide (a 0-d tensor for the cosine rule,
/// float64 for the ULP standard); it counts as a failure in tests.
enum class VerdictLevel : std::uint8_t { pass, warning, error, not_judged };

/// "pass", "warning", "error" or "not judged" (as in messages and reports).
inline const char* to_string(VerdictLevel l) noexcept {
  switch (l) {
    case VerdictLevel::pass: return "pass";
    case VerdictLevel::warning: return "warning";
    case VerdictLevel::error: return "error";
    case VerdictLevel::not_judged: return "not judged";
  }
  return "?";
}

/// How a standard judges, which decides the shape of its message.
enum class VerdictKind : std::uint8_t {
  tolerance,  ///< per element, |a − e| against an allowed bound (torch, numpy, isclose, polygraphy)
  ulp,        ///< per element, distance in units in the last place
  aggregate,  ///< on whole-tensor metrics (msprobe compare, pre-check, polygraphy statistics)
};

/// One element pair as a standard saw it. `allowed` is in the standard's own
/// measure: an absolute bound for tolerance standards, ULPs for ulp.
struct ElementDiff {
  std::uint64_t index = no_index;  ///< C-order flat index
  ///@{
  /// The two values at `index`, as double (the actual side first, the expected one second).
  double actual = 0, expected = 0;
  ///@}
  double abs_diff = 0;  ///< |actual − expected| (exact for integers below 2^53)
  double rel_diff = 0;  ///< abs_diff / |expected| (the standard's own definition where it has one)
  /// The bound this element had to meet, in the standard's own measure: atol + rtol·|expected|
  /// for torch and numpy, a ULP count for ulp; the element mismatches when its difference exceeds it.
  double allowed = 0;
  double ulp_diff = std::numeric_limits<double>::quiet_NaN();  ///< ULP distance where computed

  /// False for the empty ElementDiff (no element was recorded, e.g. nothing mismatched).
  bool valid() const noexcept { return index != no_index; }
};

/// The result of a standard's check.
struct Verdict {
  /// The decision; see passed().
  VerdictLevel level = VerdictLevel::pass;
  /// How the standard judged: per element (tolerance, ulp) or on whole-tensor metrics.
  VerdictKind kind = VerdictKind::tolerance;
  std::string standard;     ///< preset name: "torch", "numpy", "ulp", "msprobe", ...
  std::string description;  ///< name with parameters: "torch (rtol=1.3e-06, atol=1e-05)"

  Shape shape;              ///< of `actual`
  /// Elements of `actual` (the product of `shape`).
  std::uint64_t numel = 0;
  std::uint64_t mismatched = 0;  ///< elements that fail the per-element rule
  bool integral = false;         ///< both sides integer/bool: differences print as integers
  bool equality = false;         ///< zero tolerances: torch's "are not equal!"

  double atol = std::numeric_limits<double>::quiet_NaN();  ///< for "(up to … allowed)"; NaN when not applicable
  /// The relative tolerance the check used; NaN when not applicable.
  double rtol = std::numeric_limits<double>::quiet_NaN();
  /// The ULP budget of a ULP rule (the ulp standard, msprobe pre-check's ULP method); NaN otherwise.
  double max_ulps = std::numeric_limits<double>::quiet_NaN();

  ///@{
  /// Greatest differences among the mismatching elements (torch's rule: a
  /// matching element never shows up here); invalid when nothing mismatches.
  /// greatest_abs: by abs_diff; greatest_rel: by rel_diff; greatest_ulp: by ulp_diff.
  ElementDiff greatest_abs, greatest_rel, greatest_ulp;
  ///@}
  /// Up to `CheckOptions::worst_count` mismatching elements, worst first.
  std::vector<ElementDiff> worst;

  /// Cosine similarity over the pairs where both sides are finite (1 when
  /// both are all zero, NaN when one side is); NaN when not computed.
  double cosine = std::numeric_limits<double>::quiet_NaN();
  std::vector<std::string> reasons;  ///< why the level was chosen, one line each

  /// True for pass and warning (msprobe's pre-check warning does not fail a test); false for
  /// error and not_judged.
  bool passed() const noexcept { return level == VerdictLevel::pass || level == VerdictLevel::warning; }
  /// passed(), so `if (verdict)` and `EXPECT_TRUE(verdict)` read naturally.
  explicit operator bool() const noexcept { return passed(); }
};

/// Options of every check().
struct CheckOptions {
  std::size_t worst_count = 5;  ///< how many worst elements a Verdict keeps
};

TD_NAMESPACE_END
