// tensordiff — umbrella header: core types, metrics and the default kernel.
// Never includes backends/ (CUDA, NPU) or testing/ (GoogleTest); include those
// explicitly.
#pragma once

#include "version.hpp"
#include "core/dtype.hpp"
#include "core/element_access.hpp"
#include "core/error.hpp"
#include "core/float8.hpp"
#include "core/half.hpp"
#include "core/tensor.hpp"
#include "core/tensor_view.hpp"
#include "core/thread_pool.hpp"
#include "core/visit.hpp"
#include "kernels/default.hpp"
#include "kernels/scalar.hpp"
#include "metrics/compare.hpp"
#include "metrics/compare_many.hpp"
#include "metrics/comparison.hpp"
#include "metrics/crc32.hpp"
#include "metrics/difference.hpp"
#include "metrics/md5.hpp"
#include "kernels/partial.hpp"
#include "metrics/standards.hpp"
#include "metrics/summary.hpp"

// Readers (npy, npz, pt; safetensors and dump.json need tensordiff::json and
// are included on their own): io::load("x.pt"), io::load_one("x.npz::a").
#include "io/registry.hpp"
