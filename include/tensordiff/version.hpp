// tensordiff — library version and build settings.
#pragma once
#include "core/config.hpp"

TD_NAMESPACE_BEGIN
/// Library version as "MAJOR.MINOR.PATCH".
inline constexpr const char* version_string = TD_VERSION_STRING;

/// The ABI tag this code was compiled with: the inline namespace's name, e.g.
/// "v0_1_hwy_dyn_zlib" (version 0.1, Highway default kernel, run-time
/// dispatch, zlib). Handy in bug reports and when two libraries of one program
/// disagree about tensordiff's settings (see core/config.hpp).
inline const char* abi_tag() noexcept { return TD_STRINGIFY(TD_ABI_NAMESPACE); }
TD_NAMESPACE_END
