// Standards: every preset at its boundaries (just inside / just outside), the
// nan / inf / −0 / subnormal / integer-extreme cases, and the torch-shaped
// messages. Boundary tables and message strings come from torch 1.13 and
// numpy 1.24 (gen_standards_tables.py and the literal strings below, printed
// by torch.testing.assert_close); hand-computed cases say how they were
// computed.
#include <gtest/gtest.h>

#include <cmath>
#include <cstdint>
#include <cstring>
#include <limits>
#include <random>
#include <string>
#include <vector>

#include "tensordiff/core/tensor.hpp"
#include "tensordiff/metrics/standards.hpp"
#include "tensordiff/report/text.hpp"

using namespace tensordiff;
using tensordiff::standards::ErrorStat;

namespace {

template <class T> TensorView view1(const std::vector<T>& v) { return TensorView::of(v.data(), {static_cast<std::int64_t>(v.size())}); }

Tensor tensor_of(const char* dtype, std::vector<double> values) {
  const DType t = parse_dtype_or_throw(dtype);
  Tensor out = Tensor::zeros(t, {static_cast<std::int64_t>(values.size())});
  for (std::size_t i = 0; i < values.size(); ++i) {
    switch (t) {
      case DType::float16: out.mutable_data<float16>()[i] = float16(static_cast<float>(values[i])); break;
      case DType::bfloat16: out.mutable_data<bfloat16>()[i] = bfloat16(static_cast<float>(values[i])); break;
      case DType::float32: out.mutable_data<float>()[i] = static_cast<float>(values[i]); break;
      case DType::float64: out.mutable_data<double>()[i] = values[i]; break;
      default: ADD_FAILURE() << "tensor_of: float dtypes only";
    }
  }
  return out;
}

std::string first_lines(const std::string& s, int n) {
  std::size_t pos = 0;
  for (int i = 0; i < n && pos != std::string::npos; ++i) {
    pos = s.find('\n', pos);
    if (pos != std::string::npos) ++pos;
  }
  return pos == std::string::npos ? s : s.substr(0, pos - 1);
}

constexpr double kNaN = std::numeric_limits<double>::quiet_NaN();
constexpr double kInf = std::numeric_limits<double>::infinity();

struct TableRow {
  const char* dtype;
  double actual, expected;
  bool close;
};

}  // namespace

// ---- torch ------------------------------------------------------------------

TEST(TorchStandard, DefaultsByDtypeMatchTorchTesting) {
  using standards::Torch;
  EXPECT_EQ(Torch::defaults(DType::float16), std::make_pair(1e-3, 1e-5));
  EXPECT_EQ(Torch::defaults(DType::bfloat16), std::make_pair(1.6e-2, 1e-5));
  EXPECT_EQ(Torch::defaults(DType::float32), std::make_pair(1.3e-6, 1e-5));
  EXPECT_EQ(Torch::defaults(DType::float64), std::make_pair(1e-7, 1e-7));
  for (DType t : {DType::boolean, DType::int8, DType::uint8, DType::int16, DType::int32, DType::int64, DType::uint64})
    EXPECT_EQ(Torch::defaults(t), std::make_pair(0.0, 0.0)) << dtype_name(t);
}

// Pairs straddling atol + rtol·|e| for every float dtype, judged by torch.
TEST(TorchStandard, BoundaryTableFromTorch) {
  static const TableRow rows[] = {
#include "standards_torch_table.inc"
  };
  int inside = 0, outside = 0;
  for (const auto& r : rows) {
    const Tensor a = tensor_of(r.dtype, {r.actual}), e = tensor_of(r.dtype, {r.expected});
    const Verdict v = standards::Torch{}.check(a, e);
    EXPECT_EQ(v.passed(), r.close) << r.dtype << " actual " << r.actual << " expected " << r.expected << "\n"
                                   << report::format_verdict(v);
    (r.close ? inside : outside)++;
  }
  EXPECT_GT(inside, 20);
  EXPECT_GT(outside, 20);
}

// torch with check_dtype=False uses the larger tolerances of the pair: f16
// actual vs f32 expected gets rtol 1e-3 (torch printed "up to 0.001 allowed").
TEST(TorchStandard, MixedDtypesUseTheLessPreciseDefaults) {
  const std::vector<float> e{1.0f};
  const std::vector<float16> inside{float16(1.0009765625f)}, outside{float16(1.001953125f)};
  EXPECT_TRUE(standards::Torch{}.check(view1(inside), view1(e)).passed());
  const Verdict v = standards::Torch{}.check(view1(outside), view1(e));
  EXPECT_FALSE(v.passed());
  EXPECT_EQ(v.rtol, 1e-3);
  EXPECT_EQ(v.atol, 1e-5);
  EXPECT_EQ(first_lines(report::format_verdict(v), 5),
            "Tensor-likes are not close!\n\nMismatched elements: 1 / 1 (100.0%)\nGreatest absolute difference: "
            "0.001953125 at index (0,) (up to 1e-05 allowed)\nGreatest relative difference: 0.001953125 at index (0,) "
            "(up to 0.001 allowed)");
}

