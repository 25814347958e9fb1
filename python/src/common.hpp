// tensordiff Python module — what its translation units share.
#pragma once
#include <pybind11/pybind11.h>

#include <memory>
#include <tensordiff/core/tensor.hpp>

namespace tdpy {
namespace py = pybind11;
namespace td = tensordiff;

/// A Python tensor-like seen as a TensorView without copying (numpy arrays,
/// __dlpack__ objects, buffers; anything else through numpy.asarray). The
/// view stays valid while this lives: it holds the object and, for DLPack,
/// the consumed capsule's tensor, released with the GIL held.
struct Input {
  td::TensorView view;
  py::object owner;             ///< the array / tensor / buffer exporter the view reads
  std::shared_ptr<void> dlpack;  ///< a consumed DLManagedTensor; its deleter runs on release
};

/// `obj` as an Input; `arg` names the argument in error messages. Throws
/// py::type_error for objects that are not host tensors of a known dtype.
Input as_input(py::handle obj, const char* arg);

/// A C-order flat index as the tuple of `shape` (None for td::no_index).
py::object unravel(const td::Shape& shape, std::uint64_t flat);

/// A shape as a Python tuple.
py::tuple shape_tuple(const td::Shape& shape);

void bind_tensors(py::module_& m);  // tensors.cpp: inputs, compare, summarize, hashes, standards
void bind_files(py::module_& m);    // files.cpp: load, ls, compare_dumps

}  // namespace tdpy
