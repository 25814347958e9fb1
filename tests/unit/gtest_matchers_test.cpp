// GoogleTest assertions and gMock matchers: every accepted argument form, and
// the failure messages as golden strings. The torch-shaped lines were printed
// by torch.testing.assert_close (torch 1.13) for the same inputs; the extra
// numbers (cosine, allowed) by Python: 24 / (sqrt(42)·sqrt(14)) =
// 0.989743318610787, 1e-5 + 1.3e-6·2 = 1.2600000000000001e-05.
#include "tensordiff/testing/gtest.hpp"

#include <gtest/gtest-spi.h>

#include <array>
#include <cmath>
#include <string>
#include <vector>

using namespace tensordiff;
using tensordiff::testing::FromFile;
using tensordiff::testing::TensorEq;
using tensordiff::testing::TensorNear;
using tensordiff::testing::Values;

namespace {

/// A span-like type of the user's own (data() + size()).
struct MySpan {
  const float* p;
  std::size_t n;
  const float* data() const { return p; }
  std::size_t size() const { return n; }
};

const std::string data_dir = TD_TEST_DATA_DIR "/standards/";

/// The messages of the failures `f` reports, intercepted.
template <class F> std::vector<::testing::TestPartResult> failures_of(F&& f) {
  ::testing::TestPartResultArray results;
  {
    ::testing::ScopedFakeTestPartResultReporter reporter(
        ::testing::ScopedFakeTestPartResultReporter::INTERCEPT_ONLY_CURRENT_THREAD, &results);
    f();
  }
  std::vector<::testing::TestPartResult> out;
  for (int i = 0; i < results.size(); ++i) out.push_back(results.GetTestPartResult(i));
  return out;
}

const std::string torch_1d_message =
    "Tensor-likes are not close!\n"
    "\n"
    "Mismatched elements: 2 / 3 (66.7%)\n"
    "Greatest absolute difference: 2.0 at index (1,) (up to 1e-05 allowed)\n"
    "Greatest relative difference: 1.0 at index (1,) (up to 1.3e-06 allowed)\n"
    "Cosine similarity: 0.989743318610787\n"
    "Standard: torch (rtol=1.3e-06, atol=1e-05)\n"
    "Worst elements:\n"
    "  (1,): actual 4.0, expected 2.0, abs diff 2.0, rel diff 1.0, allowed 1.2600000000000001e-05\n"
    "  (2,): actual 5.0, expected 3.0, abs diff 2.0, rel diff 0.6666666666666666, allowed 1.39e-05\n";

}  // namespace

TEST(TensorClose, AcceptsEveryArgumentForm) {
  const std::vector<float> v{1, 2, 3};
  const std::array<float, 3> arr{1, 2, 3};
  const float raw[6] = {1, 2, 3, 4, 5, 6};
  const MySpan span{v.data(), v.size()};
  const Tensor t = Tensor::from_values(std::vector<float>{1, 2, 3}, {3});
  const TensorView view = TensorView::of(v.data(), {3});
  EXPECT_TENSOR_CLOSE(v, arr);
  EXPECT_TENSOR_CLOSE(arr, span);
  EXPECT_TENSOR_CLOSE(span, t);
  EXPECT_TENSOR_CLOSE(t, view);
  EXPECT_TENSOR_CLOSE(view, v, standards::Ulp{0});
  ASSERT_TENSOR_CLOSE(Values(raw, {2, 3}), FromFile(data_dir + "golden_2x3_f32.npy"));
  // big-endian float64 golden vs float32 actual: torch uses the f32 tolerances
  EXPECT_TENSOR_CLOSE(Values(raw, {2, 3}), FromFile(data_dir + "golden_2x3_f64_be.npy"));
  // transposed pointer + shape + strides
  const std::vector<float> transposed{1, 4, 2, 5, 3, 6};
  EXPECT_TENSOR_CLOSE(Values(raw, {3, 2}, {1, 3}), Values(transposed.data(), {3, 2}), standards::Bitwise{});
  EXPECT_THAT(v, TensorNear(arr));
  EXPECT_THAT(Values(raw, {2, 3}), TensorNear(FromFile(data_dir + "golden_2x3_f32.npy"), standards::Numpy{}));
  EXPECT_THAT(t, TensorEq(v));
  const std::vector<bool> bits{true, false, true};
  const std::array<bool, 3> bits2{true, false, true};
  EXPECT_THAT(bits, TensorEq(bits2));
  const std::vector<float16> h{float16(1.0f), float16(2.0f)};
  const std::vector<float> hf{1.0f, 2.0f};
  EXPECT_TENSOR_CLOSE(h, hf);
}

