// tensordiff Python module — files: load(), ls(), compare_dumps().
#include <pybind11/functional.h>
#include <pybind11/numpy.h>
#include <pybind11/stl.h>

#include <atomic>
#include <filesystem>
#include <fstream>
#include <optional>
#include <string>
#include <tensordiff/io/registry.hpp>
#include <tensordiff/io/safetensors.hpp>
#include <tensordiff/match/compare_dumps.hpp>
#include <tensordiff/match/layer_mapping.hpp>
#include <tensordiff/match/mapping_files.hpp>
#include <tensordiff/report/csv.hpp>
#include <tensordiff/report/dump_analysis_json.hpp>
#include <tensordiff/report/html_dump.hpp>
#include <tensordiff/report/outputs.hpp>

#include "common.hpp"
#include "dlpack.hpp"

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
    case td::DType::bfloat16:  // numpy has none of these
    case td::DType::float8_e4m3fn:
    case td::DType::float8_e5m2: break;
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

/// The same-size unsigned integer view of a tensor's bits (bfloat16 -> uint16, float8 -> uint8).
td::Tensor as_bits(const td::Tensor& t) {
  const td::TensorView& v = t.view();
  const td::DType u = v.itemsize() == 1 ? td::DType::uint8 : td::DType::uint16;
  return td::Tensor::adopt(std::make_shared<td::Tensor>(t), td::TensorView(v.data, u, v.shape, v.strides, v.byte_order));
}

/// DLPack export for dtypes numpy lacks (bfloat16, float8): torch gets a capsule over
/// a private native-order copy, since torch tensors are writable and the
/// file's mapping is not.
using namespace dlpack;  // NOLINT: the ABI names read as in dlpack.h
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
  // kDLBfloat; float8 goes as kDLUInt bytes, re-typed by the caller (torch < 2.6 has no float8 DLPack import)
  t.dtype = e->tensor.dtype() == td::DType::bfloat16 ? DLDataType{4, 16, 1} : DLDataType{1, 8, 1};
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

/// float8 as the richest type this interpreter has: a torch.float8_* tensor (torch >= 2.1), an
/// ml_dtypes numpy array, or a TypeError naming load_bits() — never silently uint8.
py::object float8_to_python(const td::Tensor& t) {
  const char* name = td::dtype_name(t.dtype());
  try {
    py::module_ torch = py::module_::import("torch");
    if (py::hasattr(torch, name)) return torch_tensor(t).attr("view")(torch.attr(name));
  } catch (py::error_already_set&) {
  }
  try {
    py::module_ ml = py::module_::import("ml_dtypes");
    if (py::hasattr(ml, name)) return numpy_view(as_bits(t)).attr("view")(ml.attr(name));
  } catch (py::error_already_set&) {
  }
  throw py::type_error(std::string("the tensor is ") + name +
                       ", which neither numpy nor this torch can hold (torch >= 2.1 or ml_dtypes can); "
                       "tensordiff.load_bits() gives its raw bytes and dtype name");
}

