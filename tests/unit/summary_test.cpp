// summarize(): numpy-style statistics against the long-double reference.
#include "foundation_reference.hpp"

namespace {
using namespace tdref;

void expect_summary(const Summary& s, const TensorView& v, const std::string& ctx) {
  SCOPED_TRACE(ctx);
  const std::uint64_t n = numel_of(v.shape);
  SideRef r;
  for (std::uint64_t i = 0; i < n; ++i) r.add(read(v, i));
  const double nan = std::numeric_limits<double>::quiet_NaN(), inf = std::numeric_limits<double>::infinity();
  EXPECT_EQ(s.numel, n);
  EXPECT_EQ(s.dtype, v.dtype);
  EXPECT_EQ(s.shape, v.shape);
  EXPECT_EQ(s.nan_count, r.nan);
  EXPECT_EQ(s.pos_inf_count, r.pinf);
  EXPECT_EQ(s.neg_inf_count, r.ninf);
  EXPECT_EQ(s.has_nan_or_inf, r.nan + r.pinf + r.ninf > 0);
  const bool any_finite = r.nan + r.pinf + r.ninf < n;
  auto same = [](double got, double want) { return (std::isnan(got) && std::isnan(want)) || got == want; };
  EXPECT_PRED2(same, s.finite_min, any_finite ? static_cast<double>(r.min) : nan);
  EXPECT_PRED2(same, s.finite_max, any_finite ? static_cast<double>(r.max) : nan);
  if (n == 0) {  // numpy: sum([]) = 0, norm([]) = 0, min/max/mean undefined
    EXPECT_EQ(s.sum, 0.0);
    EXPECT_EQ(s.l2norm, 0.0);
    EXPECT_TRUE(std::isnan(s.mean) && std::isnan(s.min) && std::isnan(s.max));
    return;
  }
  if (r.nan > 0) {
    for (double x : {s.min, s.max, s.mean, s.sum, s.l2norm}) EXPECT_TRUE(std::isnan(x));
    return;
  }
  EXPECT_PRED2(same, s.min, r.ninf ? -inf : any_finite ? static_cast<double>(r.min) : inf);
  EXPECT_PRED2(same, s.max, r.pinf ? inf : any_finite ? static_cast<double>(r.max) : -inf);
  if (r.pinf && r.ninf) {
    EXPECT_TRUE(std::isnan(s.sum));
    EXPECT_TRUE(std::isnan(s.mean));
  } else if (r.pinf || r.ninf) {
    EXPECT_EQ(s.sum, r.pinf ? inf : -inf);
    EXPECT_EQ(s.mean, r.pinf ? inf : -inf);
  } else {
    EXPECT_TRUE(near_sum("sum", s.sum, r.sum, r.sum_abs));
    EXPECT_TRUE(near_sum("mean", s.mean, r.sum / n, r.sum_abs / n, 1.001e-12L));
  }
  if (r.pinf || r.ninf) {
    EXPECT_EQ(s.l2norm, inf);
  } else {
    EXPECT_TRUE(near_sum("l2norm", s.l2norm, std::sqrt(r.sum_sq), std::sqrt(r.sum_sq), 0.51e-12L));
  }
  // overflow flags from the largest finite magnitude
  const long double peak = any_finite ? std::fmax(std::fabs(r.min), std::fabs(r.max)) : 0;
  EXPECT_EQ(s.overflows_float16, peak >= 65520.0L);
  // first value that a float -> bfloat16 cast rounds to infinity: the tie
  // between 0x7f7f and the would-be 0x7f80, (2 - 2^-8) * 2^127
  EXPECT_EQ(s.overflows_bfloat16, peak >= std::ldexp(255.5L, 120));
}

TEST(Summarize, EveryDtypeLayoutAndNonFinitePattern) {
  std::mt19937_64 rng(31);
  for (DType t : real_dtypes())
    for (Layout l : all_layouts)
      for (NonFinite nf : {NonFinite::none, NonFinite::matching, NonFinite::mismatching}) {
        const std::int64_t rows = 3 + static_cast<std::int64_t>(rng() % 30), cols = 1 + static_cast<std::int64_t>(rng() % 50);
        std::vector<long double> va, vb;
        random_pair(t, t, static_cast<std::size_t>(rows * cols), nf, rng, va, vb);
        const Held h = make_view(t, rows, cols, l, va);
        expect_summary(summarize(h.view), h.view, std::string(dtype_name(t)) + " " + layout_name(l));
        if (::testing::Test::HasFailure()) return;
      }
}

TEST(Summarize, EmptyZeroDimAndSpecialValues) {
  const float x[4] = {1, 2, 3, 4};
  expect_summary(summarize(TensorView::of(x, {0})), TensorView::of(x, {0}), "empty");
  expect_summary(summarize(TensorView::of(x, {2, 0, 3})), TensorView::of(x, {2, 0, 3}), "empty 3-d");
  expect_summary(summarize(TensorView::of(x + 2, {})), TensorView::of(x + 2, {}), "0-d");
  const double inf = INFINITY, nan = NAN;
  const double cases[][3] = {{inf, -inf, 1}, {inf, inf, inf}, {-inf, 2, 3}, {nan, 1, inf}, {-0.0, 0.0, -0.0},
                             {65519, 1, 2},  {65520, 1, 2},   {-3.39617752923046e38, 0, 0}, {3.3961775292304597e38, 0, 0}};  // 0x1.ffp127 and the double below
  for (const auto& c : cases) expect_summary(summarize(TensorView::of(c, {3})), TensorView::of(c, {3}), "special");
  const Summary all_inf = summarize(TensorView::of(cases[1], {3}));
  EXPECT_TRUE(std::isnan(all_inf.finite_min));
  EXPECT_EQ(all_inf.min, inf);
  EXPECT_EQ(all_inf.sum, inf);
  const Summary big = summarize(TensorView::of(cases[6], {3}));
  EXPECT_TRUE(big.overflows_float16);
  EXPECT_FALSE(summarize(TensorView::of(cases[5], {3})).overflows_float16);
  EXPECT_TRUE(summarize(TensorView::of(cases[7], {3})).overflows_bfloat16);
  EXPECT_FALSE(summarize(TensorView::of(cases[8], {3})).overflows_bfloat16);
}

TEST(Summarize, ComplexIsRejected) {
  const std::complex<double> z[1] = {{1, 1}};
  EXPECT_THROW(summarize(TensorView::of(z, {1})), Error);
}

}  // namespace
