// Shared by the Highway kernel tests: runtime dispatch, and a loop that forces each compiled
// target the CPU supports. Which targets are compiled comes from the build, never from here:
// CMake gives every TU of these tests and their kernels library the same setting
// (HWY_COMPILE_ALL_ATTAINABLE, less TD_TEST_HWY_DISABLED_TARGETS; cmake/TensordiffKernelsLibrary.cmake),
// since two TUs of one program with different target lists break the one definition rule.
#pragma once
#ifndef TD_HWY_DYNAMIC
#define TD_HWY_DYNAMIC 1
#endif
#include "tensordiff/kernels/highway.hpp"

#include <string>

#include "kernels_test_common.hpp"

namespace td_test {

/// Runs f once per compiled target the CPU supports (forced), then restores the best one.
template <class F> void for_each_highway_target(F&& f) {
  namespace kernels = tensordiff::kernels;
  const auto targets = kernels::highway_targets();
  ASSERT_FALSE(targets.empty());
  for (const std::string& t : targets) {
    SCOPED_TRACE("target " + t);
    ASSERT_TRUE(kernels::set_highway_target(t));
    EXPECT_EQ(kernels::highway_target(), t);
    f();
  }
  kernels::set_highway_target("best");
}

/// for_each_highway_target as a callable, for the checks that compute their reference once and
/// run only the kernel's side per target (kernels_adversarial.hpp's EachTarget).
struct EachHighwayTarget {
  template <class F> void operator()(F&& f) const { for_each_highway_target(f); }
};

}  // namespace td_test
