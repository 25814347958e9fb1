// tensordiff — little-endian loads from unaligned bytes, for the readers.
#pragma once
#include <cstddef>
#include <cstdint>

#include "../../core/config.hpp"

TD_NAMESPACE_BEGIN
namespace io {
namespace detail {

/// The caller has checked that the bytes exist.
inline std::uint16_t le16(const std::byte* p) noexcept {
  return static_cast<std::uint16_t>(std::to_integer<unsigned>(p[0]) | (std::to_integer<unsigned>(p[1]) << 8));
}
inline std::uint32_t le32(const std::byte* p) noexcept {
  return static_cast<std::uint32_t>(le16(p)) | (static_cast<std::uint32_t>(le16(p + 2)) << 16);
}
inline std::uint64_t le64(const std::byte* p) noexcept {
  return static_cast<std::uint64_t>(le32(p)) | (static_cast<std::uint64_t>(le32(p + 4)) << 32);
}

}  // namespace detail
}  // namespace io
TD_NAMESPACE_END
