// tensordiff Python module — tensor inputs without copies (numpy, DLPack,
// buffers), compare(), summarize(), the hashes and the closeness standards.
// One translation unit holds every dtype-pair instantiation of the fused
// pass: compare() dispatches on the runtime dtypes itself.
#include <pybind11/numpy.h>
#include <pybind11/stl.h>

#include <cstring>
#include <optional>
#include <string>
#include <tensordiff/metrics/compare.hpp>
#include <tensordiff/metrics/crc32.hpp>
#include <tensordiff/metrics/md5.hpp>
#include <tensordiff/metrics/standards.hpp>
#include <tensordiff/report/text.hpp>
#include <vector>

#include "common.hpp"
#include "dlpack.hpp"

namespace tdpy {
namespace {

using namespace dlpack;  // NOLINT: the ABI names read as in dlpack.h

const char* device_name(std::int32_t t) {
  switch (t) {
    case 2: return "cuda";
    case 4: return "opencl";
    case 7: return "vulkan";
    case 8: return "metal";
    case 9: return "vpi";
    case 10: return "rocm";
    case 12: return "ext_dev";
    case 13: return "cuda_managed";
    case 14: return "oneapi";
    case 15: return "webgpu";
    case 16: return "hexagon";
    default: return "non-host";
  }
}

std::optional<td::DType> dlpack_dtype(DLDataType t) {
  if (t.lanes != 1) return std::nullopt;
  switch (t.code) {
    case kDLBool: return t.bits == 8 ? std::optional(td::DType::boolean) : std::nullopt;
    case kDLInt:
      switch (t.bits) {
        case 8: return td::DType::int8;
        case 16: return td::DType::int16;
        case 32: return td::DType::int32;
        case 64: return td::DType::int64;
      }
      break;
    case kDLUInt:
      switch (t.bits) {
        case 8: return td::DType::uint8;
        case 16: return td::DType::uint16;
        case 32: return td::DType::uint32;
        case 64: return td::DType::uint64;
      }
      break;
    case kDLFloat:
      switch (t.bits) {
        case 16: return td::DType::float16;
        case 32: return td::DType::float32;
        case 64: return td::DType::float64;
      }
      break;
    case kDLBfloat:
      if (t.bits == 16) return td::DType::bfloat16;
      break;
    case kDLComplex:
      if (t.bits == 64) return td::DType::complex64;
      if (t.bits == 128) return td::DType::complex128;
      break;
    case kDLFloat8_e4m3fn:
      if (t.bits == 8) return td::DType::float8_e4m3fn;
      break;
    case kDLFloat8_e5m2:
      if (t.bits == 8) return td::DType::float8_e5m2;
      break;
  }
  return std::nullopt;
}

[[noreturn]] void type_error(const std::string& s) { throw py::type_error(s); }

/// Takes over a "dltensor" capsule: the view of its tensor, the tensor kept
/// until `in` is released. `as`: the dtype of bytes exported as uint8 (torch bool, float8).
void consume_capsule(Input& in, const py::object& cap, const char* arg, std::optional<td::DType> as) {
  if (!PyCapsule_IsValid(cap.ptr(), "dltensor")) type_error(std::string(arg) + ": __dlpack__() did not return a DLPack capsule");
  auto* mt = static_cast<DLManagedTensor*>(PyCapsule_GetPointer(cap.ptr(), "dltensor"));
  PyCapsule_SetName(cap.ptr(), "used_dltensor");  // consumed: the capsule no longer frees it, we do
  in.dlpack = std::shared_ptr<void>(mt, [](void* p) {
    auto* t = static_cast<DLManagedTensor*>(p);
    if (t->deleter) t->deleter(t);
  });
  const DLTensor& t = mt->dl_tensor;
  if (t.device.device_type != kDLCPU && t.device.device_type != kDLCUDAHost && t.device.device_type != kDLROCMHost)
    type_error(std::string(arg) + ": the tensor lives on a " + device_name(t.device.device_type) + " device (DLPack device type " +
               std::to_string(t.device.device_type) + ", id " + std::to_string(t.device.device_id) +
               "); tensordiff's Python module reads host memory: move it with .cpu(), or compare on the device "
               "with the C++ CUDA backend (tensordiff/backends/cuda.hpp)");
  std::optional<td::DType> dt = dlpack_dtype(t.dtype);
  if (!dt) {
    const bool float8 = t.dtype.code >= 7 && t.dtype.code <= 14 && t.dtype.bits == 8;
    type_error(std::string(arg) + ": " +
               (float8 ? std::string("float8 variant (DLPack type code ") + std::to_string(t.dtype.code) +
                             ") is not a tensordiff dtype (float8_e4m3fn and float8_e5m2 are); compare .float() copies"
                       : "DLPack dtype (code " + std::to_string(t.dtype.code) + ", " + std::to_string(t.dtype.bits) +
                             " bits, " + std::to_string(t.dtype.lanes) + " lanes) is not a tensordiff dtype"));
  }
  if (as && *dt == td::DType::uint8) dt = as;
  td::Shape shape(t.shape, t.shape + t.ndim);
  td::Strides strides = t.strides ? td::Strides(t.strides, t.strides + t.ndim) : td::contiguous_strides(shape);
  in.view = td::TensorView(static_cast<const std::byte*>(t.data) + t.byte_offset, *dt, std::move(shape), std::move(strides));
}

/// torch's own entry points, once torch is imported (never imported here).
/// The fast path for torch tensors: torch._C._to_dlpack skips the Python-level
/// checks of Tensor.__dlpack__ (requires_grad, which only matters for
/// autograd; the device is checked on the capsule), a few microseconds a call.
struct TorchApi {
  py::object tensor, to_dlpack, bool_dtype, uint8_dtype, complex64, complex128;
  py::object f8e4m3fn, f8e5m2;  ///< torch.float8_* (torch >= 2.1), else None
};
const TorchApi* torch_api() {
  static const TorchApi* api = nullptr;  // leaked: must outlive interpreter shutdown order
  if (api) return api;
  PyObject* torch = PyDict_GetItemString(PyImport_GetModuleDict(), "torch");  // borrowed
  if (!torch || !PyObject_HasAttrString(torch, "_C") || !PyObject_HasAttrString(torch, "Tensor")) return nullptr;
  auto t = py::reinterpret_borrow<py::module_>(torch);
  if (!py::hasattr(t.attr("_C"), "_to_dlpack")) return nullptr;
  api = new TorchApi{t.attr("Tensor"),    t.attr("_C").attr("_to_dlpack"), t.attr("bool"),
                     t.attr("uint8"),     t.attr("complex64"),             t.attr("complex128"),
                     py::getattr(t, "float8_e4m3fn", py::none()), py::getattr(t, "float8_e5m2", py::none())};
  return api;
}

Input from_torch(py::handle obj, const TorchApi& api, const char* arg) {
  Input in;
  in.owner = py::reinterpret_borrow<py::object>(obj);
  const py::object dtype = obj.attr("dtype");
  // torch (1.13) refuses to export bool, and torch before 2.6 float8; their uint8 aliases have the same bytes.
  std::optional<td::DType> as;
  if (dtype.is(api.bool_dtype)) as = td::DType::boolean;
  else if (!api.f8e4m3fn.is_none() && dtype.is(api.f8e4m3fn)) as = td::DType::float8_e4m3fn;
  else if (!api.f8e5m2.is_none() && dtype.is(api.f8e5m2)) as = td::DType::float8_e5m2;
  if (as) in.owner = in.owner.attr("view")(api.uint8_dtype);
  consume_capsule(in, api.to_dlpack(in.owner), arg, as);
  return in;
}

Input from_dlpack(py::handle obj, const char* arg) {
  Input in;
  in.owner = py::reinterpret_borrow<py::object>(obj);
  if (py::hasattr(obj, "__dlpack_device__")) {
    const auto dev = obj.attr("__dlpack_device__")().cast<std::pair<int, int>>();
    if (dev.first != kDLCPU && dev.first != kDLCUDAHost && dev.first != kDLROCMHost)
      type_error(std::string(arg) + ": the tensor lives on a " + device_name(dev.first) + " device (DLPack device type " +
                 std::to_string(dev.first) + ", id " + std::to_string(dev.second) +
                 "); tensordiff's Python module reads host memory: move it with .cpu(), or compare on the device "
                 "with the C++ CUDA backend (tensordiff/backends/cuda.hpp)");
  }
  // torch refuses to export a tensor that requires grad; its detached alias
  // shares the memory, so no copy happens either way.
  if (py::hasattr(obj, "requires_grad") && py::hasattr(obj, "detach") && obj.attr("requires_grad").cast<bool>())
    in.owner = obj.attr("detach")();
  consume_capsule(in, in.owner.attr("__dlpack__")(), arg, std::nullopt);
  return in;
}

std::optional<td::DType> numpy_dtype(const py::dtype& d) {
  const auto size = d.itemsize();
  switch (d.kind()) {
    case 'b': return td::DType::boolean;
    case 'i':
      if (size == 1) return td::DType::int8;
      if (size == 2) return td::DType::int16;
      if (size == 4) return td::DType::int32;
      if (size == 8) return td::DType::int64;
      break;
    case 'u':
      if (size == 1) return td::DType::uint8;
      if (size == 2) return td::DType::uint16;
      if (size == 4) return td::DType::uint32;
      if (size == 8) return td::DType::uint64;
      break;
    case 'f':
      if (size == 2) return td::DType::float16;
      if (size == 4) return td::DType::float32;
      if (size == 8) return td::DType::float64;
      break;
    case 'c':
      if (size == 8) return td::DType::complex64;
      if (size == 16) return td::DType::complex128;
      break;
    case 'V': {  // ml_dtypes' bfloat16 and float8 (what JAX hands to numpy)
      const std::string name = py::str(d.attr("name")).cast<std::string>();
      if (size == 2 && name == "bfloat16") return td::DType::bfloat16;
      if (size == 1 && name == "float8_e4m3fn") return td::DType::float8_e4m3fn;
      if (size == 1 && name == "float8_e5m2") return td::DType::float8_e5m2;
      break;
    }
  }
  return std::nullopt;
}

Input from_numpy(py::array arr, const char* arg) {
  const py::dtype d = arr.dtype();
  const std::optional<td::DType> dt = numpy_dtype(d);
  if (!dt)
    type_error(std::string(arg) + ": numpy dtype " + py::repr(d).cast<std::string>() +
               " is not a tensordiff dtype (bool, int8-64, uint8-64, float16/32/64, bfloat16, float8_e4m3fn/e5m2, "
               "complex64/128)");
  const auto item = static_cast<py::ssize_t>(d.itemsize());
  bool strides_fit = true;
  for (py::ssize_t i = 0; i < arr.ndim(); ++i) strides_fit = strides_fit && arr.strides(i) % item == 0;
  const bool aligned = arr.flags() & py::detail::npy_api::NPY_ARRAY_ALIGNED_;
  if (!strides_fit || !aligned)  // packed records, odd byte offsets: the only case that copies
    arr = py::module_::import("numpy").attr("ascontiguousarray")(arr);
  Input in;
  td::Shape shape(static_cast<std::size_t>(arr.ndim()));
  td::Strides strides(shape.size());
  for (std::size_t i = 0; i < shape.size(); ++i) {
    shape[i] = arr.shape(static_cast<py::ssize_t>(i));
    strides[i] = arr.strides(static_cast<py::ssize_t>(i)) / item;
  }
  const char order = d.byteorder();
  const td::ByteOrder bo = order == '>' ? td::ByteOrder::big : order == '<' ? td::ByteOrder::little : td::native_byte_order;
  in.view = td::TensorView(arr.data(), *dt, std::move(shape), std::move(strides), bo);
  in.owner = std::move(arr);
  return in;
}

}  // namespace

Input as_input(py::handle obj, const char* arg) {
  if (py::isinstance<py::array>(obj)) return from_numpy(py::reinterpret_borrow<py::array>(obj), arg);
  if (const TorchApi* torch = torch_api(); torch && PyObject_IsInstance(obj.ptr(), torch->tensor.ptr()) == 1) {
    const py::object dtype = obj.attr("dtype");
    if (!dtype.is(torch->complex64) && !dtype.is(torch->complex128))  // complex: __dlpack__ checks the conj bit
      return from_torch(obj, *torch, arg);
  }
  if (py::hasattr(obj, "__dlpack__")) return from_dlpack(obj, arg);
  py::module_ np = py::module_::import("numpy");
  py::object arr;
  if (PyObject_CheckBuffer(obj.ptr()))  // bytes, array.array, memoryview...: numpy reads the buffer in place
    arr = np.attr("asarray")(py::memoryview(py::reinterpret_borrow<py::object>(obj)));
  else if (py::isinstance<py::str>(obj) || obj.is_none())
    type_error(std::string(arg) + ": expected a tensor (numpy array, torch tensor, buffer, or a list of numbers), got " +
               py::str(obj.get_type().attr("__name__")).cast<std::string>());
  else
    arr = np.attr("asarray")(obj);  // lists, scalars: a copy numpy makes
  return from_numpy(py::reinterpret_borrow<py::array>(arr), arg);
}

py::tuple shape_tuple(const td::Shape& shape) {
  py::tuple t(shape.size());
  for (std::size_t i = 0; i < shape.size(); ++i) t[i] = py::int_(shape[i]);
  return t;
}

py::object unravel(const td::Shape& shape, std::uint64_t flat) {
  if (flat == td::no_index) return py::none();
  td::Shape idx(shape.size());
  for (std::size_t i = shape.size(); i-- > 0;) {
    const auto d = static_cast<std::uint64_t>(shape[i] > 0 ? shape[i] : 1);
    idx[i] = static_cast<std::int64_t>(flat % d);
    flat /= d;
  }
  return shape_tuple(idx);
}

namespace {

// --- compare() --------------------------------------------------------------------

struct MetricField {
  const char* name;
  td::Metric td::Comparison::*member;
  td::MetricSet set;  ///< what the kernel must compute for it
};
constexpr MetricField metric_fields[] = {
    {"cosine", &td::Comparison::cosine, td::metric::cosine},
    {"euclidean_distance", &td::Comparison::euclidean_distance, td::metric::euclidean},
    {"max_abs_err", &td::Comparison::max_abs_err, td::metric::max_abs},
    {"max_rel_err", &td::Comparison::max_rel_err, td::metric::max_rel},
    {"one_thousandth_ratio", &td::Comparison::one_thousandth_ratio, td::metric::thousandths},
    {"five_thousandths_ratio", &td::Comparison::five_thousandths_ratio, td::metric::thousandths},
    {"mean_abs_err", &td::Comparison::mean_abs_err, td::metric::mean_abs},
    {"mean_rel_err", &td::Comparison::mean_rel_err, td::metric::mean_rel},
    {"rmse", &td::Comparison::rmse, td::metric::rmse},
};
/// metrics= name of both sides' statistics (Comparison.actual / .expected).
constexpr const char* statistics_name = "statistics";
constexpr std::size_t metric_count = sizeof(metric_fields) / sizeof(metric_fields[0]);

std::string metric_names() {
  std::string s;
  for (const auto& f : metric_fields) s += (s.empty() ? "" : ", ") + std::string(f.name);
  return s + ", " + statistics_name;
}

/// compare()'s result as Python sees it: the Comparison, the shape its flat
/// indices unravel to, and the metrics the caller asked for.
struct PyComparison {
  td::Comparison c;
  td::Shape shape;  ///< of `actual`
  bool selected[metric_count];
  bool statistics = true;  ///< the sides' summaries were asked for (metrics= None or "statistics")

