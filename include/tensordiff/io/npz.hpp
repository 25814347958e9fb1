// tensordiff — NumPy .npz: a zip of .npy members (np.savez / savez_compressed).
//
// Each member "NAME.npy" becomes the tensor with path NAME, in directory
// order. Stored members (np.savez) are zero-copy views into the archive's
// mapping; deflated members (np.savez_compressed) are inflated with zlib when
// tensordiff::zlib is linked, else refused with "deflate not supported".
#pragma once
#include <string>
#include <vector>

#include "detail/zip.hpp"
#include "npy.hpp"
#include "reader.hpp"

TD_NAMESPACE_BEGIN
namespace io {

/// Every array of an opened .npz archive.
inline std::vector<LoadedTensor> load_npz(const FileHandle& file, const LoadOptions& options = {}) {
  const detail::ZipArchive zip = detail::ZipArchive::open(file, options.limits);
  std::vector<LoadedTensor> out;
  out.reserve(zip.entries().size());
  for (const detail::ZipEntry& e : zip.entries()) {
    if (e.is_directory()) continue;
    const std::string field = "member '" + e.name + "'";
    if (e.name.size() < 4 || e.name.compare(e.name.size() - 4, 4, ".npy") != 0)
      throw Error(ErrorCategory::unsupported, "npz member is not an .npy file", {file->path(), field, e.central_offset});
    detail::ZipMember m = zip.read(e, options.verify_crc);
    // Errors name "archive.npz::member.npy"; offsets are archive offsets for
    // stored members, offsets inside the inflated member otherwise.
    const bool stored = e.is_stored();
    LoadedTensor t = load_npy_bytes(m.owner, m.bytes, m.display_name, options, stored ? e.data_offset : 0);
    t.path = e.name.substr(0, e.name.size() - 4);
    t.meta.storage_key = e.name;
    if (!stored) t.meta.extra["compression"] = "deflate";
    out.push_back(std::move(t));
  }
  return out;
}

/// Reads a .npz file.
inline std::vector<LoadedTensor> read_npz(const std::string& path, const LoadOptions& options = {}) {
  return load_npz(MappedFile::open(path, options.map, options.map_threshold, options.allow_pipes), options);
}

/// The built-in "npz" format: a zip whose first member is an .npy, or a
/// file named *.npz.
class NpzFormat final : public Format {
 public:
  std::string_view name() const override { return "npz"; }
  /// Match::magic for a zip whose first member's name ends in .npy, Match::extension for a
  /// .npz name alone, Match::no otherwise.
  Match recognises(const FileProbe& p) const override {
    if (p.starts_with("PK\x03\x04") && p.head_size >= 30) {
      const std::size_t n = detail::le16(p.head + 26);
      if (n >= 4 && 30 + n <= p.head_size && std::memcmp(p.head + 30 + n - 4, ".npy", 4) == 0) return Match::magic;
    }
    if (p.extension == ".npz") return Match::extension;
    return Match::no;
  }
  std::vector<LoadedTensor> load(const FileHandle& file, const LoadOptions& options) const override {
    return load_npz(file, options);
  }
};

}  // namespace io
TD_NAMESPACE_END
