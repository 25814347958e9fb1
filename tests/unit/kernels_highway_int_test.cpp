// Highway kernel, every compiled target × every integer kernel pair (int32,
// int16, int8, uint8, uint16 vectorised; bool, uint32, 64-bit via Scalar).
#include "kernels_highway_test_util.hpp"

namespace {
using namespace tensordiff;
using td_test::check_all_lengths;
using td_test::for_each_highway_target;

#define TD_INT_PAIR_TEST(NAME, TA, TB) \
  TEST(HighwayKernel, NAME) { for_each_highway_target([] { check_all_lengths<kernels::Highway, TA, TB>(); }); }

TD_INT_PAIR_TEST(I32I32, std::int32_t, std::int32_t)
TD_INT_PAIR_TEST(I16I16, std::int16_t, std::int16_t)
TD_INT_PAIR_TEST(I8I8, std::int8_t, std::int8_t)
TD_INT_PAIR_TEST(U8U8, std::uint8_t, std::uint8_t)
TD_INT_PAIR_TEST(U16U16, std::uint16_t, std::uint16_t)
TD_INT_PAIR_TEST(U32U32, std::uint32_t, std::uint32_t)
TD_INT_PAIR_TEST(I64I64, std::int64_t, std::int64_t)
TD_INT_PAIR_TEST(U64U64, std::uint64_t, std::uint64_t)
TD_INT_PAIR_TEST(I64U64, std::int64_t, std::uint64_t)
TD_INT_PAIR_TEST(U64I64, std::uint64_t, std::int64_t)
TD_INT_PAIR_TEST(BoolBool, bool8, bool8)

/// Extreme int32 values: |a−b| up to 2^32 − 1 must stay exact.
TEST(HighwayKernel, Int32Extremes) {
  std::vector<std::int32_t> a(1000), b(1000);
  for (std::size_t i = 0; i < a.size(); ++i) {
    a[i] = i % 2 ? std::numeric_limits<std::int32_t>::max() : std::numeric_limits<std::int32_t>::min();
    b[i] = i % 3 ? std::numeric_limits<std::int32_t>::min() : 0;
  }
  for_each_highway_target([&] {
    Partial got, want;
    kernels::Highway::accumulate(a.data(), b.data(), a.size(), 0, KernelParams{}, got);
    kernels::Scalar::accumulate(a.data(), b.data(), a.size(), 0, KernelParams{}, want);
    td_test::expect_partial(got, want, td_test::abs_terms(a.data(), b.data(), a.size()));
    EXPECT_EQ(got.max_abs_diff, 4294967295.0);
    EXPECT_EQ(got.max_abs_index, 1u);
  });
}

}  // namespace
