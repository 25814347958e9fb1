// tensordiff — a read-only zip central-directory reader for .npz and .pt.
//
//   io::detail::ZipArchive zip = io::detail::ZipArchive::open(file);
//   for (const ZipEntry& e : zip.entries()) ...
//   const ZipEntry* e = zip.find("archive/data.pkl");
//   io::ByteSpan bytes = zip.data(*e);          // stored member: a span into the file
//   io::detail::ZipMember m = zip.read(*e);     // stored or deflated (zlib), owner + span
//
// The reader never walks local headers sequentially (torch writes zero sizes
// and data descriptors there): it finds the end-of-central-directory record
// (and the ZIP64 locator/record when present), reads the central directory
// (sizes, CRCs, offsets, ZIP64 extra fields), and uses each local header only
// for its name and extra lengths (torch's 64-byte "FB" padding lives in the
// local extra field). Every offset and size is checked before it is used;
// errors name the archive, the record and the byte offset.
//
// Deflated members (np.savez_compressed) need zlib: link tensordiff::zlib
// (defines TD_HAS_ZLIB=1). Without it, read() throws "deflate not supported".
#pragma once
#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <cstring>
#include <string>
#include <string_view>
#include <unordered_map>
#include <vector>

#include "../../core/error.hpp"
#include "../mapped_file.hpp"
#include "../reader.hpp"
#include "bytes.hpp"

#if defined(TD_HAS_ZLIB) && TD_HAS_ZLIB
#include <zlib.h>
#endif

TD_NAMESPACE_BEGIN
namespace io {
namespace detail {

/// CRC-32 (IEEE 802.3, as zip and zlib) of a byte range, continuing `crc`.
inline std::uint32_t crc32_update(std::uint32_t crc, const std::byte* p, std::uint64_t n) noexcept {
#if defined(TD_HAS_ZLIB) && TD_HAS_ZLIB
  while (n > 0) {
    const auto chunk = static_cast<uInt>(n > (1u << 30) ? (1u << 30) : n);
    crc = static_cast<std::uint32_t>(::crc32(crc, reinterpret_cast<const Bytef*>(p), chunk));
    p += chunk;
    n -= chunk;
  }
  return crc;
#else
  struct Table {
    std::uint32_t t[8][256];
    Table() {
      for (std::uint32_t i = 0; i < 256; ++i) {
        std::uint32_t c = i;
        for (int k = 0; k < 8; ++k) c = (c & 1u) ? 0xEDB88320u ^ (c >> 1) : c >> 1;
        t[0][i] = c;
      }
      for (std::uint32_t i = 0; i < 256; ++i)
        for (int s = 1; s < 8; ++s) t[s][i] = (t[s - 1][i] >> 8) ^ t[0][t[s - 1][i] & 0xFFu];
    }
  };
  static const Table tab;
  crc = ~crc;
  while (n >= 8) {  // slicing-by-8
    const std::uint32_t a = le32(p) ^ crc, b = le32(p + 4);
    crc = tab.t[7][a & 0xFF] ^ tab.t[6][(a >> 8) & 0xFF] ^ tab.t[5][(a >> 16) & 0xFF] ^ tab.t[4][a >> 24] ^
          tab.t[3][b & 0xFF] ^ tab.t[2][(b >> 8) & 0xFF] ^ tab.t[1][(b >> 16) & 0xFF] ^ tab.t[0][b >> 24];
    p += 8;
    n -= 8;
  }
  while (n--) crc = tab.t[0][(crc ^ std::to_integer<std::uint32_t>(*p++)) & 0xFFu] ^ (crc >> 8);
  return ~crc;
#endif
}

/// One member, as the central directory describes it.
struct ZipEntry {
  std::string name;
  std::uint16_t method = 0;  ///< 0 stored, 8 deflated
  std::uint16_t flags = 0;   ///< general-purpose bits (bit 3: data descriptor, bit 11: UTF-8)
  std::uint32_t crc32 = 0;
  std::uint64_t compressed_size = 0;
  std::uint64_t size = 0;                 ///< uncompressed
  std::uint64_t local_header_offset = 0;
  std::uint64_t data_offset = 0;          ///< first byte of the (compressed) data in the file
  std::uint64_t central_offset = 0;       ///< of the central-directory record, for messages

  bool is_directory() const noexcept { return !name.empty() && name.back() == '/'; }
  bool is_stored() const noexcept { return method == 0; }
};

/// A member's bytes and what keeps them alive (the archive's file for stored
/// members, an inflated buffer otherwise).
struct ZipMember {
  FileHandle owner;
  ByteSpan bytes;
  std::string display_name;  ///< "archive.npz::member.npy"
};

class ZipArchive {
 public:
  static constexpr std::uint32_t sig_local = 0x04034b50, sig_central = 0x02014b50, sig_eocd = 0x06054b50,
                                 sig_zip64_eocd = 0x06064b50, sig_zip64_locator = 0x07064b50;

