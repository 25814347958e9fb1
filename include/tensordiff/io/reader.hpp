// tensordiff — the one interface every tensor file reader implements.
//
// A *format* is a small component with three jobs:
//
//   class MyFormat final : public io::Format {
//    public:
//     std::string_view name() const override { return "myfmt"; }
//     io::Match recognises(const io::FileProbe& p) const override {
//       if (p.starts_with("MYFMT")) return io::Match::magic;          // magic bytes win
//       return p.extension == ".myf" ? io::Match::extension : io::Match::no;
//     }
//     std::vector<io::LoadedTensor> load(const io::FileHandle& file,
//                                        const io::LoadOptions& opt) const override;
//   };
//   io::Registry::global().add(std::make_unique<MyFormat>());   // see registry.hpp
//
// `load` receives the whole file as a shared, read-only MappedFile (mapped or
// read into memory by the registry according to LoadOptions::map) and returns
// the tensors in file order as (path, Tensor, metadata). Readers should
//   - hand out zero-copy views where they can: io::detail::adopt_or_copy()
//     keeps the file alive through Tensor::adopt and copies only when the data
//     is misaligned for its element type;
//   - throw tensordiff::Error for every problem, with ErrorContext{file, field
//     or opcode or member, byte offset} and a reason (file = file->path());
//   - check sizes against the file before allocating anything.
//
// Paths: a single-tensor file (npy, a bare torch.save(tensor)) yields one
// entry with path "". Containers yield keys joined with '.': "a", "layer.0.w",
// list items as indices ("0", "x.1"). npz members are the member name minus
// ".npy". io::load_one("file.npz::a") selects one entry by path.
//
// Built-in formats (npy, npz, and pt when io/pt.hpp is present) are registered
// by registry.hpp on first use of Registry::global(). Format headers include
// this header only, never registry.hpp, so the registry can include them.
#pragma once
#include <cstddef>
#include <cstdint>
#include <cstring>
#include <map>
#include <optional>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "../core/tensor.hpp"
#include "mapped_file.hpp"

