// tensordiff — NumPy .npy: read (v1/v2/v3, every plain descr in any byte
// order, Fortran order, 0-d, empty) and write.
//
//   io::LoadedTensor t = io::read_npy("x.npy");          // or io::load("x.npy")
//   io::save_npy("diff.npy", view);
//
// Reading is zero-copy whenever the data suits its element type: big-endian
// data becomes a view with ByteOrder::big, Fortran order a strided view, and
// the Tensor keeps the file (mapping or buffer) alive. Only data misaligned
// for its element type (hand-written headers without numpy's 64-byte padding)
// and big-endian complex values are copied.
//
// The header is parsed by a strict parser for the one Python dict literal
// numpy writes (formats.md §1.2), never by a general evaluator: object,
// structured, string and datetime dtypes are refused from the header alone,
// before the payload is touched.
#pragma once
#include <cstdint>
#include <cstdio>
#include <fstream>
#include <limits>
#include <string>
#include <string_view>
#include <vector>

#include "../core/detail/runs.hpp"
#include "../core/dtype.hpp"
#include "../core/error.hpp"
#include "../core/tensor.hpp"
#include "mapped_file.hpp"
#include "detail/bytes.hpp"
#include "detail/output_file.hpp"
#include "reader.hpp"

#if defined(__unix__) || defined(__APPLE__)
#include <unistd.h>
#endif

TD_NAMESPACE_BEGIN
namespace io {

/// What an npy header says, after validation against the bytes that follow.
struct NpyHeader {
  ///@{
  /// Format version from the magic string: 1.0, 2.0 (4-byte HEADER_LEN) or 3.0 (UTF-8 header).
  int major = 1, minor = 0;
  ///@}
  std::uint64_t header_len = 0;   ///< HEADER_LEN field
  std::uint64_t data_offset = 0;  ///< 10 + HEADER_LEN (v1) or 12 + HEADER_LEN (v2/v3)
  std::string descr;              ///< as written: "<f4", ">i8", "<V2"
  DType dtype = DType::float32;   ///< uint16 for an opaque `<V2`
  /// Byte order of the data: from the descr's '<' / '>' ('|' and '=' are native).
  ByteOrder byte_order = native_byte_order;
  bool opaque = false;            ///< `<V2` read without a bfloat16 hint
  /// The header's fortran_order: the data is column-major; the view gets Fortran strides (no copy).
  bool fortran_order = false;
  /// The header's shape tuple; empty for a 0-d array.
  Shape shape;
  /// Product of `shape` (1 for 0-d), overflow-checked.
  std::uint64_t numel = 0;
  std::uint64_t nbytes = 0;       ///< numel * itemsize, overflow-checked
};

namespace detail {

/// Strict parser of the npy header dict literal (formats.md §1.2 grammar).
class NpyHeaderParser {
 public:
  NpyHeaderParser(std::string_view text, const std::string& file, std::uint64_t base, const Limits& limits)
      : s_(text), file_(file), base_(base), limits_(limits) {}

  struct Result {
    std::string descr;
    bool fortran = false;
    Shape shape;
  };

  Result parse() {
    Result r;
    bool have_descr = false, have_fortran = false, have_shape = false;
    ws();
    expect('{', "header", "header must start with '{'");
    ws();
    while (true) {
      if (peek() == '}') break;  // empty dict, or after a trailing comma
      const std::size_t key_at = i_;
      const std::string key = string("header", "expected a quoted key");
      ws();
      expect(':', "header", "expected ':' after key '" + key + "'");
      ws();
      if (key == "descr") {
        if (have_descr) fail("descr", key_at, "duplicate key 'descr'");
        have_descr = true;
        if (peek() == '[')
          unsupported("descr", "unsupported npy dtype: structured dtype (a list of fields)");
        if (peek() == '(')
          unsupported("descr", "unsupported npy dtype: subarray dtype (a tuple)");
        if (peek() == '{')
          unsupported("descr", "unsupported npy dtype: dict dtype");
        r.descr = string("descr", "descr must be a quoted string");
      } else if (key == "fortran_order") {
        if (have_fortran) fail("fortran_order", key_at, "duplicate key 'fortran_order'");
        have_fortran = true;
        if (word("True")) r.fortran = true;
        else if (word("False")) r.fortran = false;
        else fail("fortran_order", i_, "fortran_order must be True or False");
      } else if (key == "shape") {
        if (have_shape) fail("shape", key_at, "duplicate key 'shape'");
        have_shape = true;
        r.shape = shape();
      } else {
        fail("header", key_at, "unknown header key '" + key + "' (expected descr, fortran_order, shape)");
      }
      ws();
      if (peek() == ',') {
        ++i_;
        ws();
        continue;
      }
      if (peek() == '}') break;
      fail("header", i_, "expected ',' or '}' after the value of '" + key + "'");
    }
    ++i_;  // '}'
    // Padding: whitespace and comments (numpy: spaces then '\n'); nothing else.
    ws();
    if (i_ < s_.size()) fail("header", i_, "unexpected character after the header dict");
    if (!have_descr) fail("descr", s_.size(), "header has no 'descr'");
    if (!have_fortran) fail("fortran_order", s_.size(), "header has no 'fortran_order'");
    if (!have_shape) fail("shape", s_.size(), "header has no 'shape'");
    return r;
  }

