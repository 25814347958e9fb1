// float16 / bfloat16 conversions against references written here: widening is
// checked for all 65536 patterns against a long-double decode; narrowing
// against a brute-force nearest-value search (ties to even) around every
// rounding boundary and over many random floats.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstring>
#include <random>
#include <vector>

#include <tensordiff/core/half.hpp>

namespace {
using namespace tensordiff;

long double decode(std::uint16_t h, int exp_bits) {
  const int man_bits = 15 - exp_bits, bias = (1 << (exp_bits - 1)) - 1;
  const int s = h >> 15, e = (h >> man_bits) & ((1 << exp_bits) - 1), m = h & ((1 << man_bits) - 1);
  long double v;
  if (e == (1 << exp_bits) - 1) v = m ? NAN : INFINITY;
  else if (e == 0) v = std::ldexp(static_cast<long double>(m), 1 - bias - man_bits);
  else v = std::ldexp(static_cast<long double>((1 << man_bits) + m), e - bias - man_bits);
  return s ? -v : v;
}
long double decode_f16(std::uint16_t h) { return decode(h, 5); }
long double decode_bf16(std::uint16_t h) { return decode(h, 8); }

std::uint32_t bits_of(float f) {
  std::uint32_t u;
  std::memcpy(&u, &f, 4);
  return u;
}
float float_of(std::uint32_t u) {
  float f;
  std::memcpy(&f, &u, 4);
  return f;
}

TEST(Half, Float16WideningAllPatterns) {
  for (std::uint32_t h = 0; h < 65536; ++h) {
    const float got = static_cast<float>(float16::from_bits(static_cast<std::uint16_t>(h)));
    const long double want = decode_f16(static_cast<std::uint16_t>(h));
    if (std::isnan(want)) {
      ASSERT_TRUE(std::isnan(got)) << std::hex << h;
      ASSERT_EQ(bits_of(got) >> 31, h >> 15) << "nan sign " << std::hex << h;
    } else {
      ASSERT_EQ(static_cast<long double>(got), want) << std::hex << h;
      ASSERT_EQ(std::signbit(got), (h >> 15) != 0) << std::hex << h;
    }
    ASSERT_EQ(static_cast<double>(float16::from_bits(static_cast<std::uint16_t>(h))) == static_cast<double>(got),
              !std::isnan(got));
  }
}

TEST(Half, Bfloat16WideningAllPatterns) {
  for (std::uint32_t h = 0; h < 65536; ++h) {
    const float got = static_cast<float>(bfloat16::from_bits(static_cast<std::uint16_t>(h)));
    const long double want = decode_bf16(static_cast<std::uint16_t>(h));
    if (std::isnan(want)) {
      ASSERT_TRUE(std::isnan(got)) << std::hex << h;
    } else {
      ASSERT_EQ(static_cast<long double>(got), want) << std::hex << h;
      ASSERT_EQ(std::signbit(got), (h >> 15) != 0) << std::hex << h;
    }
  }
}

/// Nearest-value reference: positive values of the format in increasing bit
/// order, plus the first value past the largest finite one (the overflow
/// "neighbour" 2^(emax+1), whose bit pattern is the infinity's).
struct Nearest {
  std::vector<long double> values;  // index = bit pattern (0 .. inf)
  explicit Nearest(int exp_bits) {
    const std::uint16_t inf_bits = static_cast<std::uint16_t>(((1u << exp_bits) - 1) << (15 - exp_bits));
    for (std::uint32_t b = 0; b < inf_bits; ++b) values.push_back(decode(static_cast<std::uint16_t>(b), exp_bits));
    const long double max = values.back(), prev = values[values.size() - 2];
    values.push_back(max + (max - prev));  // 2^(emax+1)
  }
  std::uint16_t operator()(float x) const {
    const std::uint16_t sign = std::signbit(x) ? 0x8000 : 0;
    const long double a = std::fabs(static_cast<long double>(x));
    if (a > values.back()) return static_cast<std::uint16_t>(sign | (values.size() - 1));
    const auto hi = static_cast<std::size_t>(std::lower_bound(values.begin(), values.end(), a) - values.begin());
    if (values[hi] == a || hi == 0) return static_cast<std::uint16_t>(sign | hi);
    const std::size_t lo = hi - 1;
    const long double dl = a - values[lo], dh = values[hi] - a;
    const std::size_t pick = dl < dh ? lo : dh < dl ? hi : (lo % 2 == 0 ? lo : hi);
    return static_cast<std::uint16_t>(sign | pick);
  }
};

/// Floats at and next to every midpoint between neighbours, plus specials.
std::vector<float> boundary_floats(const Nearest& ref) {
  std::vector<float> out;
  for (std::size_t i = 0; i + 1 < ref.values.size(); ++i) {
    const float mid = static_cast<float>((ref.values[i] + ref.values[i + 1]) / 2);
    for (float f : {mid, std::nextafter(mid, 0.f), std::nextafter(mid, INFINITY), static_cast<float>(ref.values[i])}) {
      out.push_back(f);
      out.push_back(-f);
    }
  }
  for (float f : {0.f, -0.f, INFINITY, -INFINITY, 3.4028235e38f, -3.4028235e38f, 1e-45f, -1e-45f, 1e-40f, 65520.f,
                  65519.996f, 65536.f, 1e30f})
    out.push_back(f);
  return out;
}

void check_narrowing(const Nearest& ref, std::uint16_t (*convert)(float), const char* name) {
  auto check = [&](float f) {
    const std::uint16_t got = convert(f), want = ref(f);
    ASSERT_EQ(got, want) << name << " of " << std::hexfloat << f << " (bits " << std::hex << bits_of(f) << ")";
  };
  for (float f : boundary_floats(ref)) check(f);
  std::mt19937 g(42);
  for (int i = 0; i < 1000000; ++i) {
    const float f = float_of(static_cast<std::uint32_t>(g()));
    if (!std::isnan(f)) check(f);
  }
  // every float in the subnormal / smallest-normal region of the target
  const std::uint32_t lo = bits_of(static_cast<float>(ref.values[1]) / 4), hi = bits_of(static_cast<float>(ref.values[2048]));
  for (std::uint32_t b = lo; b <= hi; b += 61) check(float_of(b));
}

TEST(Half, Float16NarrowingRoundsToNearestEven) {
  const Nearest ref(5);
  ASSERT_EQ(ref.values.size(), 0x7c01u);
  check_narrowing(ref, [](float f) { return float16(f).bits; }, "float16");
}

TEST(Half, Bfloat16NarrowingRoundsToNearestEven) {
  const Nearest ref(8);
  ASSERT_EQ(ref.values.size(), 0x7f81u);
  check_narrowing(ref, [](float f) { return bfloat16(f).bits; }, "bfloat16");
}

TEST(Half, NanStaysNan) {
  std::mt19937 g(7);
  for (int i = 0; i < 100000; ++i) {
    const std::uint32_t payload = 1 + static_cast<std::uint32_t>(g()) % 0x7fffffu;
    const float nan = float_of((static_cast<std::uint32_t>(g()) & 0x80000000u) | 0x7f800000u | payload);
    ASSERT_TRUE(std::isnan(nan));
    const float16 h(nan);
    const bfloat16 b(nan);
    ASSERT_TRUE(std::isnan(decode_f16(h.bits))) << std::hex << bits_of(nan);
    ASSERT_TRUE(std::isnan(decode_bf16(b.bits))) << std::hex << bits_of(nan);
    ASSERT_EQ(h.bits >> 15, bits_of(nan) >> 31);
    ASSERT_EQ(b.bits >> 15, bits_of(nan) >> 31);
  }
  EXPECT_EQ(float16(INFINITY).bits, 0x7c00);
  EXPECT_EQ(float16(-INFINITY).bits, 0xfc00);
  EXPECT_EQ(bfloat16(-INFINITY).bits, 0xff80);
  EXPECT_EQ(float16(-0.f).bits, 0x8000);
  EXPECT_EQ(bfloat16(-0.f).bits, 0x8000);
  EXPECT_EQ(float16(5.9604645e-08f).bits, 0x0001);  // smallest subnormal
  EXPECT_EQ(float16(2.9802322e-08f).bits, 0x0000);  // exactly half of it: tie to even (0)
  EXPECT_EQ(float16(65504.f).bits, 0x7bff);
  EXPECT_EQ(float16(65520.f).bits, 0x7c00);  // tie between 65504 and 2^16 goes to even: infinity
  EXPECT_EQ(bfloat16(1.00390625f).bits, 0x3f80);  // 1 + 2^-8: tie, to even
  EXPECT_EQ(bfloat16(1.01171875f).bits, 0x3f82);  // 1 + 3·2^-8: tie, to even (up)
}

TEST(Half, RangeConstantsMatchTheConversions) {
  EXPECT_EQ(static_cast<long double>(float16_max), decode_f16(0x7bff));
  EXPECT_EQ(static_cast<long double>(bfloat16_max), decode_bf16(0x7f7f));
  // the overflow thresholds are the smallest magnitudes that round to infinity
  const float f16_t = static_cast<float>(float16_overflow_threshold);
  const float bf16_t = static_cast<float>(bfloat16_overflow_threshold);
  EXPECT_EQ(static_cast<double>(f16_t), float16_overflow_threshold);  // exactly a float
  EXPECT_EQ(static_cast<double>(bf16_t), bfloat16_overflow_threshold);
  EXPECT_EQ(float16(f16_t).bits, 0x7c00);
  EXPECT_EQ(float16(std::nextafter(f16_t, 0.f)).bits, 0x7bff);
  EXPECT_EQ(bfloat16(bf16_t).bits, 0x7f80);
  EXPECT_EQ(bfloat16(std::nextafter(bf16_t, 0.f)).bits, 0x7f7f);
  EXPECT_EQ(bfloat16(-bf16_t).bits, 0xff80);
}

}  // namespace
