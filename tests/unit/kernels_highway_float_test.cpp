// Highway kernel, every compiled target the CPU supports × every float pair,
// against kernels::Scalar.
#include "kernels_highway_test_util.hpp"

namespace {
using namespace tensordiff;
using td_test::check_all_lengths;
using td_test::for_each_highway_target;

TEST(HighwayKernel, TargetsCompiledAndForcible) {
  const auto targets = kernels::highway_targets();
  ASSERT_FALSE(targets.empty());
#if HWY_DISABLED_TARGETS == 0  // all attainable: a SIMD target and the scalar fallback at least
  EXPECT_GE(targets.size(), 2u) << "HWY_COMPILE_ALL_ATTAINABLE should give several targets";
#endif
  EXPECT_FALSE(kernels::set_highway_target("NO_SUCH_TARGET"));
  EXPECT_TRUE(kernels::set_highway_target("best"));
  EXPECT_EQ(kernels::highway_target(), targets.front());
}

#define TD_FLOAT_PAIR_TEST(NAME, TA, TB) \
  TEST(HighwayKernel, NAME) {            \
    for_each_highway_target([] { check_all_lengths<kernels::Highway, TA, TB>(); }); \
  }

TD_FLOAT_PAIR_TEST(F32F32, float, float)
TD_FLOAT_PAIR_TEST(F64F64, double, double)
TD_FLOAT_PAIR_TEST(F16F16, float16, float16)
TD_FLOAT_PAIR_TEST(BF16BF16, bfloat16, bfloat16)
TD_FLOAT_PAIR_TEST(F32BF16, float, bfloat16)
TD_FLOAT_PAIR_TEST(BF16F32, bfloat16, float)
TD_FLOAT_PAIR_TEST(F32F16, float, float16)
TD_FLOAT_PAIR_TEST(F16F32, float16, float)
TD_FLOAT_PAIR_TEST(F32F64, float, double)
TD_FLOAT_PAIR_TEST(F64F32, double, float)
TD_FLOAT_PAIR_TEST(F16BF16, float16, bfloat16)
TD_FLOAT_PAIR_TEST(BF16F16, bfloat16, float16)
TD_FLOAT_PAIR_TEST(F16F64, float16, double)
TD_FLOAT_PAIR_TEST(F64F16, double, float16)
TD_FLOAT_PAIR_TEST(BF16F64, bfloat16, double)
TD_FLOAT_PAIR_TEST(F64BF16, double, bfloat16)

}  // namespace
