// Must not compile (test separate_kernels_include_order): metrics/instantiate.hpp read after
// another tensordiff header would find TD_SEPARATE_PASS already defined as an extern
// declaration and compile nothing, so the program would fail to link far from the cause.
#include <tensordiff/core/config.hpp>
#include <tensordiff/metrics/instantiate.hpp>
