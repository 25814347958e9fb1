// tensordiff::xsimd: the Xsimd kernel compiles and links (no other setup needed).
#include <tensordiff/kernels/xsimd.hpp>
#define TD_CONSUMER_KERNEL tensordiff::kernels::Xsimd
#include "kernel_main.hpp"
