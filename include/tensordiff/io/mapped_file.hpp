// tensordiff — read-only file contents: a memory mapping or an owned buffer.
//
// Readers hand out views that point straight into a file's bytes. The bytes
// are owned by a MappedFile held through std::shared_ptr, so a Tensor made
// with Tensor::adopt(file, view) keeps the mapping alive after the reader
// returns. Small files are read into a 64-byte aligned heap buffer (one
// read() is cheaper than mmap + page faults); large ones are mapped.
#pragma once
#include <algorithm>
#include <cerrno>
#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <limits>
#include <memory>
#include <new>
#include <string>
#include <utility>
#include <vector>

#include "../core/error.hpp"

#if defined(__unix__) || defined(__APPLE__)
#include <fcntl.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>
#define TD_HAS_MMAP 1
#else
#include <cstdio>
/// 1 where files can be memory-mapped (POSIX: Linux, macOS), else 0 (every file is read into
/// a heap buffer, whatever the MapPolicy).
#define TD_HAS_MMAP 0
#endif

TD_NAMESPACE_BEGIN
namespace io {

/// A read-only byte range (C++17 has no std::span). Sub-ranges are checked.
struct ByteSpan {
  /// First byte; null for the empty span.
  const std::byte* data = nullptr;
  /// Length in bytes.
  std::uint64_t size = 0;

  /// True when [offset, offset + length) lies inside the span (overflow-safe).
  bool contains(std::uint64_t offset, std::uint64_t length) const noexcept {
    return offset <= size && length <= size - offset;
  }
  /// That sub-range, or an empty span when it does not fit.
  ByteSpan sub(std::uint64_t offset, std::uint64_t length) const noexcept {
    return contains(offset, length) ? ByteSpan{data + offset, length} : ByteSpan{};
  }
};

/// How a file's bytes are brought into memory.
enum class MapPolicy : std::uint8_t {
  automatic,  ///< mmap files of at least `map_threshold` bytes, read smaller ones
  always,     ///< always mmap (falls back to read() where mmap is unavailable)
  never,      ///< always read() into a heap buffer
};

/// Owns the bytes of one file (a private read-only mapping or a 64-byte
/// aligned heap buffer) and its name, which every reader error quotes.
class MappedFile {
 public:
  /// Files of at least this many bytes (1 MiB) are mapped under MapPolicy::automatic: below it,
  /// one read() is cheaper than setting up a mapping.
  static constexpr std::uint64_t default_map_threshold = 1u << 20;

  MappedFile(const MappedFile&) = delete;
  MappedFile& operator=(const MappedFile&) = delete;
  ~MappedFile() { release(); }

