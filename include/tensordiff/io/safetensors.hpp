// tensordiff — .safetensors, written as a *plug-in*: it uses only the public
// reader interface (io/reader.hpp), exactly as a downstream tool would add its
// own format without touching tensordiff. Needs nlohmann/json (link
// tensordiff::json); the core registry stays free of JSON.
//
//   #include <tensordiff/io/registry.hpp>
//   #include <tensordiff/io/safetensors.hpp>
//   tensordiff::io::register_safetensors();            // once, at start-up
//   auto tensors = tensordiff::io::load("model.safetensors");
//
// Layout (huggingface/safetensors): u64 little-endian N, N bytes of JSON
// {"name": {"dtype": "F32", "shape": [..], "data_offsets": [begin, end]}, ...,
//  "__metadata__": {str: str}}, then the byte buffer; offsets are relative
// to the buffer. Tensors are returned in buffer order, zero-copy.
#pragma once
#include <algorithm>
#include <cstdint>
#include <memory>
#include <set>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "reader.hpp"
#include "registry.hpp"

TD_NAMESPACE_BEGIN
namespace io {

/// The "safetensors" format (see the file comment); register it with register_safetensors().
class SafetensorsFormat final : public Format {
 public:
  /// The safetensors crate's own cap on the JSON header.
  static constexpr std::uint64_t max_header = 100u << 20;

  std::string_view name() const override { return "safetensors"; }

  /// Match::extension for a .safetensors name, or for a head that looks like one (a plausible
  /// header length followed by '{': the format has no magic number); Match::no otherwise.
  Match recognises(const FileProbe& p) const override {
    if (p.extension == ".safetensors") return Match::extension;
    // No magic number; a plausible length followed by '{' is a good hint.
    if (p.head_size >= 9 && p.head[8] == std::byte{'{'}) {
      std::uint64_t n = 0;
      for (int i = 7; i >= 0; --i) n = (n << 8) | std::to_integer<std::uint64_t>(p.head[i]);
      if (n >= 2 && n <= max_header && n <= p.file_size - 8) return Match::extension;
    }
    return Match::no;
  }