TEST(TorchStandard, NanInfZeroAndSubnormals) {
  const standards::Torch t;
  auto pass = [&](std::vector<double> a, std::vector<double> e, const standards::Torch& s) {
    return s.check(view1(a), view1(e)).passed();
  };
  EXPECT_FALSE(pass({kNaN}, {kNaN}, t));                         // equal_nan=False
  EXPECT_TRUE(pass({kNaN}, {kNaN}, standards::Torch{{}, {}, true}));
  EXPECT_FALSE(pass({kNaN}, {1.0}, standards::Torch{{}, {}, true}));
  EXPECT_TRUE(pass({kInf, -kInf}, {kInf, -kInf}, t));              // same kInf
  EXPECT_FALSE(pass({kInf}, {-kInf}, t));
  EXPECT_FALSE(pass({kInf}, {1e308}, t));
  EXPECT_FALSE(pass({1e308}, {kInf}, t));                       // |a−e| = kInf is not finite
  EXPECT_TRUE(pass({-0.0}, {0.0}, t));
  EXPECT_TRUE(pass({4.9e-324}, {0.0}, t));                     // subnormal within atol 1e-7
  EXPECT_FALSE(pass({4.9e-324}, {0.0}, standards::Torch{0.0, 0.0}));
  // f32 subnormals: 2^-149 vs 0 within atol 1e-5
  const std::vector<float> sub{std::numeric_limits<float>::denorm_min()}, zero{0.0f};
  EXPECT_TRUE(t.check(view1(sub), view1(zero)).passed());
}

TEST(TorchStandard, IntegersAreExactAtTheExtremes) {
  const standards::Torch t;
  const std::vector<std::int64_t> big{(std::int64_t{1} << 53) + 1, std::numeric_limits<std::int64_t>::min()};
  const std::vector<std::int64_t> big_e{std::int64_t{1} << 53, std::numeric_limits<std::int64_t>::max()};
  const Verdict v = t.check(view1(big), view1(big_e));
  EXPECT_EQ(v.mismatched, 2u);  // 2^53+1 vs 2^53 is equal as double, not as int64
  EXPECT_TRUE(v.equality);
  EXPECT_EQ(v.greatest_abs.index, 1u);
  EXPECT_EQ(v.greatest_abs.abs_diff, 18446744073709551615.0);  // 2^64 − 1, rounded to double
  const std::vector<std::uint64_t> u{~std::uint64_t{0}};
  const std::vector<std::int64_t> m1{-1};
  EXPECT_FALSE(t.check(view1(u), view1(m1)).passed());  // same bits, different values
  const std::vector<std::uint8_t> u8{255, 0};
  const std::vector<std::int8_t> i8{-1, 0};
  EXPECT_EQ(t.check(view1(u8), view1(i8)).mismatched, 1u);
  const std::vector<bool> b1{true, false};
  const std::vector<std::uint8_t> b1raw{1, 0}, b2raw{2, 0};  // any non-zero byte is true
  const TensorView vb1(b1raw.data(), DType::boolean, {2}), vb2(b2raw.data(), DType::boolean, {2});
  EXPECT_TRUE(t.check(vb1, vb2).passed());
  // an explicit tolerance applies to integers too: |7 − 5| = 2 ≤ 1 + 0.2·5
  const std::vector<std::int32_t> a7{7}, e5{5};
  EXPECT_TRUE((standards::Torch{0.2, 1.0}.check(view1(a7), view1(e5)).passed()));
  EXPECT_FALSE((standards::Torch{0.2, 0.99}.check(view1(a7), view1(e5)).passed()));
}

TEST(TorchStandard, OnlyOneToleranceThrowsAsTorchDoes) {
  const std::vector<float> x{1.0f};
  standards::Torch t;
  t.rtol = 1e-3;
  EXPECT_THROW(t.check(view1(x), view1(x)), Error);
}

TEST(TorchStandard, ShapeMismatchIsAnErrorWithAMessage) {
  const std::vector<float> x(6, 1.0f);
  const Verdict v = standards::Torch{}.check(TensorView::of(x.data(), {2, 3}), TensorView::of(x.data(), {3, 2}));
  EXPECT_EQ(v.level, VerdictLevel::error);
  ASSERT_EQ(v.reasons.size(), 1u);
  EXPECT_EQ(v.reasons[0], "The values for attribute 'shape' do not match: [2, 3] != [3, 2].");
}

// Strided, transposed and byte-swapped views are judged element by element in
// C order of the view.
TEST(TorchStandard, StridedAndBigEndianViews) {
  const std::vector<float> base{1, 2, 3, 4, 5, 6};  // 2x3
  const TensorView transposed = TensorView::of(base.data(), {3, 2}, {1, 3});  // [[1,4],[2,5],[3,6]]
  std::vector<float> expected{1, 4, 2, 5, 3, 6.5f};
  Verdict v = standards::Torch{}.check(transposed, TensorView::of(expected.data(), {3, 2}));
  EXPECT_EQ(v.mismatched, 1u);
  EXPECT_EQ(v.greatest_abs.index, 5u);
  EXPECT_EQ(report::index_tuple(v.shape, v.greatest_abs.index), "(2, 1)");
  expected[5] = 6;
  std::vector<std::uint8_t> be(expected.size() * 4);
  for (std::size_t i = 0; i < expected.size(); ++i) {
    std::uint32_t u;
    std::memcpy(&u, &expected[i], 4);
    for (int k = 0; k < 4; ++k) be[i * 4 + k] = static_cast<std::uint8_t>(u >> (24 - 8 * k));
  }
  const TensorView big(be.data(), DType::float32, {3, 2}, {2, 1}, ByteOrder::big);
  EXPECT_TRUE(standards::Torch{}.check(transposed, big).passed());
}