  /// Reads the directory of `file`. Throws Error{format} for anything
  /// malformed, Error{unsupported} for multi-disk or encrypted archives.
  static ZipArchive open(FileHandle file, const Limits& limits = {}) {
    ZipArchive z;
    z.file_ = std::move(file);
    z.limits_ = limits;
    z.read_directory(limits);
    return z;
  }

  const std::string& path() const noexcept { return file_->path(); }
  const FileHandle& file() const noexcept { return file_; }
  const std::vector<ZipEntry>& entries() const noexcept { return entries_; }

  std::vector<std::string> names() const {
    std::vector<std::string> out;
    out.reserve(entries_.size());
    for (const auto& e : entries_) out.push_back(e.name);
    return out;
  }

  /// The entry called `name`, or nullptr.
  const ZipEntry* find(std::string_view name) const {
    auto it = index_.find(std::string(name));
    return it == index_.end() ? nullptr : &entries_[it->second];
  }

  /// Span into the file for a stored member; throws for compressed ones.
  ByteSpan data(const ZipEntry& e) const {
    if (!e.is_stored())
      throw Error(ErrorCategory::unsupported,
                  "member is compressed (method " + std::to_string(e.method) + "); use read()",
                  {path(), "member '" + e.name + "'", e.local_header_offset});
    return file_->bytes().sub(e.data_offset, e.size);  // checked in open()
  }

  /// A member's uncompressed bytes: a span into the file for stored members,
  /// an inflated buffer for deflated ones. Checks the CRC when asked.
  ZipMember read(const ZipEntry& e, bool verify_crc = false) const {
    ZipMember m;
    m.display_name = path() + "::" + e.name;
    if (e.is_stored()) {
      m.owner = file_;
      m.bytes = data(e);
    } else if (e.method == 8) {
      m.owner = inflate(e);
      m.bytes = m.owner->bytes();
    } else {
      throw Error(ErrorCategory::unsupported,
                  "compression method " + std::to_string(e.method) + " not supported (only stored and deflate)",
                  {path(), "member '" + e.name + "'", e.local_header_offset});
    }
    if (verify_crc) {
      const std::uint32_t crc = crc32_update(0, m.bytes.data, m.bytes.size);
      if (crc != e.crc32)
        throw Error(ErrorCategory::format,
                    "CRC-32 mismatch: directory says " + hex(e.crc32) + ", data has " + hex(crc),
                    {path(), "member '" + e.name + "'", e.data_offset});
    }
    return m;
  }

 private:
  static std::string hex(std::uint32_t v) {
    static const char* digits = "0123456789abcdef";
    std::string s(8, '0');
    for (int i = 7; i >= 0; --i, v >>= 4) s[static_cast<std::size_t>(i)] = digits[v & 0xF];
    return s;
  }

  [[noreturn]] void bad(const std::string& field, std::uint64_t offset, const std::string& reason,
                        ErrorCategory c = ErrorCategory::format) const {
    throw Error(c, reason, {path(), field, offset});
  }

  /// The end-of-central-directory record: the last "PK\5\6" whose comment
  /// length fits the file (a comment may itself contain the signature).
  std::uint64_t find_eocd() const {
    const ByteSpan f = file_->bytes();
    if (f.size < 22) bad("end of central directory", 0, "not a zip archive: " + std::to_string(f.size) + " bytes is shorter than an end record (22)");
    const std::uint64_t lowest = f.size > 22 + 0xFFFF ? f.size - 22 - 0xFFFF : 0;
    std::uint64_t fallback = UINT64_MAX;
    for (std::uint64_t pos = f.size - 22 + 1; pos-- > lowest;) {
      if (le32(f.data + pos) != sig_eocd) continue;
      const std::uint64_t comment = le16(f.data + pos + 20);
      if (pos + 22 + comment == f.size) return pos;
      if (pos + 22 + comment < f.size && fallback == UINT64_MAX) fallback = pos;  // trailing junk after comment
    }
    if (fallback != UINT64_MAX) return fallback;
    bad("end of central directory", f.size, "not a zip archive or truncated: no end-of-central-directory record in the last " +
                                                std::to_string(f.size - lowest) + " bytes");
  }

