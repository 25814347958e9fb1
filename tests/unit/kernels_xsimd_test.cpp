// kernels::Xsimd against kernels::Scalar: every kernel dtype pair, lengths
// around the block and batch sizes, misaligned starts, split runs.
#include "tensordiff/kernels/xsimd.hpp"

#include "kernels_adversarial.hpp"

namespace {
using namespace tensordiff;
using td_test::check_all_lengths;

#define TD_PAIR_TEST(NAME, TA, TB) \
  TEST(XsimdKernel, NAME) { check_all_lengths<kernels::Xsimd, TA, TB>(); }

TD_FOR_EACH_KERNEL_PAIR(TD_PAIR_TEST)

// Adversarial data (thresholds hit exactly, ties, zeros, denormals, exponent gaps, NaN / inf
// at block edges, lengths 0 .. 3·block + 7, lean metric sets).
#define TD_ADV_TEST(NAME, TA, TB) \
  TEST(XsimdAdversarial, NAME) { td_test::check_adversarial<kernels::Xsimd, TA, TB>(); }

TD_FOR_EACH_ADVERSARIAL_PAIR(TD_ADV_TEST)

// Relative errors that are NaN for finite pairs (eps 0 or inf, the float32 rule over float64
// values beyond float's range) are skipped by the maximum, as the reference skips them.
TEST(XsimdAdversarial, NanRelativeErrors) { td_test::check_nan_relative_errors_all_pairs<kernels::Xsimd>(); }

// The float32 relative error runs in double lanes rounded to float by an add/subtract trick:
// it must equal the conversion (double)(float)x — ties, float subnormals, overflow included.
TEST(XsimdKernel, RoundToFloatEqualsConversion) {
  std::mt19937_64 rng(13);
  std::vector<double> xs = {0.0, -0.0, 1.0, 1.0 + 0x1p-24, 1.0 + 0x1p-23 + 0x1p-24, 3.0 - 0x1p-23, 0x1p-149, 0x1p-150,
                            0x1.8p-150, 0x1p-126 - 0x1p-160, 3.4028234663852886e38, 0x1p128 - 0x1p103,
                            0x1p128 - 0x1p103 - 0x1p60, 1e300, -1e300, 0x1p-1074};
  std::uniform_int_distribution<int> e(-160, 130);
  std::normal_distribution<double> m(0.0, 1.0);
  for (int i = 0; i < 200000; ++i) xs.push_back(std::ldexp(m(rng), e(rng)));
  for (int i = 0; i < 20000; ++i)  // exact float ties: a float plus half its ulp
    xs.push_back(static_cast<double>(static_cast<float>(std::ldexp(m(rng), e(rng) / 2))) * (1.0 + 0x1p-24));
  const std::size_t L = kernels::Xsimd::lanes;
  std::vector<double> out(L);
  for (std::size_t i = 0; i + L <= xs.size(); i += L) {
    kernels::Xsimd::round_to_float(kernels::Xsimd::batch::load_unaligned(xs.data() + i)).store_unaligned(out.data());
    for (std::size_t l = 0; l < L; ++l) {
      const double want = static_cast<double>(static_cast<float>(xs[i + l]));
      ASSERT_TRUE(out[l] == want && std::signbit(out[l]) == std::signbit(want)) << std::hexfloat << xs[i + l] << " -> " << out[l] << " want " << want;
    }
  }
}

}  // namespace
