// tensordiff Python module — the module object and the mapping of
// tensordiff::Error to Python exceptions (one place for every binding).
#include <filesystem>
#include <string>
#include <tensordiff/core/config.hpp>
#include <tensordiff/core/error.hpp>

#include "common.hpp"

namespace tdpy {
namespace {

PyObject* format_error = nullptr;  // tensordiff.FormatError, created at import, never freed

/// The Python exception type for an error: bad files are FormatError (a
/// ValueError), missing files FileNotFoundError, API misuse ValueError, a
/// dtype or feature tensordiff does not handle TypeError (FormatError when
/// it comes from a file).
PyObject* exception_type(const td::Error& e) {
  const std::string& r = e.reason();
  switch (e.category()) {
    case td::ErrorCategory::format:
    case td::ErrorCategory::security: return format_error;
    case td::ErrorCategory::unsupported: return e.context().file.empty() ? PyExc_TypeError : format_error;
    case td::ErrorCategory::io:
      if (r.find("No such file") != std::string::npos || r.find("no such file") != std::string::npos)
        return PyExc_FileNotFoundError;
      if (r.find("is a directory") != std::string::npos) return PyExc_IsADirectoryError;
      if (r.find("Permission denied") != std::string::npos) return PyExc_PermissionError;
      return PyExc_OSError;
    case td::ErrorCategory::invalid_argument:
    case td::ErrorCategory::mismatch: return PyExc_ValueError;
    case td::ErrorCategory::device: return PyExc_RuntimeError;
  }
  return PyExc_RuntimeError;
}

}  // namespace
}  // namespace tdpy

PYBIND11_MODULE(_tensordiff, m) {
  namespace py = pybind11;
  m.doc() = "tensordiff: fast, exact tensor comparison (C++ core of the `tensordiff` package)";
  m.attr("__version__") = TD_VERSION_STRING;
  tdpy::format_error = PyErr_NewExceptionWithDoc(
      "tensordiff.FormatError", "A malformed, truncated or refused file (a ValueError).", PyExc_ValueError, nullptr);
  if (!tdpy::format_error) throw py::error_already_set();
  m.attr("FormatError") = py::handle(tdpy::format_error);
  py::register_exception_translator([](std::exception_ptr p) {
    try {
      if (p) std::rethrow_exception(p);
    } catch (const tensordiff::Error& e) {
      PyErr_SetString(tdpy::exception_type(e), e.what());
    }
  });
  tdpy::bind_tensors(m);
  tdpy::bind_files(m);
}
