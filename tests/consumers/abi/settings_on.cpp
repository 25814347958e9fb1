// Built with TD_HAS_HIGHWAY=1 TD_HWY_DYNAMIC=1 TD_HAS_ZLIB=1 TD_HAS_YAML (CMakeLists.txt).
#include "observe.hpp"

Observed observe_settings_on(const std::string& npz) { return observe(npz); }
