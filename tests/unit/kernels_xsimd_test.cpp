// kernels::Xsimd against kernels::Scalar: every kernel dtype pair, lengths
// around the block and batch sizes, misaligned starts, split runs.
#include "tensordiff/kernels/xsimd.hpp"

#include "kernels_test_common.hpp"

namespace {
using namespace tensordiff;
using td_test::check_all_lengths;

#define TD_PAIR_TEST(NAME, TA, TB) \
  TEST(XsimdKernel, NAME) { check_all_lengths<kernels::Xsimd, TA, TB>(); }

TD_FOR_EACH_KERNEL_PAIR(TD_PAIR_TEST)

}  // namespace