// Golden messages: the literal strings torch.testing.assert_close printed for
// the same inputs (torch 1.13); tensordiff adds lines after them.
TEST(TorchStandard, MessagesMatchTorchTesting) {
  struct Case {
    const char* dtype;
    std::vector<double> a, e;
    Shape shape;
    standards::Torch s;
    const char* torch_message;
  };
  const Case cases[] = {
      {"float32", {1, 4, 5}, {1, 2, 3}, {3}, {},
       "Tensor-likes are not close!\n\nMismatched elements: 2 / 3 (66.7%)\nGreatest absolute difference: 2.0 at index "
       "(1,) (up to 1e-05 allowed)\nGreatest relative difference: 1.0 at index (1,) (up to 1.3e-06 allowed)"},
      {"float32", {1, 2, 3, 4, 5, 6}, {1, 2, 3, 4, 5.5, 6}, {2, 3}, {},
       "Tensor-likes are not close!\n\nMismatched elements: 1 / 6 (16.7%)\nGreatest absolute difference: 0.5 at index "
       "(1, 1) (up to 1e-05 allowed)\nGreatest relative difference: 0.09090909090909091 at index (1, 1) (up to "
       "1.3e-06 allowed)"},
      {"float16", {1.0, 2.0, 0.0}, {1.0, 2.004, 1e-3}, {3}, {},
       "Tensor-likes are not close!\n\nMismatched elements: 2 / 3 (66.7%)\nGreatest absolute difference: 0.00390625 at "
       "index (1,) (up to 1e-05 allowed)\nGreatest relative difference: 1.0 at index (2,) (up to 0.001 allowed)"},
      {"float32", {1, kNaN, 3}, {1, 2, 3}, {3}, {},
       "Tensor-likes are not close!\n\nMismatched elements: 1 / 3 (33.3%)\nGreatest absolute difference: nan at index "
       "(1,) (up to 1e-05 allowed)\nGreatest relative difference: nan at index (1,) (up to 1.3e-06 allowed)"},
      {"float32", {0.5, 1.0}, {0.0, 1.0}, {2}, {},
       "Tensor-likes are not close!\n\nMismatched elements: 1 / 2 (50.0%)\nGreatest absolute difference: 0.5 at index "
       "(0,) (up to 1e-05 allowed)\nGreatest relative difference: inf at index (0,) (up to 1.3e-06 allowed)"},
      {"float64", {kInf, 1.0}, {-kInf, 1.0}, {2}, {},
       "Tensor-likes are not close!\n\nMismatched elements: 1 / 2 (50.0%)\nGreatest absolute difference: inf at index "
       "(0,) (up to 1e-07 allowed)\nGreatest relative difference: nan at index (0,) (up to 1e-07 allowed)"},
      {"float32", {2.0}, {1.0}, {}, {},
       "Scalars are not close!\n\nAbsolute difference: 1.0 (up to 1e-05 allowed)\nRelative difference: 1.0 (up to "
       "1.3e-06 allowed)"},
      {"float32", {1.0, 1.1, 1.2}, {1.0, 1.0, 1.0}, {3}, {0.05, 0.01},
       "Tensor-likes are not close!\n\nMismatched elements: 2 / 3 (66.7%)\nGreatest absolute difference: "
       "0.20000004768371582 at index (2,) (up to 0.01 allowed)\nGreatest relative difference: 0.20000004768371582 at "
       "index (2,) (up to 0.05 allowed)"},
  };
  for (const Case& c : cases) {
    Tensor a = tensor_of(c.dtype, c.a), e = tensor_of(c.dtype, c.e);
    const TensorView va(a.view().data, a.dtype(), c.shape), ve(e.view().data, e.dtype(), c.shape);
    const std::string msg = report::format_verdict(c.s.check(va, ve));
    const int lines = c.shape.empty() ? 4 : 5;
    EXPECT_EQ(first_lines(msg, lines), c.torch_message) << msg;
  }
  // integers: "not equal", integer differences, no "(up to … allowed)"
  const std::vector<std::int32_t> ia{1, 7, 3}, ie{1, 2, 3};
  EXPECT_EQ(first_lines(report::format_verdict(standards::Torch{}.check(view1(ia), view1(ie))), 5),
            "Tensor-likes are not equal!\n\nMismatched elements: 1 / 3 (33.3%)\nGreatest absolute difference: 5 at "
            "index (1,)\nGreatest relative difference: 2.5 at index (1,)");
  // torch divides integer tensors in float32 (its default dtype): 1/3 prints float32's digits
  const std::vector<std::int64_t> la{0, 4}, le{0, 3};
  EXPECT_NE(report::format_verdict(standards::Torch{}.check(view1(la), view1(le)))
                .find("Greatest relative difference: 0.3333333432674408 at index (1,)"),
            std::string::npos);
}

TEST(TorchStandard, WorstElementsAreRankedAndCapped) {
  std::vector<float> e(100, 1.0f), a = e;
  a[10] = 3.0f;   // abs 2
  a[20] = 1.5f;   // abs 0.5
  a[30] = std::numeric_limits<float>::quiet_NaN();
  a[40] = 3.0f;   // tie with 10: first index first
  a[50] = 1.25f;  // abs 0.25, drops out with worst_count 4
  CheckOptions o;
  o.worst_count = 4;
  const Verdict v = standards::Torch{}.check(view1(a), view1(e), o);
  EXPECT_EQ(v.mismatched, 5u);
  ASSERT_EQ(v.worst.size(), 4u);
  EXPECT_EQ(v.worst[0].index, 30u);
  EXPECT_EQ(v.worst[1].index, 10u);
  EXPECT_EQ(v.worst[2].index, 40u);
  EXPECT_EQ(v.worst[3].index, 20u);
  EXPECT_EQ(v.greatest_abs.index, 30u);  // NaN is the greatest, as torch.max propagates it
  const std::string msg = report::format_verdict(v);
  EXPECT_NE(msg.find("Worst elements (4 of 5):\n  (30,): actual nan, expected 1.0"), std::string::npos) << msg;
}

