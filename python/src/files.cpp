// tensordiff Python module — files: load(), ls().
#include <pybind11/numpy.h>
#include <pybind11/stl.h>

#include <string>
#include <tensordiff/io/registry.hpp>
#include <tensordiff/io/safetensors.hpp>

#include "common.hpp"

namespace tdpy {
namespace {

/// numpy's descr for a dtype and byte order ("<f4", ">i8", "|b1").
std::string numpy_descr(td::DType t, td::ByteOrder order) {
  const char* code = nullptr;
  switch (t) {
    case td::DType::boolean: return "|b1";
    case td::DType::int8: return "|i1";
    case td::DType::uint8: return "|u1";
    case td::DType::int16: code = "i2"; break;
    case td::DType::uint16: code = "u2"; break;
    case td::DType::int32: code = "i4"; break;
    case td::DType::uint32: code = "u4"; break;
    case td::DType::int64: code = "i8"; break;
    case td::DType::uint64: code = "u8"; break;
    case td::DType::float16: code = "f2"; break;
    case td::DType::float32: code = "f4"; break;
    case td::DType::float64: code = "f8"; break;
    case td::DType::complex64: code = "c8"; break;
    case td::DType::complex128: code = "c16"; break;
    case td::DType::bfloat16: break;  // numpy has none
  }
  if (!code) throw py::type_error(std::string("no numpy dtype for ") + td::dtype_name(t));
  return (order == td::ByteOrder::big ? ">" : "<") + std::string(code);
}

/// A read-only numpy array over the tensor's memory (a mapped file stays
/// mapped while the array or any view of it lives).
py::array numpy_view(const td::Tensor& t) {
  const td::TensorView& v = t.view();
  std::vector<py::ssize_t> shape(v.shape.begin(), v.shape.end()), strides(v.rank());
  for (std::size_t i = 0; i < v.rank(); ++i) strides[i] = static_cast<py::ssize_t>(v.strides[i] * static_cast<std::int64_t>(v.itemsize()));
  auto* owner = new td::Tensor(t);
  py::capsule base(owner, [](void* p) { delete static_cast<td::Tensor*>(p); });
  py::array a(py::dtype(numpy_descr(v.dtype, v.byte_order)), shape, strides, v.data, base);
  a.attr("setflags")(py::arg("write") = false);  // the bytes may be a read-only mapping
  return a;
}

/// DLPack export for dtypes numpy lacks (bfloat16): torch gets a capsule over
/// a private native-order copy, since torch tensors are writable and the
/// file's mapping is not.
struct DLDevice {
  std::int32_t device_type, device_id;
};
struct DLDataType {
  std::uint8_t code, bits;
  std::uint16_t lanes;
};
struct DLTensor {
  void* data;
  DLDevice device;
  std::int32_t ndim;
  DLDataType dtype;
  std::int64_t* shape;
  std::int64_t* strides;
  std::uint64_t byte_offset;
};
struct DLManagedTensor {
  DLTensor dl_tensor;
  void* manager_ctx;
  void (*deleter)(DLManagedTensor*);
};
struct Exported {
  DLManagedTensor managed;
  td::Tensor tensor;
  td::Shape shape;
};

py::object torch_tensor(const td::Tensor& src) {
  auto* e = new Exported{};
  e->tensor = td::Tensor::copy_of(src.view());
  e->shape = e->tensor.shape();
  DLTensor& t = e->managed.dl_tensor;
  t.data = const_cast<std::byte*>(e->tensor.view().data);
  t.device = {1, 0};
  t.ndim = static_cast<std::int32_t>(e->shape.size());
  t.dtype = {4, 16, 1};  // kDLBfloat
  t.shape = e->shape.data();
  t.strides = nullptr;  // C-contiguous
  t.byte_offset = 0;
  e->managed.manager_ctx = e;
  e->managed.deleter = [](DLManagedTensor* m) { delete static_cast<Exported*>(m->manager_ctx); };
  PyObject* cap = PyCapsule_New(&e->managed, "dltensor", [](PyObject* c) {
    if (PyCapsule_IsValid(c, "dltensor")) {  // never consumed: free it here
      auto* m = static_cast<DLManagedTensor*>(PyCapsule_GetPointer(c, "dltensor"));
      m->deleter(m);
    }
  });
  if (!cap) {
    delete e;
    throw py::error_already_set();
  }
  py::object capsule = py::reinterpret_steal<py::object>(cap);
  return py::module_::import("torch.utils.dlpack").attr("from_dlpack")(capsule);
}

py::object to_python(const td::Tensor& t) {
  if (t.dtype() != td::DType::bfloat16) return numpy_view(t);
  try {
    py::module_::import("torch");
  } catch (py::error_already_set&) {
    throw py::type_error("the tensor is bfloat16, which numpy cannot hold; install torch (Debian python3-torch) to load it");
  }
  return torch_tensor(t);
}

void register_formats() {
  static const bool once = [] {  // safetensors is a plug-in format: the registry does not add it itself
    td::io::Registry::global().add(std::make_unique<td::io::SafetensorsFormat>());
    return true;
  }();
  (void)once;
}

py::object load(const std::string& spec, bool bf16) {
  register_formats();
  td::io::LoadOptions o;
  if (bf16) o.bf16 = td::io::Bf16Hint::bfloat16;
  td::io::LoadedTensor t;
  {
    py::gil_scoped_release nogil;
    t = td::io::load_one(spec, o);
  }
  return to_python(t.tensor);
}

py::list ls(const std::string& path) {
  register_formats();
  std::vector<td::io::LoadedTensor> all;
  {
    py::gil_scoped_release nogil;
    all = td::io::load(path);
  }
  py::list out;
  for (const auto& t : all) {
    const td::TensorView& v = t.tensor.view();
    py::dict d;
    d["path"] = t.path;
    d["dtype"] = td::dtype_name(v.dtype);
    d["shape"] = shape_tuple(v.shape);
    d["strides"] = shape_tuple(v.strides);
    d["byte_order"] = v.byte_order == td::ByteOrder::big ? "big" : "little";
    d["source_dtype"] = t.meta.source_dtype;
    d["storage_key"] = t.meta.storage_key;
    d["storage_offset"] = t.meta.storage_offset;
    d["location"] = t.meta.location;
    d["requires_grad"] = t.meta.requires_grad;
    d["is_parameter"] = t.meta.is_parameter;
    out.append(std::move(d));
  }
  return out;
}

}  // namespace

void bind_files(py::module_& m) {
  m.def("load", &load, py::arg("path"), py::kw_only(), py::arg("bf16") = false,
        "One tensor from a .npy, .npz, .pt or .safetensors file: PATH when the file holds one, PATH::KEY to pick an "
        "entry (see ls()). Returns a read-only numpy array over the file's memory map where the layout allows, or a "
        "torch tensor (through DLPack) for bfloat16. bf16=True reads npy's '<V2' as bfloat16.");
  m.def("ls", &ls, py::arg("path"), "The tensors of a file: path, dtype, shape, strides, storage and torch metadata, one dict each.");
}

}  // namespace tdpy