  void read_directory(const Limits& limits) {
    const ByteSpan f = file_->bytes();
    const std::uint64_t eocd = find_eocd();
    const std::byte* r = f.data + eocd;
    const std::uint16_t disk = le16(r + 4), cd_disk = le16(r + 6);
    std::uint64_t count_disk = le16(r + 8), count = le16(r + 10);
    std::uint64_t cd_size = le32(r + 12), cd_offset = le32(r + 16);
    std::uint64_t cd_limit = eocd;  // the directory ends before this

    // ZIP64: a locator right before the classic record points at the ZIP64
    // record, whose 64-bit counts and offsets are authoritative.
    if (eocd >= 20 && le32(f.data + eocd - 20) == sig_zip64_locator) {
      const std::uint64_t loc = eocd - 20;
      const std::uint64_t rec = le64(f.data + loc + 8);
      if (le32(f.data + loc + 4) != 0 || le32(f.data + loc + 16) > 1)
        bad("ZIP64 locator", loc, "multi-disk archives are not supported", ErrorCategory::unsupported);
      if (!f.contains(rec, 56) || rec + 56 > loc)
        bad("ZIP64 locator", loc + 8, "ZIP64 end record offset " + std::to_string(rec) + " is outside the archive");
      const std::byte* z = f.data + rec;
      if (le32(z) != sig_zip64_eocd) bad("ZIP64 end record", rec, "bad signature");
      const std::uint64_t rec_size = le64(z + 4);
      if (rec_size < 44 || rec_size > loc - rec - 12)
        bad("ZIP64 end record", rec + 4, "record size " + std::to_string(rec_size) + " does not fit before the locator");
      if (le32(z + 16) != 0 || le32(z + 20) != 0)
        bad("ZIP64 end record", rec + 16, "multi-disk archives are not supported", ErrorCategory::unsupported);
      count_disk = le64(z + 24);
      count = le64(z + 32);
      cd_size = le64(z + 40);
      cd_offset = le64(z + 48);
      cd_limit = rec;
    } else {
      if (disk != 0 || cd_disk != 0)
        bad("end of central directory", eocd + 4, "multi-disk archives are not supported", ErrorCategory::unsupported);
      if (count == 0xFFFF || cd_size == 0xFFFFFFFFu || cd_offset == 0xFFFFFFFFu)
        bad("end of central directory", eocd, "ZIP64 values marked but no ZIP64 locator before the end record");
    }
    if (count_disk != count)
      bad("end of central directory", eocd + 8, "entry counts disagree (" + std::to_string(count_disk) + " vs " +
                                                     std::to_string(count) + "): multi-disk archive?", ErrorCategory::unsupported);
    if (cd_offset > cd_limit || cd_size > cd_limit - cd_offset)
      bad("end of central directory", eocd + 12, "central directory [" + std::to_string(cd_offset) + ", +" +
                                                      std::to_string(cd_size) + ") lies outside the archive (directory must end by byte " +
                                                      std::to_string(cd_limit) + ")");
    if (count > limits.max_members)
      bad("end of central directory", eocd + 10, "archive declares " + std::to_string(count) + " members, more than the limit " +
                                                      std::to_string(limits.max_members), ErrorCategory::security);
    if (count > cd_size / 46)
      bad("end of central directory", eocd + 10, "archive declares " + std::to_string(count) +
                                                      " members but the central directory holds at most " + std::to_string(cd_size / 46));

    entries_.reserve(static_cast<std::size_t>(count));
    index_.reserve(static_cast<std::size_t>(count));
    const std::uint64_t cd_end = cd_offset + cd_size;
    std::uint64_t pos = cd_offset;
    for (std::uint64_t i = 0; i < count; ++i) {
      const std::string field = "central directory entry " + std::to_string(i);
      if (cd_end - pos < 46) bad(field, pos, "central directory ends inside a record");
      const std::byte* c = f.data + pos;
      if (le32(c) != sig_central) bad(field, pos, "bad signature (expected PK\\1\\2)");
      ZipEntry e;
      e.central_offset = pos;
      e.flags = le16(c + 8);
      e.method = le16(c + 10);
      e.crc32 = le32(c + 16);
      e.compressed_size = le32(c + 20);
      e.size = le32(c + 24);
      const std::uint64_t name_len = le16(c + 28), extra_len = le16(c + 30), comment_len = le16(c + 32);
      std::uint64_t disk_start = le16(c + 34);
      e.local_header_offset = le32(c + 42);
      if (name_len > limits.max_name_bytes)
        bad(field, pos + 28, "member name of " + std::to_string(name_len) + " bytes exceeds the limit " +
                                 std::to_string(limits.max_name_bytes), ErrorCategory::security);
      if (cd_end - pos - 46 < name_len + extra_len + comment_len) bad(field, pos + 28, "name/extra/comment run past the central directory");
      e.name.assign(reinterpret_cast<const char*>(c + 46), static_cast<std::size_t>(name_len));
      const std::string mfield = "member '" + e.name + "'";
      if (e.flags & 0x0001u) bad(mfield, pos + 8, "encrypted members are not supported", ErrorCategory::unsupported);
      // ZIP64 extra: the 64-bit values of the fields set to all-ones, in order.
      const std::byte* x = c + 46 + name_len;
      for (std::uint64_t k = 0; k < extra_len;) {
        if (extra_len - k < 4) bad(mfield, pos + 46 + name_len + k, "malformed extra field");
        const std::uint16_t id = le16(x + k), len = le16(x + k + 2);
        if (extra_len - k - 4 < len) bad(mfield, pos + 46 + name_len + k, "extra field runs past its record");
        if (id == 0x0001) {
          const std::byte* v = x + k + 4;
          std::uint64_t left = len;
          auto take = [&](std::uint64_t& out, std::size_t width) {
            if (left < width) bad(mfield, pos + 46 + name_len + k, "ZIP64 extra field too short");
            out = width == 8 ? le64(v) : le32(v);
            v += width;
            left -= width;
          };
          if (e.size == 0xFFFFFFFFu) take(e.size, 8);
          if (e.compressed_size == 0xFFFFFFFFu) take(e.compressed_size, 8);
          if (e.local_header_offset == 0xFFFFFFFFu) take(e.local_header_offset, 8);
          if (disk_start == 0xFFFF) take(disk_start, 4);
        }
        k += 4 + len;
      }
      if (disk_start != 0) bad(mfield, pos + 34, "multi-disk archives are not supported", ErrorCategory::unsupported);
      if (e.method == 0 && e.compressed_size != e.size)
        bad(mfield, pos + 20, "stored member has compressed size " + std::to_string(e.compressed_size) +
                                  " but size " + std::to_string(e.size));
      // Local header: only its name and extra lengths are used.
      const std::uint64_t lh = e.local_header_offset;
      if (lh > cd_offset || cd_offset - lh < 30)
        bad(mfield, pos + 42, "local header offset " + std::to_string(lh) + " is outside the archive data");
      const std::byte* l = f.data + lh;
      if (le32(l) != sig_local) bad(mfield, lh, "bad local header signature (expected PK\\3\\4)");
      const std::uint64_t lname = le16(l + 26), lextra = le16(l + 28);
      const std::uint64_t data = lh + 30 + lname + lextra;
      if (data > cd_offset || e.compressed_size > cd_offset - data)
        bad(mfield, lh, "data [" + std::to_string(data) + ", +" + std::to_string(e.compressed_size) +
                            ") runs past the archive data (central directory at " + std::to_string(cd_offset) + ")");
      if (lname != name_len || std::memcmp(l + 30, c + 46, static_cast<std::size_t>(name_len)) != 0)
        bad(mfield, lh + 30, "local header name differs from the central directory's");
      e.data_offset = data;
      if (!index_.emplace(e.name, entries_.size()).second) bad(mfield, pos + 46, "duplicate member name");
      entries_.push_back(std::move(e));
      pos += 46 + name_len + extra_len + comment_len;
    }
    // Members that share bytes (a local header or data inside another's) are
    // how zip bombs multiply one deflate stream; no zip writer makes them.
    std::vector<const ZipEntry*> by_start;
    by_start.reserve(entries_.size());
    for (const auto& x : entries_) by_start.push_back(&x);
    std::sort(by_start.begin(), by_start.end(),
              [](const ZipEntry* a, const ZipEntry* b) { return a->local_header_offset < b->local_header_offset; });
    for (std::size_t i = 1; i < by_start.size(); ++i) {
      const ZipEntry& a = *by_start[i - 1];
      const ZipEntry& b = *by_start[i];
      if (b.local_header_offset < a.data_offset + a.compressed_size)
        bad("member '" + b.name + "'", b.local_header_offset,
            "overlaps member '" + a.name + "' (bytes [" + std::to_string(a.local_header_offset) + ", " +
                std::to_string(a.data_offset + a.compressed_size) + ")): overlapping members are refused");
    }
  }

