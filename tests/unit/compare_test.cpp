// compare(): msprobe's validation chain, its messages and edge cases.
#include "foundation_reference.hpp"

namespace {
using namespace tdref;
using tensordiff::compare;

const Metric* six(const Comparison& c, int i) {
  const Metric* m[] = {&c.cosine, &c.euclidean_distance, &c.max_abs_err, &c.max_rel_err, &c.one_thousandth_ratio,
                       &c.five_thousandths_ratio};
  return m[i];
}

TEST(CompareValidation, EmptyIsUnsupported) {
  const float x[3] = {1, 2, 3};
  for (const auto& [sa, sb] : {std::pair<Shape, Shape>{{0}, {0}}, {{0}, {3}}, {{3}, {0}}, {{2, 0}, {2, 0}}}) {
    const Comparison c = compare(TensorView(x, DType::float32, sa), TensorView(x, DType::float32, sb));
    EXPECT_EQ(c.validation, Validation::empty);
    EXPECT_TRUE(has_message(c, "This is empty data, can not compare."));
    for (int i = 0; i < 6; ++i) EXPECT_EQ(six(c, i)->status, MetricStatus::unsupported);
    EXPECT_EQ(msprobe_spelling(c.cosine.status), std::string("unsupported"));
  }
}

TEST(CompareValidation, ShapeUnmatched) {
  const float x[6] = {1, 2, 3, 4, 5, 6};
  const Comparison c = compare(TensorView::of(x, {2, 3}), TensorView::of(x, {3, 2}));
  EXPECT_EQ(c.validation, Validation::shape_unmatched);
  EXPECT_EQ(c.messages, std::vector<std::string>{"Shape of NPU and bench tensor do not match. Skipped."});
  for (int i = 0; i < 6; ++i) EXPECT_EQ(six(c, i)->status, MetricStatus::shape_unmatched);
  EXPECT_EQ(msprobe_spelling(MetricStatus::shape_unmatched), std::string("shape unmatched"));
  // both sides are still summarised
  EXPECT_EQ(c.actual.numel, 6u);
  EXPECT_EQ(c.expected.sum, 21.0);
}

TEST(CompareValidation, ShapeUnmatchedSummariesKeepTheFilesShapes) {
  // Squeezing decides the match ([1, 2, 3] vs [3, 2, 1] differ as [2, 3] vs
  // [3, 2]); the summaries still describe the tensors as they are in the files.
  const float x[6] = {1, 2, 3, 4, 5, 6};
  const Comparison c = compare(TensorView::of(x, {1, 2, 3}), TensorView::of(x, {3, 2, 1}));
  ASSERT_EQ(c.validation, Validation::shape_unmatched);
  EXPECT_EQ(c.actual.shape, (Shape{1, 2, 3}));
  EXPECT_EQ(c.expected.shape, (Shape{3, 2, 1}));
  EXPECT_EQ(standards::MsprobeCompare{}.check(c).shape, (Shape{1, 2, 3}));
  // and so do those of a comparison that runs
  const Comparison ok = compare(TensorView::of(x, {1, 6}), TensorView::of(x, {6}));
  EXPECT_EQ(ok.actual.shape, (Shape{1, 6}));
  EXPECT_EQ(ok.expected.shape, (Shape{6}));
}

TEST(CompareValidation, SqueezeMatchesExtentOneDims) {
  const float x[3] = {1, 2, 3}, y[3] = {1, 2, 4};
  const Comparison c = compare(TensorView::of(x, {1, 3}), TensorView::of(y, {3, 1}));
  EXPECT_EQ(c.validation, Validation::ok);
  EXPECT_EQ(c.max_abs_err.value, 1.0);
  CompareOptions no_squeeze;
  no_squeeze.squeeze = false;
  EXPECT_EQ(compare(TensorView::of(x, {1, 3}), TensorView::of(y, {3, 1}), no_squeeze).validation,
            Validation::shape_unmatched);
}

// msprobe-byte-parity.md §6: numpy gives 0.083886027336 (12 decimals) for bench 0, npu 1e-8 in
// float32, where |n| / eps would give 0.08388607949; and a float32 relative error of exactly
// f32(0.001) is not counted below the threshold 0.001 (rounded to float32 as numpy compares).
TEST(CompareRelativeError, Float32AsNumpy) {
  const float npu[] = {1e-8f, 1001.0f, 1005.0f, 1000.5f}, bench[] = {0.0f, 1000.0f, 1000.0f, 1000.0f};
  const Comparison c = compare(npu, bench, 4);
  EXPECT_EQ(pyformat::fixed12(c.max_rel_err.value), 0.083886027336);
  EXPECT_EQ(c.one_thousandth_ratio.value, 0.25);   // only 1000.5: 1001 vs 1000 is f32(0.001) exactly
  EXPECT_EQ(c.five_thousandths_ratio.value, 0.5);  // and 1001; 1005 vs 1000 is f32(0.005) exactly
  CompareOptions f64;  // the float64 option: eps 2^-52 added in double
  f64.relative_error = CompareOptions::RelativeError::float64;
  const Comparison d = compare(npu, bench, 4, f64);
  EXPECT_FALSE(d.relative_error_float32);
  const double eps = std::ldexp(1.0, -52);
  EXPECT_EQ(d.max_rel_err.value, ((static_cast<double>(1e-8f) + eps) - eps) / eps);
  EXPECT_EQ(d.five_thousandths_ratio.value, 0.5);
}

TEST(CompareValidation, ZeroDimComputesOnlyMaxErrors) {
  const std::string msg =
      "This is type of 0-d tensor, can not calculate 'Cosine', 'EucDist', 'One Thousandth Err Ratio' and "
      "'Five Thousandths Err Ratio'. ";
  const double x = 2.5, y = 2.0, zero = 0, nan = std::nan("");
  for (const Shape& s : {Shape{}, Shape{1}, Shape{1, 1}}) {
    const Comparison c = compare(TensorView::of(&x, s), TensorView::of(&y, s));
    EXPECT_EQ(c.validation, Validation::zero_dim);
    EXPECT_EQ(c.messages, std::vector<std::string>{msg});
    for (int i : {0, 1, 4, 5}) EXPECT_EQ(six(c, i)->status, MetricStatus::unsupported);
    EXPECT_EQ(c.max_abs_err.value, 0.5);
    EXPECT_EQ(c.max_rel_err.value, 0.25);
  }
  // bench zero: eps added to both sides, in float32 even for float64 data (NumPy 1.x
  // value-based casting of 0-d arrays): fl32(fl32(2.5 + 2^-23) - 2^-23) / 2^-23 = 2.5 · 2^23
  const Comparison z = compare(TensorView::of(&x, {}), TensorView::of(&zero, {}));
  EXPECT_EQ(z.max_rel_err.value, 2.5 * std::ldexp(1.0, 23));
  // a value a float cannot hold keeps float64 (and its eps)
  const double big = 1e39;
  EXPECT_EQ(compare(TensorView::of(&big, {}), TensorView::of(&zero, {})).max_rel_err.value, big * std::ldexp(1.0, 52));
  // 0-d returns before the nan/inf check: NaN gives status Nan, not N/A
  const Comparison n = compare(TensorView::of(&nan, {}), TensorView::of(&y, {}));
  EXPECT_EQ(n.validation, Validation::zero_dim);
  EXPECT_EQ(n.max_abs_err.status, MetricStatus::nan);
  EXPECT_EQ(n.max_rel_err.status, MetricStatus::nan);
  // without squeeze, shape [1] is a 1-d tensor of length 1
  CompareOptions o;
  o.squeeze = false;
  const Comparison one = compare(TensorView::of(&x, {1}), TensorView::of(&y, {1}), o);
  EXPECT_EQ(one.validation, Validation::ok);
  EXPECT_EQ(one.cosine.status, MetricStatus::unsupported);
  EXPECT_TRUE(has_message(one, "This is a 1-d tensor of length 1."));
  EXPECT_EQ(one.max_abs_err.value, 0.5);
}

TEST(CompareValidation, NanInfPositions) {
  const double inf = INFINITY, nan = NAN;
  const double a[4] = {1, nan, inf, 4}, b_match[4] = {1, nan, -inf, 5}, b_mismatch[4] = {1, 2, inf, 4};
  const Comparison ok = compare(TensorView::of(a, {4}), TensorView::of(b_match, {4}));
  EXPECT_EQ(ok.validation, Validation::ok);
  EXPECT_TRUE(ok.nonfinite_positions_match);
  EXPECT_EQ(ok.max_abs_err.value, 1.0);  // matched non-finite positions count as 0 vs 0
  EXPECT_EQ(ok.max_abs_index, 3u);
  EXPECT_EQ(ok.one_thousandth_ratio.value, 0.75);
  const Comparison bad = compare(TensorView::of(a, {4}), TensorView::of(b_mismatch, {4}));
  EXPECT_EQ(bad.validation, Validation::nonfinite_mismatch);
  EXPECT_EQ(bad.messages, std::vector<std::string>{"The position of inf or nan in NPU and bench Tensor do not match."});
  for (int i = 0; i < 6; ++i) EXPECT_EQ(six(bad, i)->status, MetricStatus::not_available);
  EXPECT_EQ(msprobe_spelling(MetricStatus::not_available), std::string("N/A"));
  EXPECT_EQ(bad.nonfinite_mismatch_count, 1u);
  EXPECT_EQ(bad.first_nonfinite_mismatch, 1u);
  // nan vs inf at the same position is a mismatch too
  const double c1[2] = {nan, 1}, c2[2] = {inf, 1};
  EXPECT_EQ(compare(TensorView::of(c1, {2}), TensorView::of(c2, {2})).validation, Validation::nonfinite_mismatch);
}

TEST(CompareValidation, ZeroNormCosine) {
  const float z[3] = {0, 0, 0}, x[3] = {1, 2, 3};
  const Comparison both = compare(TensorView::of(z, {3}), TensorView::of(z, {3}));
  EXPECT_EQ(both.cosine.status, MetricStatus::ok);
  EXPECT_EQ(both.cosine.value, 1.0);
  const Comparison npu = compare(TensorView::of(z, {3}), TensorView::of(x, {3}));
  EXPECT_EQ(npu.cosine.status, MetricStatus::nan);
  EXPECT_TRUE(has_message(npu, "Cannot compare by Cosine Similarity, All the data is Zero in npu dump data."));
  EXPECT_EQ(msprobe_spelling(npu.cosine.status), std::string("Nan"));
  const Comparison bench = compare(TensorView::of(x, {3}), TensorView::of(z, {3}));
  EXPECT_EQ(bench.cosine.status, MetricStatus::nan);
  EXPECT_TRUE(has_message(bench, "Cannot compare by Cosine Similarity, All the data is Zero in Bench dump data."));
  // relative error at bench zeros is |a| / float32 eps for float32 data
  EXPECT_EQ(bench.max_rel_err.value, 3.0 / std::ldexp(1.0, -23));
}

TEST(CompareValidation, DtypeMismatchMessage) {
  const float x[3] = {1, 2, 3};
  const double y[3] = {1, 2, 3};
  const Comparison c = compare(TensorView::of(x, {3}), TensorView::of(y, {3}));
  EXPECT_FALSE(c.dtypes_match);
  EXPECT_EQ(c.messages, std::vector<std::string>{"Dtype of NPU and bench tensor do not match."});
  EXPECT_EQ(c.cosine.value, 1.0);
  EXPECT_EQ(c.zero_bench_eps, std::ldexp(1.0, -52));  // numpy result_type(f32, f64) is f64
  EXPECT_TRUE(compare(TensorView::of(x, {3}), TensorView::of(x, {3})).messages.empty());
}

TEST(CompareValidation, ComplexIsRejected) {
  const std::complex<float> z[2] = {{1, 2}, {3, 4}};
  try {
    compare(TensorView::of(z, {2}), TensorView::of(z, {2}));
    FAIL() << "no exception";
  } catch (const Error& e) {
    EXPECT_EQ(e.category(), ErrorCategory::unsupported);
    EXPECT_NE(std::string(e.what()).find("complex64"), std::string::npos) << e.what();
  }
}

TEST(CompareExact, Int64BeyondTwoPow53) {
  const std::int64_t a[3] = {(std::int64_t{1} << 62) + 1, std::numeric_limits<std::int64_t>::max(),
                             std::numeric_limits<std::int64_t>::min()};
  const std::int64_t b[3] = {std::int64_t{1} << 62, std::numeric_limits<std::int64_t>::max() - 3,
                             std::numeric_limits<std::int64_t>::min() + 2};
  const Comparison c = compare(TensorView::of(a, {3}), TensorView::of(b, {3}));
  EXPECT_EQ(c.max_abs_err.value, 3.0);  // doubles of a and b are equal; the exact difference is not
  EXPECT_EQ(c.max_abs_index, 1u);
  EXPECT_EQ(c.partial.sum_abs_diff, 6.0);
  EXPECT_EQ(c.euclidean_distance.value, std::sqrt(14.0));
}

TEST(CompareExact, Int64AgainstUint64) {
  // opposite signs: the difference exceeds 2^64
  const std::int64_t a[3] = {-1, std::numeric_limits<std::int64_t>::min(), 5};
  const std::uint64_t b[3] = {std::numeric_limits<std::uint64_t>::max(), std::numeric_limits<std::uint64_t>::max(),
                              std::uint64_t{1} << 63};
  const Comparison c = compare(TensorView::of(a, {3}), TensorView::of(b, {3}));
  EXPECT_EQ(c.max_abs_err.value, std::ldexp(1.0, 64) + std::ldexp(1.0, 63));  // 2^64 + 2^63 - 1, rounded
  EXPECT_EQ(c.max_abs_index, 1u);
  const long double want = std::ldexp(1.0L, 64) + (std::ldexp(1.0L, 64) + std::ldexp(1.0L, 63)) + (std::ldexp(1.0L, 63) - 5);
  EXPECT_TRUE(near_sum("sum_abs_diff", c.partial.sum_abs_diff, want, want));
  // a tie on the 2^12 grid above 2^64 rounds to even
  const std::int64_t t[1] = {-2048};
  const std::uint64_t u[1] = {std::numeric_limits<std::uint64_t>::max()};  // diff = 2^64 + 2047
  const std::int64_t t2[1] = {-2049};                                       // diff = 2^64 + 2048: tie, to even (2^64)
  const std::int64_t t3[1] = {-6145};                                       // diff = 2^64 + 6144: tie, to even (2^64 + 8192)
  CompareOptions o;
  o.squeeze = false;
  EXPECT_EQ(compare(TensorView::of(t, {1}), TensorView::of(u, {1}), o).max_abs_err.value, std::ldexp(1.0, 64));
  EXPECT_EQ(compare(TensorView::of(t2, {1}), TensorView::of(u, {1}), o).max_abs_err.value, std::ldexp(1.0, 64));
  EXPECT_EQ(compare(TensorView::of(t3, {1}), TensorView::of(u, {1}), o).max_abs_err.value,
            std::ldexp(1.0, 64) + 8192.0);
}

TEST(CompareViews, TransposedSlicedBroadcastEmptyAndReversed) {
  std::mt19937_64 rng(11);
  for (Layout la : all_layouts)
    for (Layout lb : all_layouts) {
      std::vector<long double> va, vb;
      random_pair(DType::float32, DType::bfloat16, 9 * 13, NonFinite::matching, rng, va, vb);
      const Held a = make_view(DType::float32, 9, 13, la, va);
      const Held b = make_view(DType::bfloat16, 9, 13, lb, vb);
      expect_comparison_matches(compare(a.view, b.view), a.view, b.view, reference_pair(a.view, b.view, 0, 9 * 13),
                                std::string(layout_name(la)) + " vs " + layout_name(lb));
    }
}

TEST(CompareViews, TypedSpanOverload) {
  const float a[4] = {1, 2, 3, 4};
  const bfloat16 b[4] = {bfloat16(1.f), bfloat16(2.f), bfloat16(3.f), bfloat16(4.5f)};
  const Comparison c = compare(a, b, 4);
  EXPECT_EQ(c.max_abs_err.value, 0.5);
  EXPECT_EQ(c.max_abs_index, 3u);
  EXPECT_FALSE(c.dtypes_match);
}

// ~M: every metric but M's, at compile time and by name (the CLI's --metrics all,-mean_rel).
static_assert(~metric::all == MetricSet{});
static_assert(~MetricSet{} == metric::all);
static_assert(~~metric::assert_close == metric::assert_close);
static_assert((~metric::mean_rel & metric::mean_rel) == MetricSet{});
static_assert((~metric::mean_rel | metric::mean_rel) == metric::all);

TEST(CompareMetricSets, AllButSomeByName) {
  using tensordiff::metric_set_from_names;
  EXPECT_EQ(metric_set_from_names("all,-mean_rel"), ~metric::mean_rel);
  EXPECT_EQ(metric_set_from_names("-mean_rel,-rmse"), ~(metric::mean_rel | metric::rmse));
  EXPECT_EQ(metric_set_from_names("assert_close,-thousandths"), metric::max_abs | metric::max_rel);
  EXPECT_EQ(metric_set_from_names("-all,cosine"), metric::cosine);  // words apply left to right
  for (const char* bad : {"cosine,-cosine", "-all", "all,-bogus", "-", "cosine,"}) {
    try {
      metric_set_from_names(bad);
      ADD_FAILURE() << bad << ": no error";
    } catch (const Error& e) {
      EXPECT_EQ(e.category(), ErrorCategory::invalid_argument) << e.what();
    }
  }
}

// A set without one metric marks that metric not requested and computes the others as the full
// set does, through the default kernel's blocks (so no part a kept metric needs is skipped).
TEST(CompareMetricSets, AllButOneKeepsEveryOtherMetric) {
  std::mt19937_64 rng(5);
  std::normal_distribution<float> value(0.f, 3.f), noise(0.f, 0.01f);
  const std::int64_t n = 64 * 97;  // several kernel blocks and a tail
  std::vector<float> va(n);
  std::vector<bfloat16> vb(n);
  for (std::int64_t i = 0; i < n; ++i) {
    vb[i] = bfloat16(i % 61 == 0 ? 0.f : value(rng));  // some bench zeros: msprobe's eps rule
    va[i] = static_cast<float>(vb[i]) + noise(rng);
  }
  const TensorView a = TensorView::of(va.data(), {n}), b = TensorView::of(vb.data(), {n});
  const Comparison full = compare(a, b);
  const std::pair<MetricSet, Metric Comparison::*> fields[] = {
      {metric::cosine, &Comparison::cosine},           {metric::euclidean, &Comparison::euclidean_distance},
      {metric::max_abs, &Comparison::max_abs_err},     {metric::max_rel, &Comparison::max_rel_err},
      {metric::thousandths, &Comparison::one_thousandth_ratio}, {metric::thousandths, &Comparison::five_thousandths_ratio},
      {metric::mean_abs, &Comparison::mean_abs_err},   {metric::mean_rel, &Comparison::mean_rel_err},
      {metric::rmse, &Comparison::rmse}};
  for (const auto& [left_out, unused] : fields) {
    (void)unused;
    CompareOptions o;
    o.metrics = ~left_out;
    const Comparison c = compare(a, b, o);
    for (const auto& [flag, field] : fields) {
      const Metric &got = c.*field, &want = full.*field;
      if (flag == left_out) {
        EXPECT_EQ(got.status, MetricStatus::not_requested);
        continue;
      }
      ASSERT_EQ(got.status, want.status);
      EXPECT_NEAR(got.value, want.value, 1e-12 * std::fabs(want.value)) << static_cast<unsigned>(left_out);
    }
    EXPECT_EQ(c.max_abs_index, left_out == metric::max_abs ? no_index : full.max_abs_index);
    EXPECT_EQ(c.max_rel_index, left_out == metric::max_rel ? no_index : full.max_rel_index);
  }
}

}  // namespace
