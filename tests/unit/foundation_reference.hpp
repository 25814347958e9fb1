// Test-only reference for the foundation tests: typed buffers built at run
// time from a DType, strided layouts, and an independent long-double
// implementation of compare()'s and summarize()'s definitions. Nothing here
// calls the library's per-element code (accumulate_pair, to_double, the
// half-float converters on the reading side, offset_of).
#pragma once
#include <gtest/gtest.h>

#include <cmath>
#include <cstdint>
#include <cstring>
#include <limits>
#include <memory>
#include <random>
#include <string>
#include <vector>

#include <tensordiff/tensordiff.hpp>

#include "relative_error_reference.hpp"

namespace tdref {
using namespace tensordiff;

inline const std::vector<DType>& real_dtypes() {
  static const std::vector<DType> v = [] {
    std::vector<DType> r;
    for (DType t : all_dtypes)
      if (!is_complex(t)) r.push_back(t);
    return r;
  }();
  return v;
}
inline bool is_int_like(DType t) { return !is_floating(t); }

// ---- independent decoding of one stored element --------------------------
inline long double decode_f16(std::uint16_t h) {
  const int s = h >> 15, e = (h >> 10) & 31, m = h & 1023;
  long double v;
  if (e == 31) v = m ? std::numeric_limits<long double>::quiet_NaN() : std::numeric_limits<long double>::infinity();
  else if (e == 0) v = std::ldexp(static_cast<long double>(m), -24);
  else v = std::ldexp(static_cast<long double>(1024 + m), e - 25);
  return s ? -v : v;
}
inline long double decode_bf16(std::uint16_t b) {
  const int s = b >> 15, e = (b >> 7) & 255, m = b & 127;
  long double v;
  if (e == 255) v = m ? std::numeric_limits<long double>::quiet_NaN() : std::numeric_limits<long double>::infinity();
  else if (e == 0) v = std::ldexp(static_cast<long double>(m), -133);
  else v = std::ldexp(static_cast<long double>(128 + m), e - 134);
  return s ? -v : v;
}

/// OCP FP8 from its bit fields: E4M3FN (no inf; only S.1111.111 is NaN) or E5M2 (IEEE-like).
inline long double decode_f8(std::uint8_t b, bool e4m3fn) {
  const int ebits = e4m3fn ? 4 : 5, mbits = 7 - ebits, bias = e4m3fn ? 7 : 15;
  const int s = b >> 7, e = (b >> mbits) & ((1 << ebits) - 1), m = b & ((1 << mbits) - 1);
  long double v;
  if (e4m3fn && e == 15 && m == 7) v = std::numeric_limits<long double>::quiet_NaN();
  else if (!e4m3fn && e == 31) v = m ? std::numeric_limits<long double>::quiet_NaN() : std::numeric_limits<long double>::infinity();
  else if (e == 0) v = std::ldexp(static_cast<long double>(m), 1 - bias - mbits);
  else v = std::ldexp(static_cast<long double>((1 << mbits) + m), e - bias - mbits);
  return s ? -v : v;
}

/// Exact value of the item at `p` (native byte order already).
inline long double decode(DType t, const unsigned char* p) {
  auto get = [&](auto x) {
    std::memcpy(&x, p, sizeof x);
    return x;
  };
  switch (t) {
    case DType::boolean: return p[0] != 0 ? 1.0L : 0.0L;
    case DType::int8: return get(std::int8_t{});
    case DType::uint8: return get(std::uint8_t{});
    case DType::int16: return get(std::int16_t{});
    case DType::uint16: return get(std::uint16_t{});
    case DType::int32: return get(std::int32_t{});
    case DType::uint32: return get(std::uint32_t{});
    case DType::int64: return static_cast<long double>(get(std::int64_t{}));
    case DType::uint64: return static_cast<long double>(get(std::uint64_t{}));
    case DType::float16: return decode_f16(get(std::uint16_t{}));
    case DType::bfloat16: return decode_bf16(get(std::uint16_t{}));
    case DType::float32: return get(float{});
    case DType::float64: return get(double{});
    case DType::float8_e4m3fn: return decode_f8(p[0], true);
    case DType::float8_e5m2: return decode_f8(p[0], false);
    default: ADD_FAILURE() << "complex in reference"; return 0;
  }
}

/// Flat C-order element `flat` of a view, read with the test's own index math.
inline long double read(const TensorView& v, std::uint64_t flat) {
  std::int64_t off = 0;
  for (std::size_t d = v.shape.size(); d-- > 0;) {
    const auto ext = static_cast<std::uint64_t>(v.shape[d]);
    off += static_cast<std::int64_t>(flat % ext) * v.strides[d];
    flat /= ext;
  }
  const std::size_t item = dtype_size(v.dtype);
  unsigned char buf[16];
  std::memcpy(buf, v.data + off * static_cast<std::int64_t>(item), item);
  if (v.byte_order != native_byte_order)
    for (std::size_t i = 0; i < item / 2; ++i) std::swap(buf[i], buf[item - 1 - i]);
  return decode(v.dtype, buf);
}

inline std::uint64_t numel_of(const Shape& s) {
  std::uint64_t n = 1;
  for (auto d : s) n *= static_cast<std::uint64_t>(d);
  return n;
}

// ---- storing values -------------------------------------------------------
/// Writes `v` into one item of dtype `t` (rounded / clamped as a cast would;
/// NaN into an integer type becomes 0).
inline void store(DType t, unsigned char* p, long double v) {
  auto put = [&](auto x) { std::memcpy(p, &x, sizeof x); };
  auto as_int = [&](long double lo, long double hi) {
    if (std::isnan(v)) return 0.0L;
    return std::fmin(std::fmax(std::nearbyint(v), lo), hi);
  };
  switch (t) {
    case DType::boolean: p[0] = v != 0; break;
    case DType::int8: put(static_cast<std::int8_t>(as_int(-128, 127))); break;
    case DType::uint8: put(static_cast<std::uint8_t>(as_int(0, 255))); break;
    case DType::int16: put(static_cast<std::int16_t>(as_int(-32768, 32767))); break;
    case DType::uint16: put(static_cast<std::uint16_t>(as_int(0, 65535))); break;
    case DType::int32: put(static_cast<std::int32_t>(as_int(-2147483648.0L, 2147483647.0L))); break;
    case DType::uint32: put(static_cast<std::uint32_t>(as_int(0, 4294967295.0L))); break;
    case DType::int64: put(static_cast<std::int64_t>(as_int(-9223372036854775808.0L, 9223372036854775807.0L))); break;
    case DType::uint64: put(static_cast<std::uint64_t>(as_int(0, 18446744073709551615.0L))); break;
    case DType::float16:  // finite values stay finite (random data would overflow otherwise)
      put(float16(static_cast<float>(std::isfinite(v) ? std::fmin(std::fmax(v, -65504.0L), 65504.0L) : v)));
      break;
    case DType::bfloat16: put(bfloat16(static_cast<float>(v))); break;
    case DType::float32: put(static_cast<float>(v)); break;
    case DType::float64: put(static_cast<double>(v)); break;
    case DType::float8_e4m3fn:  // finite values stay finite, as for float16
      put(float8_e4m3fn(static_cast<float>(std::isfinite(v) ? std::fmin(std::fmax(v, -448.0L), 448.0L) : v)));
      break;
    case DType::float8_e5m2:
      put(float8_e5m2(static_cast<float>(std::isfinite(v) ? std::fmin(std::fmax(v, -57344.0L), 57344.0L) : v)));
      break;
    default: ADD_FAILURE() << "complex store"; break;
  }
}

enum class Layout { contiguous, transposed, sliced, reversed, broadcast, big_endian };
inline const char* layout_name(Layout l) {
  switch (l) {
    case Layout::contiguous: return "contiguous";
    case Layout::transposed: return "transposed";
    case Layout::sliced: return "sliced";
    case Layout::reversed: return "reversed";
    case Layout::broadcast: return "broadcast";
    case Layout::big_endian: return "big_endian";
  }
  return "?";
}
inline constexpr Layout all_layouts[] = {Layout::contiguous, Layout::transposed, Layout::sliced,
                                         Layout::reversed,   Layout::broadcast,  Layout::big_endian};

/// A buffer plus a [rows, cols] view on it whose C-order element k holds
/// values[k] (for `broadcast`, row 0's values repeat in every row).
struct Held {
  std::shared_ptr<std::vector<std::uint64_t>> storage;
  TensorView view;
};

inline Held make_view(DType t, std::int64_t rows, std::int64_t cols, Layout layout, const std::vector<long double>& values) {
  const std::size_t item = dtype_size(t);
  const std::int64_t n = rows * cols;
  std::int64_t slots = n;  // items in the buffer
  if (layout == Layout::sliced) slots = rows * (2 * cols + 1);
  if (layout == Layout::broadcast) slots = cols;
  Held h;
  h.storage = std::make_shared<std::vector<std::uint64_t>>(static_cast<std::size_t>(slots * static_cast<std::int64_t>(item) / 8 + 2));
  auto* base = reinterpret_cast<unsigned char*>(h.storage->data());
  auto slot_of = [&](std::int64_t i, std::int64_t j) -> std::int64_t {
    switch (layout) {
      case Layout::transposed: return j * rows + i;
      case Layout::sliced: return i * (2 * cols + 1) + 1 + 2 * j;
      case Layout::reversed: return (rows - 1 - i) * cols + (cols - 1 - j);
      case Layout::broadcast: return j;
      default: return i * cols + j;
    }
  };
  for (std::int64_t i = 0; i < rows; ++i)
    for (std::int64_t j = 0; j < cols; ++j) {
      if (layout == Layout::broadcast && i > 0) continue;
      unsigned char* p = base + slot_of(i, j) * static_cast<std::int64_t>(item);
      store(t, p, values[static_cast<std::size_t>(i * cols + j)]);
      if (layout == Layout::big_endian)
        for (std::size_t b = 0; b < item / 2; ++b) std::swap(p[b], p[item - 1 - b]);
    }
  const Shape shape{rows, cols};
  switch (layout) {
    case Layout::contiguous: h.view = TensorView(base, t, shape); break;
    case Layout::transposed: h.view = TensorView(base, t, shape, {1, rows}); break;
    case Layout::sliced: h.view = TensorView(base + item, t, shape, {2 * cols + 1, 2}); break;
    case Layout::reversed:
      h.view = TensorView(base + (n - 1) * static_cast<std::int64_t>(item), t, shape, {-cols, -1});
      break;
    case Layout::broadcast: h.view = TensorView(base, t, shape, {0, 1}); break;
    case Layout::big_endian:
      h.view = TensorView(base, t, shape, contiguous_strides(shape),
                          native_byte_order == ByteOrder::little ? ByteOrder::big : ByteOrder::little);
      break;
  }
  if (n == 0) h.view = TensorView(base, t, shape);
  return h;
}

// ---- random data ----------------------------------------------------------
enum class NonFinite { none, matching, mismatching };

/// Heavy-tailed values (magnitudes 1e-30 .. 1e30 and subnormals of `t`), ±0,
/// integers near the type's limits for integer types.
inline long double random_value(DType t, std::mt19937_64& rng) {
  std::uniform_real_distribution<double> u(0, 1);
  std::normal_distribution<double> g(0, 1);
  const double pick = u(rng);
  if (is_int_like(t)) {
    if (t == DType::boolean) return u(rng) < 0.5 ? 0 : 1;
    if (pick < 0.5) return std::floor(g(rng) * 50);
    if (pick < 0.6) return 0;
    // anywhere in the type's range (store() clamps)
    const long double span = std::ldexp(1.0L, static_cast<int>(dtype_size(t)) * 8);
    const long double lo = is_signed_integer(t) ? -span / 2 : 0;
    const long double x = lo + std::floor(static_cast<long double>(u(rng)) * span);
    return pick < 0.8 ? x : (u(rng) < 0.5 ? lo + std::floor(u(rng) * 4) : lo + span - 1 - std::floor(u(rng) * 4));
  }
  if (pick < 0.05) return u(rng) < 0.5 ? 0.0L : -0.0L;
  if (pick < 0.10) {  // subnormal of t
    const int min_exp = t == DType::float16                               ? -24
                        : t == DType::float8_e4m3fn                       ? -9
                        : t == DType::float8_e5m2                         ? -16
                        : t == DType::bfloat16 || t == DType::float32     ? -149
                                                                          : -1074;
    return std::ldexp(static_cast<long double>(1 + static_cast<int>(u(rng) * 5)), min_exp) * (u(rng) < 0.5 ? -1 : 1);
  }
  if (pick < 0.70) return g(rng);
  // heavy tail: lognormal-ish spread, bounded by the type's range
  const double max_e = t == DType::float16 ? 3 : t == DType::float8_e4m3fn ? 2 : t == DType::float8_e5m2 ? 3 : 30;
  return g(rng) * std::pow(10.0, (2 * u(rng) - 1) * max_e);
}

inline long double random_nonfinite(std::mt19937_64& rng) {
  const int k = static_cast<int>(rng() % 3);
  return k == 0 ? std::numeric_limits<long double>::quiet_NaN()
                : k == 1 ? std::numeric_limits<long double>::infinity() : -std::numeric_limits<long double>::infinity();
}

/// Two value vectors of length n: b is a perturbation of a (equal, 1e-4,
/// 2e-3, 1e-2 relative, unrelated, zero bench), with non-finite values
/// injected per `nf` where the dtypes can hold them.
inline void random_pair(DType ta, DType tb, std::size_t n, NonFinite nf, std::mt19937_64& rng,
                        std::vector<long double>& a, std::vector<long double>& b) {
  std::uniform_real_distribution<double> u(0, 1);
  a.resize(n);
  b.resize(n);
  for (std::size_t i = 0; i < n; ++i) {
    a[i] = random_value(ta, rng);
    const double pick = u(rng);
    if (pick < 0.25) b[i] = a[i];
    else if (pick < 0.40) b[i] = a[i] * (1 + 1e-4L);
    else if (pick < 0.55) b[i] = a[i] * (1 - 2e-3L);
    else if (pick < 0.65) b[i] = a[i] * (1 + 1e-2L);
    else if (pick < 0.70) b[i] = 0;
    else if (pick < 0.80 && is_int_like(ta) && is_int_like(tb)) b[i] = a[i] + (u(rng) < 0.5 ? 1 : -1);
    else b[i] = random_value(tb, rng);
  }
  if (nf == NonFinite::none) return;
  const bool fa = is_floating(ta), fb = is_floating(tb);
  const std::size_t k = std::max<std::size_t>(1, n / 50);
  for (std::size_t j = 0; j < k; ++j) {
    const std::size_t i = rng() % n;
    if (nf == NonFinite::matching) {
      if (fa && fb) {  // float8_e4m3fn has no infinity: its non-finite values are NaN
        const bool no_inf = ta == DType::float8_e4m3fn || tb == DType::float8_e4m3fn;
        a[i] = no_inf ? std::numeric_limits<long double>::quiet_NaN() : random_nonfinite(rng);
        b[i] = std::isnan(a[i]) ? std::numeric_limits<long double>::quiet_NaN()
                                : (u(rng) < 0.5 ? a[i] : -a[i]);  // +inf vs -inf counts as matching
      }
    } else {
      if (fa) a[i] = random_nonfinite(rng);
      else if (fb) b[i] = random_nonfinite(rng);
      if (fa && fb && u(rng) < 0.5) b[i] = std::isnan(a[i]) ? std::numeric_limits<long double>::infinity() : 1.0L;
    }
  }
}

// ---- the reference computation -------------------------------------------
struct SideRef {
  std::uint64_t nan = 0, pinf = 0, ninf = 0;
  long double min = std::numeric_limits<long double>::infinity();
  long double max = -std::numeric_limits<long double>::infinity();
  long double sum = 0, sum_abs = 0, sum_sq = 0;
  void add(long double x) {
    if (std::isnan(x)) ++nan;
    else if (std::isinf(x)) ++(x > 0 ? pinf : ninf);
    else {
      min = std::fmin(min, x);
      max = std::fmax(max, x);
      sum += x;
      sum_abs += std::fabs(x);
      sum_sq += x * x;
    }
  }
};

struct PairRef {
  std::uint64_t count = 0;
  long double dot = 0, dot_abs = 0, sum_sq_diff = 0, sum_abs_diff = 0, sum_rel = 0;
  double max_abs = -1, max_rel = -1;
  std::uint64_t max_abs_index = no_index, max_rel_index = no_index;
  std::uint64_t below[2] = {0, 0};
  std::uint64_t mismatch = 0, first_mismatch = no_index;
  SideRef a, b;
  double eps = 0;
  bool rel_float32 = true;  ///< numpy's result_type(a, b, float32) is float32
};

inline double eps_for(DType a, DType b) {
  // msprobe (pytorch/compare/utils.py) widens bfloat16 and float8 tensors to float32
  auto narrow = [](DType t) {
    return t == DType::float16 || t == DType::bfloat16 || t == DType::float32 || t == DType::float8_e4m3fn ||
           t == DType::float8_e5m2;
  };
  return narrow(a) && narrow(b) ? std::ldexp(1.0, -23) : std::ldexp(1.0, -52);
}

/// Element pairs [begin, end) of two same-shape views, by the definitions:
/// non-finite positions enter the error sums as (0, 0); integer pairs have an
/// exact |a−b| (rounded once to double); other pairs are compared in double.
inline PairRef reference_pair(const TensorView& va, const TensorView& vb, std::uint64_t begin, std::uint64_t end,
                              double rel_t0 = 1e-3, double rel_t1 = 5e-3) {
  PairRef r;
  r.eps = eps_for(va.dtype, vb.dtype);
  r.rel_float32 = r.eps == std::ldexp(1.0, -23);
  rel_t0 = td_ref::threshold_in(r.rel_float32, rel_t0);
  rel_t1 = td_ref::threshold_in(r.rel_float32, rel_t1);
  const bool ints = is_int_like(va.dtype) && is_int_like(vb.dtype);
  for (std::uint64_t i = begin; i < end; ++i) {
    const long double la = read(va, i), lb = read(vb, i);
    ++r.count;
    r.a.add(la);
    r.b.add(lb);
    double da = static_cast<double>(la), db = static_cast<double>(lb), ad;
    long double diff;
    if (ints) {  // exact in 128 bits (int64 vs uint64 can differ by 2^64 + 2^63)
      const __int128 d128 = static_cast<__int128>(la) - static_cast<__int128>(lb);
      const __int128 m128 = d128 < 0 ? -d128 : d128;
      ad = static_cast<double>(m128);
      diff = static_cast<long double>(m128);
    } else if (std::isfinite(la) && std::isfinite(lb)) {
      ad = std::fabs(da - db);
      diff = std::fabs(static_cast<long double>(da) - static_cast<long double>(db));
    } else {
      if (std::isnan(la) != std::isnan(lb) || std::isinf(la) != std::isinf(lb)) {
        ++r.mismatch;
        if (r.first_mismatch == no_index) r.first_mismatch = i;
      }
      da = db = ad = 0;
      diff = 0;
    }
    const long double prod = static_cast<long double>(da) * static_cast<long double>(db);
    r.dot += prod;
    r.dot_abs += std::fabs(prod);
    r.sum_sq_diff += diff * diff;
    r.sum_abs_diff += diff;
    if (ad > r.max_abs) {
      r.max_abs = ad;
      r.max_abs_index = i;
    }
    const double rel = td_ref::numpy_relative_error(da, db, r.rel_float32, r.eps);
    r.sum_rel += rel;
    if (rel > r.max_rel) {
      r.max_rel = rel;
      r.max_rel_index = i;
    }
    r.below[0] += rel < rel_t0;
    r.below[1] += rel < rel_t1;
  }
  return r;
}

/// |got − want| ≤ tol · scale, with infinities required to agree.
inline ::testing::AssertionResult near_sum(const char* what, double got, long double want, long double scale,
                                           long double tol = 1e-12L) {
  const double w = static_cast<double>(want);
  if (std::isinf(w) || std::isinf(got) || std::isnan(got)) {
    if (got == w) return ::testing::AssertionSuccess();
    return ::testing::AssertionFailure() << what << ": got " << got << ", want " << w;
  }
  const long double err = std::fabs(static_cast<long double>(got) - want);
  if (err <= tol * scale) return ::testing::AssertionSuccess();
  return ::testing::AssertionFailure() << what << ": got " << got << ", want " << w << " (error " << static_cast<double>(err)
                                       << " > " << static_cast<double>(tol * scale) << ")";
}

/// Checks every accumulated field of a Partial against the reference.
inline void expect_partial_matches(const Partial& p, const PairRef& r, const std::string& ctx) {
  SCOPED_TRACE(ctx);
  EXPECT_EQ(p.count, r.count);
  EXPECT_TRUE(near_sum("dot", p.dot, r.dot, r.dot_abs));
  EXPECT_TRUE(near_sum("sum_sq_diff", p.sum_sq_diff, r.sum_sq_diff, r.sum_sq_diff));
  EXPECT_TRUE(near_sum("sum_abs_diff", p.sum_abs_diff, r.sum_abs_diff, r.sum_abs_diff));
  EXPECT_TRUE(near_sum("sum_rel", p.sum_rel, r.sum_rel, r.sum_rel));
  EXPECT_EQ(p.max_abs_diff, r.max_abs);
  EXPECT_EQ(p.max_abs_index, r.max_abs_index);
  EXPECT_EQ(p.max_rel, r.max_rel);
  EXPECT_EQ(p.max_rel_index, r.max_rel_index);
  EXPECT_EQ(p.rel_below[0], r.below[0]);
  EXPECT_EQ(p.rel_below[1], r.below[1]);
  EXPECT_EQ(p.nonfinite_mismatch, r.mismatch);
  EXPECT_EQ(p.first_mismatch_index, r.first_mismatch);
  const std::pair<const SideStats*, const SideRef*> sides[] = {{&p.a, &r.a}, {&p.b, &r.b}};
  for (const auto& [s, q] : sides) {
    EXPECT_EQ(s->nan_count, q->nan);
    EXPECT_EQ(s->pos_inf_count, q->pinf);
    EXPECT_EQ(s->neg_inf_count, q->ninf);
    EXPECT_EQ(s->finite_min, static_cast<double>(q->min));
    EXPECT_EQ(s->finite_max, static_cast<double>(q->max));
    EXPECT_TRUE(near_sum("side sum", s->sum, q->sum, q->sum_abs));
    EXPECT_TRUE(near_sum("side sum_sq", s->sum_sq, q->sum_sq, q->sum_sq));
  }
}

/// Bitwise equality of two doubles (NaN == NaN, +0 != -0).
inline bool same_bits(double x, double y) { return std::memcmp(&x, &y, sizeof x) == 0; }

inline bool has_message(const Comparison& c, const std::string& m) {
  for (const auto& x : c.messages)
    if (x == m) return true;
  return false;
}

/// Checks a Comparison of two same-shape, non-0-d, non-empty views against
/// the reference over all their elements.
inline void expect_comparison_matches(const Comparison& c, const TensorView& a, const TensorView& b, const PairRef& r,
                                      const std::string& ctx) {
  SCOPED_TRACE(ctx);
  expect_partial_matches(c.partial, r, ctx);
  EXPECT_EQ(c.numel, r.count);
  EXPECT_EQ(c.nonfinite_mismatch_count, r.mismatch);
  EXPECT_EQ(c.first_nonfinite_mismatch, r.first_mismatch);
  EXPECT_EQ(c.zero_bench_eps, r.eps);
  EXPECT_EQ(has_message(c, "Dtype of NPU and bench tensor do not match."), a.dtype != b.dtype && r.mismatch == 0);
  if (r.mismatch > 0) {
    EXPECT_EQ(c.validation, Validation::nonfinite_mismatch);
    EXPECT_TRUE(has_message(c, "The position of inf or nan in NPU and bench Tensor do not match."));
    for (const Metric* m : {&c.cosine, &c.euclidean_distance, &c.max_abs_err, &c.max_rel_err,
                            &c.one_thousandth_ratio, &c.five_thousandths_ratio})
      EXPECT_EQ(m->status, MetricStatus::not_available);
    return;
  }
  ASSERT_EQ(c.validation, Validation::ok);
  const long double n = static_cast<long double>(r.count);
  // cosine with msprobe's zero-norm rules
  const long double na = std::sqrt(r.a.sum_sq), nb = std::sqrt(r.b.sum_sq);
  const long double eps = std::ldexp(1.0L, -52);
  if (na <= eps && nb <= eps) {
    EXPECT_EQ(c.cosine.status, MetricStatus::ok);
    EXPECT_EQ(c.cosine.value, 1.0);
  } else if (na <= eps || nb <= eps) {
    EXPECT_EQ(c.cosine.status, MetricStatus::nan);
  } else {
    const long double cos = r.dot / (na * nb);
    ASSERT_EQ(c.cosine.status, MetricStatus::ok);
    // from the sum bounds: dot within 1e-12 Σ|ab|, each norm within 1e-12 relative
    EXPECT_TRUE(near_sum("cosine", c.cosine.value, cos, r.dot_abs / (na * nb) + 2 * std::fabs(cos), 1.01e-12L));
  }
  EXPECT_TRUE(near_sum("euclidean", c.euclidean_distance.value, std::sqrt(r.sum_sq_diff), std::sqrt(r.sum_sq_diff), 0.51e-12L));
  EXPECT_TRUE(near_sum("rmse", c.rmse.value, std::sqrt(r.sum_sq_diff / n), std::sqrt(r.sum_sq_diff / n), 0.51e-12L));
  EXPECT_TRUE(near_sum("mean_abs", c.mean_abs_err.value, r.sum_abs_diff / n, r.sum_abs_diff / n, 1.001e-12L));
  EXPECT_TRUE(near_sum("mean_rel", c.mean_rel_err.value, r.sum_rel / n, r.sum_rel / n, 1.001e-12L));
  EXPECT_EQ(c.max_abs_err.value, r.max_abs);
  EXPECT_EQ(c.max_rel_err.value, r.max_rel);
  EXPECT_EQ(c.max_abs_index, r.max_abs_index);
  EXPECT_EQ(c.max_rel_index, r.max_rel_index);
  EXPECT_EQ(c.one_thousandth_ratio.value, static_cast<double>(r.below[0]) / static_cast<double>(r.count));
  EXPECT_EQ(c.five_thousandths_ratio.value, static_cast<double>(r.below[1]) / static_cast<double>(r.count));
  EXPECT_EQ(c.actual_at_max_abs, static_cast<double>(read(a, r.max_abs_index)));
  EXPECT_EQ(c.expected_at_max_abs, static_cast<double>(read(b, r.max_abs_index)));
  EXPECT_EQ(c.actual_at_max_rel, static_cast<double>(read(a, r.max_rel_index)));
  EXPECT_EQ(c.expected_at_max_rel, static_cast<double>(read(b, r.max_rel_index)));
}

}  // namespace tdref