TD_NAMESPACE_BEGIN
namespace io {

/// Resource caps for hostile input. Every reader checks the ones it needs.
struct Limits {
  std::uint64_t max_header_bytes = 1u << 20;   ///< npy header text, safetensors JSON header
  std::uint64_t max_members = 1u << 20;        ///< zip central-directory entries
  std::uint64_t max_name_bytes = 4096;         ///< zip member name
  std::uint64_t max_rank = 64;                 ///< dimensions of one tensor
  std::uint64_t max_pickle_bytes = 64u << 20;  ///< .pt data.pkl
  std::uint64_t max_pickle_items = 1u << 20;   ///< pickle memo entries / stack length / container items
  std::uint64_t max_pickle_depth = 1000;       ///< container nesting
  /// Elements a view may show beyond its storage's own element count (stride
  /// 0 and overlapping strides repeat bytes): a 2^40-element view of one
  /// float would otherwise make every metric run for hours. Raise it for
  /// genuinely broadcast tensors.
  std::uint64_t max_view_expansion = 1ull << 28;
  std::uint64_t max_inflated_bytes = 4ull << 30;  ///< all deflated members of one archive together
  /// Inflated : deflated size above which a member larger than
  /// `ratio_free_bytes` is refused as a bomb (deflate's physical limit is ~1032).
  std::uint64_t max_inflate_ratio = 200;
  std::uint64_t ratio_free_bytes = 16ull << 20;  ///< members up to this size may have any ratio
  std::uint64_t max_tensors = 1u << 18;        ///< tensors in one file (shared pickle references included)
  std::uint64_t max_path_bytes = 256ull << 20;  ///< bytes of all tensor paths of one file together
};

/// How to read `<V2` (ml_dtypes' bfloat16) and 16-bit integer payloads (see
/// formats.md §1.4: npy has no standard bfloat16 descr).
enum class Bf16Hint : std::uint8_t {
  none,         ///< `<V2` is refused (or opaque uint16 bits with LoadOptions::allow_opaque); `<i2`/`<u2` are integers
  bfloat16,     ///< `<V2` / `|V2` are bfloat16 (the caller or dump.json says so)
  int16_bits,   ///< additionally reinterpret `<i2` / `<u2` as bfloat16 bits (t.view(torch.int16).numpy())
};

/// Options every reader understands (those that do not apply are ignored).
struct LoadOptions {
  /// How `<V2` and 16-bit integer payloads are read (npy / npz).
  Bf16Hint bf16 = Bf16Hint::none;
  /// What an npy `|V1` (a 1-byte void, as ml_dtypes writes its float8 types) holds:
  /// DType::float8_e4m3fn or DType::float8_e5m2 (CLI `--as`); unset refuses the file.
  std::optional<DType> void1_as;
  MapPolicy map = MapPolicy::automatic;  ///< mmap large files, read small ones
  /// Smallest file, in bytes, that MapPolicy::automatic maps.
  std::uint64_t map_threshold = MappedFile::default_map_threshold;
  bool verify_crc = true;                ///< check zip member CRC-32 as numpy does (one pass over the data); false to skip
  /// Keep dtypes tensordiff has no arithmetic for (npy `<V2` without a bf16
  /// hint, npy `|V1` without void1_as, torch float8 fnuz / complex32 storages) as same-size unsigned words
  /// flagged metadata.opaque, instead of refusing the file.
  bool allow_opaque = false;
  bool allow_pipes = false;              ///< read FIFOs (bash `<(...)`) as streams; else only regular files
  std::string format;                    ///< force a format by name; empty = detect
  /// Caps on what a file may declare (sizes, rank, pickle depth...): malformed or hostile input
  /// fails with Error{security} instead of exhausting memory.
  Limits limits;
};

/// What a file said about a tensor besides its values.
struct TensorMetadata {
  std::string source_dtype;        ///< the format's own spelling: "<f4", "BF16", "torch.BFloat16Storage"
  bool opaque = false;             ///< bytes of unknown meaning (npy `<V2` without a bf16 hint), shown as uint16
  bool requires_grad = false;      ///< pt
  bool is_parameter = false;       ///< pt: nn.Parameter
  std::string location;            ///< pt: "cpu", "cuda:0", "npu:0" (a label; the bytes are host bytes)
  std::string storage_key;         ///< pt: "0" for data/0; npz: the member name
  std::uint64_t storage_offset = 0;  ///< pt: in elements; npy/npz: byte offset of the data in the file
  std::map<std::string, std::string> extra;  ///< anything else worth showing (format version, ...)
};

/// One tensor of a file.
struct LoadedTensor {
  std::string path;  ///< "" for single-tensor files; "a.b.0" inside containers
  /// The values: a view that shares ownership of the file's bytes (zero-copy where the layout
  /// allows), or an owned copy.
  Tensor tensor;
  /// What the file said besides the values (its dtype spelling, pt's requires_grad, ...).
  TensorMetadata meta;
};

/// How well a format recognises a file; the registry takes the best: `no` (not this format),
/// `extension` (the file name or a weak hint says so), `magic` (the first bytes prove it).
enum class Match : std::uint8_t { no = 0, extension = 1, magic = 2 };

/// The first bytes of a file plus its name, for recognises().
struct FileProbe {
  /// The file's name as given (errors and extension checks use it).
  std::string path;
  std::string extension;       ///< lower case, with the dot: ".npy"; "" when none
  const std::byte* head = nullptr;  ///< the first head_size bytes (at most 4096)
  /// Bytes available at `head`: min(file_size, 4096).
  std::size_t head_size = 0;
  /// The whole file's length in bytes.
  std::uint64_t file_size = 0;