TEST(TorchStandard, EmptyTensorsPass) {
  const std::vector<float> none;
  const Verdict v = standards::Torch{}.check(view1(none), view1(none));
  EXPECT_TRUE(v.passed());
  EXPECT_EQ(v.numel, 0u);
}

// ---- numpy (assert_allclose and isclose defaults) ----------------------------------------------------------

TEST(NumpyStandards, BoundaryTableFromNumpy) {
  static const TableRow rows[] = {
#include "standards_numpy_table.inc"
  };
  for (const auto& r : rows) {
    const std::vector<double> a{r.actual}, e{r.expected};
    const bool allclose = std::string(r.dtype) == "numpy";
    const Verdict v = allclose ? standards::Numpy{}.check(view1(a), view1(e)) : standards::Numpy::isclose().check(view1(a), view1(e));
    EXPECT_EQ(v.passed(), r.close) << r.dtype << " " << r.actual << " vs " << r.expected;
  }
}

TEST(NumpyStandards, DefaultsAndNanPolicy) {
  EXPECT_EQ(standards::Numpy{}.rtol, 1e-7);
  EXPECT_EQ(standards::Numpy{}.atol, 0.0);
  EXPECT_TRUE(standards::Numpy{}.equal_nan);
  EXPECT_EQ(standards::Numpy::isclose().rtol, 1e-5);
  EXPECT_EQ(standards::Numpy::isclose().atol, 1e-8);
  EXPECT_FALSE(standards::Numpy::isclose().equal_nan);
  const std::vector<double> n{kNaN, kInf}, n2{kNaN, kInf};
  EXPECT_TRUE(standards::Numpy{}.check(view1(n), view1(n2)).passed());
  EXPECT_FALSE(standards::Numpy::isclose().check(view1(n), view1(n2)).passed());
  // asymmetric: |a − e| ≤ atol + rtol·|e| uses the expected side only
  const std::vector<double> one{1.0}, two{2.0};
  EXPECT_TRUE((standards::Numpy{0.5, 0.0}.check(view1(one), view1(two)).passed()));   // 1 ≤ 0.5·2
  EXPECT_FALSE((standards::Numpy{0.5, 0.0}.check(view1(two), view1(one)).passed()));  // 1 > 0.5·1
}

// ---- ulp -----------------------------------------------------------------------

namespace {
float step_f(float x, int n) {
  for (int i = 0; i < std::abs(n); ++i) x = std::nextafter(x, n > 0 ? std::numeric_limits<float>::infinity() : -std::numeric_limits<float>::infinity());
  return x;
}
}  // namespace

TEST(UlpStandard, Float32Boundaries) {
  const standards::Ulp u4{4};
  auto dist_ok = [&](float a, float e) {
    const std::vector<float> va{a}, ve{e};
    return u4.check(view1(va), view1(ve)).passed();
  };
  EXPECT_TRUE(dist_ok(step_f(1.0f, 4), 1.0f));
  EXPECT_FALSE(dist_ok(step_f(1.0f, 5), 1.0f));
  EXPECT_TRUE(dist_ok(step_f(1.0f, -4), 1.0f));  // below 1 the spacing halves: still 4 steps
  EXPECT_FALSE(dist_ok(step_f(1.0f, -5), 1.0f));
  const float tiny = std::numeric_limits<float>::denorm_min();
  EXPECT_TRUE(dist_ok(-tiny, tiny));             // 2 steps across ±0
  EXPECT_TRUE(dist_ok(-0.0f, 0.0f));
  EXPECT_FALSE(dist_ok(-3 * tiny, 2 * tiny));    // 5 steps
  EXPECT_TRUE(dist_ok(std::numeric_limits<float>::infinity(), std::numeric_limits<float>::max()));  // 1 step
  EXPECT_FALSE(dist_ok(std::numeric_limits<float>::quiet_NaN(), std::numeric_limits<float>::quiet_NaN()));
  const std::vector<float> n{std::numeric_limits<float>::quiet_NaN()};
  EXPECT_TRUE((standards::Ulp{0, true}.check(view1(n), view1(n)).passed()));
  const std::vector<float> a{step_f(2.0f, 7)}, e{2.0f};
  const Verdict v = standards::Ulp{4}.check(view1(a), view1(e));
  EXPECT_EQ(v.greatest_ulp.ulp_diff, 7.0);
  EXPECT_NE(report::format_verdict(v).find("Greatest ULP difference: 7 at index (0,) (up to 4 allowed)"),
            std::string::npos);
}

// gtest's FloatEq/DoubleEq are "within 4 ULPs": an independent reference.
TEST(UlpStandard, AgreesWithGoogleTestAlmostEquals) {
  std::mt19937 rng(7);
  std::uniform_int_distribution<int> steps(-7, 7);
  std::uniform_real_distribution<float> mag(-1e3f, 1e3f);
  std::vector<float> a, e;
  for (int i = 0; i < 4000; ++i) {
    const float x = i % 50 == 0 ? 0.0f : mag(rng);
    e.push_back(x);
    a.push_back(step_f(x, steps(rng)));
  }
  CheckOptions o;
  o.worst_count = 0;
  std::size_t expected_mismatch = 0;
  for (std::size_t i = 0; i < a.size(); ++i)
    expected_mismatch += !::testing::internal::FloatingPoint<float>(a[i]).AlmostEquals(::testing::internal::FloatingPoint<float>(e[i]));
  EXPECT_EQ(standards::Ulp{4}.check(view1(a), view1(e), o).mismatched, expected_mismatch);
  EXPECT_GT(expected_mismatch, 500u);
}

