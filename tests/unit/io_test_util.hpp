// Test-only helpers for the io tests: an independent MD5 (RFC 1321), an
// independent element decoder (raw bytes + strides + byte order -> long
// double, not using the library's walkers), the golden sidecar loader, and
// byte builders for hand-made npy / zip files (hostile cases).
#pragma once
#include <gtest/gtest.h>

#include <unistd.h>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <limits>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>
#include <tensordiff/core/tensor.hpp>
#include <tensordiff/io/mapped_file.hpp>

namespace iotest {
using namespace tensordiff;
namespace fs = std::filesystem;

inline std::string data_dir() { return TD_TEST_DATA_DIR; }

/// In-memory bytes as the file a reader opens; `name` is what its errors quote.
inline io::FileHandle mem(const std::string& bytes, const std::string& name = "memory") {
  return io::MappedFile::from_bytes(name, bytes.data(), bytes.size());
}

// ---------------------------------------------------------------- MD5
inline std::string md5_hex(const void* data, std::size_t n) {
  static const std::uint32_t K[64] = {
      0xd76aa478, 0xe8c7b756, 0x242070db, 0xc1bdceee, 0xf57c0faf, 0x4787c62a, 0xa8304613, 0xfd469501,
      0x698098d8, 0x8b44f7af, 0xffff5bb1, 0x895cd7be, 0x6b901122, 0xfd987193, 0xa679438e, 0x49b40821,
      0xf61e2562, 0xc040b340, 0x265e5a51, 0xe9b6c7aa, 0xd62f105d, 0x02441453, 0xd8a1e681, 0xe7d3fbc8,
      0x21e1cde6, 0xc33707d6, 0xf4d50d87, 0x455a14ed, 0xa9e3e905, 0xfcefa3f8, 0x676f02d9, 0x8d2a4c8a,
      0xfffa3942, 0x8771f681, 0x6d9d6122, 0xfde5380c, 0xa4beea44, 0x4bdecfa9, 0xf6bb4b60, 0xbebfbc70,
      0x289b7ec6, 0xeaa127fa, 0xd4ef3085, 0x04881d05, 0xd9d4d039, 0xe6db99e5, 0x1fa27cf8, 0xc4ac5665,
      0xf4292244, 0x432aff97, 0xab9423a7, 0xfc93a039, 0x655b59c3, 0x8f0ccc92, 0xffeff47d, 0x85845dd1,
      0x6fa87e4f, 0xfe2ce6e0, 0xa3014314, 0x4e0811a1, 0xf7537e82, 0xbd3af235, 0x2ad7d2bb, 0xeb86d391};
  static const int R[64] = {7, 12, 17, 22, 7, 12, 17, 22, 7, 12, 17, 22, 7, 12, 17, 22, 5, 9,  14, 20, 5, 9,
                            14, 20, 5, 9,  14, 20, 5, 9,  14, 20, 4, 11, 16, 23, 4, 11, 16, 23, 4, 11, 16, 23,
                            4, 11, 16, 23, 6, 10, 15, 21, 6, 10, 15, 21, 6, 10, 15, 21, 6, 10, 15, 21};
  std::vector<unsigned char> msg(static_cast<const unsigned char*>(data), static_cast<const unsigned char*>(data) + n);
  const std::uint64_t bits = static_cast<std::uint64_t>(n) * 8;
  msg.push_back(0x80);
  while (msg.size() % 64 != 56) msg.push_back(0);
  for (int i = 0; i < 8; ++i) msg.push_back(static_cast<unsigned char>(bits >> (8 * i)));
  std::uint32_t h[4] = {0x67452301, 0xefcdab89, 0x98badcfe, 0x10325476};
  for (std::size_t off = 0; off < msg.size(); off += 64) {
    std::uint32_t w[16];
    for (int i = 0; i < 16; ++i)
      w[i] = msg[off + 4 * i] | (msg[off + 4 * i + 1] << 8) | (msg[off + 4 * i + 2] << 16) |
             (static_cast<std::uint32_t>(msg[off + 4 * i + 3]) << 24);
    std::uint32_t a = h[0], b = h[1], c = h[2], d = h[3];
    for (int i = 0; i < 64; ++i) {
      std::uint32_t f;
      int g;
      if (i < 16) f = (b & c) | (~b & d), g = i;
      else if (i < 32) f = (d & b) | (~d & c), g = (5 * i + 1) % 16;
      else if (i < 48) f = b ^ c ^ d, g = (3 * i + 5) % 16;
      else f = c ^ (b | ~d), g = (7 * i) % 16;
      const std::uint32_t t = d;
      d = c;
      c = b;
      const std::uint32_t x = a + f + K[i] + w[g];
      b = b + ((x << R[i]) | (x >> (32 - R[i])));
      a = t;
    }
    h[0] += a, h[1] += b, h[2] += c, h[3] += d;
  }
  static const char* hex = "0123456789abcdef";
  std::string out;
  for (std::uint32_t v : h)
    for (int i = 0; i < 4; ++i) {
      const unsigned byte = (v >> (8 * i)) & 0xFF;
      out += hex[byte >> 4];
      out += hex[byte & 15];
    }
  return out;
}

// ------------------------------------------- independent element decoding
/// Byte offset of the element at C-order flat index `flat` (own loop).
inline std::int64_t byte_offset(const TensorView& v, std::uint64_t flat) {
  std::int64_t off = 0;
  for (std::size_t i = v.shape.size(); i-- > 0;) {
    const auto d = static_cast<std::uint64_t>(v.shape[i]);
    off += static_cast<std::int64_t>(flat % d) * v.strides[i];
    flat /= d;
  }
  return off * static_cast<std::int64_t>(dtype_size(v.dtype));
}

/// The raw item bytes of one element, little-endian (swapped if stored big).
inline std::vector<unsigned char> item_le(const TensorView& v, std::uint64_t flat) {
  const std::size_t n = dtype_size(v.dtype);
  const auto* src = reinterpret_cast<const unsigned char*>(v.data + byte_offset(v, flat));
  // big-endian: the bytes of each word reversed (a complex number's halves separately)
  const std::size_t word = v.byte_order != ByteOrder::big ? 1 : is_complex(v.dtype) ? n / 2 : n;
  std::vector<unsigned char> b(n);
  for (std::size_t i = 0; i < n; ++i) b[i] = src[i - i % word + (word - 1 - i % word)];
  return b;
}

inline std::uint64_t le_uint(const unsigned char* p, std::size_t n) {
  std::uint64_t u = 0;
  for (std::size_t i = n; i-- > 0;) u = (u << 8) | p[i];
  return u;
}

inline long double decode_real(DType t, const unsigned char* p) {
  switch (t) {
    case DType::boolean: return p[0] != 0;
    case DType::int8: return static_cast<std::int8_t>(p[0]);
    case DType::uint8: return p[0];
    case DType::int16: return static_cast<std::int16_t>(le_uint(p, 2));
    case DType::uint16: return static_cast<long double>(le_uint(p, 2));
    case DType::int32: return static_cast<std::int32_t>(le_uint(p, 4));
    case DType::uint32: return static_cast<long double>(le_uint(p, 4));
    case DType::int64: return static_cast<long double>(static_cast<std::int64_t>(le_uint(p, 8)));
    case DType::uint64: return static_cast<long double>(le_uint(p, 8));
    case DType::float16: {
      const auto h = static_cast<std::uint32_t>(le_uint(p, 2));
      const int e = (h >> 10) & 31, m = h & 1023;
      long double v = e == 31 ? (m ? NAN : INFINITY)
                      : e == 0 ? std::ldexp(static_cast<long double>(m), -24)
                               : std::ldexp(static_cast<long double>(1024 + m), e - 25);
      return (h >> 15) ? -v : v;
    }
    case DType::bfloat16: {
      const auto u = static_cast<std::uint32_t>(le_uint(p, 2)) << 16;
      float f;
      std::memcpy(&f, &u, 4);
      return f;
    }
    case DType::float32: {
      const auto u = static_cast<std::uint32_t>(le_uint(p, 4));
      float f;
      std::memcpy(&f, &u, 4);
      return f;
    }
    case DType::float64: {
      const std::uint64_t u = le_uint(p, 8);
      double f;
      std::memcpy(&f, &u, 8);
      return f;
    }
    case DType::float8_e4m3fn:
    case DType::float8_e5m2: {  // OCP FP8 from the bit fields; E4M3FN: no inf, S.1111.111 is NaN
      const bool e4 = t == DType::float8_e4m3fn;
      const int mb = e4 ? 3 : 2, bias = e4 ? 7 : 15, top = e4 ? 15 : 31;
      const int e = (p[0] >> mb) & top, m = p[0] & ((1 << mb) - 1);
      long double v = e4 ? (e == top && m == 7 ? NAN : 0) : (e == top ? (m ? NAN : INFINITY) : 0);
      if (!std::isnan(v) && !std::isinf(v))
        v = e == 0 ? std::ldexp(static_cast<long double>(m), 1 - bias - mb)
                   : std::ldexp(static_cast<long double>((1 << mb) + m), e - bias - mb);
      return (p[0] & 0x80) ? -v : v;
    }
    default: return NAN;
  }
}

/// Element `flat` as long double (real part for complex when part = 0,
/// imaginary part when part = 1).
inline long double element(const TensorView& v, std::uint64_t flat, int part = 0) {
  const auto b = item_le(v, flat);
  if (v.dtype == DType::complex64) return decode_real(DType::float32, b.data() + 4 * part);
  if (v.dtype == DType::complex128) return decode_real(DType::float64, b.data() + 8 * part);
  return decode_real(v.dtype, b.data());
}

/// The C-order, little-endian bytes of a view (what the sidecar MD5 covers).
inline std::vector<unsigned char> c_order_le_bytes(const TensorView& v) {
  std::vector<unsigned char> out;
  const std::uint64_t n = checked_numel(v.shape);
  for (std::uint64_t i = 0; i < n; ++i) {
    auto b = item_le(v, i);
    out.insert(out.end(), b.begin(), b.end());
  }
  return out;
}

// ---------------------------------------------------------------- goldens
inline nlohmann::json read_json(const std::string& path) {
  std::ifstream f(path);
  return nlohmann::json::parse(f);
}

/// Sidecars "<dir>/*.<ext>.json", sorted.
inline std::vector<std::string> sidecars(const std::string& sub, const std::string& ext) {
  std::vector<std::string> out;
  const fs::path dir = fs::path(data_dir()) / sub;
  if (!fs::exists(dir)) return out;
  for (const auto& e : fs::directory_iterator(dir)) {
    const std::string name = e.path().filename().string();
    const std::string tail = ext + ".json";
    if (name.size() > tail.size() && name.compare(name.size() - tail.size(), tail.size(), tail) == 0)
      out.push_back(e.path().string());
  }
  std::sort(out.begin(), out.end());
  return out;
}

/// Checks one loaded tensor against a sidecar tensor entry: dtype, shape,
/// MD5 of the C-order LE bytes, values, sum / min / max / L2 (long double).
inline void expect_matches_sidecar(const TensorView& v, const nlohmann::json& s, const std::string& what) {
  SCOPED_TRACE(what);
  EXPECT_EQ(dtype_name(v.dtype), s.at("dtype").get<std::string>());
  EXPECT_EQ(v.shape, s.at("shape").get<Shape>());
  const std::uint64_t n = checked_numel(v.shape);
  EXPECT_EQ(n, s.at("numel").get<std::uint64_t>());
  const auto bytes = c_order_le_bytes(v);
  if (s.contains("md5")) { EXPECT_EQ(md5_hex(bytes.data(), bytes.size()), s["md5"].get<std::string>()); }
  if (s.contains("nbytes")) { EXPECT_EQ(bytes.size(), s["nbytes"].get<std::uint64_t>()); }
  if (s.contains("values")) {
    const auto& vals = s["values"];
    ASSERT_EQ(vals.size(), n);
    for (std::uint64_t i = 0; i < n; ++i) {
      if (vals[i].is_array()) {
        EXPECT_EQ(static_cast<double>(element(v, i, 0)), vals[i][0].get<double>()) << "re[" << i << "]";
        EXPECT_EQ(static_cast<double>(element(v, i, 1)), vals[i][1].get<double>()) << "im[" << i << "]";
      } else if (vals[i].is_string()) {  // "nan", "inf", "-inf"
        const std::string sv = vals[i].get<std::string>();
        const long double x = element(v, i);
        if (sv == "nan") { EXPECT_TRUE(std::isnan(x)) << i; }
        else if (sv == "inf") { EXPECT_EQ(x, INFINITY) << i; }
        else if (sv == "-inf") { EXPECT_EQ(x, -INFINITY) << i; }
      } else if (vals[i].is_boolean()) {
        EXPECT_EQ(element(v, i) != 0, vals[i].get<bool>()) << i;
      } else if (vals[i].is_number_unsigned()) {
        EXPECT_EQ(static_cast<std::uint64_t>(le_uint(item_le(v, i).data(), dtype_size(v.dtype))),
                  vals[i].get<std::uint64_t>()) << i;
      } else if (vals[i].is_number_integer()) {
        EXPECT_EQ(static_cast<long double>(element(v, i)), static_cast<long double>(vals[i].get<std::int64_t>())) << i;
      } else {
        const double want = vals[i].get<double>();
        const long double got = element(v, i);
        EXPECT_EQ(static_cast<double>(got), want) << i;
        if (want == 0) { EXPECT_EQ(std::signbit(static_cast<double>(got)), std::signbit(want)) << "sign of zero at " << i; }
      }
    }
  }
  if (!is_complex(v.dtype) && n > 0 && s.contains("sum") && s["sum"].is_number()) {
    long double sum = 0, sq = 0, lo = INFINITY, hi = -INFINITY;
    bool finite = true;
    for (std::uint64_t i = 0; i < n; ++i) {
      const long double x = element(v, i);
      if (!std::isfinite(x)) finite = false;
      sum += x;
      sq += x * x;
      lo = std::min(lo, x);
      hi = std::max(hi, x);
    }
    if (finite) {
      const double tol = 1e-12 * (1 + std::fabs(s["sum"].get<double>()));
      EXPECT_NEAR(static_cast<double>(sum), s["sum"].get<double>(), tol * (is_floating(v.dtype) ? 1e3 : 1));
      if (s.contains("min") && s["min"].is_number()) { EXPECT_EQ(static_cast<double>(lo), s["min"].get<double>()); }
      if (s.contains("max") && s["max"].is_number()) { EXPECT_EQ(static_cast<double>(hi), s["max"].get<double>()); }
      if (s.contains("l2") && s["l2"].is_number()) {
        EXPECT_NEAR(static_cast<double>(std::sqrt(sq)), s["l2"].get<double>(), 1e-9 * (1 + s["l2"].get<double>()));
      }
    }
  }
}

// --------------------------------------------------------- byte builders
inline std::string npy_file(int major, const std::string& header, const std::string& payload, bool pad = true) {
  std::string h = header;
  const std::size_t prefix = major == 1 ? 10 : 12;
  if (pad) {
    while ((prefix + h.size() + 1) % 64) h += ' ';
    h += '\n';
  }
  std::string out("\x93NUMPY", 6);
  out += static_cast<char>(major);
  out += '\0';
  const auto len = static_cast<std::uint32_t>(h.size());
  for (std::size_t i = 0; i < prefix - 8; ++i) out += static_cast<char>((len >> (8 * i)) & 0xFF);
  return out + h + payload;
}

template <class T> std::string raw_bytes(const std::vector<T>& v) {
  return std::string(reinterpret_cast<const char*>(v.data()), v.size() * sizeof(T));
}

inline void put16(std::string& s, std::uint32_t v) {
  s += static_cast<char>(v & 0xFF);
  s += static_cast<char>((v >> 8) & 0xFF);
}
inline void put32(std::string& s, std::uint32_t v) {
  put16(s, v & 0xFFFF);
  put16(s, v >> 16);
}
inline void put64(std::string& s, std::uint64_t v) {
  put32(s, static_cast<std::uint32_t>(v));
  put32(s, static_cast<std::uint32_t>(v >> 32));
}

inline std::uint32_t crc32_ref(const std::string& s) {
  std::uint32_t c = 0xFFFFFFFFu;
  for (unsigned char ch : s) {
    c ^= ch;
    for (int k = 0; k < 8; ++k) c = (c & 1) ? 0xEDB88320u ^ (c >> 1) : c >> 1;
  }
  return ~c;
}

/// A small zip writer for tests: stored members, with the quirks of the
/// producers (torch's FB padding + data descriptors + ZIP64 end records,
/// numpy's ZIP64 local extras) and knobs to break things.
struct ZipBuilder {
  struct Member {
    std::string name;
    std::string data;
    std::string central_name;  // "" = same as name
    bool fb_align = false;     // torch: pad data to 64 with an FB extra
    bool descriptor = false;   // torch: sizes in a data descriptor
    bool local_zip64 = false;  // numpy: ZIP64 extra in the local header
    bool central_zip64 = false;  // 0xFFFFFFFF in the directory + ZIP64 extra
    std::uint16_t method = 0;
    std::uint16_t flags = 0;
    std::uint32_t crc_override = 0;
    bool bad_crc = false;
  };
  std::vector<Member> members;
  std::string comment;
  bool zip64_end = false;  // torch writes a ZIP64 end record + locator always