  py::object metric(std::size_t k) const {
    const td::Metric& m = c.*(metric_fields[k].member);
    return selected[k] && m.has_value() ? py::object(py::float_(m.value)) : py::none();
  }
  bool wants(const char* name) const {
    for (std::size_t k = 0; k < metric_count; ++k)
      if (std::strcmp(metric_fields[k].name, name) == 0) return selected[k];
    return false;
  }
};

const char* validation_name(td::Validation v) {
  switch (v) {
    case td::Validation::ok: return "ok";
    case td::Validation::empty: return "empty";
    case td::Validation::shape_unmatched: return "shape_unmatched";
    case td::Validation::zero_dim: return "zero_dim";
    case td::Validation::nonfinite_mismatch: return "nonfinite_mismatch";
  }
  return "?";
}

py::dict summary_dict(const td::Summary& s) {
  py::dict d;
  d["dtype"] = td::dtype_name(s.dtype);
  d["shape"] = shape_tuple(s.shape);
  d["numel"] = s.numel;
  d["min"] = s.min;
  d["max"] = s.max;
  d["mean"] = s.mean;
  d["sum"] = s.sum;
  d["l2norm"] = s.l2norm;
  d["finite_min"] = s.finite_min;
  d["finite_max"] = s.finite_max;
  d["nan_count"] = s.nan_count;
  d["pos_inf_count"] = s.pos_inf_count;
  d["neg_inf_count"] = s.neg_inf_count;
  d["inf_count"] = s.inf_count();
  d["has_nan_or_inf"] = s.has_nan_or_inf;
  d["overflows_float16"] = s.overflows_float16;
  d["overflows_bfloat16"] = s.overflows_bfloat16;
  return d;
}

py::object side_summary(const PyComparison& p, const td::Summary& s) {
  if (p.c.validation == td::Validation::empty || !p.statistics) return py::none();  // no pass ran / not asked
  return py::cast(s);
}

py::dict comparison_dict(const PyComparison& p) {
  const td::Comparison& c = p.c;
  py::dict d;
  d["validation"] = validation_name(c.validation);
  d["messages"] = c.messages;
  d["numel"] = c.numel;
  py::dict status;
  for (std::size_t k = 0; k < metric_count; ++k) {
    if (!p.selected[k]) continue;
    d[metric_fields[k].name] = p.metric(k);
    const td::Metric& m = c.*(metric_fields[k].member);
    status[metric_fields[k].name] = m.has_value() ? "ok" : td::msprobe_spelling(m.status);
  }
  d["metric_status"] = status;
  if (p.wants("max_abs_err")) {
    d["max_abs_index"] = unravel(p.shape, c.max_abs_index);
    d["actual_at_max_abs"] = c.actual_at_max_abs;
    d["expected_at_max_abs"] = c.expected_at_max_abs;
  }
  if (p.wants("max_rel_err")) {
    d["max_rel_index"] = unravel(p.shape, c.max_rel_index);
    d["actual_at_max_rel"] = c.actual_at_max_rel;
    d["expected_at_max_rel"] = c.expected_at_max_rel;
  }
  d["nonfinite_positions_match"] = c.nonfinite_positions_match;
  d["nonfinite_mismatch_count"] = c.nonfinite_mismatch_count;
  d["first_nonfinite_mismatch"] = unravel(p.shape, c.first_nonfinite_mismatch);
  d["dtypes_match"] = c.dtypes_match;
  d["zero_bench_eps"] = c.zero_bench_eps;
  const bool sides = c.validation != td::Validation::empty && p.statistics;
  d["actual"] = sides ? py::object(summary_dict(c.actual)) : py::none();
  d["expected"] = sides ? py::object(summary_dict(c.expected)) : py::none();
  return d;
}

/// Marks what `metrics` names (None: everything) and returns the set the kernel must compute:
/// only that, so a lean selection also runs a lean pass. A name with a leading '-' drops that
/// metric again ("-mean_rel_err"); a list that begins with one starts from every metric and
/// "statistics", as the CLI's --metrics does.
td::MetricSet select_metrics(PyComparison& p, const py::object& metrics) {
  std::vector<std::string> names;
  if (py::isinstance<py::str>(metrics)) names.push_back(metrics.cast<std::string>());
  else if (!metrics.is_none()) names = metrics.cast<std::vector<std::string>>();
  const auto drops = [](const std::string& n) { return n.compare(0, 1, "-") == 0; };
  const bool from_all = metrics.is_none() || (!names.empty() && drops(names.front()));
  std::fill(std::begin(p.selected), std::end(p.selected), from_all);
  p.statistics = from_all;
  if (metrics.is_none()) return td::metric::all;
  for (const std::string& n : names) {
    const bool keep = !drops(n);
    const std::string name = n.substr(keep ? 0 : 1);
    if (name == statistics_name) {
      p.statistics = keep;
      continue;
    }
    std::size_t k = 0;
    while (k < metric_count && name != metric_fields[k].name) ++k;
    if (k == metric_count)
      throw py::value_error("unknown metric '" + name + "' (known: " + metric_names() + "; a leading '-' drops one)");
    p.selected[k] = keep;
  }
  td::MetricSet set = p.statistics ? td::metric::statistics : td::MetricSet{};
  for (std::size_t k = 0; k < metric_count; ++k)
    if (p.selected[k]) set = set | metric_fields[k].set;
  if (!names.empty() && set == td::MetricSet{}) throw py::value_error("metrics= leaves no metric");
  return set;
}

PyComparison compare(py::handle actual, py::handle expected, const py::object& metrics, bool squeeze, unsigned threads) {
  PyComparison p;
  td::CompareOptions o;
  o.metrics = select_metrics(p, metrics);  // before any work: a typo fails fast
  const Input a = as_input(actual, "actual");
  const Input b = as_input(expected, "expected");
  o.squeeze = squeeze;
  o.threads = threads;
  {
    py::gil_scoped_release nogil;
    p.c = td::compare(a.view, b.view, o);
  }
  p.shape = a.view.shape;
  return p;
}

// --- standards ----------------------------------------------------------------------

struct PyVerdict {
  td::Verdict v;
  std::string message;  ///< torch.testing-style text (report::format_verdict)
};

py::dict element_dict(const td::ElementDiff& e, const td::Shape& shape) {
  py::dict d;
  d["index"] = unravel(shape, e.index);
  d["actual"] = e.actual;
  d["expected"] = e.expected;
  d["abs_diff"] = e.abs_diff;
  d["rel_diff"] = e.rel_diff;
  d["allowed"] = e.allowed;
  if (e.ulp_diff == e.ulp_diff) d["ulp_diff"] = e.ulp_diff;
  return d;
}

py::object element_or_none(const td::ElementDiff& e, const td::Shape& shape) {
  return e.valid() ? py::object(element_dict(e, shape)) : py::none();
}

PyVerdict check(py::handle actual, py::handle expected, const std::string& standard, std::optional<double> rtol,
                std::optional<double> atol, std::size_t worst) {
  const td::Standard s = td::standard_from_name(standard, rtol, atol);
  const Input a = as_input(actual, "actual");
  const Input e = as_input(expected, "expected");
  td::CheckOptions co;
  co.worst_count = worst;
  PyVerdict r;
  {
    py::gil_scoped_release nogil;
    r.v = s.check(a.view, e.view, co);
    if (!r.v.passed() || r.v.level == td::VerdictLevel::warning) {
      td::report::TextOptions to;
      to.max_worst = worst;
      r.message = td::report::format_verdict(r.v, to);
      while (!r.message.empty() && r.message.back() == '\n') r.message.pop_back();
    }
  }
  return r;
}

td::Summary summarize(py::handle obj) {
  const Input in = as_input(obj, "tensor");
  py::gil_scoped_release nogil;
  return td::summarize(in.view);
}

template <class Hash> std::string hash(py::handle obj, Hash&& h) {
  const Input in = as_input(obj, "tensor");
  py::gil_scoped_release nogil;
  return h(in.view);
}

}  // namespace

void bind_tensors(py::module_& m) {
  py::class_<td::Summary>(m, "Summary", "Statistics of one tensor (numpy semantics: NaN wins, inf decides, empty → NaN).")
      .def_property_readonly("dtype", [](const td::Summary& s) { return td::dtype_name(s.dtype); }, "dtype name")
      .def_property_readonly("shape", [](const td::Summary& s) { return shape_tuple(s.shape); })
      .def_readonly("numel", &td::Summary::numel)
      .def_readonly("min", &td::Summary::min)
      .def_readonly("max", &td::Summary::max)
      .def_readonly("mean", &td::Summary::mean)
      .def_readonly("sum", &td::Summary::sum)
      .def_readonly("l2norm", &td::Summary::l2norm)
      .def_readonly("finite_min", &td::Summary::finite_min, "smallest finite element (NaN if none)")
      .def_readonly("finite_max", &td::Summary::finite_max, "largest finite element (NaN if none)")
      .def_readonly("nan_count", &td::Summary::nan_count)
      .def_readonly("pos_inf_count", &td::Summary::pos_inf_count)
      .def_readonly("neg_inf_count", &td::Summary::neg_inf_count)
      .def_property_readonly("inf_count", &td::Summary::inf_count)
      .def_readonly("has_nan_or_inf", &td::Summary::has_nan_or_inf)
      .def_readonly("overflows_float16", &td::Summary::overflows_float16, "a finite value beyond float16's range")
      .def_readonly("overflows_bfloat16", &td::Summary::overflows_bfloat16, "a finite value beyond bfloat16's range")
      .def("to_dict", &summary_dict, "Every field as a dict.")
      .def("__repr__", [](const td::Summary& s) {
        return "Summary(" + std::string(td::dtype_name(s.dtype)) + " " + td::shape_to_string(s.shape) +
               ", min=" + td::pyformat::repr(s.min) + ", max=" + td::pyformat::repr(s.max) +
               ", mean=" + td::pyformat::repr(s.mean) + ", nan=" + std::to_string(s.nan_count) +
               ", inf=" + std::to_string(s.inf_count()) + ")";
      });

  py::class_<PyComparison> cmp(m, "Comparison",
                               "Everything compare() measured. A metric is None when msprobe's rules give no number "
                               "(see metric_status) or when it was not asked for (metrics=).");
  for (std::size_t k = 0; k < metric_count; ++k)
    cmp.def_property_readonly(metric_fields[k].name, [k](const PyComparison& p) { return p.metric(k); });
  cmp.def_property_readonly("validation", [](const PyComparison& p) { return validation_name(p.c.validation); },
                            "ok, empty, shape_unmatched, zero_dim or nonfinite_mismatch (msprobe's validation chain)")
      .def_property_readonly("messages", [](const PyComparison& p) { return p.c.messages; }, "msprobe's messages")
      .def_property_readonly("numel", [](const PyComparison& p) { return p.c.numel; })
      .def_property_readonly("metric_status", [](const PyComparison& p) -> py::object { return comparison_dict(p)["metric_status"]; },
                             "per metric: 'ok' or msprobe's word for why there is no number")
      .def_property_readonly("max_abs_index", [](const PyComparison& p) { return unravel(p.shape, p.c.max_abs_index); },
                             "index of the largest |actual - expected|, as a tuple of actual's shape")
      .def_property_readonly("max_rel_index", [](const PyComparison& p) { return unravel(p.shape, p.c.max_rel_index); })
      .def_property_readonly("max_abs_flat_index",
                             [](const PyComparison& p) -> py::object {
                               if (p.c.max_abs_index == td::no_index) return py::none();
                               return py::int_(p.c.max_abs_index);
                             })
      .def_property_readonly("actual_at_max_abs", [](const PyComparison& p) { return p.c.actual_at_max_abs; })
      .def_property_readonly("expected_at_max_abs", [](const PyComparison& p) { return p.c.expected_at_max_abs; })
      .def_property_readonly("actual_at_max_rel", [](const PyComparison& p) { return p.c.actual_at_max_rel; })
      .def_property_readonly("expected_at_max_rel", [](const PyComparison& p) { return p.c.expected_at_max_rel; })
      .def_property_readonly("nonfinite_positions_match", [](const PyComparison& p) { return p.c.nonfinite_positions_match; })
      .def_property_readonly("nonfinite_mismatch_count", [](const PyComparison& p) { return p.c.nonfinite_mismatch_count; })
      .def_property_readonly("first_nonfinite_mismatch",
                             [](const PyComparison& p) { return unravel(p.shape, p.c.first_nonfinite_mismatch); })
      .def_property_readonly("dtypes_match", [](const PyComparison& p) { return p.c.dtypes_match; })
      .def_property_readonly("zero_bench_eps", [](const PyComparison& p) { return p.c.zero_bench_eps; },
                             "the eps the relative error used where expected is 0")
      .def_property_readonly("actual", [](const PyComparison& p) { return side_summary(p, p.c.actual); },
                             "Summary of actual (None when a side is empty or metrics= left out \"statistics\")")
      .def_property_readonly("expected", [](const PyComparison& p) { return side_summary(p, p.c.expected); })
      .def("to_dict", &comparison_dict, "Every field as a dict (summaries as dicts).")
      .def("__repr__", [](const PyComparison& p) {
        std::string s = "Comparison(" + std::string(validation_name(p.c.validation));
        for (std::size_t k = 0; k < metric_count; ++k) {
          const td::Metric& mm = p.c.*(metric_fields[k].member);
          if (p.selected[k] && mm.has_value()) s += ", " + std::string(metric_fields[k].name) + "=" + td::pyformat::repr(mm.value);
        }
        return s + ")";
      });

  m.def("compare", &compare, py::arg("actual"), py::arg("expected"), py::kw_only(), py::arg("metrics") = py::none(),
        py::arg("squeeze") = true, py::arg("threads") = 0u,
        "Every metric of two tensors in one fused pass (msprobe's definitions): cosine, Euclidean distance, max/mean "
        "abs and rel error, RMSE, thousandth ratios, nan/inf positions and both sides' statistics. Any dtype pair "
        "and strides, no copy; the GIL is released. `metrics` (names, \"statistics\" for the sides' summaries; a leading '-' drops one) limits what is computed and reported; `threads` 0 = "
        "the library's pool, 1 = this thread.");
  m.def("summarize", &summarize, py::arg("tensor"), "Statistics of one tensor (min, max, mean, sum, L2 norm, nan/inf counts, overflow).");
  m.def("md5", [](py::handle t) { return hash(t, [](const td::TensorView& v) { return td::md5_hex(v); }); }, py::arg("tensor"),
        "RFC 1321 MD5 of the elements in C order, little-endian (equal tensors hash equal whatever their strides).");
  m.def("crc32", [](py::handle t) { return hash(t, [](const td::TensorView& v) { return td::crc32_hex(v); }); },
        py::arg("tensor"), "CRC-32 of the elements as 8 hex digits: msprobe's 'md5' column.");

  py::class_<PyVerdict>(m, "Verdict", "What a closeness standard decided.")
      .def_property_readonly("passed", [](const PyVerdict& r) { return r.v.passed(); }, "pass or warning")
      .def_property_readonly("level", [](const PyVerdict& r) { return td::to_string(r.v.level); },
                             "'pass', 'warning', 'error' or 'not judged'")
      .def_property_readonly("standard", [](const PyVerdict& r) { return r.v.standard; })
      .def_property_readonly("description", [](const PyVerdict& r) { return r.v.description; })
      .def_property_readonly("numel", [](const PyVerdict& r) { return r.v.numel; })
      .def_property_readonly("mismatched", [](const PyVerdict& r) { return r.v.mismatched; })
      .def_property_readonly("cosine", [](const PyVerdict& r) { return r.v.cosine; })
      .def_property_readonly("reasons", [](const PyVerdict& r) { return r.v.reasons; })
      .def_property_readonly("greatest_abs", [](const PyVerdict& r) { return element_or_none(r.v.greatest_abs, r.v.shape); })
      .def_property_readonly("greatest_rel", [](const PyVerdict& r) { return element_or_none(r.v.greatest_rel, r.v.shape); })
      .def_property_readonly("worst", [](const PyVerdict& r) {
        py::list l;
        for (const auto& e : r.v.worst) l.append(element_dict(e, r.v.shape));
        return l;
      })
      .def_property_readonly("message", [](const PyVerdict& r) { return r.message; },
                             "the torch.testing-style text ('' when it passed without warning)")
      .def("__bool__", [](const PyVerdict& r) { return r.v.passed(); })
      .def("__repr__", [](const PyVerdict& r) {
        return "Verdict(" + std::string(td::to_string(r.v.level)) + ", " + r.v.description + ")";
      });

  m.def("check", &check, py::arg("actual"), py::arg("expected"), py::kw_only(), py::arg("standard") = "torch",
        py::arg("rtol") = py::none(), py::arg("atol") = py::none(), py::arg("worst") = 5,
        "Judges actual against expected with a named standard (torch, numpy, isclose, ulp[:N], polygraphy[:STAT], "
        "msprobe, precheck[:METHOD], bitwise) and returns the Verdict.");
  m.def(
      "assert_close",
      [](py::handle actual, py::handle expected, const std::string& standard, std::optional<double> rtol,
         std::optional<double> atol, const std::optional<std::string>& msg) {
        PyVerdict r = check(actual, expected, standard, rtol, atol, 5);
        if (r.v.passed()) return;
        PyErr_SetString(PyExc_AssertionError, (msg ? *msg + "\n\n" + r.message : r.message).c_str());
        throw py::error_already_set();
      },
      py::arg("actual"), py::arg("expected"), py::kw_only(), py::arg("standard") = "torch", py::arg("rtol") = py::none(),
      py::arg("atol") = py::none(), py::arg("msg") = py::none(),
      "Raises AssertionError with torch.testing's message (mismatched elements, greatest absolute and relative "
      "difference with their index, plus cosine, standard and worst elements) unless actual is close to expected "
      "under `standard` (default: torch.testing's per-dtype rtol/atol). `msg` is put before the message.");
  m.def("set_threads", &td::set_default_threads, py::arg("threads"),
        "Size of the library's thread pool used by compare(threads=0) (0 = hardware threads).");
}

}  // namespace tdpy