TEST(UlpStandard, HalfAndBfloatAndMixed) {
  auto h = [](std::uint16_t b) { return float16::from_bits(b); };
  auto bf = [](std::uint16_t b) { return bfloat16::from_bits(b); };
  const std::vector<float16> one{h(0x3C00)}, four{h(0x3C04)}, five{h(0x3C05)}, maxh{h(0x7BFF)}, infh{h(0x7C00)};
  EXPECT_TRUE(standards::Ulp{4}.check(view1(four), view1(one)).passed());
  EXPECT_FALSE(standards::Ulp{4}.check(view1(five), view1(one)).passed());
  EXPECT_TRUE(standards::Ulp{1}.check(view1(infh), view1(maxh)).passed());
  const std::vector<bfloat16> b1{bf(0x3F80)}, b4{bf(0x3F84)}, b5{bf(0x3F85)}, bneg{bf(0x8001)}, bpos{bf(0x0001)};
  EXPECT_TRUE(standards::Ulp{4}.check(view1(b4), view1(b1)).passed());
  EXPECT_FALSE(standards::Ulp{4}.check(view1(b5), view1(b1)).passed());
  EXPECT_EQ(standards::Ulp{0}.check(view1(bneg), view1(bpos)).greatest_ulp.ulp_diff, 2.0);
  // f32 actual vs bf16 expected: measured in bf16 units (2^-7 at 1.0):
  // 1 + 3·2^-7 is 3 bf16 steps; 1 + 4.4·2^-7 rounds to 4 steps; 1 + 4.6·2^-7 to 5.
  const std::vector<float> f3{1.0f + 3.0f / 128}, f44{1.0f + 4.4f / 128}, f46{1.0f + 4.6f / 128};
  EXPECT_TRUE(standards::Ulp{3}.check(view1(f3), view1(b1)).passed());
  EXPECT_TRUE(standards::Ulp{4}.check(view1(f44), view1(b1)).passed());
  EXPECT_FALSE(standards::Ulp{4}.check(view1(f46), view1(b1)).passed());
  EXPECT_NE(standards::Ulp{4}.check(view1(f46), view1(b1)).description.find("bfloat16"), std::string::npos);
}

TEST(UlpStandard, IntegersUseTheExactDifference) {
  const std::vector<std::int64_t> a{std::numeric_limits<std::int64_t>::max(), 5}, e{std::numeric_limits<std::int64_t>::max() - 4, 0};
  const Verdict v = standards::Ulp{4}.check(view1(a), view1(e));
  EXPECT_EQ(v.mismatched, 1u);
  EXPECT_EQ(v.greatest_ulp.index, 1u);
  EXPECT_EQ(v.greatest_ulp.ulp_diff, 5.0);
}

TEST(UlpStandard, Float64) {
  const std::vector<double> e{1.0}, a4{std::nextafter(std::nextafter(std::nextafter(std::nextafter(1.0, 2.0), 2.0), 2.0), 2.0)};
  const std::vector<double> a5{std::nextafter(a4[0], 2.0)};
  EXPECT_TRUE(standards::Ulp{4}.check(view1(a4), view1(e)).passed());
  EXPECT_FALSE(standards::Ulp{4}.check(view1(a5), view1(e)).passed());
}

// ---- polygraphy ------------------------------------------------------------------

TEST(PolygraphyStandard, FailsOnlyWhereBothToleranceAreExceeded) {
  const standards::Polygraphy p;  // rtol 1e-5, atol 1e-5
  auto ok = [&](double a, double e, const standards::Polygraphy& s) {
    const std::vector<double> va{a}, ve{e};
    return s.check(view1(va), view1(ve)).passed();
  };
  EXPECT_TRUE(ok(1000.001, 1000.0, p));   // abs 1e-3 > atol but rel 1e-6 ≤ rtol
  EXPECT_TRUE(ok(0.5 + 9e-6, 0.5, p));    // rel 1.8e-5 > rtol but abs 9e-6 ≤ atol
  EXPECT_FALSE(ok(1.0 + 2e-5, 1.0, p));   // both exceeded
  EXPECT_TRUE(ok(1.0 + 0.99e-5, 1.0, p));
  EXPECT_TRUE(ok(5e-6, 0.0, p));          // e == 0: abs decides
  EXPECT_FALSE(ok(2e-5, 0.0, p));         // rel = 2e-5 / 2.22e-16
  EXPECT_FALSE(ok(kNaN, kNaN, p));          // NaN fails
  EXPECT_FALSE(ok(kInf, kInf, p));          // kInf − kInf = NaN
  standards::Polygraphy eq;
  eq.infinities_compare_equal = true;
  EXPECT_TRUE(ok(kInf, kInf, eq));
  EXPECT_FALSE(ok(kInf, -kInf, eq));
}

