// tensordiff — PyTorch `torch.save` files without libtorch.
//
//   auto tensors = tensordiff::io::load_pt(tensordiff::io::MappedFile::open("model.pt"));
//   for (auto& t : tensors) std::cout << t.path << " " << shape_to_string(t.tensor.shape()) << "\n";
//
// Reads both variants of spec formats.md §2:
//   - the zip format (torch >= 1.6): `<root>/data.pkl`, `<root>/data/<key>`,
//     `<root>/byteorder` (absent = little), `<root>/version`; the root folder's
//     name varies (the file's basename, "archive" for buffers);
//   - the legacy stream (`_use_new_zipfile_serialization=False`): five pickles
//     (magic, protocol 1001, sys_info, the object, the storage keys) followed by
//     the raw storages, each after an 8-byte element count.
// The pickle runs on the allow-list machine of io/detail/pickle.hpp: a file
// that names any global outside the tensor rebuild table fails at that opcode.
//
// The result is the loaded object flattened to (path, tensor): dict keys and
// list/tuple indices from the root joined by '.', "" for a bare tensor. Other
// leaves (str, int, None, ...) are not tensors and are skipped. Tensors view
// the file's bytes (zero copy for aligned stored zip members; torch aligns
// them to 64 bytes) with the pickle's offset, sizes and strides (0 included);
// tensors sharing a storage share its bytes. Every view is checked against its
// storage's size before it is handed out. Storages of big-endian files give
// views with ByteOrder::big.
#pragma once
#include <cstdint>
#include <cstring>
#include <memory>
#include <string>
#include <unordered_map>
#include <unordered_set>
#include <utility>
#include <vector>

#include "detail/pickle.hpp"
#include "detail/zip.hpp"
#include "reader.hpp"

TD_NAMESPACE_BEGIN
namespace io {
namespace detail {
namespace pickle = ::tensordiff::detail::pickle;

/// The legacy stream starts with a protocol-2 pickle of the magic number
/// 0x1950a86a20f9469cfc6c (LONG1 of 10 bytes) and STOP: 15 bytes.
inline constexpr unsigned char pt_legacy_magic[15] = {0x80, 0x02, 0x8a, 0x0a, 0x6c, 0xfc, 0x9c, 0x46,
                                                      0xf9, 0x20, 0x6a, 0xa8, 0x50, 0x19, 0x2e};

/// Bytes of one storage and what keeps them alive.
struct PtStorageBytes {
  FileHandle owner;
  ByteSpan bytes;
  std::string record;  ///< zip record name or "legacy storage <key>"
};

inline pickle::Limits pickle_limits(const Limits& l) {
  pickle::Limits p;
  p.max_pickle_bytes = l.max_pickle_bytes;
  p.max_memo = static_cast<std::size_t>(l.max_pickle_items);
  p.max_stack = static_cast<std::size_t>(l.max_pickle_items);
  p.max_depth = static_cast<std::size_t>(l.max_pickle_depth);
  return p;
}

/// Flattens the unpickled object to (path, tensor record), in order.
class PtWalker {
 public:
  using Leaf = std::pair<std::string, std::shared_ptr<const pickle::TensorRecord>>;

  PtWalker(std::string file, std::uint64_t max_nodes, std::uint64_t max_tensors = UINT64_MAX,
           std::uint64_t max_path_bytes = UINT64_MAX)
      : file_(std::move(file)), max_nodes_(max_nodes), max_tensors_(max_tensors), max_path_bytes_(max_path_bytes) {}

  std::vector<Leaf> walk(const pickle::Value& root) {
    std::string path;
    visit(root, path);
    return std::move(leaves_);
  }

