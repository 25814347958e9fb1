// kernels::Eigen against kernels::Scalar: every kernel dtype pair, lengths
// around the block and batch sizes, misaligned starts, split runs.
#include "tensordiff/kernels/eigen.hpp"

#include "kernels_adversarial.hpp"

namespace {
using namespace tensordiff;
using td_test::check_all_lengths;

#define TD_PAIR_TEST(NAME, TA, TB) \
  TEST(EigenKernel, NAME) { check_all_lengths<kernels::Eigen, TA, TB>(); }

TD_FOR_EACH_KERNEL_PAIR(TD_PAIR_TEST)

// Adversarial data (thresholds hit exactly, ties, zeros, denormals, exponent gaps, NaN / inf
// at block edges, lengths 0 .. 3·block + 7, lean metric sets).
#define TD_ADV_TEST(NAME, TA, TB) \
  TEST(EigenAdversarial, NAME) { td_test::check_adversarial<kernels::Eigen, TA, TB>(); }

TD_FOR_EACH_ADVERSARIAL_PAIR(TD_ADV_TEST)

// Relative errors that are NaN for finite pairs (eps 0 or inf, the float32 rule over float64
// values beyond float's range) are skipped by the maximum, as the reference skips them.
TEST(EigenAdversarial, NanRelativeErrors) { td_test::check_nan_relative_errors_all_pairs<kernels::Eigen>(); }

}  // namespace
