// float8_e4m3fn / float8_e5m2 against references written outside the library:
// widening of all 256 patterns of each format against the golden table that
// tests/data/float8/generate_float8_table.py computes with exact fractions
// from the OCP formulas; narrowing against a brute-force nearest-value search
// (ties to even) over that table, at every value, every midpoint and their
// float neighbours, and over many random floats.
#include <gtest/gtest.h>

#include <cmath>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <limits>
#include <random>
#include <sstream>
#include <string>
#include <vector>

#include <tensordiff/core/dtype.hpp>

namespace {
using namespace tensordiff;

struct Golden {
  double e4m3fn[256];
  double e5m2[256];
};

double parse_value(const std::string& s) {
  if (s == "nan") return std::numeric_limits<double>::quiet_NaN();
  if (s == "inf") return std::numeric_limits<double>::infinity();
  if (s == "-inf") return -std::numeric_limits<double>::infinity();
  return std::strtod(s.c_str(), nullptr);  // hex floats are exact
}

const Golden& golden() {
  static const Golden g = [] {
    Golden t{};
    std::ifstream in(std::string(TD_TEST_DATA_DIR) + "/float8/float8_table.txt");
    EXPECT_TRUE(in) << "missing tests/data/float8/float8_table.txt";
    std::string line;
    int rows = 0;
    while (std::getline(in, line)) {
      if (line.empty() || line[0] == '#') continue;
      std::istringstream ls(line);
      int b = -1;
      std::string a, c;
      ls >> b >> a >> c;
      EXPECT_EQ(b, rows) << line;
      if (b < 0 || b > 255) break;
      t.e4m3fn[b] = parse_value(a);
      t.e5m2[b] = parse_value(c);
      ++rows;
    }
    EXPECT_EQ(rows, 256);
    return t;
  }();
  return g;
}

std::uint32_t bits_of(float f) {
  std::uint32_t u;
  std::memcpy(&u, &f, 4);
  return u;
}

template <class F8> void check_widening(const double (&table)[256]) {
  for (unsigned b = 0; b < 256; ++b) {
    const F8 x = F8::from_bits(static_cast<std::uint8_t>(b));
    const float got = static_cast<float>(x);
    const double want = table[b];
    if (std::isnan(want)) {
      ASSERT_TRUE(std::isnan(got)) << std::hex << b;
      ASSERT_TRUE(std::isnan(static_cast<double>(x))) << std::hex << b;
    } else {
      ASSERT_EQ(static_cast<double>(got), want) << std::hex << b;
      ASSERT_EQ(static_cast<double>(x), want) << std::hex << b;
      ASSERT_EQ(std::signbit(got), b >= 0x80) << std::hex << b;
    }
  }
}

TEST(Float8, E4M3FNWideningAllPatterns) { check_widening<float8_e4m3fn>(golden().e4m3fn); }
TEST(Float8, E5M2WideningAllPatterns) { check_widening<float8_e5m2>(golden().e5m2); }

TEST(Float8, SpecialPatterns) {
  // E4M3FN: only S.1111.111 is NaN; no infinity; 0x7e is the largest finite value.
  int nan4 = 0, inf4 = 0, nan5 = 0, inf5 = 0;
  for (unsigned b = 0; b < 256; ++b) {
    nan4 += std::isnan(golden().e4m3fn[b]);
    inf4 += std::isinf(golden().e4m3fn[b]);
    nan5 += std::isnan(golden().e5m2[b]);
    inf5 += std::isinf(golden().e5m2[b]);
  }
  EXPECT_EQ(nan4, 2);
  EXPECT_EQ(inf4, 0);
  EXPECT_EQ(nan5, 6);
  EXPECT_EQ(inf5, 2);
  EXPECT_EQ(golden().e4m3fn[0x7e], float8_e4m3fn_max);
  EXPECT_EQ(golden().e5m2[0x7b], float8_e5m2_max);
}

/// Pattern `want` nearest to x among the finite values of the table, ties to the
/// even pattern. The pattern one past the largest finite value (0x7f = NaN in
/// E4M3FN, 0x7c = inf in E5M2) competes with its would-be value (480, 65536),
/// as PyTorch's non-saturating conversion does; beyond it, that pattern wins.
std::uint8_t nearest(double x, const double (&table)[256], bool e4m3fn) {
  const std::uint8_t sign = std::signbit(x) ? 0x80 : 0;
  const double ax = std::fabs(x);
  const unsigned over = e4m3fn ? 0x7f : 0x7c;
  const double over_value = e4m3fn ? 480.0 : 65536.0;
  if (ax >= over_value) return static_cast<std::uint8_t>(sign | over);
  unsigned best = 0;
  long double best_d = std::numeric_limits<long double>::infinity();
  for (unsigned p = 0; p <= over; ++p) {
    const long double v = p == over ? over_value : table[p];
    const long double d = std::fabs(static_cast<long double>(ax) - v);
    if (d < best_d || (d == best_d && (p & 1u) == 0)) {
      best = p;
      best_d = d;
    }
  }
  return static_cast<std::uint8_t>(sign | best);
}

template <class F8> void check_narrowing(const double (&table)[256], bool e4m3fn) {
  const unsigned over = e4m3fn ? 0x7f : 0x7c;
  std::vector<double> probes;
  for (unsigned p = 0; p < over; ++p) {
    const double v = table[p];
    const double next = p + 1 == over ? (e4m3fn ? 480.0 : 65536.0) : table[p + 1];
    const double mid = (v + next) / 2;
    for (double y : {v, mid, next})
      for (double z : {y, static_cast<double>(std::nextafter(static_cast<float>(y), 0.0f)),
                       static_cast<double>(std::nextafter(static_cast<float>(y), 1e30f))})
        probes.push_back(z);
  }
  std::mt19937_64 rng(7);
  std::uniform_real_distribution<double> expo(-20, 18);
  for (int i = 0; i < 20000; ++i) probes.push_back(std::ldexp(std::uniform_real_distribution<double>(1, 2)(rng), static_cast<int>(expo(rng))));
  probes.push_back(1e-45);                                 // float subnormal
  probes.push_back(std::numeric_limits<float>::max());     // far beyond the range
  for (double p : probes)
    for (double s : {1.0, -1.0}) {
      const float f = static_cast<float>(p * s);
      const std::uint8_t want = nearest(f, table, e4m3fn);
      const std::uint8_t got = F8(f).bits;
      ASSERT_EQ(got, want) << std::hexfloat << f << " (" << std::hex << bits_of(f) << ")";
    }
}

TEST(Float8, E4M3FNNarrowingNearestEven) { check_narrowing<float8_e4m3fn>(golden().e4m3fn, true); }
TEST(Float8, E5M2NarrowingNearestEven) { check_narrowing<float8_e5m2>(golden().e5m2, false); }

TEST(Float8, NarrowingSpecials) {
  const float inf = std::numeric_limits<float>::infinity(), nan = std::numeric_limits<float>::quiet_NaN();
  EXPECT_EQ(float8_e4m3fn(inf).bits, 0x7f);   // no infinity: NaN
  EXPECT_EQ(float8_e4m3fn(-inf).bits, 0xff);
  EXPECT_EQ(float8_e4m3fn(nan).bits & 0x7f, 0x7f);
  EXPECT_EQ(float8_e5m2(inf).bits, 0x7c);
  EXPECT_EQ(float8_e5m2(-inf).bits, 0xfc);
  EXPECT_TRUE(std::isnan(static_cast<float>(float8_e5m2(nan))));
  EXPECT_EQ(float8_e4m3fn(-0.0f).bits, 0x80);
  EXPECT_EQ(float8_e5m2(-0.0f).bits, 0x80);
}

TEST(Float8, DTypeNamesAndParsing) {
  EXPECT_STREQ(dtype_name(DType::float8_e4m3fn), "float8_e4m3fn");
  EXPECT_STREQ(dtype_name(DType::float8_e5m2), "float8_e5m2");
  EXPECT_EQ(parse_dtype("torch.float8_e4m3fn"), DType::float8_e4m3fn);
  EXPECT_EQ(parse_dtype("torch.float8_e5m2"), DType::float8_e5m2);
  EXPECT_EQ(parse_dtype("float8_e4m3fnuz"), std::nullopt);  // fnuz variants are not held
  // appended at the end: earlier enum values keep their numbers
  EXPECT_EQ(static_cast<int>(DType::complex128), 14);
  EXPECT_EQ(static_cast<int>(DType::float8_e4m3fn), 15);
  EXPECT_EQ(static_cast<int>(DType::float8_e5m2), 16);
}

}  // namespace