TEST(PolygraphyStandard, ErrorStatistics) {
  // abs diffs {0, 0, 0, 0, 1}: max 1, mean 0.2, median 0, 0.9-quantile (numpy
  // linear) = 1 − 1·(1 − 0.6) = 0.6000000000000001 in doubles, as
  // np.quantile([0, 0, 0, 0, 1.], 0.9) prints.
  const std::vector<double> e{10, 10, 10, 10, 10}, a{10, 10, 10, 10, 11};
  auto verdict = [&](ErrorStat s, double atol, double q = 0.99) {
    standards::Polygraphy p;
    p.stat = s;
    p.atol = atol;
    p.rtol = 0.0;  // rel diffs are abs / 10: > 0 wherever abs > 0
    p.quantile = q;
    return p.check(view1(a), view1(e));
  };
  EXPECT_TRUE(verdict(ErrorStat::median, 0.0).passed());
  EXPECT_TRUE(verdict(ErrorStat::mean, 0.2).passed());
  EXPECT_FALSE(verdict(ErrorStat::mean, 0.19).passed());
  EXPECT_TRUE(verdict(ErrorStat::max, 1.0).passed());
  EXPECT_FALSE(verdict(ErrorStat::max, 0.99).passed());
  EXPECT_TRUE(verdict(ErrorStat::quantile, 0.6000000000000001, 0.9).passed());
  EXPECT_FALSE(verdict(ErrorStat::quantile, 0.6, 0.9).passed());
  EXPECT_FALSE(verdict(ErrorStat::elemwise, 0.99).passed());
  std::vector<double> x{4, 0, 3, 1, 2};
  EXPECT_DOUBLE_EQ(standards::Polygraphy::quantile_of(x, 0.9), 3.6);
  std::vector<double> y{1, 2, 3, 4};
  EXPECT_EQ(standards::Polygraphy::statistic(y, ErrorStat::median, 0), 2.5);
  std::vector<double> z{1, kNaN};
  EXPECT_TRUE(std::isnan(standards::Polygraphy::statistic(z, ErrorStat::max, 0)));
}

TEST(PolygraphyStandard, BadQuantileIsRejectedWhateverTheShapes) {
  // The option is checked before anything else: a shape mismatch must not hide it.
  const std::vector<double> a{1, 2, 3}, e{1, 2};
  for (double q : {1.5, -0.1, kNaN}) {
    standards::Polygraphy p;
    p.stat = ErrorStat::quantile;
    p.quantile = q;
    EXPECT_THROW(p.check(view1(a), view1(e)), Error) << q;  // shapes differ
    EXPECT_THROW(p.check(view1(a), view1(a)), Error) << q;  // shapes equal
  }
  // By name: '=' needs a number, and only quantile takes one.
  EXPECT_THROW(standard_from_name("polygraphy:quantile="), Error);
  EXPECT_THROW(standard_from_name("polygraphy:max="), Error);
  EXPECT_THROW(standard_from_name("polygraphy:quantile=0.5x"), Error);
  EXPECT_EQ(std::get<standards::Polygraphy>(standard_from_name("polygraphy:quantile").variant()).quantile, 0.99);
}

// ---- msprobe compare (legacy Accuracy Reached or Not) -------------------------------

namespace {
Comparison metrics(double cos, double mae, MetricStatus cos_status = MetricStatus::ok) {
  Comparison c;
  c.numel = 4;
  c.cosine = cos_status == MetricStatus::ok ? Metric::of(cos) : Metric::none(cos_status);
  c.max_abs_err = Metric::of(mae);
  return c;
}
}  // namespace

TEST(MsprobeCompareStandard, LegacyRuleBoundaries) {
  const standards::MsprobeCompare m;
  EXPECT_EQ(m.check(metrics(0.99, 0.5)).level, VerdictLevel::pass);           // cos not < 0.99
  EXPECT_EQ(m.check(metrics(0.98999, 0.001)).level, VerdictLevel::pass);      // mae not > 0.001
  EXPECT_EQ(m.check(metrics(0.98999, 0.0010001)).level, VerdictLevel::error); // both
  EXPECT_EQ(m.check(metrics(0.995, 1.0)).level, VerdictLevel::pass);          // mae not > 1
  EXPECT_EQ(m.check(metrics(0.995, 1.0000001)).level, VerdictLevel::error);
  EXPECT_EQ(m.check(metrics(0.8999, 0.0005)).level, VerdictLevel::error);     // cos < 0.9
  EXPECT_EQ(m.check(metrics(0.9, 0.0005)).level, VerdictLevel::pass);
  EXPECT_EQ(m.check(metrics(0, 0.0005, MetricStatus::nan)).level, VerdictLevel::pass);  // float('Nan') compares false
  EXPECT_EQ(m.check(metrics(0, 2.0, MetricStatus::nan)).level, VerdictLevel::error);
  EXPECT_EQ(m.check(metrics(0, 0, MetricStatus::unsupported)).level, VerdictLevel::not_judged);
  EXPECT_EQ(m.check(metrics(0, 0, MetricStatus::not_available)).level, VerdictLevel::error);
  Comparison unmatched = metrics(0, 0, MetricStatus::shape_unmatched);
  unmatched.validation = Validation::shape_unmatched;
  EXPECT_EQ(m.check(unmatched).level, VerdictLevel::error);
}

TEST(MsprobeCompareStandard, OnRealTensors) {
  // cos([1,0],[1,1]) = 1/√2 ≈ 0.707 < 0.9 → error; identical → pass;
  // kNaN at the same position is ignored; at different positions N/A → error.
  const std::vector<float> a{1, 0}, e{1, 1}, n1{1, NAN, 2}, n2{1, NAN, 2}, n3{NAN, 1, 2};
  const standards::MsprobeCompare m;
  EXPECT_EQ(m.check(view1(a), view1(e)).level, VerdictLevel::error);
  EXPECT_NEAR(m.check(view1(a), view1(e)).cosine, 1 / std::sqrt(2.0), 1e-15);
  EXPECT_EQ(m.check(view1(e), view1(e)).level, VerdictLevel::pass);
  EXPECT_EQ(m.check(view1(n1), view1(n2)).level, VerdictLevel::pass);
  EXPECT_EQ(m.check(view1(n1), view1(n3)).level, VerdictLevel::error);
  const std::vector<float> one{1.0f};  // shape [1] squeezes to 0-d: cosine unsupported → None
  EXPECT_EQ(m.check(view1(one), view1(one)).level, VerdictLevel::not_judged);
}

// ---- msprobe pre-check ---------------------------------------------------------------

