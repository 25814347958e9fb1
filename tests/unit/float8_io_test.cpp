// float8 tensors read from hand-written files (tests/data/float8/generate_float8_files.py:
// safetensors F8_E4M3 / F8_E5M2, and a .pt as torch >= 2.1 writes it, typed and untyped
// storage) are float8 — every byte decodes to the golden table's value — and summarize()
// and compare() on them agree with long-double references computed from that table.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstdlib>
#include <fstream>
#include <limits>
#include <sstream>
#include <string>
#include <vector>

#include <tensordiff/io/npy.hpp>
#include <tensordiff/io/pt.hpp>
#include <tensordiff/io/registry.hpp>
#include <tensordiff/io/safetensors.hpp>
#include <tensordiff/metrics/compare.hpp>
#include <tensordiff/metrics/detail/elementwise.hpp>
#include <tensordiff/metrics/summary.hpp>

namespace {
using namespace tensordiff;
const std::string dir = std::string(TD_TEST_DATA_DIR) + "/float8/";

/// golden[fmt][byte]: fmt 0 = e4m3fn, 1 = e5m2 (float8_table.txt, exact hex floats).
struct Table {
  long double v[2][256];
};
const Table& table() {
  static const Table t = [] {
    Table r{};
    std::ifstream in(dir + "float8_table.txt");
    std::string line;
    int n = 0;
    while (std::getline(in, line)) {
      if (line.empty() || line[0] == '#') continue;
      std::istringstream ls(line);
      int b;
      std::string a, c;
      ls >> b >> a >> c;
      auto val = [](const std::string& s) -> long double {
        if (s == "nan") return std::numeric_limits<long double>::quiet_NaN();
        if (s == "inf") return std::numeric_limits<long double>::infinity();
        if (s == "-inf") return -std::numeric_limits<long double>::infinity();
        return std::strtold(s.c_str(), nullptr);
      };
      r.v[0][b & 255] = val(a);
      r.v[1][b & 255] = val(c);
      ++n;
    }
    EXPECT_EQ(n, 256);
    return r;
  }();
  return t;
}

/// Element (i, j) of a 2-D float8 view through its strides, decoded by the table.
long double at(const TensorView& v, std::int64_t i, std::int64_t j) {
  const auto b = std::to_integer<unsigned>(v.data[i * v.strides[0] + j * v.strides[1]]);
  return table().v[v.dtype == DType::float8_e5m2][b];
}

void expect_all_bytes(const io::LoadedTensor& t, DType want, bool transposed, const std::string& ctx) {
  ASSERT_EQ(t.tensor.dtype(), want) << ctx;
  EXPECT_FALSE(t.meta.opaque) << ctx;
  ASSERT_EQ(t.tensor.shape(), (Shape{16, 16})) << ctx;
  const TensorView& v = t.tensor.view();
  const int fmt = want == DType::float8_e5m2;
  for (int i = 0; i < 16; ++i)
    for (int j = 0; j < 16; ++j) {
      const int byte = transposed ? j * 16 + i : i * 16 + j;
      const long double w = table().v[fmt][byte];
      const long double g = at(v, i, j);
      if (std::isnan(w)) { ASSERT_TRUE(std::isnan(g)) << ctx << " byte " << byte; }
      else { ASSERT_EQ(g, w) << ctx << " byte " << byte; }
      // and through the library's own widening
      const std::uint8_t raw = std::to_integer<std::uint8_t>(v.data[i * v.strides[0] + j * v.strides[1]]);
      const double lib = want == DType::float8_e5m2 ? static_cast<double>(float8_e5m2::from_bits(raw))
                                                    : static_cast<double>(float8_e4m3fn::from_bits(raw));
      if (!std::isnan(w)) { ASSERT_EQ(static_cast<long double>(lib), w) << ctx << " byte " << byte; }
    }
}

TEST(Float8Files, SafetensorsReadExactly) {
  io::Registry reg;
  reg.add(std::make_unique<io::SafetensorsFormat>());
  const auto ts = reg.load(dir + "all_bytes.safetensors");
  ASSERT_EQ(ts.size(), 2u);
  expect_all_bytes(ts[0], DType::float8_e4m3fn, false, "safetensors e4m3fn");
  expect_all_bytes(ts[1], DType::float8_e5m2, false, "safetensors e5m2");
  EXPECT_EQ(ts[0].meta.source_dtype, "F8_E4M3");
}

TEST(Float8Files, PtTypedAndUntypedStorageReadExactly) {
  const auto ts = io::load(dir + "all_bytes.pt");
  ASSERT_EQ(ts.size(), 3u);
  expect_all_bytes(ts[0], DType::float8_e4m3fn, false, "pt Float8_e4m3fnStorage");
  expect_all_bytes(ts[1], DType::float8_e5m2, false, "pt UntypedStorage + torch.float8_e5m2");
  expect_all_bytes(ts[2], DType::float8_e5m2, true, "pt transposed view");
}

/// Long-double statistics of a view's elements, from the table.
struct Ref {
  long double sum = 0, sum_sq = 0, min = INFINITY, max = -INFINITY;
  std::uint64_t nan = 0, pinf = 0, ninf = 0;
};
Ref reference(const TensorView& v) {
  Ref r;
  for (int i = 0; i < 16; ++i)
    for (int j = 0; j < 16; ++j) {
      const long double x = at(v, i, j);
      if (std::isnan(x)) ++r.nan;
      else if (std::isinf(x)) ++(x > 0 ? r.pinf : r.ninf);
      else {
        r.sum += x;
        r.sum_sq += x * x;
        r.min = std::fmin(r.min, x);
        r.max = std::fmax(r.max, x);
      }
    }
  return r;
}

TEST(Float8Files, SummarizeMatchesReference) {
  const auto ts = io::load(dir + "all_bytes.pt");
  for (std::size_t k = 0; k < 2; ++k) {
    const TensorView& v = ts[k].tensor.view();
    const Summary s = summarize(v);
    const Ref r = reference(v);
    SCOPED_TRACE(dtype_name(v.dtype));
    EXPECT_EQ(s.nan_count, r.nan);
    EXPECT_EQ(s.pos_inf_count, r.pinf);
    EXPECT_EQ(s.neg_inf_count, r.ninf);
    EXPECT_EQ(s.finite_min, static_cast<double>(r.min));
    EXPECT_EQ(s.finite_max, static_cast<double>(r.max));
    EXPECT_EQ(s.stats.sum, static_cast<double>(r.sum));  // every partial sum of float8 values is exact in double
    EXPECT_NEAR(s.stats.sum_sq, static_cast<double>(r.sum_sq), 1e-12 * static_cast<double>(r.sum_sq));
  }
  EXPECT_EQ(summarize(ts[0].tensor.view()).nan_count, 2u);  // E4M3FN: 0x7f and 0xff only
  EXPECT_EQ(summarize(ts[1].tensor.view()).nan_count, 6u);
}

TEST(Float8Files, CompareFloat8PairsAndAgainstFloat32) {
  const auto ts = io::load(dir + "all_bytes.pt");
  // rows 0..6 (bytes 0..111): finite in both formats, so every metric is defined
  const TensorView a(ts[0].tensor.view().data, DType::float8_e4m3fn, {7, 16}, {16, 1});
  const TensorView b(ts[1].tensor.view().data, DType::float8_e5m2, {7, 16}, {16, 1});
  // float32 copy of the e4m3fn values with NaNs replaced by 1, each value nudged by 2^-20 relative
  std::vector<float> f(256);
  for (int i = 0; i < 256; ++i) {
    const long double x = table().v[0][i];
    f[i] = std::isnan(x) ? 1.0f : static_cast<float>(x * (1 + std::ldexp(1.0L, -20)));
  }
  const TensorView fv(f.data(), DType::float32, {7, 16});
  for (const auto& [x, y, ctx] : {std::tuple{a, b, "e4m3fn vs e5m2"}, std::tuple{a, fv, "e4m3fn vs float32"},
                                  std::tuple{b, a, "e5m2 vs e4m3fn"}}) {
    SCOPED_TRACE(ctx);
    const Comparison c = compare(x, y);
    // reference: over positions where both are finite, max |x - y| and the euclidean distance
    long double max_abs = 0, sq = 0;
    std::uint64_t mismatch = 0;
    for (int i = 0; i < 7; ++i)
      for (int j = 0; j < 16; ++j) {
        const long double p = at(x, i, j);
        const long double q = y.dtype == DType::float32 ? static_cast<long double>(f[i * 16 + j]) : at(y, i, j);
        if (!std::isfinite(p) || !std::isfinite(q)) {
          mismatch += !(std::isnan(p) && std::isnan(q)) && !(std::isinf(p) && std::isinf(q));
          continue;
        }
        const long double d = std::fabs(p - q);
        max_abs = std::fmax(max_abs, d);
        sq += d * d;
      }
    EXPECT_EQ(c.max_abs_err.value, static_cast<double>(max_abs));
    EXPECT_NEAR(c.euclidean_distance.value, static_cast<double>(std::sqrt(sq)), 1e-12 * static_cast<double>(std::sqrt(sq)) + 1e-300);
    EXPECT_EQ(mismatch, 0u);
    EXPECT_GT(max_abs, 0);  // the data differ: the test can fail
  }
}

// ULP distance in float8 (the ulp standard): the number of representable values between two
// finite values, counted on the table's sorted finite values (±0 one value).
TEST(Float8Files, UlpDistanceCountsTableValues) {
  for (int fmt = 0; fmt < 2; ++fmt) {
    std::vector<long double> v;
    for (int b = 0; b < 256; ++b)
      if (std::isfinite(table().v[fmt][b]) && !(b == 0x80)) v.push_back(table().v[fmt][b]);  // -0 == +0
    std::sort(v.begin(), v.end());
    const DType t = fmt ? DType::float8_e5m2 : DType::float8_e4m3fn;
    for (std::size_t i = 0; i < v.size(); ++i)
      for (std::size_t j = 0; j < v.size(); ++j)
        ASSERT_EQ(detail::ulp_distance(static_cast<double>(v[i]), static_cast<double>(v[j]), t),
                  static_cast<double>(i > j ? i - j : j - i))
            << dtype_name(t) << " " << static_cast<double>(v[i]) << " " << static_cast<double>(v[j]);
  }
}

TEST(Float8Files, NpyVoid1NeedsTheFloat8Option) {
  // ml_dtypes saves float8 with descr '|V1': refused by name, read with void1_as.
  const std::string hdr = "{'descr': '|V1', 'fortran_order': False, 'shape': (4,), }";
  std::string h = hdr + std::string(128 - 10 - hdr.size() - 1, ' ') + "\n";  // header padded to 128 bytes
  std::string file = std::string("\x93NUMPY\x01\x00", 8) + static_cast<char>(h.size()) + '\0' + h + std::string("\x38\x40\x44\x48", 4);
  const std::string path = ::testing::TempDir() + "float8_v1.npy";
  std::ofstream(path, std::ios::binary) << file;
  try {
    io::read_npy(path);
    ADD_FAILURE() << "|V1 must be refused without a hint";
  } catch (const Error& e) {
    EXPECT_NE(std::string(e.what()).find("--as float8_e4m3fn"), std::string::npos) << e.what();
    EXPECT_NE(std::string(e.what()).find(path), std::string::npos) << e.what();
  }
  io::LoadOptions o;
  o.void1_as = DType::float8_e4m3fn;
  const auto t = io::read_npy(path, o);
  ASSERT_EQ(t.tensor.dtype(), DType::float8_e4m3fn);
  EXPECT_EQ(summarize(t.tensor.view()).sum, 1.0 + 2.0 + 3.0 + 4.0);  // 0x38 0x40 0x44 0x48
  o.void1_as = DType::float8_e5m2;
  EXPECT_EQ(summarize(io::read_npy(path, o).tensor.view()).sum, 0.5 + 2.0 + 4.0 + 8.0);
  o.void1_as = DType::int8;
  EXPECT_THROW(io::read_npy(path, o), Error);
}

}  // namespace
