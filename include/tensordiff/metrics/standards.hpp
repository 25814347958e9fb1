// tensordiff — named closeness standards, and the registry that picks one by
// name at run time (the CLI's --standard).
//
//   auto v = standards::Torch{}.check(actual, expected);   // torch.testing's rule and defaults
//   if (!v) std::cerr << report::format_verdict(v);
//   Standard s = standard_from_name("ulp:4");              // any preset, by name
//
// The presets, one header per family:
//   standards_tolerance.hpp   Torch, Numpy (and Numpy::isclose()), Ulp, Bitwise
//   standards_polygraphy.hpp  Polygraphy
//   standards_msprobe.hpp     MsprobeCompare, MsprobePrecheck
// Each is a value type with describe() and
//   Verdict check(const TensorView& actual, const TensorView& expected, const CheckOptions& = {}) const;
// where `expected` is the reference (bench / golden).
#pragma once
#include <optional>
#include <string>
#include <string_view>
#include <type_traits>
#include <utility>
#include <variant>

#include "standards_msprobe.hpp"
#include "standards_polygraphy.hpp"
#include "standards_tolerance.hpp"

TD_NAMESPACE_BEGIN

/// Any preset, chosen at run time (the CLI's --standard).
class Standard {
 public:
  /// The preset held: one of the standards:: types.
  using Variant = std::variant<standards::Torch, standards::Numpy, standards::Ulp, standards::Polygraphy,
                               standards::MsprobeCompare, standards::MsprobePrecheck, standards::Bitwise>;

  Standard() = default;  ///< torch with its per-dtype defaults
  /// Holds the preset `s` (implicit, so `Standard s = standards::Ulp{2};` works).
  template <class S, class = std::enable_if_t<std::is_constructible_v<Variant, S>>>
  Standard(S s) : v_(std::move(s)) {}  // NOLINT: a preset is usable wherever a Standard is

  /// The held preset's check(): `actual` against the reference `expected`.
  Verdict check(const TensorView& actual, const TensorView& expected, const CheckOptions& o = {}) const {
    return std::visit([&](const auto& s) { return s.check(actual, expected, o); }, v_);
  }

  /// Name and parameters, independent of the dtypes compared.
  std::string describe() const {
    return std::visit([](const auto& s) { return s.describe(); }, v_);
  }

  /// The held preset, for std::visit or std::get_if (e.g. to read its tolerances).
  const Variant& variant() const noexcept { return v_; }

 private:
  Variant v_;
};

/// A preset by name: "torch", "numpy", "isclose" (numpy with isclose's
/// defaults), "ulp" / "ulp:N", "polygraphy" / "polygraphy:max|mean|median|quantile[=Q]",
/// "msprobe", "precheck" / "precheck:ladder|thousandth|ulp", "bitwise". rtol/atol
/// override the preset's (torch needs both, as torch.testing does); presets
/// without tolerances reject them. Throws Error{invalid_argument} for anything
/// else, including a ':' or '=' with nothing after it.
inline Standard standard_from_name(std::string_view spec, std::optional<double> rtol = std::nullopt,
                                   std::optional<double> atol = std::nullopt) {
  const std::size_t colon = spec.find(':');
  const std::string name(spec.substr(0, colon));
  const std::string arg = colon == std::string_view::npos ? std::string() : std::string(spec.substr(colon + 1));
  auto bad = [&](const std::string& why) -> Error {
    return Error(ErrorCategory::invalid_argument, "standard '" + std::string(spec) + "': " + why);
  };
  auto no_arg = [&] {
    if (colon != std::string_view::npos) throw bad("takes no ':' argument");
  };
  auto no_tol = [&] {
    if (rtol || atol) throw bad("has no rtol/atol to set");
  };
  auto check_tol = [&](std::optional<double> t, const char* what) {
    if (t && !(*t >= 0)) throw bad(std::string(what) + " must be a non-negative number");
  };
  check_tol(rtol, "rtol");
  check_tol(atol, "atol");
  if (colon != std::string_view::npos && arg.empty()) throw bad("nothing after ':'");
  if (name == "torch") {
    no_arg();
    if (rtol.has_value() != atol.has_value()) throw bad("give both rtol and atol, or neither (as torch.testing)");
    return standards::Torch{rtol, atol, false};
  }
  if (name == "numpy" || name == "isclose") {
    no_arg();
    standards::Numpy s = name == "numpy" ? standards::Numpy{} : standards::Numpy::isclose();
    if (rtol) s.rtol = *rtol;
    if (atol) s.atol = *atol;
    return s;
  }
  if (name == "ulp") {
    no_tol();
    standards::Ulp s;
    if (colon != std::string_view::npos) {
      if (arg.find_first_not_of("0123456789") != std::string::npos || arg.size() > 18)
        throw bad("ULP count must be a non-negative integer");
      s.max_ulps = std::stoull(arg);
    }
    return s;
  }
  if (name == "polygraphy") {
    standards::Polygraphy s;
    if (rtol) s.rtol = *rtol;
    if (atol) s.atol = *atol;
    const std::size_t eq = arg.find('=');
    const std::string stat = arg.substr(0, eq);
    if (stat.empty() || stat == "elemwise") s.stat = standards::ErrorStat::elemwise;
    else if (stat == "max") s.stat = standards::ErrorStat::max;
    else if (stat == "mean") s.stat = standards::ErrorStat::mean;
    else if (stat == "median") s.stat = standards::ErrorStat::median;
    else if (stat == "quantile") s.stat = standards::ErrorStat::quantile;
    else throw bad("unknown check_error_stat '" + stat + "' (elemwise, max, mean, median, quantile)");
    if (eq != std::string::npos) {
      if (s.stat != standards::ErrorStat::quantile) throw bad("only quantile takes '=Q'");
      const std::string q = arg.substr(eq + 1);
      char* end = nullptr;
      s.quantile = std::strtod(q.c_str(), &end);
      if (q.empty() || end != q.c_str() + q.size()) throw bad("quantile must be a number in [0, 1]");
    }
    s.validate();
    return s;
  }
  if (name == "bitwise") {
    no_arg();
    no_tol();
    return standards::Bitwise{};
  }
  if (name == "msprobe") {
    no_arg();
    no_tol();
    return standards::MsprobeCompare{};
  }
  if (name == "precheck") {
    no_tol();
    standards::MsprobePrecheck s;
    if (colon == std::string_view::npos || arg == "ladder") s.method = standards::MsprobePrecheck::Method::ladder;
    else if (arg == "thousandth") s.method = standards::MsprobePrecheck::Method::thousandth;
    else if (arg == "ulp") s.method = standards::MsprobePrecheck::Method::ulp;
    else throw bad("unknown pre-check method '" + arg + "' (ladder, thousandth, ulp)");
    return s;
  }
  throw bad("unknown standard (torch, numpy, isclose, ulp[:N], polygraphy[:STAT], msprobe, precheck[:METHOD], bitwise)");
}

TD_NAMESPACE_END