 private:
  // `path` is one buffer extended and cut back around each child: no string
  // is built per node, only per tensor.
  void visit(const pickle::Value& v, std::string& path) {
    // Shared references may repeat a subtree many times (a DAG expands
    // exponentially): bound the walk, not only the pickle.
    if (++nodes_ > max_nodes_)
      throw Error(ErrorCategory::security,
                  "the object expands to more than " + std::to_string(max_nodes_) + " nodes through shared references",
                  ErrorContext{file_, "data.pkl", std::nullopt});
    const std::size_t keep = path.size();
    auto child = [&](const pickle::Value& x, const std::string& part) {
      if (keep) path += '.';
      path += part;
      visit(x, path);
      path.resize(keep);
    };
    switch (v.kind) {
      case pickle::Kind::tensor:
        // A few hundred bytes of shared references can name one tensor (or
        // one long key) millions of times: bound what the caller receives.
        if (leaves_.size() >= max_tensors_)
          throw Error(ErrorCategory::security,
                      "the object expands to more than " + std::to_string(max_tensors_) +
                          " tensors (shared references repeat them; limit max_tensors)",
                      ErrorContext{file_, "data.pkl", std::nullopt});
        path_bytes_ += path.size();
        if (path_bytes_ > max_path_bytes_)
          throw Error(ErrorCategory::security,
                      "tensor paths add up to more than " + std::to_string(max_path_bytes_) +
                          " bytes (shared references repeat long keys; limit max_path_bytes)",
                      ErrorContext{file_, "data.pkl", std::nullopt});
        leaves_.emplace_back(path, v.tensor);
        break;
      case pickle::Kind::dict:
        for (const auto& [k, x] : v.entries) child(*x, k->kind == pickle::Kind::string ? k->s : std::to_string(k->i));
        break;
      case pickle::Kind::list:
      case pickle::Kind::tuple:
        for (std::size_t i = 0; i < v.items.size(); ++i) child(*v.items[i], std::to_string(i));
        break;
      default: break;  // str, int, float, bool, None, sets, storages, dtypes: not tensors
    }
  }