  /// Opens `path` read-only. Empty files are fine (size 0, data non-null).
  /// Only regular files are read unless `allow_pipes` (then a FIFO, e.g.
  /// bash's `<(...)`, is read to its end); directories, devices, sockets and
  /// (by default) FIFOs are refused from their file type *before* open(), and
  /// open() never blocks (O_NONBLOCK). Throws Error{io} naming the file and
  /// the system's reason.
  static std::shared_ptr<const MappedFile> open(const std::string& path, MapPolicy policy = MapPolicy::automatic,
                                                std::uint64_t map_threshold = default_map_threshold,
                                                bool allow_pipes = false) {
#if TD_HAS_MMAP
    struct stat st {};
    if (::stat(path.c_str(), &st) != 0) fail_errno(path, "cannot open");
    check_file_type(path, st, allow_pipes);
    const int fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC | O_NONBLOCK);
    if (fd < 0) fail_errno(path, "cannot open");
    struct FdGuard {
      int fd;
      ~FdGuard() { ::close(fd); }
    } guard{fd};
    if (::fstat(fd, &st) != 0) fail_errno(path, "cannot stat");
    check_file_type(path, st, allow_pipes);  // it may have been swapped since stat()
    if (S_ISFIFO(st.st_mode)) {  // pipes, <(...): size unknown; blocking reads from here on
      ::fcntl(fd, F_SETFL, ::fcntl(fd, F_GETFL) & ~O_NONBLOCK);
      return read_stream(path, fd);
    }
    const auto size = static_cast<std::uint64_t>(st.st_size);
    if (size > static_cast<std::uint64_t>(std::numeric_limits<std::size_t>::max()))
      throw Error(ErrorCategory::io, "file too large for this address space", {path, "", std::nullopt});
    const bool map = size > 0 && (policy == MapPolicy::always ||
                                  (policy == MapPolicy::automatic && size >= map_threshold));
    if (map) {
      void* p = ::mmap(nullptr, static_cast<std::size_t>(size), PROT_READ, MAP_PRIVATE, fd, 0);
      if (p != MAP_FAILED) {
#ifdef MADV_WILLNEED
        ::madvise(p, static_cast<std::size_t>(size), MADV_WILLNEED);
#endif
        std::shared_ptr<MappedFile> f(new MappedFile(path));
        f->data_ = static_cast<const std::byte*>(p);
        f->size_ = size;
        f->mapped_ = true;
        return f;
      }
      // Some file systems cannot map: read instead.
    }
    std::shared_ptr<MappedFile> f(new MappedFile(path));
    f->allocate(size);
    std::uint64_t done = 0;
    while (done < size) {
      const std::size_t chunk = static_cast<std::size_t>(std::min<std::uint64_t>(size - done, 1u << 30));
      const ssize_t n = ::pread(fd, const_cast<std::byte*>(f->data_) + done, chunk, static_cast<off_t>(done));
      if (n < 0) {
        if (errno == EINTR) continue;
        fail_errno(path, "cannot read");
      }
      if (n == 0) {
        // The file shrank between fstat and read: what we have is the file.
        f->size_ = done;
        break;
      }
      done += static_cast<std::uint64_t>(n);
    }
    return f;
#else
    (void)policy;
    (void)map_threshold;
    (void)allow_pipes;
    return read_file(path);
#endif
  }

  /// The portable fallback: reads the whole file into an aligned buffer.
  static std::shared_ptr<const MappedFile> read_file(const std::string& path) {
#if TD_HAS_MMAP
    return open(path, MapPolicy::never);
#else
    std::FILE* fp = std::fopen(path.c_str(), "rb");
    if (!fp) fail_errno(path, "cannot open");
    std::vector<std::byte> bytes;
    std::byte buf[1 << 16];
    std::size_t n;
    while ((n = std::fread(buf, 1, sizeof buf, fp)) > 0) bytes.insert(bytes.end(), buf, buf + n);
    const bool bad = std::ferror(fp);
    std::fclose(fp);
    if (bad) throw Error(ErrorCategory::io, "cannot read", {path, "", std::nullopt});
    return from_bytes(path, bytes.data(), bytes.size());
#endif
  }

  /// In-memory contents under a display name (tests, fuzzers, inflated zip
  /// members). Copies `size` bytes into an aligned buffer.
  static std::shared_ptr<const MappedFile> from_bytes(std::string name, const void* bytes, std::uint64_t size) {
    std::shared_ptr<MappedFile> f(new MappedFile(std::move(name)));
    f->allocate(size);
    if (size) std::memcpy(const_cast<std::byte*>(f->data_), bytes, static_cast<std::size_t>(size));
    return f;
  }

  /// An aligned, zero-filled buffer of `size` bytes to be filled through
  /// mutable_data() before it is shared (e.g. by an inflater).
  static std::shared_ptr<MappedFile> with_size(std::string name, std::uint64_t size) {
    std::shared_ptr<MappedFile> f(new MappedFile(std::move(name)));
    f->allocate(size);
    return f;
  }

  /// The file's first byte: 64-byte aligned for heap buffers, page aligned when mapped; never
  /// null, even for an empty file.
  const std::byte* data() const noexcept { return data_; }
  /// The file's length in bytes.
  std::uint64_t size() const noexcept { return size_; }
  /// data() and size() as a checked span.
  ByteSpan bytes() const noexcept { return {data_, size_}; }
  /// Writable only for buffers made by with_size(), before they are shared.
  std::byte* mutable_data() noexcept { return mapped_ ? nullptr : const_cast<std::byte*>(data_); }
  /// The name errors quote: the path, or "archive.npz::member.npy".
  const std::string& path() const noexcept { return path_; }
  /// True when the bytes are a memory mapping of the file (not a heap copy).
  bool is_mapped() const noexcept { return mapped_; }

