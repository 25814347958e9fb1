// Highway kernel on adversarial data (kernels_adversarial.hpp), on every compiled target the
// CPU supports (HWY_COMPILE_ALL_ATTAINABLE, forced one by one as TD_FORCE_TARGET would), and
// compare() over odd-strided, reversed and transposed views with NaN / inf at run edges.
#include "kernels_highway_test_util.hpp"

#include "kernels_adversarial.hpp"
#include "tensordiff/metrics/compare.hpp"

namespace {
using namespace tensordiff;
using td_test::for_each_highway_target;

#define TD_ADV_TEST(NAME, TA, TB) \
  TEST(HighwayAdversarial, NAME) { for_each_highway_target([] { td_test::check_adversarial<kernels::Highway, TA, TB>(); }); }

TD_FOR_EACH_ADVERSARIAL_PAIR(TD_ADV_TEST)

/// compare() of strided views against the same views through kernels::Scalar: every field.
template <class T> void check_views(const TensorView& a, const TensorView& b, const char* what) {
  SCOPED_TRACE(what);
  CompareOptions o;
  o.chunk_elements = 5000;  // chunk edges inside rows
  const Comparison got = compare(a, b, o), want = compare<kernels::Scalar>(a, b, o);
  const Partial &g = got.partial, &w = want.partial;
  EXPECT_EQ(g.count, w.count);
  EXPECT_EQ(g.max_abs_diff, w.max_abs_diff);
  EXPECT_EQ(g.max_abs_index, w.max_abs_index);
  EXPECT_EQ(g.max_rel, w.max_rel);
  EXPECT_EQ(g.max_rel_index, w.max_rel_index);
  EXPECT_EQ(g.rel_below[0], w.rel_below[0]);
  EXPECT_EQ(g.rel_below[1], w.rel_below[1]);
  EXPECT_EQ(g.nonfinite_mismatch, w.nonfinite_mismatch);
  EXPECT_EQ(g.first_mismatch_index, w.first_mismatch_index);
  EXPECT_EQ(g.a.finite_min, w.a.finite_min);
  EXPECT_EQ(g.b.finite_max, w.b.finite_max);
  EXPECT_EQ(g.a.nan_count, w.a.nan_count);
  auto near = [](double x, double y) { return x == y || std::fabs(x - y) <= 1e-12 * std::fabs(y); };
  EXPECT_PRED2(near, g.sum_abs_diff, w.sum_abs_diff);
  EXPECT_PRED2(near, g.sum_rel, w.sum_rel);
  EXPECT_PRED2(near, g.a.sum_sq, w.a.sum_sq);
}

template <class T> void check_strided_views() {
  const std::int64_t r = 193, c = 517;  // odd extents: tails in every row
  auto d = td_test::adversarial_pairs<T, T>(static_cast<std::size_t>(3 * r * c), 5, true);
  const DType dt = dtype_of<T>();
  // transposed: element (i, j) at j·r + i
  check_views<T>(TensorView(d.a.data(), dt, Shape{r, c}, Strides{1, r}), TensorView(d.b.data(), dt, Shape{r, c}),
                 "transposed vs contiguous");
  check_views<T>(TensorView(d.a.data(), dt, Shape{r, c}, Strides{1, r}),
                 TensorView(d.b.data(), dt, Shape{r, c}, Strides{1, r}), "both transposed");
  // odd stride 3 and reversed (negative stride)
  check_views<T>(TensorView(d.a.data(), dt, Shape{r * c}, Strides{3}),
                 TensorView(d.b.data() + 3 * r * c - 1, dt, Shape{r * c}, Strides{-1}), "stride 3 vs reversed");
  // 3-d with permuted axes and a column step
  const std::int64_t w = c / 2;
  check_views<T>(TensorView(d.a.data(), dt, Shape{5, r, w}, Strides{1, 5, 5 * r}),
                 TensorView(d.b.data(), dt, Shape{5, r, w}, Strides{r * c / 3, c, 2}), "permuted 3-d vs column step");
}

TEST(HighwayAdversarial, StridedViewsF32) { for_each_highway_target([] { check_strided_views<float>(); }); }
TEST(HighwayAdversarial, StridedViewsBF16) { for_each_highway_target([] { check_strided_views<bfloat16>(); }); }

}  // namespace