  std::string file_;
  std::uint64_t max_nodes_, max_tensors_, max_path_bytes_;
  std::uint64_t nodes_ = 0, path_bytes_ = 0;
  std::vector<Leaf> leaves_;
};

/// A LoadedTensor for one record over its storage's bytes.
inline LoadedTensor pt_make_tensor(const std::string& file, std::string path, const pickle::TensorRecord& rec,
                                   const PtStorageBytes& st, ByteOrder order, const LoadOptions& opt) {
  const pickle::StorageRef& ref = rec.storage_ref();
  const ErrorContext where{file, "tensor '" + path + "'", rec.offset};
  if (!rec.opaque_dtype.empty() && !opt.allow_opaque)
    throw Error(ErrorCategory::unsupported,
                "dtype torch." + rec.opaque_dtype +
                    " is not supported (tensordiff has no arithmetic for it and will not show its bytes as integers); "
                    "convert it with .float() before torch.save, or load with allow_opaque to see raw words",
                where);
  const std::uint64_t item = dtype_size(rec.dtype);
  const std::uint64_t numel = checked_numel(rec.shape, where);
  // Stride 0 / overlapping strides: the view may repeat the storage's bytes;
  // bound the repetition before any work is done on it.
  const std::uint64_t storage_elems = ref.nbytes / item;
  if (numel > storage_elems && numel - storage_elems > opt.limits.max_view_expansion)
    throw Error(ErrorCategory::security,
                "view of shape " + shape_to_string(rec.shape) + " strides " + shape_to_string(rec.strides) + " shows " +
                    std::to_string(numel) + " elements of a storage holding " + std::to_string(storage_elems) +
                    " (more than the limit max_view_expansion = " + std::to_string(opt.limits.max_view_expansion) + " repeated)",
                where);
  if (st.bytes.size != ref.nbytes)  // the loaders check this; a view must never trust it
    throw Error(ErrorCategory::format, "storage bytes differ from the declared size", where);
  std::uint64_t start = 0;
  if (numel > 0) {
    const auto off = static_cast<std::uint64_t>(rec.storage_offset);
    if (off > ref.nbytes / item)
      throw Error(ErrorCategory::format, "storage offset " + std::to_string(off) + " lies past the storage", where);
    start = off * item;
  }
  TensorView view(st.bytes.data + start, rec.dtype, rec.shape, rec.strides, item > 1 ? order : native_byte_order);
  view.check_within(ref.nbytes - start, where);

  LoadedTensor out;
  out.path = std::move(path);
  out.tensor = adopt_or_copy(st.owner, std::move(view));
  TensorMetadata& m = out.meta;
  m.source_dtype = !rec.opaque_dtype.empty() ? "torch." + rec.opaque_dtype
                   : ref.untyped                ? std::string("torch.") + dtype_name(rec.dtype)
                                                : "torch." + ref.class_name;
  m.opaque = !rec.opaque_dtype.empty();
  m.requires_grad = rec.requires_grad;
  m.is_parameter = rec.is_parameter;
  m.location = ref.location;
  m.storage_key = ref.key;
  m.storage_offset = static_cast<std::uint64_t>(rec.storage_offset);
  m.extra["stride"] = shape_to_string(rec.strides);
  m.extra["storage_numel"] = std::to_string(ref.numel);
  m.extra["storage_class"] = ref.class_name;
  m.extra["storage_record"] = st.record;
  m.extra["rebuild"] = rec.rebuild;
  if (rec.npu_format) m.extra["npu_format"] = std::to_string(*rec.npu_format);
  if (order == ByteOrder::big) m.extra["byteorder"] = "big";
  return out;
}

inline std::vector<LoadedTensor> pt_flatten(const std::string& file, const pickle::Value& root,
                                            const std::unordered_map<std::string, PtStorageBytes>& storages,
                                            ByteOrder order, const LoadOptions& opt) {
  const Limits& limits = opt.limits;
  PtWalker walker(file, std::max<std::uint64_t>(limits.max_pickle_items, 1) * 4, limits.max_tensors, limits.max_path_bytes);
  std::vector<LoadedTensor> out;
  for (auto& [path, rec] : walker.walk(root)) {
    auto it = storages.find(rec->storage_ref().key);
    if (it == storages.end())  // every storage was resolved after the pickle ran
      throw Error(ErrorCategory::format, "storage '" + rec->storage_ref().key + "' was not resolved",
                  ErrorContext{file, "tensor '" + path + "'", rec->offset});
    out.push_back(pt_make_tensor(file, path, *rec, it->second, order, opt));
  }
  return out;
}

[[noreturn]] inline void pt_size_mismatch(const std::string& file, const pickle::StorageRef& s, const std::string& record,
                                          std::uint64_t have, std::uint64_t at) {
  throw Error(ErrorCategory::format,
              "storage size mismatch: " + s.class_name + " numel " + std::to_string(s.numel) +
                  (s.untyped ? " bytes" : " * " + std::to_string(s.nbytes / (s.numel ? s.numel : 1)) + " bytes") + " = " +
                  std::to_string(s.nbytes) + " bytes, but " + record + " holds " + std::to_string(have),
              ErrorContext{file, "storage '" + pickle::printable(s.key) + "'", at});
}

inline std::vector<LoadedTensor> load_pt_zip(const FileHandle& file, const LoadOptions& opt) {
  const std::string& fname = file->path();
  ZipArchive zip = ZipArchive::open(file, opt.limits);
  if (zip.entries().empty())
    throw Error(ErrorCategory::format, "zip archive has no members (not a torch.save file)", ErrorContext{fname, "", std::nullopt});
  // The archive root: the first member's folder, shared by every member.
  const std::string& first = zip.entries().front().name;
  const std::size_t slash = first.find('/');
  if (slash == std::string::npos || slash == 0)
    throw Error(ErrorCategory::format, "member '" + pickle::printable(first) + "' is not inside an archive root folder",
                ErrorContext{fname, "zip", zip.entries().front().central_offset});
  const std::string root = first.substr(0, slash + 1);
  for (const ZipEntry& e : zip.entries()) {
    if (e.name.compare(0, root.size(), root) != 0)
      throw Error(ErrorCategory::format,
                  "member '" + pickle::printable(e.name) + "' lies outside the archive root '" + pickle::printable(root) + "'",
                  ErrorContext{fname, "zip", e.central_offset});
    if (e.name == root + "constants.pkl" || e.name.compare(0, root.size() + 5, root + "code/") == 0)
      throw Error(ErrorCategory::unsupported,
                  "TorchScript archive (torch.jit.save); load it in Python and torch.save its state_dict()",
                  ErrorContext{fname, "member '" + pickle::printable(e.name) + "'", e.central_offset});
  }

  ByteOrder order = ByteOrder::little;
  if (const ZipEntry* bo = zip.find(root + "byteorder")) {
    const ZipMember m = zip.read(*bo, opt.verify_crc);
    const std::string s(reinterpret_cast<const char*>(m.bytes.data), static_cast<std::size_t>(m.bytes.size));
    if (s == "big") order = ByteOrder::big;
    else if (s != "little")
      throw Error(ErrorCategory::format, "byteorder record says '" + pickle::printable(s) + "' (expected little or big)",
                  ErrorContext{fname, "member '" + bo->name + "'", bo->data_offset});
  }

  const ZipEntry* pe = zip.find(root + "data.pkl");
  if (!pe)
    throw Error(ErrorCategory::format, "missing record '" + pickle::printable(root) + "data.pkl' (not a torch.save file)",
                ErrorContext{fname, "zip", std::nullopt});
  if (pe->size > opt.limits.max_pickle_bytes)
    throw Error(ErrorCategory::security,
                "data.pkl of " + std::to_string(pe->size) + " bytes exceeds the cap of " +
                    std::to_string(opt.limits.max_pickle_bytes),
                ErrorContext{fname, "member '" + pe->name + "'", pe->data_offset});
  const ZipMember pkl = zip.read(*pe, opt.verify_crc);
  // Offsets are file offsets for a stored data.pkl, offsets in the inflated
  // bytes otherwise (torch never compresses; other zip tools might).
  pickle::Machine vm(pkl.bytes.data, static_cast<std::size_t>(pkl.bytes.size), fname,
                     pe->is_stored() ? "data.pkl" : "data.pkl (inflated)", pe->is_stored() ? pe->data_offset : 0,
                     pickle_limits(opt.limits));
  const pickle::Result res = vm.run();

  // Resolve every storage the pickle named, before any tensor is made.
  std::unordered_map<std::string, PtStorageBytes> storages;
  for (const auto& [key, v] : vm.storages()) {
    const pickle::StorageRef& s = *v->storage;
    const std::string rname = root + "data/" + key;
    const ZipEntry* e = zip.find(rname);
    if (!e)
      throw Error(ErrorCategory::format, "missing record data/" + pickle::printable(key) + " for storage '" + pickle::printable(key) + "'",
                  ErrorContext{fname, "data.pkl opcode BINPERSID", s.offset});
    if (e->size != s.nbytes) pt_size_mismatch(fname, s, "record '" + pickle::printable(rname) + "'", e->size, s.offset);
    ZipMember m = zip.read(*e, opt.verify_crc);
    storages.emplace(key, PtStorageBytes{std::move(m.owner), m.bytes, rname});
  }
  return pt_flatten(fname, *res.value, storages, order, opt);
}

inline std::vector<LoadedTensor> load_pt_legacy(const FileHandle& file, const LoadOptions& opt) {
  const std::string& fname = file->path();
  const ByteSpan f = file->bytes();
  const pickle::Limits lim = pickle_limits(opt.limits);
  std::uint64_t pos = sizeof pt_legacy_magic;  // the caller checked the magic pickle
  auto run = [&](pickle::Machine& vm) {
    pickle::Result r = vm.run();
    pos += r.end;
    return r.value;
  };
  auto rest = [&] { return static_cast<std::size_t>(std::min<std::uint64_t>(f.size - pos, opt.limits.max_pickle_bytes)); };

  pickle::Machine v2(f.data + pos, rest(), fname, "legacy protocol pickle", pos, lim);
  const pickle::ValuePtr proto = run(v2);
  if (proto->kind != pickle::Kind::integer || proto->i != 1001)
    throw Error(ErrorCategory::unsupported, "legacy protocol version is not 1001", ErrorContext{fname, "legacy protocol pickle", sizeof pt_legacy_magic});

  const std::uint64_t sys_at = pos;
  pickle::Machine v3(f.data + pos, rest(), fname, "legacy sys_info pickle", pos, lim);
  const pickle::ValuePtr sys = run(v3);
  if (sys->kind != pickle::Kind::dict) throw Error(ErrorCategory::format, "sys_info is not a dict", ErrorContext{fname, "legacy sys_info pickle", sys_at});
  bool little = true;
  for (const auto& [k, v] : sys->entries)
    if (k->kind == pickle::Kind::string && k->s == "little_endian") {
      if (v->kind != pickle::Kind::boolean)
        throw Error(ErrorCategory::format, "sys_info little_endian is not a bool", ErrorContext{fname, "legacy sys_info pickle", sys_at});
      little = v->b;
    }
  const ByteOrder order = little ? ByteOrder::little : ByteOrder::big;

  pickle::Machine vm(f.data + pos, rest(), fname, "data.pkl", pos, lim);
  const pickle::ValuePtr obj = run(vm);

  const std::uint64_t keys_at = pos;
  pickle::Machine vk(f.data + pos, rest(), fname, "legacy storage-key pickle", pos, lim);
  const pickle::ValuePtr keys = run(vk);
  if (keys->kind != pickle::Kind::list)
    throw Error(ErrorCategory::format, "storage key list is a " + std::string(pickle::kind_name(keys->kind)),
                ErrorContext{fname, "legacy storage-key pickle", keys_at});

  std::unordered_map<std::string, PtStorageBytes> storages;
  for (const pickle::ValuePtr& k : keys->items) {
    if (k->kind != pickle::Kind::string)
      throw Error(ErrorCategory::format, "storage key is not a str", ErrorContext{fname, "legacy storage-key pickle", keys_at});
    auto it = vm.storages().find(k->s);
    const std::string field = "legacy storage '" + pickle::printable(k->s) + "'";
    if (it == vm.storages().end())
      throw Error(ErrorCategory::format, "storage key is listed but never used by the pickle", ErrorContext{fname, field, pos});
    if (storages.count(k->s)) throw Error(ErrorCategory::format, "storage key is listed twice", ErrorContext{fname, field, pos});
    const pickle::StorageRef& s = *it->second->storage;
    if (f.size - pos < 8)
      throw Error(ErrorCategory::format, "truncated: the element count needs 8 bytes, " + std::to_string(f.size - pos) + " left",
                  ErrorContext{fname, field, pos});
    std::uint64_t count = 0;
    for (int b = 0; b < 8; ++b)
      count |= static_cast<std::uint64_t>(std::to_integer<unsigned>(f.data[pos + static_cast<unsigned>(little ? b : 7 - b)])) << (8 * b);
    if (count != s.numel)
      throw Error(ErrorCategory::format,
                  "storage size mismatch: the pickle says " + std::to_string(s.numel) + " elements, the file " + std::to_string(count),
                  ErrorContext{fname, field, pos});
    pos += 8;
    if (f.size - pos < s.nbytes)
      throw Error(ErrorCategory::format,
                  "truncated: storage needs " + std::to_string(s.nbytes) + " bytes, " + std::to_string(f.size - pos) + " left",
                  ErrorContext{fname, field, pos});
    storages.emplace(k->s, PtStorageBytes{file, f.sub(pos, s.nbytes), field});
    pos += s.nbytes;
  }
  for (const auto& [key, v] : vm.storages())
    if (!storages.count(key))
      throw Error(ErrorCategory::format, "missing storage '" + pickle::printable(key) + "': not in the storage key list",
                  ErrorContext{fname, "data.pkl opcode BINPERSID", v->storage->offset});
  return pt_flatten(fname, *obj, storages, order, opt);
}

}  // namespace detail

/// True when the file starts like a legacy (non-zip) torch.save stream.
inline bool is_pt_legacy(const std::byte* head, std::size_t size) noexcept {
  return size >= sizeof detail::pt_legacy_magic && std::memcmp(head, detail::pt_legacy_magic, sizeof detail::pt_legacy_magic) == 0;
}

/// Every tensor of a torch.save file (zip or legacy), in pickle order.
inline std::vector<LoadedTensor> load_pt(const FileHandle& file, const LoadOptions& options = {}) {
  const ByteSpan f = file->bytes();
  const auto starts = [&](const char* magic, std::size_t n, std::size_t at = 0) {
    return f.size >= at + n && std::memcmp(f.data + at, magic, n) == 0;
  };
  if (starts("PK\x03\x04", 4) || starts("PK\x05\x06", 4)) return detail::load_pt_zip(file, options);
  if (is_pt_legacy(f.data, static_cast<std::size_t>(f.size))) return detail::load_pt_legacy(file, options);
  const ErrorContext where{file->path(), "", 0};
  if (starts("PYTORCH1", 8))
    throw Error(ErrorCategory::unsupported, "preview zip format 'PYTORCH1' (unsupported even by torch)", where);
  if (starts("ustar", 5, 257)) throw Error(ErrorCategory::unsupported, "tar-based torch.save format (torch < 0.4)", where);
  if (starts("\x80\x02\x8a", 3))
    throw Error(ErrorCategory::format, "legacy torch.save stream with a wrong magic number", where);
  throw Error(ErrorCategory::format, "not a torch.save file (neither a zip archive nor a legacy pickle stream)", where);
}

/// The "pt" format of the registry: torch.save files (.pt, .pth, .bin, .ckpt).
class PtFormat final : public Format {
 public:
  std::string_view name() const override { return "pt"; }
  /// Match::magic for a zip whose first member is `<root>/data.pkl` or a legacy pickle stream,
  /// Match::extension for a .pt / .pth / .ckpt name alone, Match::no otherwise.
  Match recognises(const FileProbe& p) const override {
    if (p.starts_with("PK\x03\x04") && p.head_size >= 30) {
      // torch writes `<root>/data.pkl` first.
      const std::size_t n = detail::le16(p.head + 26);
      if (n >= 9 && 30 + n <= p.head_size && std::memcmp(p.head + 30 + n - 9, "/data.pkl", 9) == 0) return Match::magic;
    }
    if (is_pt_legacy(p.head, p.head_size)) return Match::magic;
    if (p.extension == ".pt" || p.extension == ".pth" || p.extension == ".ckpt") return Match::extension;
    return Match::no;
  }
  std::vector<LoadedTensor> load(const FileHandle& file, const LoadOptions& options) const override {
    return load_pt(file, options);
  }
};

}  // namespace io
TD_NAMESPACE_END