 private:
  explicit MappedFile(std::string path) : path_(std::move(path)) {}

#if TD_HAS_MMAP
  /// Refuses everything but regular files (and FIFOs when allowed), by type.
  static void check_file_type(const std::string& path, const struct stat& st, bool allow_pipes) {
    const char* what = nullptr;
    if (S_ISREG(st.st_mode)) return;
    if (S_ISFIFO(st.st_mode)) {
      if (allow_pipes) return;
      what = "is a FIFO (named pipe); only regular files are read";
    } else if (S_ISDIR(st.st_mode)) {
      what = "is a directory, not a file";
    } else if (S_ISCHR(st.st_mode) || S_ISBLK(st.st_mode)) {
      what = "is a device; only regular files are read";
    } else {
      what = "is not a regular file (socket or special file)";
    }
    throw Error(ErrorCategory::io, what, {path, "", std::nullopt});
  }
#endif

  [[noreturn]] static void fail_errno(const std::string& path, const char* what) {
    const int e = errno;
    throw Error(ErrorCategory::io, std::string(what) + ": " + std::strerror(e), {path, "", std::nullopt});
  }

  void allocate(std::uint64_t size) {
    if (size > static_cast<std::uint64_t>(std::numeric_limits<std::size_t>::max()) - 64)
      throw Error(ErrorCategory::io, "buffer of " + std::to_string(size) + " bytes is too large", {path_, "", std::nullopt});
    // Round up so aligned_alloc's size rule holds; at least 64 so an empty
    // file still has a valid, aligned, non-null pointer.
    const std::size_t padded = static_cast<std::size_t>((size + 63) / 64 * 64) + (size == 0 ? 64 : 0);
    void* p = std::aligned_alloc(64, padded);
    if (!p) throw Error(ErrorCategory::io, "out of memory reading " + std::to_string(size) + " bytes", {path_, "", std::nullopt});
    std::memset(static_cast<char*>(p) + (size / 64 * 64), 0, padded - size / 64 * 64);  // tail only
    data_ = static_cast<const std::byte*>(p);
    size_ = size;
    mapped_ = false;
  }

#if TD_HAS_MMAP
  /// Pipes are read to EOF, up to a cap: a writer that never stops must not
  /// exhaust memory.
  static constexpr std::uint64_t max_stream_bytes = 16ull << 30;

  static std::shared_ptr<const MappedFile> read_stream(const std::string& path, int fd) {
    std::vector<std::byte> bytes;
    std::byte buf[1 << 16];
    for (;;) {
      const ssize_t n = ::read(fd, buf, sizeof buf);
      if (n < 0) {
        if (errno == EINTR) continue;
        fail_errno(path, "cannot read");
      }
      if (n == 0) break;
      bytes.insert(bytes.end(), buf, buf + n);
      if (bytes.size() > max_stream_bytes)
        throw Error(ErrorCategory::security, "stream longer than " + std::to_string(max_stream_bytes) + " bytes",
                    {path, "", std::nullopt});
    }
    return from_bytes(path, bytes.data(), bytes.size());
  }
#endif

  void release() noexcept {
    if (!data_) return;
#if TD_HAS_MMAP
    if (mapped_) {
      ::munmap(const_cast<std::byte*>(data_), static_cast<std::size_t>(size_));
      data_ = nullptr;
      return;
    }
#endif
    std::free(const_cast<std::byte*>(data_));
    data_ = nullptr;
  }

  std::string path_;
  const std::byte* data_ = nullptr;
  std::uint64_t size_ = 0;
  bool mapped_ = false;
};

/// Shared, read-only file contents: what readers consume and views keep alive.
using FileHandle = std::shared_ptr<const MappedFile>;

}  // namespace io
TD_NAMESPACE_END
