// The relative error as numpy computes it in msprobe's get_relative_err, restated for the
// tests: the pair cast to the relative error's type (float32 or float64), eps added to both
// sides where the bench is 0, then |(n - b) / b| in that type.
#pragma once
#include <cmath>

namespace td_ref {

inline double numpy_relative_error(double npu, double bench, bool in_float32, double eps) {
  if (in_float32) {
    float n = static_cast<float>(npu), b = static_cast<float>(bench);
    const float e = static_cast<float>(eps);
    if (b == 0.0f) n += e, b += e;  // b = 0 + eps (−0 too)
    const float q = (n - b) / b;
    return std::fabs(static_cast<double>(q));
  }
  double n = npu, b = bench;
  if (b == 0.0) n += eps, b += eps;
  return std::fabs((n - b) / b);
}

/// A threshold as numpy compares it with an array of that type (value-based casting).
inline double threshold_in(bool in_float32, double t) { return in_float32 ? static_cast<double>(static_cast<float>(t)) : t; }

}  // namespace td_ref
