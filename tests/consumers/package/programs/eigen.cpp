// tensordiff::eigen: the Eigen kernel compiles and links (no other setup needed).
#include <tensordiff/kernels/eigen.hpp>
#define TD_CONSUMER_KERNEL tensordiff::kernels::Eigen
#include "kernel_main.hpp"