  /// True when `magic` occurs at byte `at` of the head (false when the head is too short).
  bool starts_with(std::string_view magic, std::size_t at = 0) const noexcept {
    return at <= head_size && magic.size() <= head_size - at && std::memcmp(head + at, magic.data(), magic.size()) == 0;
  }
};

/// A file format. Implementations are stateless and thread-safe (load may be
/// called concurrently).
class Format {
 public:
  virtual ~Format() = default;
  /// Short lower-case name: "npy", "npz", "pt", "safetensors".
  virtual std::string_view name() const = 0;
  /// How well this format recognises the file from its first bytes and name (magic beats
  /// extension); must not throw.
  virtual Match recognises(const FileProbe& probe) const = 0;
  /// All tensors of the file, in file order.
  virtual std::vector<LoadedTensor> load(const FileHandle& file, const LoadOptions& options) const = 0;
};

namespace detail {

/// Lower-case extension of a path's last component, with the dot.
inline std::string extension_of(const std::string& path) {
  const std::size_t slash = path.find_last_of('/');
  const std::size_t dot = path.find_last_of('.');
  if (dot == std::string::npos || (slash != std::string::npos && dot < slash)) return {};
  std::string ext = path.substr(dot);
  for (char& c : ext) c = static_cast<char>(c >= 'A' && c <= 'Z' ? c - 'A' + 'a' : c);
  return ext;
}

inline FileProbe make_probe(const MappedFile& f) {
  FileProbe p;
  p.path = f.path();
  p.extension = extension_of(f.path());
  p.head = f.data();
  p.head_size = static_cast<std::size_t>(std::min<std::uint64_t>(f.size(), 4096));
  p.file_size = f.size();
  return p;
}

/// A Tensor over `view`, whose bytes lie inside `file`'s buffer and were
/// checked to fit: zero-copy (Tensor::adopt keeps the file alive) when the
/// data pointer suits the element type, else a copy of the covered bytes into
/// an aligned buffer with the same layout and byte order.
inline Tensor adopt_or_copy(const FileHandle& file, TensorView view) {
  const std::size_t item = view.itemsize();
  const std::size_t align = item >= 8 ? 8 : item;  // complex128 needs 8, not 16
  if (align <= 1 || reinterpret_cast<std::uintptr_t>(view.data) % align == 0)
    return Tensor::adopt(file, std::move(view));
  const auto [lo, hi] = view.byte_extent();
  const auto bytes = static_cast<std::uint64_t>(hi - lo);
  std::shared_ptr<MappedFile> copy = MappedFile::with_size(file->path(), bytes);
  if (bytes) std::memcpy(copy->mutable_data(), view.data + lo, static_cast<std::size_t>(bytes));
  view.data = copy->data() - lo;
  return Tensor::adopt(std::shared_ptr<const MappedFile>(std::move(copy)), std::move(view));
}

/// numpy and torch treat every non-zero bool byte as True; hashes and bitwise
/// checks see bytes. A bool tensor holding bytes other than 0/1 is replaced by
/// a 0/1 copy (metadata extra "bool_normalised"), so equal tensors hash equal.
inline void normalise_bools(LoadedTensor& t) {
  const TensorView& v = t.tensor.view();
  if (v.dtype != DType::boolean) return;
  const std::uint64_t n = v.numel();
  bool odd = false;
  for (std::uint64_t k = 0; k < n && !odd; ++k) odd = std::to_integer<unsigned>(v.data[v.offset_of(k)]) > 1;
  if (!odd) return;
  Tensor fixed = Tensor::copy_of(v);  // contiguous
  auto* b = fixed.mutable_data<std::uint8_t>();
  for (std::uint64_t k = 0; k < n; ++k) b[k] = b[k] != 0;
  t.tensor = std::move(fixed);
  t.meta.extra["bool_normalised"] = "bytes other than 0/1 read as True";
}

}  // namespace detail
}  // namespace io
TD_NAMESPACE_END
