// tensordiff — library version.
#pragma once
#include "core/config.hpp"

TD_NAMESPACE_BEGIN
/// Library version as "MAJOR.MINOR.PATCH".
inline constexpr const char* version_string = TD_VERSION_STRING;
TD_NAMESPACE_END