TEST(MsprobePrecheckStandard, LadderFloat32) {
  const standards::MsprobePrecheck p;
  const std::size_t n = 10000;
  auto with_bad = [&](std::size_t bad, float bad_value, float rest) {
    std::vector<float> a(n, rest), e(n, 1000.0f);
    for (std::size_t i = 0; i < bad; ++i) a[i * 7] = bad_value;
    return p.check(view1(a), view1(e));
  };
  // all RE = 0.05/1000 = 5e-5 < 1e-4 and max abs ≥ 0.001 → pass on the ratios
  EXPECT_EQ(with_bad(0, 0, 1000.05f).level, VerdictLevel::pass);
  // 1002 has RE 0.002 ≥ 0.001: 10 of 10000 → thousandth ratio 0.999 (not > 0.999) → error
  EXPECT_EQ(with_bad(10, 1002.0f, 1000.0f).level, VerdictLevel::error);
  // 9 → 0.9991 > 0.999, but ten-thousandth ratio 0.9991 ≤ 0.9999 → warning
  EXPECT_EQ(with_bad(9, 1002.0f, 1000.0f).level, VerdictLevel::warning);
  // 1 → 0.9999 ≤ 0.9999 → warning
  EXPECT_EQ(with_bad(1, 1002.0f, 1000.0f).level, VerdictLevel::warning);
  // tiny errors: max abs < 0.001 → pass whatever the ratios
  std::vector<float> a{1e-6f, 2e-6f}, e{2e-6f, 1e-6f};
  EXPECT_EQ(p.check(view1(a), view1(e)).level, VerdictLevel::error);  // cosine 0.8 ≤ 0.99 comes first
  std::vector<float> a2{1.0f, 2.0f}, e2{1.0005f, 2.0f};
  EXPECT_EQ(p.check(view1(a2), view1(e2)).level, VerdictLevel::pass);
  // cosine: one side all zero → error; both zero → not judged, then max abs 0 → pass
  std::vector<float> z{0, 0}, o{1, 1};
  EXPECT_EQ(p.check(view1(z), view1(o)).level, VerdictLevel::error);
  EXPECT_EQ(p.check(view1(z), view1(z)).level, VerdictLevel::pass);
}

TEST(MsprobePrecheckStandard, LadderHalf) {
  // f16 at 1000: spacing 0.5. RE of 1000.5 vs 1000 = 5e-4 (< 0.001), of 1008 = 0.008
  // (< 0.01, ≥ 0.001), of 1024 = 0.024 (≥ 0.01).
  const standards::MsprobePrecheck p;
  const std::size_t n = 1000;
  auto run = [&](std::size_t n_mid, std::size_t n_far) {
    std::vector<float16> a(n, float16(1000.5f)), e(n, float16(1000.0f));
    for (std::size_t i = 0; i < n_mid; ++i) a[i] = float16(1008.0f);
    for (std::size_t i = 0; i < n_far; ++i) a[n - 1 - i] = float16(1024.0f);
    return p.check(view1(a), view1(e)).level;
  };
  EXPECT_EQ(run(0, 0), VerdictLevel::pass);
  EXPECT_EQ(run(1, 0), VerdictLevel::warning);  // thousandth ratio 0.999, not > 0.999
  EXPECT_EQ(run(0, 9), VerdictLevel::warning);  // hundredth 0.991 > 0.99; thousandth 0.991
  EXPECT_EQ(run(0, 10), VerdictLevel::error);   // hundredth 0.99, not > 0.99
}

TEST(MsprobePrecheckStandard, IntegersNanAndThousandth) {
  const std::vector<std::int32_t> i1{1, 2, 3}, i2{1, 2, 4}, i3{1, 2, 5};
  EXPECT_EQ(standards::MsprobePrecheck{}.check(view1(i1), view1(i1)).level, VerdictLevel::pass);
  EXPECT_EQ(standards::MsprobePrecheck{}.check(view1(i2), view1(i1)).level, VerdictLevel::error);
  standards::MsprobePrecheck q;
  q.quantized = true;
  EXPECT_EQ(q.check(view1(i2), view1(i1)).level, VerdictLevel::pass);
  EXPECT_EQ(q.check(view1(i3), view1(i1)).level, VerdictLevel::error);
  const std::vector<float> n1{1, NAN, INFINITY, 2}, n2{1, NAN, INFINITY, 2}, n3{1, NAN, -INFINITY, 2};
  EXPECT_EQ(standards::MsprobePrecheck{}.check(view1(n1), view1(n2)).level, VerdictLevel::pass);
  EXPECT_EQ(standards::MsprobePrecheck{}.check(view1(n1), view1(n3)).level, VerdictLevel::error);
  standards::MsprobePrecheck t;
  t.method = standards::MsprobePrecheck::Method::thousandth;
  auto run = [&](std::size_t bad) {
    std::vector<float> a(10000, 1000.0f), e(10000, 1000.0f);
    for (std::size_t i = 0; i < bad; ++i) a[i] = 1002.0f;
    return t.check(view1(a), view1(e)).level;
  };
  EXPECT_EQ(run(10), VerdictLevel::pass);  // 0.999 ≥ 0.999
  EXPECT_EQ(run(11), VerdictLevel::error);
}

