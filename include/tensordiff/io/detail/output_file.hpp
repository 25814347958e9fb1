// tensordiff — writing an output file with every failure reported (full disk,
// missing folder, read-only file system): a compare whose table silently lost
// its last rows is worse than one that stops.
#pragma once
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <optional>
#include <string>
#include <utility>

#include "../../core/error.hpp"

TD_NAMESPACE_BEGIN
namespace io {
namespace detail {

/// Opens `path` (truncating), lets `fill(std::ostream&)` write, then closes it; throws an
/// io Error naming `path` when it cannot be created or any byte (the buffered tail
/// included) did not reach the file.
template <class Fill>
void write_output_file(const std::string& path, Fill&& fill) {
  std::ofstream os(path, std::ios::binary | std::ios::trunc);
  if (!os) throw Error(ErrorCategory::io, "cannot create file", {path, "", std::nullopt});
  std::forward<Fill>(fill)(static_cast<std::ostream&>(os));
  os.close();  // the buffered tail is written here: check after it
  if (!os) throw Error(ErrorCategory::io, "write failed (disk full?)", {path, "", std::nullopt});
}

/// write_output_file into `path` + `suffix`, renamed over `path` once complete, so a reader
/// never sees half a file. A failed write is told by `path` (the temporary is removed).
template <class Fill>
void write_output_file_atomically(const std::string& path, Fill&& fill, const std::string& suffix = ".tmp") {
  const std::string tmp = path + suffix;
  try {
    write_output_file(tmp, std::forward<Fill>(fill));
  } catch (const Error& e) {
    std::remove(tmp.c_str());  // ours: never leave half a file behind
    throw e.with_final_file(tmp, path);
  } catch (...) {
    std::remove(tmp.c_str());
    throw;
  }
  std::error_code ec;
  std::filesystem::rename(tmp, path, ec);
  if (ec) {
    std::remove(tmp.c_str());
    throw Error(ErrorCategory::io, "cannot rename into place: " + ec.message(), {path, "", std::nullopt});
  }
}

/// write_output_file_atomically of a byte string.
inline void write_bytes_atomically(const std::string& path, const std::string& bytes, const std::string& suffix = ".tmp") {
  write_output_file_atomically(
      path, [&](std::ostream& os) { os.write(bytes.data(), static_cast<std::streamsize>(bytes.size())); }, suffix);
}

}  // namespace detail
}  // namespace io
TD_NAMESPACE_END
