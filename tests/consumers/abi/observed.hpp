// What abi_mixed_settings records of one translation unit (see observe.hpp).
#pragma once
#include <string>
#include <vector>

struct Observed {
  std::string abi;                   ///< tensordiff::abi_tag()
  std::vector<std::string> targets;  ///< kernels::highway_targets(): one unless TD_HWY_DYNAMIC
  std::string npz;                   ///< reading a deflated .npz: "3 tensors" or the error (TD_HAS_ZLIB)
};