py::object to_python(const td::Tensor& t) {
  if (t.dtype() == td::DType::float8_e4m3fn || t.dtype() == td::DType::float8_e5m2) return float8_to_python(t);
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

/// The dump folder a path names (a folder with dump.json, or the dump.json
/// itself), or nothing.
std::optional<std::filesystem::path> dump_folder(const std::string& path) {
  namespace fs = std::filesystem;
  std::error_code ec;
  const fs::path p(path);
  if (fs::is_directory(p, ec) && (fs::is_regular_file(p / "dump.json", ec) || fs::is_regular_file(p / "debug.json", ec)))
    return p;
  const std::string name = p.filename().string();
  if ((name == "dump.json" || name == "debug.json") && fs::is_regular_file(p, ec)) return p.parent_path();
  return std::nullopt;
}

/// "DUMP::ITEM": the data file of a dump item by its table name
/// ("Functional.linear.0.forward.input.0").
td::Tensor load_dump_item(const std::filesystem::path& folder, const std::string& name, const td::io::LoadOptions& o) {
  const td::io::DumpFile d = td::io::load_dump_folder(folder);
  for (const auto& it : td::match::flatten(d)) {
    if (it.name != name) continue;
    if (it.data_name == "-1" || it.data_name.empty())
      throw td::Error(td::ErrorCategory::invalid_argument,
                      "item '" + name + "' has no data file (a " + d.task + "-mode dump keeps statistics only)",
                      {d.path.string(), "", std::nullopt});
    return td::io::load_one(d.data_path(it.data_name).string(), o).tensor;
  }
  throw td::Error(td::ErrorCategory::invalid_argument, "no item named '" + name + "' in the dump",
                  {d.path.string(), "", std::nullopt});
}

td::Tensor load_tensor(const std::string& spec, bool bf16, const std::optional<std::string>& float8) {
  register_formats();
  td::io::LoadOptions o;
  if (bf16) o.bf16 = td::io::Bf16Hint::bfloat16;
  if (float8) {
    const auto t = td::parse_dtype(*float8);
    if (t != td::DType::float8_e4m3fn && t != td::DType::float8_e5m2)
      throw py::value_error("float8= takes 'float8_e4m3fn' or 'float8_e5m2', not '" + *float8 + "'");
    o.void1_as = t;
  }
  td::Tensor t;
  {
    py::gil_scoped_release nogil;
    const auto [file, selector] = td::io::split_selector(spec);
    const auto dump = selector ? dump_folder(file) : std::nullopt;
    t = dump ? load_dump_item(*dump, *selector, o) : td::io::load_one(spec, o).tensor;
  }
  return t;
}

py::object load(const std::string& spec, bool bf16, const std::optional<std::string>& float8) {
  return to_python(load_tensor(spec, bf16, float8));
}

/// (numpy array, dtype name): bfloat16 and float8 as their same-size unsigned bits, others as load().
py::tuple load_bits(const std::string& spec, bool bf16, const std::optional<std::string>& float8) {
  const td::Tensor t = load_tensor(spec, bf16, float8);
  const bool raw = t.dtype() == td::DType::bfloat16 || t.dtype() == td::DType::float8_e4m3fn || t.dtype() == td::DType::float8_e5m2;
  return py::make_tuple(numpy_view(raw ? as_bits(t) : t), td::dtype_name(t.dtype()));
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

// --- compare_dumps() -------------------------------------------------------------

/// A table cell as Python: the value the CSV shows (msprobe's rounding), as
/// float / int / bool / None / str; percentages stay text, as in msprobe's table.
py::object cell_value(const td::match::Cell& c) {
  using K = td::match::Cell::Kind;
  switch (c.kind) {
    case K::text: return py::str(c.text);
    case K::integer: return py::int_(c.integer);
    case K::boolean: return py::bool_(c.boolean);
    case K::null: return py::none();
    case K::real:
      if (c.style == td::match::Cell::Style::percent) return py::str(td::match::csv_text(c));
      return py::float_(td::match::shown_value(c));
  }
  return py::none();
}

py::list rank_rows(const td::match::DumpComparison& r, const td::match::RankComparison& rc) {
  const td::match::TableLayout layout = r.layout_for(rc);
  const std::vector<std::string> header = td::match::table_header(layout);
  std::vector<py::str> keys(header.begin(), header.end());
  py::list rows;
  std::size_t prev_entry = static_cast<std::size_t>(-1);
  for (const auto& row : rc.rows) {
    const std::size_t e = rc.npu_items[row.npu].entry_index;
    const auto cells = td::match::row_cells(rc, row, layout, e != prev_entry);
    prev_entry = e;
    py::dict d;
    for (std::size_t k = 0; k < cells.size(); ++k) d[keys[k]] = cell_value(cells[k]);
    rows.append(std::move(d));
  }
  return rows;
}

py::object json_to_python(const nlohmann::ordered_json& j) {
  return py::module_::import("json").attr("loads")(j.dump());
}

std::shared_ptr<const td::match::Matcher> matcher_for(bool fuzzy, const std::optional<std::string>& data_map,
                                                      const py::object& cell_map, const py::object& api_map,
                                                      const std::optional<std::string>& layer_map) {
  const bool cell = !cell_map.is_none() && !(py::isinstance<py::bool_>(cell_map) && !cell_map.cast<bool>());
  const bool api = !api_map.is_none() && !(py::isinstance<py::bool_>(api_map) && !api_map.cast<bool>());
  if (int(fuzzy) + int(data_map.has_value()) + int(cell) + int(api) + int(layer_map.has_value()) > 1)
    throw py::value_error("choose one of fuzzy, data_map, cell_map, api_map, layer_map");
  auto file_of = [](const py::object& o) { return py::isinstance<py::bool_>(o) ? std::string() : py::str(o).cast<std::string>(); };
  if (fuzzy) return std::make_shared<td::match::FuzzyMatcher>();
  if (data_map) return td::match::load_data_mapping(*data_map);
  if (cell) return td::match::load_cell_mapping(file_of(cell_map));
  if (api) return td::match::load_api_mapping(file_of(api_map));
  if (layer_map) return td::match::load_layer_mapping(*layer_map);
  return nullptr;
}

py::dict compare_dumps(const std::string& npu, const std::string& bench, const std::string& mode, const std::string& compat,
                       bool fuzzy, const std::optional<std::string>& data_map, const py::object& cell_map,
                       const py::object& api_map, const std::optional<std::string>& layer_map, bool legacy_result,
                       unsigned workers, const std::optional<std::string>& output, bool html, bool jsonl,
                       const py::object& progress) {
  if (mode != "auto" && mode != "tensor" && mode != "statistics" && mode != "md5")
    throw py::value_error("mode must be auto, tensor, statistics or md5, not '" + mode + "'");
  if (compat != "tensordiff" && compat != "msprobe")
    throw py::value_error("compat must be 'tensordiff' or 'msprobe', not '" + compat + "'");
  register_formats();
  td::match::CompareRequest req;
  req.npu = npu;
  req.bench = bench;
  req.compat = compat == "msprobe" ? td::match::Compat::msprobe : td::match::Compat::tensordiff;
  req.rules = legacy_result ? td::match::ResultRules::legacy : td::match::ResultRules::current;
  req.matcher = matcher_for(fuzzy, data_map, cell_map, api_map, layer_map);
  req.workers = workers;
  // The callback runs on worker threads: it takes the GIL, and a Python
  // exception in it (KeyboardInterrupt from a signal included) stops further
  // calls and is raised once the compare returns.
  std::atomic<bool> failed{false};
  py::object error_type, error_value;
  if (!progress.is_none())
    req.progress = [&](std::size_t done, std::size_t total) {
      if (failed) return;
      py::gil_scoped_acquire gil;
      try {
        progress(done, total);
        if (PyErr_CheckSignals() != 0) throw py::error_already_set();
      } catch (py::error_already_set& e) {
        failed = true;
        error_type = e.type();
        error_value = e.value();
      }
    };
  td::match::DumpComparison r;
  std::vector<std::string> files;
  {
    py::gil_scoped_release nogil;
    r = td::match::run_compare(req);
    if (mode != "auto" && mode != td::match::to_string(r.mode))
      throw td::Error(td::ErrorCategory::mismatch,
                      "mode " + mode + " was asked for, but the dumps are " + td::match::to_string(r.mode) + "-mode dumps",
                      {npu, "", std::nullopt});
    if (output) files = td::report::write_compare_outputs(r, *output, {html, jsonl, npu, bench});
  }
  if (failed) {
    PyErr_SetObject(error_type.ptr(), error_value.ptr());
    throw py::error_already_set();
  }
  py::dict out;
  out["mode"] = td::match::to_string(r.mode);
  py::list ranks;
  for (const auto& rc : r.ranks) {
    py::dict d;
    d["label"] = rc.label;
    d["step"] = rc.step;
    d["rank"] = rc.rank;
    d["columns"] = td::match::table_header(r.layout_for(rc));
    d["rows"] = rank_rows(r, rc);
    d["bench_only"] = rc.bench_only.size();
    ranks.append(std::move(d));
  }
  out["ranks"] = ranks;
  const nlohmann::ordered_json summary = td::report::summary_json(r);
  out["summary"] = json_to_python(summary);
  if (r.first_divergence) {
    const auto& f = *r.first_divergence;
    py::dict d = json_to_python(summary["first_divergence"]);
    d["label"] = f.label;
    d["messages"] = f.messages;
    d["tripped"] = f.tripped;
    d["stack"] = f.stack;
    d["min_cosine"] = f.min_cosine;
    d["max_abs_err"] = f.max_abs_err;
    d["max_rel_err"] = f.max_rel_err;
    out["first_divergence"] = d;
  } else {
    out["first_divergence"] = py::none();
  }
  out["files"] = files;
  return out;
}

}  // namespace

void bind_files(py::module_& m) {
  m.def("_compare_dumps", &compare_dumps, py::arg("npu"), py::arg("bench"), py::kw_only(), py::arg("mode") = "auto",
        py::arg("compat") = "tensordiff", py::arg("fuzzy") = false, py::arg("data_map") = py::none(),
        py::arg("cell_map") = py::none(), py::arg("api_map") = py::none(), py::arg("layer_map") = py::none(),
        py::arg("legacy_result") = false, py::arg("workers") = 0u, py::arg("output") = py::none(),
        py::arg("html") = false, py::arg("jsonl") = false, py::arg("progress") = py::none(),
        "compare_dumps() without the pandas conversion (see tensordiff.compare_dumps).");
  m.def("load_bits", &load_bits, py::arg("path"), py::kw_only(), py::arg("bf16") = false, py::arg("float8") = py::none(),
        "As load(), but returns (array, dtype name): bfloat16 and float8 tensors as a read-only numpy array of their "
        "bits (uint16 / uint8), for interpreters whose numpy and torch cannot hold them; other dtypes as load().");
  m.def("load", &load, py::arg("path"), py::kw_only(), py::arg("bf16") = false, py::arg("float8") = py::none(),
        "One tensor from a .npy, .npz, .pt or .safetensors file: PATH when the file holds one, PATH::KEY to pick an "
        "entry (see ls()), or DUMP::ITEM for a dump item's data file (DUMP: a folder with dump.json, or the "
        "dump.json; ITEM: its name in the compare table, e.g. Functional.linear.0.forward.input.0). Returns a read-only numpy array over the file's memory map where the layout allows, or a "
        "torch tensor (through DLPack) for bfloat16. float8_e4m3fn / float8_e5m2 come as a torch.float8_* tensor "
        "(torch >= 2.1), else an ml_dtypes numpy array, else TypeError naming load_bits(). bf16=True reads npy's "
        "'<V2' as bfloat16; float8='float8_e4m3fn' or 'float8_e5m2' reads npy's '|V1' (ml_dtypes' float8) as that.");
  m.def("ls", &ls, py::arg("path"), "The tensors of a file: path, dtype, shape, strides, storage and torch metadata, one dict each.");
}

}  // namespace tdpy