TEST(TensorClose, FailureMessageIsGolden) {
  const std::vector<float> actual{1, 4, 5}, expected{1, 2, 3};
  const auto f = failures_of([&] { EXPECT_TENSOR_CLOSE(actual, expected); });
  ASSERT_EQ(f.size(), 1u);
  EXPECT_EQ(f[0].type(), ::testing::TestPartResult::kNonFatalFailure);
  EXPECT_EQ(std::string(f[0].message()), torch_1d_message + "Actual: actual\nExpected: expected");
}

TEST(TensorClose, AssertIsFatalAndReturns) {
  const std::vector<float> actual{1, 4, 5}, expected{1, 2, 3};
  bool after = false;
  const auto f = failures_of([&] {
    [&] {
      ASSERT_TENSOR_CLOSE(actual, expected, standards::Ulp{4});
      after = true;
    }();
  });
  ASSERT_EQ(f.size(), 1u);
  EXPECT_EQ(f[0].type(), ::testing::TestPartResult::kFatalFailure);
  EXPECT_FALSE(after);
  EXPECT_EQ(std::string(f[0].message()),
            "Tensor-likes are not close!\n"
            "\n"
            "Mismatched elements: 2 / 3 (66.7%)\n"
            "Greatest ULP difference: 8388608 at index (1,) (up to 4 allowed)\n"
            "Greatest absolute difference: 2.0 at index (1,)\n"
            "Cosine similarity: 0.989743318610787\n"
            "Standard: ulp (max 4 ULP in float32)\n"
            "Worst elements:\n"
            "  (1,): actual 4.0, expected 2.0, abs diff 2.0, rel diff 1.0, ulp diff 8388608, allowed 4.0\n"
            "  (2,): actual 5.0, expected 3.0, abs diff 2.0, rel diff 0.6666666666666666, ulp diff 6291456, allowed "
            "4.0\n"
            "Actual: actual\n"
            "Expected: expected, standards::Ulp{4}");
  // 2 → 4 is 2^23 float32 steps (one binade), 3 → 5 is 0.75 · 2^23 = 6291456.
}

TEST(TensorClose, WorstListLengthIsConfigurable) {
  const std::vector<float> actual{1, 4, 5}, expected{1, 2, 3};
  auto& opts = tensordiff::testing::message_options();
  const std::size_t saved = opts.max_worst;
  opts.max_worst = 1;
  const auto f = failures_of([&] { EXPECT_TENSOR_CLOSE(actual, expected); });
  opts.max_worst = saved;
  ASSERT_EQ(f.size(), 1u);
  const std::string msg = f[0].message();
  EXPECT_NE(msg.find("Worst elements (1 of 2):\n  (1,): actual 4.0"), std::string::npos) << msg;
  EXPECT_EQ(msg.find("(2,): actual"), std::string::npos) << msg;
}

TEST(TensorClose, BadInputFailsTheTestWithTheReason) {
  const std::vector<float> v{1, 2, 3};
  const auto f = failures_of([&] { EXPECT_TENSOR_CLOSE(v, FromFile(data_dir + "does_not_exist.npy")); });
  ASSERT_EQ(f.size(), 1u);
  const std::string msg = f[0].message();
  EXPECT_NE(msg.find("tensordiff could not compare v with FromFile(data_dir + \"does_not_exist.npy\")"), std::string::npos) << msg;
  EXPECT_NE(msg.find("does_not_exist.npy"), std::string::npos) << msg;
  const std::vector<float> six(6, 1.0f);
  const auto g = failures_of([&] { EXPECT_TENSOR_CLOSE(v, Values(six.data(), {2, 3})); });
  ASSERT_EQ(g.size(), 1u);
  EXPECT_EQ(std::string(g[0].message()),
            "Tensor-likes are not close!\n\nThe values for attribute 'shape' do not match: [3] != [2, 3].\n"
            "Standard: torch (rtol=1.3e-06, atol=1e-05)\nActual: v\nExpected: Values(six.data(), {2, 3})");
}

