// md5 and crc32: known vectors, independent references (a bitwise CRC written
// here, and zlib's crc32 when the zlib component is built), streaming splits,
// and tensors hashed by their logical elements whatever their layout.
#include <gtest/gtest.h>
#if defined(TD_HAS_ZLIB) && TD_HAS_ZLIB
#include <zlib.h>
#endif

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