  FileHandle inflate(const ZipEntry& e) const {
    const std::string field = "member '" + e.name + "'";
#if defined(TD_HAS_ZLIB) && TD_HAS_ZLIB
    // Deflate expands at most ~1032:1; a larger declared size is a bomb or a
    // lie, refused before allocating.
    if (e.size / 1032 > e.compressed_size + 64)
      throw Error(ErrorCategory::security,
                  "declared size " + std::to_string(e.size) + " is impossible for " + std::to_string(e.compressed_size) +
                      " deflated bytes",
                  {path(), field, e.central_offset + 24});
    // The archive's budget, checked before a byte is allocated: total
    // inflated size, and the inflate ratio once past a small free allowance.
    const std::uint64_t total = inflated_ + e.size, packed = deflated_ + e.compressed_size;
    if (e.size > limits_.max_inflated_bytes || total > limits_.max_inflated_bytes)
      throw Error(ErrorCategory::security,
                  "deflated members inflate to " + std::to_string(total) + " bytes, more than the limit max_inflated_bytes = " +
                      std::to_string(limits_.max_inflated_bytes),
                  {path(), field, e.central_offset + 24});
    if (total > limits_.ratio_free_bytes && total / (packed ? packed : 1) > limits_.max_inflate_ratio)
      throw Error(ErrorCategory::security,
                  "decompression bomb: " + std::to_string(packed) + " deflated bytes inflate to " + std::to_string(total) +
                      " (ratio above the limit max_inflate_ratio = " + std::to_string(limits_.max_inflate_ratio) + ")",
                  {path(), field, e.central_offset + 24});
    inflated_ = total;
    deflated_ = packed;
    std::shared_ptr<MappedFile> out = MappedFile::with_size(path() + "::" + e.name, e.size);
    z_stream zs{};
    if (inflateInit2(&zs, -MAX_WBITS) != Z_OK)
      throw Error(ErrorCategory::io, "zlib inflateInit failed", {path(), field, e.data_offset});
    struct Guard {
      z_stream* z;
      ~Guard() { inflateEnd(z); }
    } guard{&zs};
    const std::byte* in = file_->data() + e.data_offset;
    std::uint64_t in_left = e.compressed_size, out_done = 0;
    std::byte* dst = out->mutable_data();
    int rc = Z_OK;
    std::byte sink[1];
    while (rc != Z_STREAM_END) {
      if (zs.avail_in == 0) {
        const auto chunk = static_cast<uInt>(in_left > (1u << 30) ? (1u << 30) : in_left);
        zs.next_in = reinterpret_cast<Bytef*>(const_cast<std::byte*>(in));
        zs.avail_in = chunk;
        in += chunk;
        in_left -= chunk;
      }
      const std::uint64_t room = e.size - out_done;
      // With no room left, offer one spare byte: inflate then either ends the
      // stream or proves the data is longer than declared.
      const auto chunk = static_cast<uInt>(room > (1u << 30) ? (1u << 30) : room);
      zs.next_out = reinterpret_cast<Bytef*>(room ? dst + out_done : sink);
      zs.avail_out = room ? chunk : 1;
      const uInt before_out = zs.avail_out;
      const uInt before_in = zs.avail_in;
      rc = ::inflate(&zs, Z_NO_FLUSH);
      const uInt produced = before_out - zs.avail_out;
      if (!room && produced)
        throw Error(ErrorCategory::format, "inflates to more than the declared " + std::to_string(e.size) + " bytes",
                    {path(), field, e.data_offset});
      out_done += produced;
      if (rc == Z_STREAM_END) break;
      if (rc != Z_OK && rc != Z_BUF_ERROR)
        throw Error(ErrorCategory::format, std::string("corrupt deflate data: ") + (zs.msg ? zs.msg : "zlib error"),
                    {path(), field, e.data_offset + (e.compressed_size - in_left - zs.avail_in)});
      if (produced == 0 && before_in == zs.avail_in)  // no progress: input exhausted or stuck
        throw Error(ErrorCategory::format, "deflate data ends before the stream does",
                    {path(), field, e.data_offset + e.compressed_size});
    }
    if (out_done != e.size)
      throw Error(ErrorCategory::format,
                  "inflates to " + std::to_string(out_done) + " bytes, directory says " + std::to_string(e.size),
                  {path(), field, e.data_offset});
    return out;
#else
    throw Error(ErrorCategory::unsupported,
                "deflate not supported: this build has no zlib (link tensordiff::zlib); re-save with np.savez "
                "instead of np.savez_compressed",
                {path(), field, e.local_header_offset});
#endif
  }

  FileHandle file_;
  Limits limits_;
  mutable std::uint64_t inflated_ = 0, deflated_ = 0;  ///< members inflated so far, for the archive budget
  std::vector<ZipEntry> entries_;
  std::unordered_map<std::string, std::size_t> index_;
};

}  // namespace detail
}  // namespace io
TD_NAMESPACE_END