 private:
  [[noreturn]] void fail(const std::string& field, std::size_t at, const std::string& reason,
                         ErrorCategory c = ErrorCategory::format) const {
    throw Error(c, reason, {file_, field, base_ + at});
  }
  [[noreturn]] void unsupported(const std::string& field, const std::string& reason) const {
    fail(field, i_, reason, ErrorCategory::unsupported);
  }
  char peek() const noexcept { return i_ < s_.size() ? s_[i_] : '\0'; }
  // Whitespace and Python comments ('#' to end of line: numpy reads the
  // header with ast.literal_eval, so a comment in the padding is legal).
  void ws() noexcept {
    while (i_ < s_.size()) {
      const char c = s_[i_];
      if (c == '#') {
        while (i_ < s_.size() && s_[i_] != '\n') ++i_;
      } else if (c == ' ' || c == '\t' || c == '\n' || c == '\r') {
        ++i_;
      } else {
        return;
      }
    }
  }
  void expect(char c, const char* field, const std::string& reason) {
    if (peek() != c || i_ >= s_.size()) fail(field, i_, i_ >= s_.size() ? reason + " (header ends)" : reason);
    ++i_;
  }
  bool word(std::string_view w) {
    if (s_.substr(i_, w.size()) != w) return false;
    const std::size_t end = i_ + w.size();
    if (end < s_.size()) {
      const char c = s_[end];
      if ((c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '_') return false;
    }
    i_ = end;
    return true;
  }
  std::string string(const char* field, const std::string& reason) {
    const char q = peek();
    if (q != '\'' && q != '"') fail(field, i_, reason);
    const std::size_t start = ++i_;
    while (i_ < s_.size() && s_[i_] != q) {
      const char c = s_[i_];
      if (c == '\\') fail(field, i_, "escape sequences are not supported in header strings");
      if (c == '\n' || c == '\r') fail(field, i_, "unterminated string");
      ++i_;
    }
    if (i_ >= s_.size()) fail(field, start - 1, "unterminated string");
    return std::string(s_.substr(start, i_++ - start));
  }
  Shape shape() {
    expect('(', "shape", "shape must be a tuple '(...)'");
    Shape out;
    ws();
    if (peek() == ')') {
      ++i_;
      return out;  // 0-d
    }
    while (true) {
      const std::size_t at = i_;
      if (peek() == '-') fail("shape", at, "negative dimension in shape");
      if (peek() < '0' || peek() > '9') fail("shape", at, "expected a non-negative integer in shape");
      std::uint64_t v = 0;
      while (peek() >= '0' && peek() <= '9') {
        const auto d = static_cast<std::uint64_t>(peek() - '0');
        if (v > (static_cast<std::uint64_t>(std::numeric_limits<std::int64_t>::max()) - d) / 10)
          fail("shape", at, "dimension does not fit in 64 bits");
        v = v * 10 + d;
        ++i_;
      }
      if (peek() == 'L' || peek() == 'l') ++i_;  // Python 2 long suffix
      if (out.size() >= limits_.max_rank)
        fail("shape", at, "more than " + std::to_string(limits_.max_rank) + " dimensions", ErrorCategory::security);
      out.push_back(static_cast<std::int64_t>(v));
      ws();
      if (peek() == ',') {
        ++i_;
        ws();
        if (peek() == ')') {
          ++i_;
          return out;
        }
        continue;
      }
      if (peek() == ')') {
        if (out.size() == 1) fail("shape", i_, "a 1-d shape needs a trailing comma: '(n,)'");
        ++i_;
        return out;
      }
      fail("shape", i_, "expected ',' or ')' in shape");
    }
  }

  std::string_view s_;
  const std::string& file_;
  std::uint64_t base_;
  const Limits& limits_;
  std::size_t i_ = 0;
};

/// Maps a descr to dtype and byte order, refusing everything tensordiff does
/// not read with a reason that names the descr (formats.md §1.3).
inline void resolve_npy_descr(NpyHeader& h, const LoadOptions& options, const std::string& file, std::uint64_t at) {
  const Bf16Hint hint = options.bf16;
  const std::string& d = h.descr;
  auto refuse = [&](const std::string& why, ErrorCategory c = ErrorCategory::unsupported) {
    throw Error(c, "unsupported npy dtype '" + d + "'" + (why.empty() ? "" : " (" + why + ")"), {file, "descr", at});
  };
  if (d.empty()) refuse("empty");
  char order = '=';
  std::string_view code = d;
  if (d[0] == '<' || d[0] == '>' || d[0] == '|' || d[0] == '=') {
    order = d[0];
    code.remove_prefix(1);
  }
  if (code.empty()) refuse("no type code");
  const char kind = code[0];
  if (kind == 'O') refuse("object arrays hold pickled Python objects; refused without reading the payload", ErrorCategory::security);
  if (kind == 'S' || kind == 'U' || kind == 'a') refuse("strings");
  if (kind == 'M' || kind == 'm') refuse("datetime/timedelta");
  std::optional<DType> t;
  if (code == "V2") {
    // ml_dtypes / JAX write bfloat16 as a 2-byte void: the bytes alone do not
    // say what they are, so never guess (uint16 would give wrong numbers).
    if (hint == Bf16Hint::none && !options.allow_opaque)
      refuse("an opaque 2-byte void, as ml_dtypes/JAX write bfloat16; if it is bfloat16 read it with --as bfloat16 "
             "(LoadOptions::bf16 = Bf16Hint::bfloat16)");
    h.opaque = hint == Bf16Hint::none;
    t = h.opaque ? DType::uint16 : DType::bfloat16;
  } else if (code == "V1") {
    // ml_dtypes writes float8_e4m3fn and float8_e5m2 both as a 1-byte void.
    const std::optional<DType> as = options.void1_as;
    if (as && *as != DType::float8_e4m3fn && *as != DType::float8_e5m2)
      refuse(std::string("a 1-byte void can be read as float8_e4m3fn or float8_e5m2, not ") + dtype_name(*as),
             ErrorCategory::invalid_argument);
    if (!as && !options.allow_opaque)
      refuse("an opaque 1-byte void, as ml_dtypes writes float8; if it is float8 read it with --as float8_e4m3fn "
             "or --as float8_e5m2 (LoadOptions::void1_as)");
    h.opaque = !as;
    t = as ? *as : DType::uint8;
  } else if (kind == 'V') {
    refuse("opaque void of a size other than 1 or 2");
  } else if (code == "f16" || code == "g" || code == "c32" || code == "G") {
    refuse("long double");
  } else if (code == "f1") {
    refuse("float8 (old ml_dtypes)");
  } else {
    bool ignored = false;
    t = parse_dtype(std::string("<") + std::string(code), &ignored);
    if (!t) refuse("");
    if ((*t == DType::int16 || *t == DType::uint16) && hint == Bf16Hint::int16_bits) t = DType::bfloat16;
  }
  h.dtype = *t;
  h.byte_order = native_byte_order;
  if (dtype_size(*t) > 1) {
    if (order == '<') h.byte_order = ByteOrder::little;
    else if (order == '>') h.byte_order = ByteOrder::big;
    // '|' and '=' on multi-byte types: numpy reads them as native.
  }
}

}  // namespace detail

/// Parses and validates the header of the npy bytes [data, data + size):
/// magic, version, HEADER_LEN against the cap and the size, the dict, the
/// descr, and that the payload the shape needs is present. `file` is quoted
/// in errors; `base` is added to reported offsets (an npz member's position).
inline NpyHeader parse_npy_header(const std::byte* data, std::uint64_t size, const std::string& file,
                                  const LoadOptions& options = {}, std::uint64_t base = 0) {
  auto fail = [&](const char* field, std::uint64_t at, const std::string& reason,
                  ErrorCategory c = ErrorCategory::format) -> void { throw Error(c, reason, {file, field, base + at}); };
  NpyHeader h;
  static constexpr unsigned char magic[6] = {0x93, 'N', 'U', 'M', 'P', 'Y'};
  if (size < 6 || std::memcmp(data, magic, 6) != 0) {
    if (size >= 6 || std::memcmp(data, magic, static_cast<std::size_t>(size)) != 0)
      fail("magic", 0, "not an npy file (bad magic; expected \\x93NUMPY)");
  }
  if (size < 10) fail("magic", 0, "file of " + std::to_string(size) + " bytes is too short for an npy header");
  h.major = std::to_integer<int>(data[6]);
  h.minor = std::to_integer<int>(data[7]);
  if (h.major < 1 || h.major > 3 || h.minor != 0)
    fail("version", 6, "unsupported npy version " + std::to_string(h.major) + "." + std::to_string(h.minor), ErrorCategory::unsupported);
  std::uint64_t prefix = 10;
  if (h.major == 1) {
    h.header_len = detail::le16(data + 8);
  } else {
    if (size < 12) fail("HEADER_LEN", 8, "file ends inside the 4-byte HEADER_LEN of a v" + std::to_string(h.major) + " header");
    h.header_len = detail::le32(data + 8);
    prefix = 12;
  }
  if (h.header_len > options.limits.max_header_bytes)
    fail("HEADER_LEN", 8, "header length " + std::to_string(h.header_len) + " exceeds the limit " +
                              std::to_string(options.limits.max_header_bytes), ErrorCategory::security);
  if (h.header_len > size - prefix)
    fail("HEADER_LEN", 8, "header length " + std::to_string(h.header_len) + " runs past the end of the data (" +
                              std::to_string(size) + " bytes)");
  h.data_offset = prefix + h.header_len;
  const std::string_view text(reinterpret_cast<const char*>(data + prefix), static_cast<std::size_t>(h.header_len));
  auto parsed = detail::NpyHeaderParser(text, file, base + prefix, options.limits).parse();
  h.descr = std::move(parsed.descr);
  h.fortran_order = parsed.fortran;
  h.shape = std::move(parsed.shape);
  detail::resolve_npy_descr(h, options, file, base + prefix);
  // numel * itemsize, every step checked.
  std::uint64_t n = 1;
  for (std::int64_t d : h.shape) {
    const auto u = static_cast<std::uint64_t>(d);
    if (u != 0 && n > std::numeric_limits<std::uint64_t>::max() / u)
      fail("shape", prefix, "element count of shape " + shape_to_string(h.shape) + " overflows 64 bits");
    n *= u;
  }
  const std::uint64_t item = dtype_size(h.dtype);
  if (n > static_cast<std::uint64_t>(std::numeric_limits<std::int64_t>::max()) / item)
    fail("shape", prefix, "byte size of shape " + shape_to_string(h.shape) + " x " + std::to_string(item) +
                              " bytes overflows 64 bits");
  h.numel = n;
  h.nbytes = n * item;
  if (h.nbytes > size - h.data_offset)
    fail("data", h.data_offset, "truncated data: shape " + shape_to_string(h.shape) + " of '" + h.descr + "' needs " +
                                    std::to_string(h.nbytes) + " bytes, " + std::to_string(size - h.data_offset) +
                                    " remain");
  return h;
}

/// Strides (in elements) of an npy array: C or Fortran order.
inline Strides npy_strides(const NpyHeader& h) {
  if (!h.fortran_order) return contiguous_strides(h.shape);
  // Fortran order: the C-order strides of the reversed shape, reversed (contiguous_strides wraps
  // instead of overflowing on an empty array's absurd extents: the fuzzers found that here).
  const Strides reversed = contiguous_strides(Shape(h.shape.rbegin(), h.shape.rend()));
  return Strides(reversed.rbegin(), reversed.rend());
}

/// Loads npy bytes that `owner` keeps alive (a file, or an archive holding
/// them as a member). Zero-copy where possible.
inline LoadedTensor load_npy_bytes(const FileHandle& owner, ByteSpan bytes, const std::string& name,
                                   const LoadOptions& options = {}, std::uint64_t base = 0) {
  const NpyHeader h = parse_npy_header(bytes.data, bytes.size, name, options, base);
  LoadedTensor out;
  out.meta.source_dtype = h.descr;
  out.meta.opaque = h.opaque;
  out.meta.storage_offset = base + h.data_offset;
  out.meta.extra["npy_version"] = std::to_string(h.major) + "." + std::to_string(h.minor);
  if (h.fortran_order) out.meta.extra["fortran_order"] = "True";
  if (bytes.size - h.data_offset > h.nbytes)
    out.meta.extra["trailing_bytes"] = std::to_string(bytes.size - h.data_offset - h.nbytes);
  TensorView view(bytes.data + h.data_offset, h.dtype, h.shape, npy_strides(h), h.byte_order);
  if (is_complex(h.dtype) && !view.is_native_order()) {
    // Core byte swapping reverses whole items; complex needs each half
    // swapped, so convert to native order here.
    std::shared_ptr<MappedFile> copy = MappedFile::with_size(name, h.nbytes);
    const std::size_t half = dtype_size(h.dtype) / 2;
    const std::byte* src = view.data;
    std::byte* dst = copy->mutable_data();
    for (std::uint64_t k = 0; k < h.nbytes / half; ++k)
      for (std::size_t j = 0; j < half; ++j) dst[k * half + j] = src[k * half + half - 1 - j];
    view.data = copy->data();
    view.byte_order = native_byte_order;
    out.tensor = Tensor::adopt(std::shared_ptr<const MappedFile>(std::move(copy)), std::move(view));
    return out;
  }
  out.tensor = detail::adopt_or_copy(owner, std::move(view));
  return out;
}

/// Reads one .npy file (mapped or read per options.map).
inline LoadedTensor read_npy(const std::string& path, const LoadOptions& options = {}) {
  const FileHandle f = MappedFile::open(path, options.map, options.map_threshold, options.allow_pipes);
  LoadedTensor t = load_npy_bytes(f, f->bytes(), f->path(), options);
  detail::normalise_bools(t);
  return t;
}

/// The built-in "npy" format.
class NpyFormat final : public Format {
 public:
  std::string_view name() const override { return "npy"; }
  /// Match::magic when the file starts with "\x93NUMPY", Match::extension for a .npy name
  /// alone, Match::no otherwise.
  Match recognises(const FileProbe& p) const override {
    if (p.starts_with("\x93NUMPY")) return Match::magic;
    return p.extension == ".npy" ? Match::extension : Match::no;
  }
  std::vector<LoadedTensor> load(const FileHandle& file, const LoadOptions& options) const override {
    std::vector<LoadedTensor> v;
    v.push_back(load_npy_bytes(file, file->bytes(), file->path(), options));
    return v;
  }
};

// ------------------------------------------------------------------ writing

/// How save_npy writes bfloat16, which npy has no standard descr for
/// (formats.md §1.4).
enum class NpyBf16 : std::uint8_t {
  void2,       ///< `<V2` raw bits, as ml_dtypes writes it (lossless; read back with Bf16Hint::bfloat16)
  float32,     ///< upcast to `<f4` (exact; what msprobe and MindSpore dumps do; plain numpy reads it)
  int16_bits,  ///< `<i2` raw bits (t.view(torch.int16).numpy() convention)
};

/// Options of save_npy() and npy_bytes().
struct NpySaveOptions {
  /// How bfloat16 tensors are written (other dtypes have a standard descr).
  NpyBf16 bf16 = NpyBf16::void2;
};

namespace detail {
inline std::string npy_descr_for(DType t, const NpySaveOptions& o) {
  const char order = native_byte_order == ByteOrder::little ? '<' : '>';
  auto multi = [&](const char* code) { return std::string(1, order) + code; };
  switch (t) {
    case DType::boolean: return "|b1";
    case DType::int8: return "|i1";
    case DType::uint8: return "|u1";
    case DType::int16: return multi("i2");
    case DType::uint16: return multi("u2");
    case DType::int32: return multi("i4");
    case DType::uint32: return multi("u4");
    case DType::int64: return multi("i8");
    case DType::uint64: return multi("u8");
    case DType::float16: return multi("f2");
    case DType::bfloat16:
      return o.bf16 == NpyBf16::void2 ? multi("V2") : o.bf16 == NpyBf16::float32 ? multi("f4") : multi("i2");
    case DType::float32: return multi("f4");
    case DType::float64: return multi("f8");
    case DType::complex64: return multi("c8");
    case DType::complex128: return multi("c16");
    case DType::float8_e4m3fn:
    case DType::float8_e5m2: return "|V1";  // as ml_dtypes writes them; read back with LoadOptions::void1_as
  }
  return "?";
}
}  // namespace detail

/// The header bytes (magic, version, HEADER_LEN, dict, padding to 64) numpy
/// would write for this descr and shape.
inline std::string npy_header_bytes(const std::string& descr, const Shape& shape, bool fortran_order = false) {
  std::string dict = "{'descr': '" + descr + "', 'fortran_order': " + (fortran_order ? "True" : "False") + ", 'shape': (";
  for (std::size_t i = 0; i < shape.size(); ++i) dict += (i ? ", " : "") + std::to_string(shape[i]);
  dict += shape.size() == 1 ? ",), }" : "), }";
  std::size_t prefix = 10;
  int version = 1;
  if (dict.size() + 1 + 64 > 65535) {
    prefix = 12;
    version = 2;
  }
  const std::size_t total = (prefix + dict.size() + 1 + 63) / 64 * 64;
  dict.append(total - prefix - dict.size() - 1, ' ');
  dict += '\n';
  std::string out("\x93NUMPY", 6);
  out += static_cast<char>(version);
  out += '\0';
  const auto len = static_cast<std::uint32_t>(dict.size());
  out += static_cast<char>(len & 0xFF);
  out += static_cast<char>((len >> 8) & 0xFF);
  if (version == 2) {
    out += static_cast<char>((len >> 16) & 0xFF);
    out += static_cast<char>((len >> 24) & 0xFF);
  }
  return out + dict;
}

/// A complete .npy image of `view` (any layout and byte order) in C order and
/// native byte order.
inline std::string npy_bytes(const TensorView& view, const NpySaveOptions& options = {}) {
  const std::string descr = detail::npy_descr_for(view.dtype, options);
  std::string out = npy_header_bytes(descr, view.shape);
  const bool to_f32 = view.dtype == DType::bfloat16 && options.bf16 == NpyBf16::float32;
  const std::uint64_t n = view.numel();
  out.reserve(out.size() + static_cast<std::size_t>(n * (to_f32 ? 4 : view.itemsize())));
  if (is_complex(view.dtype) && !view.is_native_order())
    throw Error(ErrorCategory::unsupported, "save_npy: non-native-order complex views; copy them first");
  ::tensordiff::detail::for_each_native_block(view, [&](const std::byte* p, std::size_t bytes) {
    if (to_f32) {
      for (std::size_t k = 0; k + 1 < bytes; k += 2) {
        std::uint16_t b;
        std::memcpy(&b, p + k, 2);
        const std::uint32_t bits = static_cast<std::uint32_t>(b) << 16;
        out.append(reinterpret_cast<const char*>(&bits), 4);
      }
    } else if (view.dtype == DType::boolean) {
      for (std::size_t k = 0; k < bytes; ++k) out += p[k] != std::byte{0} ? '\1' : '\0';  // numpy writes 0/1
    } else {
      out.append(reinterpret_cast<const char*>(p), bytes);
    }
  });
  return out;
}

/// Writes `view` to `path` as .npy (via a temporary file renamed into place,
/// so readers never see half a file). Errors name the file.
inline void save_npy(const std::string& path, const TensorView& view, const NpySaveOptions& options = {}) {
#if defined(__unix__) || defined(__APPLE__)
  const std::string suffix = ".tmp" + std::to_string(::getpid());  // concurrent writers of one path
#else
  const std::string suffix = ".tmp";
#endif
  detail::write_bytes_atomically(path, npy_bytes(view, options), suffix);
}

}  // namespace io
TD_NAMESPACE_END