  std::vector<LoadedTensor> load(const FileHandle& file, const LoadOptions& options) const override {
    const std::string& path = file->path();
    const ByteSpan f = file->bytes();
    auto fail = [&](const std::string& field, std::uint64_t at, const std::string& reason,
                    ErrorCategory c = ErrorCategory::format) -> void { throw Error(c, reason, {path, field, at}); };
    if (f.size < 8) fail("header length", 0, "file of " + std::to_string(f.size) + " bytes is too short for safetensors");
    std::uint64_t n = 0;
    for (int i = 7; i >= 0; --i) n = (n << 8) | std::to_integer<std::uint64_t>(f.data[i]);
    if (n > max_header) fail("header length", 0, "JSON header of " + std::to_string(n) + " bytes exceeds the limit", ErrorCategory::security);
    if (n > f.size - 8) fail("header length", 0, "JSON header of " + std::to_string(n) + " bytes runs past the end of the file");
    const std::uint64_t base = 8 + n;
    const std::uint64_t buffer = f.size - base;
    nlohmann::ordered_json header;
    // JSON keeps the last of duplicate keys silently; the safetensors crate
    // refuses them, and so do we (two tensors of one name is never meant).
    std::set<std::string> seen;
    auto no_duplicates = [&](int depth, nlohmann::ordered_json::parse_event_t ev, nlohmann::ordered_json& parsed) {
      if (ev == nlohmann::ordered_json::parse_event_t::key && depth == 1 && !seen.insert(parsed.get<std::string>()).second)
        fail("tensor '" + parsed.get<std::string>() + "'", 8, "duplicate tensor name in the JSON header");
      return true;
    };
    try {
      header = nlohmann::ordered_json::parse(reinterpret_cast<const char*>(f.data + 8),
                                             reinterpret_cast<const char*>(f.data + 8 + n), no_duplicates);
    } catch (const nlohmann::json::parse_error& e) {
      fail("header", 8 + (e.byte > 0 ? e.byte - 1 : 0), std::string("invalid JSON header: ") + e.what());
    } catch (const nlohmann::json::exception& e) {  // e.g. a number beyond double's range
      fail("header", 8, std::string("invalid JSON header: ") + e.what());
    }
    if (!header.is_object()) fail("header", 8, "JSON header is not an object");

    struct Item {
      std::uint64_t begin;
      LoadedTensor t;
    };
    std::vector<Item> items;
    std::map<std::string, std::string> file_meta;
    for (auto it = header.begin(); it != header.end(); ++it) {
      const std::string& key = it.key();
      const auto& v = it.value();
      if (key == "__metadata__") {
        if (!v.is_object()) fail("__metadata__", 8, "must be an object of strings");
        for (auto m = v.begin(); m != v.end(); ++m) {
          if (!m.value().is_string()) fail("__metadata__." + m.key(), 8, "metadata values must be strings");
          file_meta[m.key()] = m.value().get<std::string>();
        }
        continue;
      }
      const std::string field = "tensor '" + key + "'";
      if (!v.is_object()) fail(field, 8, "entry is not an object");
      auto dt = v.find("dtype");
      auto sh = v.find("shape");
      auto off = v.find("data_offsets");
      if (dt == v.end() || !dt->is_string()) fail(field, 8, "missing or non-string 'dtype'");
      if (sh == v.end() || !sh->is_array()) fail(field, 8, "missing or non-array 'shape'");
      if (off == v.end() || !off->is_array() || off->size() != 2 || !(*off)[0].is_number_unsigned() ||
          !(*off)[1].is_number_unsigned())
        fail(field, 8, "'data_offsets' must be [begin, end] of non-negative integers");
      const std::string code = dt->get<std::string>();
      const DType dtype = dtype_of_code(code, path, field);
      if (sh->size() > options.limits.max_rank) fail(field, 8, "too many dimensions", ErrorCategory::security);
      Shape shape;
      std::uint64_t numel = 1;
      for (const auto& d : *sh) {
        if (!d.is_number_unsigned()) fail(field, 8, "shape entries must be non-negative integers");
        const auto u = d.get<std::uint64_t>();
        if (u > static_cast<std::uint64_t>(INT64_MAX) || (u != 0 && numel > static_cast<std::uint64_t>(INT64_MAX) / u))
          fail(field, 8, "element count overflows 64 bits");
        numel *= u;
        shape.push_back(static_cast<std::int64_t>(u));
      }
      const auto begin = (*off)[0].get<std::uint64_t>(), end = (*off)[1].get<std::uint64_t>();
      if (begin > end || end > buffer)
        fail(field, base, "data_offsets [" + std::to_string(begin) + ", " + std::to_string(end) +
                              ") lie outside the " + std::to_string(buffer) + "-byte data buffer");
      const std::uint64_t item = dtype_size(dtype);
      if (numel > static_cast<std::uint64_t>(INT64_MAX) / item || end - begin != numel * item)
        fail(field, base + begin, "holds " + std::to_string(end - begin) + " bytes but shape " + shape_to_string(shape) +
                                      " of " + code + " needs " + std::to_string(numel) + " x " + std::to_string(item));
      Item x{begin, {}};
      x.t.path = key;
      x.t.meta.source_dtype = code;
      x.t.meta.storage_offset = base + begin;
      x.t.tensor = detail::adopt_or_copy(
          file, TensorView(f.data + base + begin, dtype, shape, contiguous_strides(shape), ByteOrder::little));
      items.push_back(std::move(x));
    }
    std::stable_sort(items.begin(), items.end(), [](const Item& a, const Item& b) { return a.begin < b.begin; });
    // As the safetensors crate: the tensors tile the buffer exactly, in
    // offset order — no byte shared by two tensors, no byte unaccounted for.
    std::uint64_t expect = 0;
    for (const auto& x : items) {
      const std::uint64_t len = x.t.tensor.view().numel() * x.t.tensor.view().itemsize();
      if (x.begin != expect)
        fail("tensor '" + x.t.path + "'", base + x.begin,
             x.begin < expect ? "data_offsets overlap the previous tensor's bytes (ends at " + std::to_string(expect) + ")"
                              : "gap in the data buffer: bytes [" + std::to_string(expect) + ", " +
                                    std::to_string(x.begin) + ") belong to no tensor");
      expect = x.begin + len;
    }
    if (expect != buffer)
      fail("data", base + expect, "the data buffer has " + std::to_string(buffer - expect) +
                                      " bytes after the last tensor that belong to no tensor");
    std::vector<LoadedTensor> out;
    out.reserve(items.size());
    for (auto& x : items) {
      x.t.meta.extra.insert(file_meta.begin(), file_meta.end());
      out.push_back(std::move(x.t));
    }
    return out;
  }

 private:
  static DType dtype_of_code(const std::string& code, const std::string& path, const std::string& field) {
    static const std::pair<const char*, DType> table[] = {
        {"BOOL", DType::boolean}, {"I8", DType::int8},     {"U8", DType::uint8},       {"I16", DType::int16},
        {"U16", DType::uint16},   {"I32", DType::int32},   {"U32", DType::uint32},     {"I64", DType::int64},
        {"U64", DType::uint64},   {"F16", DType::float16}, {"BF16", DType::bfloat16},  {"F32", DType::float32},
        {"F64", DType::float64},  {"C64", DType::complex64}, {"F8_E4M3", DType::float8_e4m3fn},
        {"F8_E5M2", DType::float8_e5m2}};
    for (const auto& [name, t] : table)
      if (code == name) return t;
    throw Error(ErrorCategory::unsupported, "unsupported safetensors dtype '" + code + "'", {path, field, 8});
  }
};

/// Adds the safetensors format to a registry (the global one by default).
inline void register_safetensors(Registry& registry = Registry::global()) {
  registry.add(std::make_unique<SafetensorsFormat>());
}

}  // namespace io
TD_NAMESPACE_END