  Member& add(std::string name, std::string data) {
    members.push_back({});
    members.back().name = std::move(name);
    members.back().data = std::move(data);
    return members.back();
  }

  std::string build() const {
    std::string out;
    std::vector<std::uint64_t> offsets;
    for (const auto& m : members) {
      offsets.push_back(out.size());
      std::uint16_t flags = m.flags | (m.descriptor ? 0x0808 : 0);
      const std::uint32_t crc = m.bad_crc ? crc32_ref(m.data) ^ 1u : crc32_ref(m.data);
      std::string extra;
      if (m.local_zip64) {
        put16(extra, 1);
        put16(extra, 16);
        put64(extra, m.data.size());
        put64(extra, m.data.size());
      }
      if (m.fb_align) {
        const std::size_t base = out.size() + 30 + m.name.size() + extra.size() + 4;
        const std::size_t pad = (64 - base % 64) % 64;
        put16(extra, 0x4246);
        put16(extra, static_cast<std::uint32_t>(pad));
        extra.append(pad, 'Z');
      }
      put32(out, 0x04034b50);
      put16(out, 20);
      put16(out, flags);
      put16(out, m.method);
      put16(out, 0);
      put16(out, 0);
      put32(out, m.descriptor ? 0 : crc);
      put32(out, m.descriptor ? 0 : (m.local_zip64 ? 0xFFFFFFFFu : static_cast<std::uint32_t>(m.data.size())));
      put32(out, m.descriptor ? 0 : (m.local_zip64 ? 0xFFFFFFFFu : static_cast<std::uint32_t>(m.data.size())));
      put16(out, static_cast<std::uint32_t>(m.name.size()));
      put16(out, static_cast<std::uint32_t>(extra.size()));
      out += m.name + extra + m.data;
      if (m.descriptor) {
        put32(out, 0x08074b50);
        put32(out, crc);
        put32(out, static_cast<std::uint32_t>(m.data.size()));
        put32(out, static_cast<std::uint32_t>(m.data.size()));
      }
    }
    const std::uint64_t cd_offset = out.size();
    for (std::size_t i = 0; i < members.size(); ++i) {
      const auto& m = members[i];
      const std::string& name = m.central_name.empty() ? m.name : m.central_name;
      std::uint16_t flags = m.flags | (m.descriptor ? 0x0808 : 0);
      const std::uint32_t crc = m.bad_crc ? crc32_ref(m.data) ^ 1u : crc32_ref(m.data);
      std::string extra;
      if (m.central_zip64) {
        put16(extra, 1);
        put16(extra, 24);
        put64(extra, m.data.size());
        put64(extra, m.data.size());
        put64(extra, offsets[i]);
      }
      put32(out, 0x02014b50);
      put16(out, 0);
      put16(out, 0);
      put16(out, flags);
      put16(out, m.method);
      put16(out, 0);
      put16(out, 0);
      put32(out, crc);
      put32(out, m.central_zip64 ? 0xFFFFFFFFu : static_cast<std::uint32_t>(m.data.size()));
      put32(out, m.central_zip64 ? 0xFFFFFFFFu : static_cast<std::uint32_t>(m.data.size()));
      put16(out, static_cast<std::uint32_t>(name.size()));
      put16(out, static_cast<std::uint32_t>(extra.size()));
      put16(out, 0);
      put16(out, 0);
      put16(out, 0);
      put32(out, 0);
      put32(out, m.central_zip64 ? 0xFFFFFFFFu : static_cast<std::uint32_t>(offsets[i]));
      out += name + extra;
    }
    const std::uint64_t cd_size = out.size() - cd_offset;
    if (zip64_end) {
      const std::uint64_t rec = out.size();
      put32(out, 0x06064b50);
      put64(out, 44);
      put16(out, 45);
      put16(out, 45);
      put32(out, 0);
      put32(out, 0);
      put64(out, members.size());
      put64(out, members.size());
      put64(out, cd_size);
      put64(out, cd_offset);
      put32(out, 0x07064b50);
      put32(out, 0);
      put64(out, rec);
      put32(out, 1);
    }
    put32(out, 0x06054b50);
    put16(out, 0);
    put16(out, 0);
    put16(out, static_cast<std::uint32_t>(members.size()));
    put16(out, static_cast<std::uint32_t>(members.size()));
    put32(out, static_cast<std::uint32_t>(cd_size));
    put32(out, static_cast<std::uint32_t>(cd_offset));
    put16(out, static_cast<std::uint32_t>(comment.size()));
    return out + comment;
  }
};

/// A temporary file holding `bytes`, removed at scope exit.
struct TempFile {
  std::string path;
  TempFile(const std::string& name, const std::string& bytes) {
    path = (fs::temp_directory_path() / ("td_io_" + std::to_string(::getpid()) + "_" + name)).string();
    std::ofstream(path, std::ios::binary).write(bytes.data(), static_cast<std::streamsize>(bytes.size()));
  }
  ~TempFile() {
    std::error_code ec;
    fs::remove(path, ec);
  }
  TempFile(const TempFile&) = delete;
  TempFile& operator=(const TempFile&) = delete;
};

/// Runs `f`, expects tensordiff::Error whose message contains every needle.
template <class F> void expect_error(F&& f, std::initializer_list<std::string> needles) {
  try {
    f();
    ADD_FAILURE() << "no error thrown; expected one mentioning '" << *needles.begin() << "'";
  } catch (const tensordiff::Error& e) {
    const std::string msg = e.what();
    for (const auto& n : needles) EXPECT_NE(msg.find(n), std::string::npos) << "message: " << msg << "\nmissing: " << n;
  }
}

}  // namespace iotest
