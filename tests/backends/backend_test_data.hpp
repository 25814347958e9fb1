// Test data and Comparison checks shared by the CUDA and NPU backend tests.
#pragma once
#include <gtest/gtest.h>

#include <cmath>
#include <cstdint>
#include <cstring>
#include <limits>
#include <random>
#include <string>
#include <vector>

#include <tensordiff/core/tensor.hpp>
#include <tensordiff/core/visit.hpp>
#include <tensordiff/metrics/comparison.hpp>

namespace td_backend_test {
namespace td = tensordiff;

enum class NonFinite { none, matched, mismatched };
using MetricField = td::Metric td::Comparison::*;

template <class T> T from_double(double x) {
  if constexpr (std::is_same_v<T, td::float16> || std::is_same_v<T, td::bfloat16>) return T(static_cast<float>(x));
  else if constexpr (std::is_same_v<T, td::bool8>) return td::bool8{static_cast<std::uint8_t>(x != 0)};
  else return static_cast<T>(x);
}

/// Values representable in `t` (integers rounded and kept in range).
inline double fit(double x, td::DType t) {
  using td::DType;
  if (td::is_floating(t) || !std::isfinite(x)) return x;
  x = std::nearbyint(x);
  switch (t) {
    case DType::boolean: return x != 0 ? 1 : 0;
    case DType::int8: return std::fmin(std::fmax(x, -128), 127);
    case DType::uint8: return std::fmin(std::fabs(x), 255);
    case DType::uint16: case DType::uint32: case DType::uint64: return std::fabs(x);
    default: return x;
  }
}

/// A C-contiguous tensor of `values` (already representable) as `t`.
inline td::Tensor make_tensor(td::DType t, const std::vector<double>& values, td::Shape shape) {
  td::Tensor out = td::Tensor::zeros(t, std::move(shape));
  td::visit_real_dtype(t, [&](auto tag) {
    using T = typename decltype(tag)::type;
    T* p = out.template mutable_data<T>();
    for (std::size_t i = 0; i < values.size(); ++i) p[i] = from_double<T>(values[i]);
  });
  return out;
}

struct PairValues {
  std::vector<double> a, b;
};

/// n values per side: b close to a, exact zeros and equal pairs in b, an
/// argmax tie at n/3 and 2n/3 (the smaller index must win across blocks and
/// chunks) and, for float pairs, nan/±inf at matched or mismatched positions.
inline PairValues pair_values(std::size_t n, td::DType ta, td::DType tb, NonFinite nf, unsigned seed = 1) {
  std::mt19937_64 rng(seed);
  std::uniform_real_distribution<double> u(-100, 100), noise(-1e-3, 1e-3);
  PairValues v;
  v.a.resize(n);
  v.b.resize(n);
  const bool ints = !td::is_floating(ta) || !td::is_floating(tb);
  for (std::size_t i = 0; i < n; ++i) {
    const double x = fit(u(rng), ta);
    double y = ints ? x + static_cast<double>(static_cast<int>(rng() % 3) - 1) : x * (1 + noise(rng));
    if (i % 17 == 3) y = 0;
    if (i % 29 == 4) y = x;
    v.a[i] = x;
    v.b[i] = fit(y, tb);
  }
  if (n >= 3) {
    const bool unsigned_side = ta == td::DType::uint8 || ta == td::DType::uint16 || ta == td::DType::uint32 ||
                               ta == td::DType::uint64 || tb == td::DType::uint8 || tb == td::DType::uint16 ||
                               tb == td::DType::uint32 || tb == td::DType::uint64;
    for (std::size_t i : {n / 3, 2 * n / 3}) {
      v.a[i] = fit(unsigned_side ? 250 : 120, ta);
      v.b[i] = fit(unsigned_side ? 0 : -120, tb);
    }
  }
  if (td::is_floating(ta) && td::is_floating(tb) && nf != NonFinite::none) {
    const double nan = std::numeric_limits<double>::quiet_NaN(), inf = std::numeric_limits<double>::infinity();
    for (std::size_t i = 5; i < n; i += 101) v.a[i] = v.b[i] = nan;
    for (std::size_t i = 7; i < n; i += 211) v.a[i] = v.b[i] = inf;
    for (std::size_t i = 9; i < n; i += 307) v.a[i] = v.b[i] = -inf;
    if (nf == NonFinite::mismatched && n > 40) {
      v.a[n - 40] = nan;  // b stays finite there
      v.b[n / 2 + 1] = inf;
    }
  }
  return v;
}

inline std::uint64_t bits(double x) {
  std::uint64_t u;
  std::memcpy(&u, &x, sizeof u);
  return u;
}

/// Every field of two Comparisons, bit for bit.
inline void expect_identical(const td::Comparison& x, const td::Comparison& y) {
  EXPECT_EQ(x.validation, y.validation);
  EXPECT_EQ(x.messages, y.messages);
  EXPECT_EQ(x.numel, y.numel);
  const MetricField metrics[] = {
      &td::Comparison::cosine,       &td::Comparison::euclidean_distance,   &td::Comparison::max_abs_err,
      &td::Comparison::max_rel_err,  &td::Comparison::one_thousandth_ratio, &td::Comparison::five_thousandths_ratio,
      &td::Comparison::mean_abs_err, &td::Comparison::mean_rel_err,         &td::Comparison::rmse};
  for (auto m : metrics) {
    EXPECT_EQ((x.*m).status, (y.*m).status);
    EXPECT_EQ(bits((x.*m).value), bits((y.*m).value)) << (x.*m).value << " vs " << (y.*m).value;
  }
  EXPECT_EQ(x.max_abs_index, y.max_abs_index);
  EXPECT_EQ(x.max_rel_index, y.max_rel_index);
  EXPECT_EQ(bits(x.actual_at_max_abs), bits(y.actual_at_max_abs));
  EXPECT_EQ(bits(x.expected_at_max_abs), bits(y.expected_at_max_abs));
  EXPECT_EQ(bits(x.actual_at_max_rel), bits(y.actual_at_max_rel));
  EXPECT_EQ(bits(x.expected_at_max_rel), bits(y.expected_at_max_rel));
  EXPECT_EQ(x.nonfinite_mismatch_count, y.nonfinite_mismatch_count);
  EXPECT_EQ(x.first_nonfinite_mismatch, y.first_nonfinite_mismatch);
  EXPECT_EQ(x.dtypes_match, y.dtypes_match);
  EXPECT_EQ(bits(x.zero_bench_eps), bits(y.zero_bench_eps));
  EXPECT_EQ(0, std::memcmp(&x.partial, &y.partial, sizeof(td::Partial))) << "Partial differs";
  for (auto s : {&td::Comparison::actual, &td::Comparison::expected}) {
    EXPECT_EQ((x.*s).shape, (y.*s).shape);
    EXPECT_EQ(0, std::memcmp(&(x.*s).stats, &(y.*s).stats, sizeof(td::SideStats))) << "SideStats differ";
  }
}

/// Sums within `rel` of the reference's scale; counts, extremes, indices and
/// everything derived from them exactly (those do not depend on the order).
inline void expect_side_close(const td::SideStats& x, const td::SideStats& ref, std::uint64_t n, double scale, double rel) {
  EXPECT_EQ(x.nan_count, ref.nan_count);
  EXPECT_EQ(x.pos_inf_count, ref.pos_inf_count);
  EXPECT_EQ(x.neg_inf_count, ref.neg_inf_count);
  EXPECT_EQ(bits(x.finite_min), bits(ref.finite_min));
  EXPECT_EQ(bits(x.finite_max), bits(ref.finite_max));
  const double tol = rel * static_cast<double>(n) * scale;
  EXPECT_NEAR(x.sum, ref.sum, tol);
  EXPECT_NEAR(x.sum_sq, ref.sum_sq, tol * scale);
}

/// A Comparison from a differently ordered reduction: exact where the order
/// cannot matter, within rel × n × scale² for the sums (|values| <= scale).
inline void expect_close(const td::Comparison& x, const td::Comparison& ref, double scale, double rel = 1e-13) {
  EXPECT_EQ(x.validation, ref.validation);
  EXPECT_EQ(x.messages, ref.messages);
  EXPECT_EQ(x.numel, ref.numel);
  const td::Partial& p = x.partial;
  const td::Partial& q = ref.partial;
  const std::uint64_t n = ref.numel;
  EXPECT_EQ(p.count, q.count);
  EXPECT_EQ(bits(p.max_abs_diff), bits(q.max_abs_diff));
  EXPECT_EQ(p.max_abs_index, q.max_abs_index);
  EXPECT_EQ(bits(p.max_rel), bits(q.max_rel));
  EXPECT_EQ(p.max_rel_index, q.max_rel_index);
  EXPECT_EQ(p.rel_below[0], q.rel_below[0]);
  EXPECT_EQ(p.rel_below[1], q.rel_below[1]);
  EXPECT_EQ(p.nonfinite_mismatch, q.nonfinite_mismatch);
  EXPECT_EQ(p.first_mismatch_index, q.first_mismatch_index);
  const double tol = rel * static_cast<double>(n) * scale;
  EXPECT_NEAR(p.dot, q.dot, tol * scale);
  EXPECT_NEAR(p.sum_sq_diff, q.sum_sq_diff, tol * scale);
  EXPECT_NEAR(p.sum_abs_diff, q.sum_abs_diff, tol);
  EXPECT_NEAR(p.sum_rel, q.sum_rel, rel * static_cast<double>(n) * std::fmax(1.0, std::fabs(q.sum_rel)));
  expect_side_close(p.a, q.a, n, scale, rel);
  expect_side_close(p.b, q.b, n, scale, rel);
  const MetricField metrics[] = {
      &td::Comparison::cosine,       &td::Comparison::euclidean_distance,   &td::Comparison::max_abs_err,
      &td::Comparison::max_rel_err,  &td::Comparison::one_thousandth_ratio, &td::Comparison::five_thousandths_ratio,
      &td::Comparison::mean_abs_err, &td::Comparison::mean_rel_err,         &td::Comparison::rmse};
  for (auto m : metrics) {
    EXPECT_EQ((x.*m).status, (ref.*m).status);
    if ((ref.*m).has_value()) {
      EXPECT_NEAR((x.*m).value, (ref.*m).value, 1e-9 * std::fmax(1.0, std::fabs((ref.*m).value)));
    }
  }
  EXPECT_EQ(x.max_abs_index, ref.max_abs_index);
  EXPECT_EQ(x.max_rel_index, ref.max_rel_index);
  EXPECT_EQ(bits(x.actual_at_max_abs), bits(ref.actual_at_max_abs));
  EXPECT_EQ(bits(x.expected_at_max_abs), bits(ref.expected_at_max_abs));
  EXPECT_EQ(bits(x.actual_at_max_rel), bits(ref.actual_at_max_rel));
  EXPECT_EQ(bits(x.expected_at_max_rel), bits(ref.expected_at_max_rel));
  EXPECT_EQ(x.nonfinite_mismatch_count, ref.nonfinite_mismatch_count);
  EXPECT_EQ(x.first_nonfinite_mismatch, ref.first_nonfinite_mismatch);
  EXPECT_EQ(x.dtypes_match, ref.dtypes_match);
  EXPECT_EQ(x.actual.shape, ref.actual.shape);
  EXPECT_EQ(x.expected.shape, ref.expected.shape);
}

}  // namespace td_backend_test
