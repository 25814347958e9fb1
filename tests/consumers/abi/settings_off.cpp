// Built with TD_HWY_DYNAMIC=0 and no TD_HAS_* setting (CMakeLists.txt).
#include "observe.hpp"

Observed observe_settings_off(const std::string& npz) { return observe(npz); }
