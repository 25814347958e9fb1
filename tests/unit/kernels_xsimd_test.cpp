// kernels::Xsimd against kernels::Scalar: every kernel dtype pair, lengths
// around the block and batch sizes, misaligned starts, split runs.
#include "tensordiff/kernels/xsimd.hpp"

#include "kernels_test_common.hpp"

namespace {
using namespace tensordiff;
using td_test::check_all_lengths;

#define TD_PAIR_TEST(NAME, TA, TB) \
  TEST(XsimdKernel, NAME) { check_all_lengths<kernels::Xsimd, TA, TB>(); }

TD_PAIR_TEST(F32F32, float, float)
TD_PAIR_TEST(F64F64, double, double)
TD_PAIR_TEST(F16F16, float16, float16)
TD_PAIR_TEST(BF16BF16, bfloat16, bfloat16)
TD_PAIR_TEST(F32BF16, float, bfloat16)
TD_PAIR_TEST(BF16F32, bfloat16, float)
TD_PAIR_TEST(F32F16, float, float16)
TD_PAIR_TEST(F16F32, float16, float)
TD_PAIR_TEST(F32F64, float, double)
TD_PAIR_TEST(F64F32, double, float)
TD_PAIR_TEST(F16BF16, float16, bfloat16)
TD_PAIR_TEST(BF16F16, bfloat16, float16)
TD_PAIR_TEST(F16F64, float16, double)
TD_PAIR_TEST(F64F16, double, float16)
TD_PAIR_TEST(BF16F64, bfloat16, double)
TD_PAIR_TEST(F64BF16, double, bfloat16)
TD_PAIR_TEST(I32I32, std::int32_t, std::int32_t)
TD_PAIR_TEST(I16I16, std::int16_t, std::int16_t)
TD_PAIR_TEST(I8I8, std::int8_t, std::int8_t)
TD_PAIR_TEST(U8U8, std::uint8_t, std::uint8_t)
TD_PAIR_TEST(U16U16, std::uint16_t, std::uint16_t)
TD_PAIR_TEST(U32U32, std::uint32_t, std::uint32_t)
TD_PAIR_TEST(I64I64, std::int64_t, std::int64_t)
TD_PAIR_TEST(U64U64, std::uint64_t, std::uint64_t)
TD_PAIR_TEST(I64U64, std::int64_t, std::uint64_t)
TD_PAIR_TEST(U64I64, std::uint64_t, std::int64_t)
TD_PAIR_TEST(BoolBool, bool8, bool8)

}  // namespace
