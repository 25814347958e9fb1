// md5 and crc32: known vectors, independent references (a bitwise CRC written
// here, and zlib's crc32 when the zlib component is built), streaming splits,
// and tensors hashed by their logical elements whatever their layout.
#include <gtest/gtest.h>
#if defined(TD_HAS_ZLIB) && TD_HAS_ZLIB
#include <zlib.h>
#endif

#include <algorithm>
#include <cstdio>
#include <random>
#include <string>
#include <vector>

#include <tensordiff/tensordiff.hpp>

#include "foundation_reference.hpp"

namespace {
using namespace tensordiff;

std::uint32_t bitwise_crc32(const unsigned char* p, std::size_t n) {
  std::uint32_t c = 0xffffffffu;
  for (std::size_t i = 0; i < n; ++i) {
    c ^= p[i];
    for (int k = 0; k < 8; ++k) c = c & 1 ? (c >> 1) ^ 0xedb88320u : c >> 1;
  }
  return ~c;
}

std::vector<unsigned char> random_bytes(std::size_t n, std::uint64_t seed) {
  std::mt19937_64 g(seed);
  std::vector<unsigned char> v(n);
  for (auto& x : v) x = static_cast<unsigned char>(g());
  return v;
}

TEST(Md5, Rfc1321TestSuite) {
  const std::pair<std::string, std::string> suite[] = {
      {"", "d41d8cd98f00b204e9800998ecf8427e"},
      {"a", "0cc175b9c0f1b6a831c399e269772661"},
      {"abc", "900150983cd24fb0d6963f7d28e17f72"},
      {"message digest", "f96b697d7cb7938d525a2f31aaf161d0"},
      {"abcdefghijklmnopqrstuvwxyz", "c3fcd3d76192e4007dfb496cca67e13b"},
      {"ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789", "d174ab98d277d9f5a5611c2c9f419d9f"},
      {"12345678901234567890123456789012345678901234567890123456789012345678901234567890",
       "57edf4a22be3c955ac49da2e2107b67a"}};
  for (const auto& [msg, want] : suite) {
    EXPECT_EQ(md5_hex(msg.data(), msg.size()), want) << '"' << msg << '"';
    // byte by byte through the streaming interface
    Md5 m;
    for (char ch : msg) m.update(&ch, 1);
    EXPECT_EQ(m.hex_digest(), want);
  }
  // a million 'a' (FIPS 180 style long message; value from RFC 1321 implementations)
  Md5 m;
  const std::string a1000(1000, 'a');
  for (int i = 0; i < 1000; ++i) m.update(a1000);
  EXPECT_EQ(m.hex_digest(), "7707d6ae4e027c70eea2a935c2296f21");
}

TEST(Md5, PaddingBoundariesAndSplits) {
  const auto data = random_bytes(300, 1);
  for (std::size_t n : {55u, 56u, 57u, 63u, 64u, 65u, 119u, 120u, 128u, 300u}) {
    const std::string whole = md5_hex(data.data(), n);
    for (std::size_t cut = 0; cut <= n; cut += 7) {
      Md5 m;
      m.update(data.data(), cut);
      const auto mid = m.digest();  // digest() does not finalise the object
      m.update(data.data() + cut, n - cut);
      EXPECT_EQ(m.hex_digest(), whole) << n << " split at " << cut;
      EXPECT_EQ(tensordiff::detail::to_hex(mid.data(), 16), md5_hex(data.data(), cut));
    }
  }
  Md5 m;
  m.update("junk", 4);
  m.reset();
  EXPECT_EQ(m.hex_digest(), "d41d8cd98f00b204e9800998ecf8427e");
}

TEST(Crc32, KnownVectors) {
  EXPECT_EQ(crc32("123456789", 9), 0xcbf43926u);
  EXPECT_EQ(crc32_hex("123456789", 9), "cbf43926");
  EXPECT_EQ(crc32("", 0), 0u);
  EXPECT_EQ(crc32_hex(0x1234u), "00001234");  // zero-padded
  const std::string fox = "The quick brown fox jumps over the lazy dog";
  EXPECT_EQ(crc32(fox.data(), fox.size()), 0x414fa339u);
  // msprobe hashes str(value) of non-tensor items
  EXPECT_EQ(crc32_of_string("-1"), "302d482a");
  EXPECT_EQ(crc32_of_string("2"), "1ad5be0d");
}

TEST(Crc32, BothPathsAgreeWithBitwiseAndZlib) {
  const auto data = random_bytes(1 << 16, 2);
  std::mt19937_64 g(3);
  for (int trial = 0; trial < 400; ++trial) {
    const std::size_t off = g() % 64;
    const std::size_t n = trial < 200 ? static_cast<std::size_t>(trial) : g() % (data.size() - off);
    const unsigned char* p = data.data() + off;  // unaligned starts too
    const std::uint32_t want = bitwise_crc32(p, n);
#if defined(TD_HAS_ZLIB) && TD_HAS_ZLIB
    EXPECT_EQ(static_cast<std::uint32_t>(::crc32(0L, p, static_cast<uInt>(n))), want);
#endif
    EXPECT_EQ(detail::crc32_update_portable(0, p, n), want) << n;
    EXPECT_EQ(detail::crc32_update_clmul(0, p, n), want) << n;
    EXPECT_EQ(crc32(p, n), want);
    // streaming in two pieces with a non-zero running value
    const std::size_t cut = n ? g() % n : 0;
    EXPECT_EQ(crc32_update(crc32_update(0, p, cut), p + cut, n - cut), want);
    EXPECT_EQ(detail::crc32_update_portable(detail::crc32_update_clmul(0, p, cut), p + cut, n - cut), want);
    if (::testing::Test::HasFailure()) return;
  }
#if TD_CRC32_HAVE_CLMUL
  std::printf("[   INFO   ] carry-less multiplication path available here: %s\n",
              detail::crc32_clmul_available() ? "yes" : "no");
#endif
}

TEST(Crc32, CombineJoinsPieces) {
  const auto data = random_bytes(700, 6);
  for (std::size_t n : {0u, 1u, 5u, 16u, 63u, 64u, 65u, 300u, 700u})
    for (std::size_t cut = 0; cut <= n; cut += 9) {
      const std::uint32_t a = crc32(data.data(), cut), b = crc32(data.data() + cut, n - cut);
      EXPECT_EQ(crc32_combine(a, b, n - cut), bitwise_crc32(data.data(), n)) << n << " split at " << cut;
    }
  static_assert(crc32_combine(0xcbf43926u, 0, 0) == 0xcbf43926u);  // usable at compile time
#if TD_CRC32_HAVE_CLMUL
  // the one-multiply combine of the transposed path against the bitwise polynomial product
  if (detail::crc32_clmul_available()) {
    std::mt19937_64 g(7);
    for (int i = 0; i < 2000; ++i) {
      const auto a = static_cast<std::uint32_t>(g()), b = static_cast<std::uint32_t>(g());
      const std::uint64_t len = 5 + g() % (i < 1000 ? 100000 : std::uint64_t{1} << 40);
      EXPECT_EQ(detail::crc32_clmul_combine(a, b, detail::crc32_x_power(8 * len - 33, 0)), crc32_combine(a, b, len))
          << a << ' ' << b << ' ' << len;
    }
  }
#endif
#if defined(TD_HAS_ZLIB) && TD_HAS_ZLIB
  std::mt19937_64 g(8);  // zlib's crc32_combine, lengths far beyond any buffer
  for (int i = 0; i < 200; ++i) {
    const auto a = static_cast<std::uint32_t>(g()), b = static_cast<std::uint32_t>(g());
    const auto len = static_cast<z_off_t>(g() % (std::uint64_t{1} << 40));
    EXPECT_EQ(crc32_combine(a, b, static_cast<std::uint64_t>(len)),
              static_cast<std::uint32_t>(::crc32_combine(a, b, len)));
  }
#endif
}

// Transposed views of every item size against a C-order copy made by index arithmetic: the side-
// by-side fold (2-, 4-, 8-byte items, rows >= 64 bytes) for rows and widths on either side of a
// register tile and of a band, batched and with a reversed inner stride; other item sizes, byte-
// swapped views and short rows take the ordered walk and must agree too.
TEST(TensorHash, TransposedViewsHashTheirLogicalOrder) {
  struct Case {
    DType t;
    std::int64_t batch, rows, cols;
    bool reversed;
    ByteOrder order;
  };
  std::vector<Case> cases;
  for (DType t : {DType::bfloat16, DType::float32, DType::float64, DType::uint8, DType::complex128}) {
    const auto item = static_cast<std::int64_t>(dtype_size(t)), lane = std::max<std::int64_t>(1, 16 / item);
    const std::int64_t min_cols = (64 + item - 1) / item;
    for (std::int64_t rows : {lane - 1, lane, lane + 1, 2 * lane + 3, std::int64_t{1029}})
      for (std::int64_t cols : {min_cols - 1, min_cols, min_cols + lane + 1, 8 * lane})
        if (rows > 0 && rows * cols <= 200000) cases.push_back({t, 1, rows, cols, false, native_byte_order});
    cases.push_back({t, 3, 2 * lane + 1, min_cols + 3, false, native_byte_order});
    cases.push_back({t, 1, 3 * lane, min_cols + 5, true, native_byte_order});
    cases.push_back({t, 2, 3 * lane, min_cols + 5, false,
                     native_byte_order == ByteOrder::little ? ByteOrder::big : ByteOrder::little});
  }
  std::mt19937_64 g(9);
  int folded = 0;
  for (const Case& c : cases) {
    const std::size_t item = dtype_size(c.t), plane = static_cast<std::size_t>(c.rows * c.cols);
    const auto storage = random_bytes(static_cast<std::size_t>(c.batch) * plane * item, g());
    // view (b, i, j) is storage item b·rows·cols + j'·rows + i, j' = j or cols − 1 − j (reversed)
    std::vector<unsigned char> want;  // C-order, little-endian
    for (std::int64_t b = 0; b < c.batch; ++b)
      for (std::int64_t i = 0; i < c.rows; ++i)
        for (std::int64_t j = 0; j < c.cols; ++j) {
          const std::int64_t jj = c.reversed ? c.cols - 1 - j : j;
          const unsigned char* e = storage.data() + (static_cast<std::size_t>(b) * plane + static_cast<std::size_t>(jj * c.rows + i)) * item;
          for (std::size_t k = 0; k < item; ++k) {  // the view's byte order, then little-endian
            const std::size_t word = c.t == DType::complex128 ? 8 : item, w0 = k / word * word, in_word = k % word;
            const bool swap = c.order != ByteOrder::little;
            want.push_back(e[swap ? w0 + word - 1 - in_word : k]);
          }
        }
    const std::byte* data = reinterpret_cast<const std::byte*>(storage.data()) +
                            (c.reversed ? (c.cols - 1) * c.rows * static_cast<std::int64_t>(item) : 0);
    const Strides strides = c.batch == 1 ? Strides{1, c.reversed ? -c.rows : c.rows} : Strides{c.rows * c.cols, 1, c.rows};
    const Shape shape = c.batch == 1 ? Shape{c.rows, c.cols} : Shape{c.batch, c.rows, c.cols};
    const TensorView v(data, c.t, shape, strides, c.order);
    SCOPED_TRACE(std::string(dtype_name(c.t)) + " " + std::to_string(c.batch) + "x" + std::to_string(c.rows) + "x" +
                 std::to_string(c.cols) + (c.reversed ? " reversed" : "") +
                 (c.order == native_byte_order ? "" : " byte-swapped"));
    EXPECT_EQ(crc32(v), bitwise_crc32(want.data(), want.size()));
    std::uint32_t side_by_side = 0;
    const bool took = detail::crc32_transposed(v, side_by_side);
    const bool eligible = (item == 2 || item == 4 || item == 8) && c.rows >= static_cast<std::int64_t>(16 / item) &&
                          c.cols * static_cast<std::int64_t>(item) >= 64 && c.order == native_byte_order &&
                          native_byte_order == ByteOrder::little && detail::crc32_clmul_available();
    EXPECT_EQ(took, eligible);
    folded += took;
  }
  std::printf("[   INFO   ] %d of %zu transposed views folded side by side\n", folded, cases.size());
}

TEST(TensorHash, LayoutAndByteOrderDoNotMatter) {
  using namespace tdref;
  std::mt19937_64 rng(4);
  for (DType t : real_dtypes()) {
    std::vector<long double> va, vb;
    random_pair(t, t, 6 * 11, NonFinite::matching, rng, va, vb);
    for (std::size_t i = 11; i < va.size(); ++i) va[i] = va[i % 11];  // so the broadcast view holds the same values
    const Held base = make_view(t, 6, 11, Layout::contiguous, va);
    const std::string md5_want = md5_hex(base.view.data, 66 * dtype_size(t));
    const std::uint32_t crc_want = bitwise_crc32(reinterpret_cast<const unsigned char*>(base.view.data), 66 * dtype_size(t));
    for (Layout l : all_layouts) {
      const Held h = make_view(t, 6, 11, l, va);
      SCOPED_TRACE(std::string(dtype_name(t)) + " " + layout_name(l));
      EXPECT_EQ(md5_hex(h.view), md5_want);
      EXPECT_EQ(crc32(h.view), crc_want);
      EXPECT_EQ(crc32_hex(h.view), crc32_hex(crc_want));
      const Tensor copy = Tensor::copy_of(h.view);
      EXPECT_EQ(md5_hex(copy), md5_want);
      EXPECT_EQ(crc32(copy.view()), crc_want);
    }
  }
}

TEST(TensorHash, Bfloat16HashesItsBitPattern) {
  const std::uint16_t bits[4] = {0x3f80, 0xc000, 0x7fc0, 0x0001};
  bfloat16 v[4];
  for (int i = 0; i < 4; ++i) v[i] = bfloat16::from_bits(bits[i]);
  const unsigned char le[8] = {0x80, 0x3f, 0x00, 0xc0, 0xc0, 0x7f, 0x01, 0x00};
  EXPECT_EQ(md5_hex(TensorView::of(v, {2, 2})), md5_hex(le, 8));
  EXPECT_EQ(crc32(TensorView::of(v, {2, 2})), bitwise_crc32(le, 8));
  // a transposed view hashes its logical (C-order) elements
  const unsigned char le_t[8] = {0x80, 0x3f, 0xc0, 0x7f, 0x00, 0xc0, 0x01, 0x00};
  EXPECT_EQ(md5_hex(TensorView::of(v, {2, 2}, {1, 2})), md5_hex(le_t, 8));
  EXPECT_EQ(crc32(TensorView::of(v, {2, 2}, {1, 2})), bitwise_crc32(le_t, 8));
  // empty and 0-d
  EXPECT_EQ(md5_hex(TensorView::of(v, {0})), "d41d8cd98f00b204e9800998ecf8427e");
  EXPECT_EQ(crc32(TensorView::of(v, {0, 3})), 0u);
  EXPECT_EQ(crc32(TensorView::of(v + 1, {})), bitwise_crc32(le + 2, 2));
}

TEST(TensorHash, LargeStridedTensor) {
  // enough data for the folding path and several gather blocks
  std::vector<float> m(300 * 257);
  std::mt19937 g(5);
  for (auto& x : m) x = static_cast<float>(g()) / 7.0f;
  const TensorView t = TensorView::of(m.data(), {257, 300}, {1, 257});  // transposed
  const Tensor c = Tensor::copy_of(t);
  EXPECT_EQ(crc32(t), bitwise_crc32(reinterpret_cast<const unsigned char*>(c.data<float>()), m.size() * 4));
  EXPECT_EQ(md5_hex(t), md5_hex(c.data<float>(), m.size() * 4));
  EXPECT_NE(crc32(t), crc32(TensorView::of(m.data(), {257, 300})));
}

}  // namespace