TEST(TensorNearMatcher, DescribeAndExplainAreGolden) {
  const std::vector<float> actual{1, 4, 5}, expected{1, 2, 3};
  const auto m = TensorNear(expected);
  EXPECT_EQ(::testing::DescribeMatcher<std::vector<float>>(m),
            "is close to the expected tensor under torch (rtol/atol: torch.testing defaults of the dtypes)");
  EXPECT_EQ(::testing::DescribeMatcher<std::vector<float>>(m, /*negation=*/true),
            "is not close to the expected tensor under torch (rtol/atol: torch.testing defaults of the dtypes)");
  EXPECT_EQ(::testing::DescribeMatcher<std::vector<float>>(TensorNear(expected, standards::Numpy::isclose())),
            "is close to the expected tensor under numpy (rtol=1e-05, atol=1e-08, equal_nan=False)");
  ::testing::StringMatchResultListener listener;
  EXPECT_FALSE(::testing::ExplainMatchResult(m, actual, &listener));
  std::string golden = torch_1d_message;
  golden.pop_back();  // the listener text has no trailing newline
  EXPECT_EQ(listener.str(), golden);
  ::testing::StringMatchResultListener quiet;
  EXPECT_TRUE(::testing::ExplainMatchResult(m, expected, &quiet));
  EXPECT_EQ(quiet.str(), "");  // success is silent
  EXPECT_THAT(actual, ::testing::Not(TensorNear(expected)));
  EXPECT_THAT(actual, TensorNear(expected, standards::Torch{1.0, 0.0}));  // |4 − 2| ≤ 1·2
}

TEST(TensorNearMatcher, FailureInsideExpectThat) {
  const std::vector<float> actual{1, 4, 5}, expected{1, 2, 3};
  const auto f = failures_of([&] { EXPECT_THAT(actual, TensorNear(expected)); });
  ASSERT_EQ(f.size(), 1u);
  std::string golden = torch_1d_message;
  golden.pop_back();
  EXPECT_EQ(std::string(f[0].message()),
            "Value of: actual\nExpected: is close to the expected tensor under torch (rtol/atol: torch.testing "
            "defaults of the dtypes)\n  Actual: { 1, 4, 5 }, " +
                golden);
}

TEST(TensorEqMatcher, Bitwise) {
  const std::vector<float> pz{0.0f, 1.0f}, nz{-0.0f, 1.0f};
  EXPECT_THAT(pz, TensorEq(pz));
  EXPECT_THAT(pz, ::testing::Not(TensorEq(nz)));  // equal values, different bits
  EXPECT_THAT(pz, TensorNear(nz));
  const std::vector<double> pzd{0.0, 1.0};
  ::testing::StringMatchResultListener l;
  EXPECT_FALSE(::testing::ExplainMatchResult(TensorEq(pzd), pz, &l));
  EXPECT_EQ(l.str(),
            "Tensor-likes are not equal!\n\nThe values for attribute 'dtype' do not match: float32 != float64.\n"
            "Standard: bitwise (same dtype, identical bits)");
  ::testing::StringMatchResultListener l2;
  EXPECT_FALSE(::testing::ExplainMatchResult(TensorEq(nz), pz, &l2));
  EXPECT_EQ(l2.str(),
            "Tensor-likes are not equal!\n\nMismatched elements: 1 / 2 (50.0%)\n"
            "Greatest absolute difference: 0.0 at index (0,)\nGreatest relative difference: nan at index (0,)\n"
            "Cosine similarity: 1.0\nStandard: bitwise (same dtype, identical bits)\nWorst elements:\n"
            "  (0,): actual 0.0, expected -0.0, abs diff 0.0, rel diff nan, allowed 0.0");
}

TEST(TensorNearMatcher, EveryStandardIsUsable) {
  const std::vector<float> a{1.0f, 2.0f, 3.0f}, e{1.0f, 2.0f, 3.0f};
  for (const char* name : {"torch", "numpy", "isclose", "ulp:0", "polygraphy", "polygraphy:median", "msprobe",
                           "precheck", "precheck:thousandth", "precheck:ulp", "bitwise"})
    EXPECT_THAT(a, TensorNear(e, standard_from_name(name))) << name;
}