TEST(MsprobePrecheckStandard, UlpMethod) {
  standards::MsprobePrecheck p;
  p.method = standards::MsprobePrecheck::Method::ulp;
  // f16 at 1.0: eb = 0, ulp_err = |a − e|·2^10; 1 + 2^-10 → 1 ULP, 1 + 2^-9 → 2.
  auto half = [&](std::size_t n_two) {
    std::vector<float16> a(2000, float16(1.0f + 0.0009765625f)), e(2000, float16(1.0f));
    for (std::size_t i = 0; i < n_two; ++i) a[i] = float16(1.0f + 0.001953125f);
    return p.check(view1(a), view1(e)).level;
  };
  EXPECT_EQ(half(1), VerdictLevel::pass);   // proportion 0.0005 < 0.001
  EXPECT_EQ(half(2), VerdictLevel::error);  // 0.001
  // f32 at 1.0: ulp_err = |a − e|·2^23. 100 elements: 3 at 1000 ULP, rest 0:
  // mean 30 < 64 → pass; 7 at 1000: mean 70, proportion(> 32) 0.07 → error;
  // 4 at 1000 and mean 40... use 5 at 2000: mean 100 but proportion 0.05 → error, 4 → 0.04 → pass.
  auto single = [&](std::size_t k, float ulps) {
    std::vector<float> a(100, 1.0f), e(100, 1.0f);
    for (std::size_t i = 0; i < k; ++i) a[i] = 1.0f + ulps * std::ldexp(1.0f, -23);
    return p.check(view1(a), view1(e)).level;
  };
  EXPECT_EQ(single(3, 1000), VerdictLevel::pass);
  EXPECT_EQ(single(7, 1000), VerdictLevel::error);
  EXPECT_EQ(single(4, 2000), VerdictLevel::pass);
  EXPECT_EQ(single(5, 2000), VerdictLevel::error);
  const std::vector<double> d{1.0};
  EXPECT_EQ(p.check(view1(d), view1(d)).level, VerdictLevel::not_judged);
}

// ---- bitwise and the by-name factory --------------------------------------------------

TEST(BitwiseStandard, BitsNotValues) {
  const std::vector<float> pz{0.0f}, nz{-0.0f};
  EXPECT_FALSE(standards::Bitwise{}.check(view1(pz), view1(nz)).passed());
  const std::vector<float> n{std::numeric_limits<float>::quiet_NaN()};
  EXPECT_TRUE(standards::Bitwise{}.check(view1(n), view1(n)).passed());
  const std::vector<double> d{0.0};
  EXPECT_FALSE(standards::Bitwise{}.check(view1(pz), view1(d)).passed());
  EXPECT_EQ(standards::Bitwise{}.check(view1(pz), view1(d)).reasons.at(0),
            "The values for attribute 'dtype' do not match: float32 != float64.");
}

TEST(StandardFromName, AllNamesAndErrors) {
  auto is = [](const Standard& s, std::size_t index) { return s.variant().index() == index; };
  EXPECT_TRUE(is(standard_from_name("torch"), 0));
  EXPECT_TRUE(is(standard_from_name("numpy"), 1));
  EXPECT_TRUE(is(standard_from_name("isclose"), 1));  // numpy's rule with isclose's defaults
  const auto ic = std::get<standards::Numpy>(standard_from_name("isclose").variant());
  EXPECT_EQ(ic.rtol, 1e-5);
  EXPECT_EQ(ic.atol, 1e-8);
  EXPECT_FALSE(ic.equal_nan);
  EXPECT_TRUE(is(standard_from_name("ulp:7"), 2));
  EXPECT_EQ(std::get<standards::Ulp>(standard_from_name("ulp:7").variant()).max_ulps, 7u);
  EXPECT_TRUE(is(standard_from_name("polygraphy"), 3));
  const auto q = std::get<standards::Polygraphy>(standard_from_name("polygraphy:quantile=0.5", 0.1, 0.2).variant());
  EXPECT_EQ(q.stat, ErrorStat::quantile);
  EXPECT_EQ(q.quantile, 0.5);
  EXPECT_EQ(q.rtol, 0.1);
  EXPECT_EQ(q.atol, 0.2);
  EXPECT_TRUE(is(standard_from_name("msprobe"), 4));
  EXPECT_TRUE(is(standard_from_name("precheck"), 5));
  EXPECT_EQ(std::get<standards::MsprobePrecheck>(standard_from_name("precheck:ulp").variant()).method,
            standards::MsprobePrecheck::Method::ulp);
  EXPECT_TRUE(is(standard_from_name("bitwise"), 6));
  const auto t = std::get<standards::Torch>(standard_from_name("torch", 1e-3, 1e-4).variant());
  EXPECT_EQ(*t.rtol, 1e-3);
  EXPECT_EQ(*t.atol, 1e-4);
  EXPECT_EQ(std::get<standards::Numpy>(standard_from_name("numpy", std::nullopt, 1e-9).variant()).atol, 1e-9);
  EXPECT_THROW(standard_from_name("torch", 1e-3), Error);
  EXPECT_THROW(standard_from_name("ulp:x"), Error);
  EXPECT_THROW(standard_from_name("ulp", 1e-3), Error);
  EXPECT_THROW(standard_from_name("msprobe", std::nullopt, 1.0), Error);
  EXPECT_THROW(standard_from_name("polygraphy:mode"), Error);
  EXPECT_THROW(standard_from_name("polygraphy:quantile=2"), Error);
  EXPECT_THROW(standard_from_name("numpy", -1.0), Error);
  EXPECT_THROW(standard_from_name("nope"), Error);
  // a ':' with nothing after it is a mistake, never the preset's default
  for (const char* empty : {"ulp:", "polygraphy:", "precheck:", "torch:", "numpy:"})
    EXPECT_THROW(standard_from_name(empty), Error) << empty;
  // a Standard runs its preset
  const std::vector<float> a{1.0f}, e{1.5f};
  EXPECT_EQ(standard_from_name("isclose").check(view1(a), view1(e)).standard, "numpy");
}
