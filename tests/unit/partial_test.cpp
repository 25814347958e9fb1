// Partial: merging is associative (split anywhere, same result), and compare()
// is bitwise identical for any thread count.
#include "foundation_reference.hpp"

namespace {
using namespace tdref;

Partial range(const TensorView& a, const TensorView& b, std::uint64_t lo, std::uint64_t hi) {
  KernelParams k;  // as compare() sets it, and as reference_pair() assumes
  k.zero_bench_eps = eps_for(a.dtype, b.dtype);
  k.rel_float32 = k.zero_bench_eps == std::ldexp(1.0, -23);
  for (int i = 0; i < 2; ++i) k.rel_thresholds[i] = td_ref::threshold_in(k.rel_float32, i ? 5e-3 : 1e-3);
  return detail::accumulate_range<kernels::Scalar>(a, b, lo, hi, k);
}

void expect_exact_fields_equal(const Partial& x, const Partial& y) {
  EXPECT_EQ(x.count, y.count);
  EXPECT_TRUE(same_bits(x.max_abs_diff, y.max_abs_diff));
  EXPECT_EQ(x.max_abs_index, y.max_abs_index);
  EXPECT_TRUE(same_bits(x.max_rel, y.max_rel));
  EXPECT_EQ(x.max_rel_index, y.max_rel_index);
  EXPECT_EQ(x.rel_below[0], y.rel_below[0]);
  EXPECT_EQ(x.rel_below[1], y.rel_below[1]);
  EXPECT_EQ(x.nonfinite_mismatch, y.nonfinite_mismatch);
  EXPECT_EQ(x.first_mismatch_index, y.first_mismatch_index);
  for (auto [s, t] : {std::pair{&x.a, &y.a}, std::pair{&x.b, &y.b}}) {
    EXPECT_EQ(s->nan_count, t->nan_count);
    EXPECT_EQ(s->pos_inf_count, t->pos_inf_count);
    EXPECT_EQ(s->neg_inf_count, t->neg_inf_count);
    EXPECT_EQ(s->finite_min, t->finite_min);
    EXPECT_EQ(s->finite_max, t->finite_max);
  }
}

TEST(PartialMerge, SplitAnywhereSameResult) {
  std::mt19937_64 rng(21);
  const DType pairs[][2] = {{DType::float32, DType::float32}, {DType::bfloat16, DType::float32},
                            {DType::int64, DType::uint64},    {DType::float16, DType::int8},
                            {DType::float64, DType::float64}, {DType::boolean, DType::int32}};
  for (const auto& pr : pairs) {
    const std::int64_t rows = 17, cols = 31, n = rows * cols;
    std::vector<long double> va, vb;
    random_pair(pr[0], pr[1], static_cast<std::size_t>(n), NonFinite::matching, rng, va, vb);
    // ties for max: repeat the row pattern so equal maxima appear at several indices
    for (std::int64_t i = cols; i < n; ++i) va[i] = va[i % cols], vb[i] = vb[i % cols];
    const Held a = make_view(pr[0], rows, cols, Layout::transposed, va);
    const Held b = make_view(pr[1], rows, cols, Layout::reversed, vb);
    SCOPED_TRACE(std::string(dtype_name(pr[0])) + " vs " + dtype_name(pr[1]));
    const Partial whole = range(a.view, b.view, 0, n);
    const PairRef ref = reference_pair(a.view, b.view, 0, n);
    expect_partial_matches(whole, ref, "whole");
    for (int trial = 0; trial < 40; ++trial) {
      std::uint64_t cut[2] = {rng() % (n + 1), rng() % (n + 1)};
      if (cut[0] > cut[1]) std::swap(cut[0], cut[1]);
      const Partial p1 = range(a.view, b.view, 0, cut[0]);
      const Partial p2 = range(a.view, b.view, cut[0], cut[1]);
      const Partial p3 = range(a.view, b.view, cut[1], n);
      Partial left = p1;  // (p1 + p2) + p3
      left.merge(p2);
      left.merge(p3);
      Partial right = p2;  // p1 + (p2 + p3)
      right.merge(p3);
      Partial r2 = p1;
      r2.merge(right);
      Partial rev = p3;  // merging in another order still keeps the first occurrence
      rev.merge(p1);
      rev.merge(p2);
      for (const Partial* q : {&left, &r2, &rev}) {
        expect_exact_fields_equal(*q, whole);
        expect_partial_matches(*q, ref, "split at " + std::to_string(cut[0]) + ", " + std::to_string(cut[1]));
      }
      if (::testing::Test::HasFailure()) return;
    }
    // an empty Partial is the identity
    Partial e;
    e.merge(whole);
    expect_exact_fields_equal(e, whole);
    EXPECT_TRUE(same_bits(e.dot, whole.dot));
  }
}

void expect_bitwise_equal(const Comparison& x, const Comparison& y) {
  EXPECT_EQ(x.validation, y.validation);
  EXPECT_EQ(x.messages, y.messages);
  using MP = std::pair<const Metric*, const Metric*>;
  for (auto [m, n] : std::initializer_list<MP>{{&x.cosine, &y.cosine}, {&x.euclidean_distance, &y.euclidean_distance},
                      {&x.max_abs_err, &y.max_abs_err}, {&x.max_rel_err, &y.max_rel_err},
                      {&x.one_thousandth_ratio, &y.one_thousandth_ratio},
                      {&x.five_thousandths_ratio, &y.five_thousandths_ratio}, {&x.mean_abs_err, &y.mean_abs_err},
                      {&x.mean_rel_err, &y.mean_rel_err}, {&x.rmse, &y.rmse}}) {
    EXPECT_EQ(m->status, n->status);
    EXPECT_TRUE(same_bits(m->value, n->value));
  }
  const Partial &p = x.partial, &q = y.partial;
  expect_exact_fields_equal(p, q);
  using DP = std::pair<double, double>;
  for (auto [u, v] : std::initializer_list<DP>{{p.dot, q.dot}, {p.sum_sq_diff, q.sum_sq_diff}, {p.sum_abs_diff, q.sum_abs_diff},
                      {p.sum_rel, q.sum_rel}, {p.a.sum, q.a.sum}, {p.a.sum_sq, q.a.sum_sq}, {p.b.sum, q.b.sum},
                      {p.b.sum_sq, q.b.sum_sq}})
    EXPECT_TRUE(same_bits(u, v)) << u << " vs " << v;
}

TEST(PartialMerge, ThreadCountDoesNotChangeBits) {
  std::mt19937_64 rng(22);
  for (DType t : {DType::float32, DType::float16, DType::int64}) {
    std::vector<long double> va, vb;
    random_pair(t, DType::float32, 100 * 157, NonFinite::matching, rng, va, vb);
    const Held a = make_view(t, 100, 157, Layout::sliced, va);
    const Held b = make_view(DType::float32, 100, 157, Layout::contiguous, vb);
    CompareOptions o;
    o.chunk_elements = 777;
    o.threads = 1;
    const Comparison one = compare(a.view, b.view, o);
    for (unsigned th : {2u, 3u, 8u}) {
      o.threads = th;
      SCOPED_TRACE(std::string(dtype_name(t)) + " threads=" + std::to_string(th));
      expect_bitwise_equal(one, compare(a.view, b.view, o));
    }
    expect_comparison_matches(one, a.view, b.view, reference_pair(a.view, b.view, 0, 100 * 157), "chunked");
  }
}

}  // namespace
