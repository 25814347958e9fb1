// tensordiff — one tensor as a torch.save file (what msprobe's PyTorch dumper
// writes for every tensor: torch.save(t.clone().contiguous().detach(), path)).
//
// The pickle is byte-for-byte what torch 1.13's torch.save writes for a plain
// contiguous CPU tensor (protocol 2, the same memo indices); the zip around it
// is a plain stored archive <stem>/data.pkl, <stem>/data/0, <stem>/version
// with torch's 64-byte "FB" alignment padding in the local headers, sizes and
// CRC-32 in the local headers (torch writes data descriptors instead) and no
// ZIP64 records (so a member must stay under 4 GiB).
#pragma once
#include <cstdint>
#include <string>

#include "../../core/error.hpp"
#include "../../core/tensor_view.hpp"
#include "../../core/detail/runs.hpp"
#include "../../metrics/crc32.hpp"

TD_NAMESPACE_BEGIN
namespace io {
namespace detail {

/// torch's storage class for a dtype ("FloatStorage", torch >= 2.1's "Float8_e4m3fnStorage");
/// nullptr where torch has none.
inline const char* torch_storage_class(DType t) noexcept {
  switch (t) {
    case DType::boolean: return "BoolStorage";
    case DType::int8: return "CharStorage";
    case DType::uint8: return "ByteStorage";
    case DType::int16: return "ShortStorage";
    case DType::int32: return "IntStorage";
    case DType::int64: return "LongStorage";
    case DType::float16: return "HalfStorage";
    case DType::bfloat16: return "BFloat16Storage";
    case DType::float32: return "FloatStorage";
    case DType::float64: return "DoubleStorage";
    case DType::complex64: return "ComplexFloatStorage";
    case DType::complex128: return "ComplexDoubleStorage";
    case DType::float8_e4m3fn: return "Float8_e4m3fnStorage";
    case DType::float8_e5m2: return "Float8_e5m2Storage";
    default: return nullptr;
  }
}

struct PickleOut {
  std::string s;
  int memo = 0;
  void put() {  // BINPUT n, as Python's pickler memoizes every string and tuple
    s += 'q';
    s += static_cast<char>(memo++);
  }
  void u32(std::uint32_t v) {
    for (int k = 0; k < 4; ++k) s += static_cast<char>((v >> (8 * k)) & 0xFF);
  }
  void integer(std::int64_t v) {
    if (v >= 0 && v <= 0xFF) {
      s += 'K';
      s += static_cast<char>(v);
    } else if (v >= 0 && v <= 0xFFFF) {
      s += 'M';
      s += static_cast<char>(v & 0xFF);
      s += static_cast<char>((v >> 8) & 0xFF);
    } else if (v >= INT32_MIN && v <= INT32_MAX) {
      s += 'J';
      u32(static_cast<std::uint32_t>(static_cast<std::int32_t>(v)));
    } else {  // LONG1: little-endian two's complement, shortest
      std::string b;
      auto u = static_cast<std::uint64_t>(v);
      for (int k = 0; k < 8; ++k) b += static_cast<char>((u >> (8 * k)) & 0xFF);
      while (b.size() > 1 && ((b.back() == '\0' && !(b[b.size() - 2] & 0x80)) ||
                              (b.back() == '\xff' && (b[b.size() - 2] & 0x80))))
        b.pop_back();
      s += '\x8a';
      s += static_cast<char>(b.size());
      s += b;
    }
  }
  void text(const std::string& t) {
    s += 'X';
    u32(static_cast<std::uint32_t>(t.size()));
    s += t;
    put();
  }
  void global(const char* mod, const char* name) {
    s += 'c';
    s += mod;
    s += '\n';
    s += name;
    s += '\n';
    put();
  }
  void tuple(const std::vector<std::int64_t>& v) {
    if (v.empty()) {
      s += ')';  // the empty tuple is a singleton: never memoized
      return;
    }
    if (v.size() > 3) s += '(';
    for (auto x : v) integer(x);
    s += v.size() == 1 ? '\x85' : v.size() == 2 ? '\x86' : v.size() == 3 ? '\x87' : 't';
    put();
  }
};

/// torch's contiguous strides: stride[i] = stride[i+1] * max(shape[i+1], 1).
inline std::vector<std::int64_t> torch_contiguous_strides(const Shape& shape) {
  std::vector<std::int64_t> st(shape.size(), 1);
  for (std::size_t i = shape.size(); i-- > 1;) st[i - 1] = st[i] * std::max<std::int64_t>(shape[i], 1);
  return st;
}

/// data.pkl of torch.save(tensor) for a contiguous tensor of `shape`.
inline std::string torch_tensor_pickle(DType dtype, const Shape& shape, bool requires_grad) {
  const char* storage = torch_storage_class(dtype);
  if (!storage)
    throw Error(ErrorCategory::unsupported, std::string("torch 1.13 has no dtype for ") + dtype_name(dtype));
  PickleOut p;
  p.s = "\x80\x02";
  p.global("torch._utils", "_rebuild_tensor_v2");
  p.s += "((";
  p.text("storage");
  p.global("torch", storage);
  p.text("0");
  p.text("cpu");
  p.integer(static_cast<std::int64_t>(checked_numel(shape)));
  p.s += 't';
  p.put();
  p.s += 'Q';
  p.integer(0);
  p.tuple(std::vector<std::int64_t>(shape.begin(), shape.end()));
  p.tuple(torch_contiguous_strides(shape));
  p.s += requires_grad ? '\x88' : '\x89';
  p.global("collections", "OrderedDict");
  p.s += ")R";
  p.put();
  p.s += 't';
  p.put();
  p.s += 'R';
  p.put();
  p.s += '.';
  return p.s;
}

/// A stored zip archive of (name, bytes) members, data aligned to 64 bytes.
inline std::string stored_zip(const std::vector<std::pair<std::string, std::string>>& members) {
  std::string out, central;
  auto le16 = [](std::string& s, std::uint32_t v) {
    s += static_cast<char>(v & 0xFF);
    s += static_cast<char>((v >> 8) & 0xFF);
  };
  auto le32 = [&](std::string& s, std::uint32_t v) {
    le16(s, v & 0xFFFF);
    le16(s, v >> 16);
  };
  for (const auto& member : members) {
    const std::string& name = member.first;  // not a structured binding: C++17 lambdas cannot capture those
    const std::string& data = member.second;
    if (data.size() >= 0xFFFFFFFFull || out.size() >= 0xFFFFFFFFull)
      throw Error(ErrorCategory::unsupported, "a .pt member over 4 GiB needs ZIP64, which this writer does not emit");
    const std::uint32_t crc = crc32(data.data(), data.size());
    const auto offset = static_cast<std::uint32_t>(out.size());
    std::size_t header = 30 + name.size();
    std::size_t pad = (64 - (header + 4) % 64) % 64;  // "FB" extra field: 4 bytes + padding
    auto header_fields = [&](std::string& s) {
      le16(s, 20);  // version needed
      le16(s, 0);   // flags
      le16(s, 0);   // stored
      le16(s, 0);   // time
      le16(s, 0);   // date
      le32(s, crc);
      le32(s, static_cast<std::uint32_t>(data.size()));
      le32(s, static_cast<std::uint32_t>(data.size()));
      le16(s, static_cast<std::uint32_t>(name.size()));
    };
    le32(out, 0x04034b50);
    header_fields(out);
    le16(out, static_cast<std::uint32_t>(4 + pad));
    out += name;
    out += "FB";
    le16(out, static_cast<std::uint32_t>(pad));
    out.append(pad, 'Z');
    out += data;
    le32(central, 0x02014b50);
    le16(central, 20);  // version made by
    header_fields(central);
    le16(central, 0);  // extra
    le16(central, 0);  // comment
    le16(central, 0);  // disk
    le16(central, 0);  // internal attributes
    le32(central, 0);  // external attributes
    le32(central, offset);
    central += name;
  }
  const auto cd_offset = static_cast<std::uint32_t>(out.size());
  out += central;
  le32(out, 0x06054b50);
  le16(out, 0);
  le16(out, 0);
  le16(out, static_cast<std::uint32_t>(members.size()));
  le16(out, static_cast<std::uint32_t>(members.size()));
  le32(out, static_cast<std::uint32_t>(central.size()));
  le32(out, cd_offset);
  le16(out, 0);
  return out;
}

/// torch.save bytes of `view` (any layout; written C-contiguous, little-endian),
/// archive folder `stem` (torch 1.13 uses the file name without ".pt").
inline std::string torch_save_bytes(const TensorView& view, const std::string& stem, bool requires_grad = false) {
  std::string data;
  data.reserve(static_cast<std::size_t>(view.numel() * view.itemsize()));
  ::tensordiff::detail::for_each_le_block(view, [&](const std::byte* p, std::size_t n) {
    data.append(reinterpret_cast<const char*>(p), n);
  });
  if (view.dtype == DType::boolean)
    for (auto& c : data) c = c != '\0' ? '\1' : '\0';
  return stored_zip({{stem + "/data.pkl", torch_tensor_pickle(view.dtype, view.shape, requires_grad)},
                     {stem + "/data/0", std::move(data)},
                     {stem + "/version", "3\n"}});
}

}  // namespace detail
}  // namespace io
TD_NAMESPACE_END
