// tensordiff — one DumpValue as msprobe 26.0's dumper writes it into dump.json
// (and, in tensor mode, its data file).
//
// Tensor leaves, key order as msprobe's placeholder replacement leaves them:
//   PyTorch:   type, dtype, shape, Max, Min, Mean, Norm, requires_grad, data_name | md5
//   MindSpore: type, dtype, shape, Max, Min, Mean, Norm, data_name | md5
// Statistics follow each framework's get_stat_info:
//   PyTorch:   empty → 4 nulls; bool → Max = any, Min = all; 0-d → the value 4
//              times; int and float64 → Max/Min only; f16/bf16/f32 → all four,
//              as torch's 0-d results in the tensor's own dtype.
//   MindSpore: empty → 4 nulls; bool → Max/Min as bools; 0-d → the value 4
//              times; everything else in its own dtype, ints and float64
//              cast to float32 first.
// Mean and Norm come from the library's float64 summary rounded once to the
// result dtype, so they can differ from torch's own reduction in the last bit.
// Data files: PyTorch `.pt` in the tensor's dtype (bf16 stays bf16), MindSpore
// `.npy` with bf16 widened to float32 (save_tensor_as_npy). md5: CRC-32 of the
// C-order bytes (PyTorch: the raw dtype; MindSpore: bf16 widened to float32).
#pragma once
#include <cmath>
#include <cstdint>
#include <filesystem>
#include <fstream>
#include <limits>
#include <string>

#include <nlohmann/json.hpp>

#include "../../core/error.hpp"
#include "../../core/half.hpp"
#include "../../core/visit.hpp"
#include "output_file.hpp"
#include "../../metrics/crc32.hpp"
#include "../../metrics/summary.hpp"
#include "../dump_value.hpp"
#include "../npy.hpp"
#include "pt_writer.hpp"

TD_NAMESPACE_BEGIN
namespace io {

/// What a dump records per tensor (msprobe's task / summary_mode).
enum class DumpTask : std::uint8_t {
  tensor,      ///< statistics + one data file per tensor
  statistics,  ///< statistics only
  md5,         ///< statistics + "md5" (CRC-32, 8 hex digits); dump.json says task "statistics"
};

namespace detail {

/// str(tensor.dtype): "torch.bfloat16" or MindSpore's "BFloat16".
inline std::string framework_dtype_name(DType t, bool mindspore) {
  if (!mindspore) return std::string("torch.") + dtype_name(t);
  switch (t) {
    case DType::boolean: return "Bool";
    case DType::int8: return "Int8";
    case DType::uint8: return "UInt8";
    case DType::int16: return "Int16";
    case DType::uint16: return "UInt16";
    case DType::int32: return "Int32";
    case DType::uint32: return "UInt32";
    case DType::int64: return "Int64";
    case DType::uint64: return "UInt64";
    case DType::float16: return "Float16";
    case DType::bfloat16: return "BFloat16";
    case DType::float32: return "Float32";
    case DType::float64: return "Float64";
    case DType::complex64: return "Complex64";
    case DType::complex128: return "Complex128";
    case DType::float8_e4m3fn: return "Float8E4M3FN";
    case DType::float8_e5m2: return "Float8E5M2";
  }
  return "?";
}

/// `x` rounded to `t` (a float dtype) and widened back: what `.item()` of torch's 0-d result gives.
inline double round_to(double x, DType t) {
  switch (t) {
    case DType::float16: return static_cast<double>(float16(static_cast<float>(x)));
    case DType::bfloat16: return static_cast<double>(bfloat16(static_cast<float>(x)));
    case DType::float8_e4m3fn: return static_cast<double>(float8_e4m3fn(static_cast<float>(x)));
    case DType::float8_e5m2: return static_cast<double>(float8_e5m2(static_cast<float>(x)));
    case DType::float32: return static_cast<double>(static_cast<float>(x));
    default: return x;
  }
}

/// Exact integer extremes of an integer view (int64 beyond 2^53 stays exact).
inline std::pair<nlohmann::ordered_json, nlohmann::ordered_json> integer_extremes(const TensorView& v) {
  nlohmann::ordered_json mx, mn;
  visit_real_dtype(v.dtype, [&](auto tag) {
    using T = typename decltype(tag)::type;
    if constexpr (std::is_integral_v<T>) {
      T lo = std::numeric_limits<T>::max(), hi = std::numeric_limits<T>::lowest();
      ::tensordiff::detail::for_each_run<T>(v, 0, v.numel(), [&](const T* p, std::size_t m, std::uint64_t) {
        for (std::size_t i = 0; i < m; ++i) {
          lo = p[i] < lo ? p[i] : lo;
          hi = p[i] > hi ? p[i] : hi;
        }
      });
      mx = hi;
      mn = lo;
    }
  }, "integer statistics");
  return {mx, mn};
}

/// One element of a 0-d view as the JSON value .item() gives.
inline nlohmann::ordered_json scalar_item(const TensorView& v, const Summary& s) {
  if (v.dtype == DType::boolean) return s.max != 0;
  if (is_integral(v.dtype)) return integer_extremes(v).first;
  return s.max;
}

/// Max, Min, Mean, Norm of a tensor leaf (see the file comment).
inline void add_tensor_stats(nlohmann::ordered_json& leaf, const TensorView& v, bool mindspore) {
  using J = nlohmann::ordered_json;
  J mx, mn, mean, norm;
  if (is_complex(v.dtype))
    throw Error(ErrorCategory::unsupported, "DumpWriter: complex tensors are not supported (" +
                                                std::string(dtype_name(v.dtype)) + ")");
  if (v.numel() > 0) {
    const Summary s = summarize(v);
    if (v.dtype == DType::boolean) {
      mx = s.max != 0;  // any
      mn = s.min != 0;  // all
    } else if (v.rank() == 0) {
      mx = mn = mean = norm = scalar_item(v, s);
    } else if (mindspore) {
      const DType r = is_floating(v.dtype) && v.dtype != DType::float64 ? v.dtype : DType::float32;
      mx = round_to(s.max, r);
      mn = round_to(s.min, r);
      mean = round_to(s.mean, r);
      norm = round_to(s.l2norm, r);
    } else if (is_integral(v.dtype)) {
      std::tie(mx, mn) = integer_extremes(v);
    } else {
      mx = s.max;
      mn = s.min;
      if (v.dtype != DType::float64) {
        mean = round_to(s.mean, v.dtype);
        norm = round_to(s.l2norm, v.dtype);
      }
    }
  }
  leaf["Max"] = mx;
  leaf["Min"] = mn;
  leaf["Mean"] = mean;
  leaf["Norm"] = norm;
}

/// Where and how one call's leaves are written.
struct LeafSink {
  bool mindspore = false;
  DumpTask task = DumpTask::statistics;
  std::filesystem::path data_dir;  ///< dump_tensor_data/ (tensor task)
  std::string name_prefix;         ///< "{entry}.{input|kwargs|output|parameters}" or a parameters_grad save name
  bool prefix_is_save_name = false;  ///< parameters_grad: the file is "{prefix}.pt" whatever the nesting
};

inline nlohmann::ordered_json tensor_leaf(const DumpValue& v, const LeafSink& sink, const std::string& suffix) {
  using J = nlohmann::ordered_json;
  const TensorView& t = v.view();
  if (!sink.mindspore && !torch_storage_class(t.dtype))
    throw Error(ErrorCategory::unsupported, std::string("DumpWriter: PyTorch has no dtype for ") + dtype_name(t.dtype));
  J leaf = J::object();
  leaf["type"] = sink.mindspore ? "mindspore.Tensor" : "torch.Tensor";
  leaf["dtype"] = framework_dtype_name(t.dtype, sink.mindspore);
  J shape = J::array();
  for (auto d : t.shape) shape.push_back(d);
  leaf["shape"] = shape;
  add_tensor_stats(leaf, t, sink.mindspore);
  if (!sink.mindspore) leaf["requires_grad"] = v.requires_grad().value_or(false);
  if (sink.task == DumpTask::tensor) {
    std::string stem = sink.name_prefix;
    if (!sink.prefix_is_save_name && !suffix.empty()) stem += "." + suffix;
    if (stem.find('/') != std::string::npos || stem.find('\\') != std::string::npos)
      throw Error(ErrorCategory::invalid_argument,
                  "DumpWriter: a key in \"" + stem + "\" has a path separator; data files must stay in dump_tensor_data/");
    const std::string file = stem + (sink.mindspore ? ".npy" : ".pt");
    if (sink.mindspore) {
      NpySaveOptions o;
      o.bf16 = NpyBf16::float32;
      write_bytes_atomically((sink.data_dir / file).string(), npy_bytes(t, o));
    } else {
      write_bytes_atomically((sink.data_dir / file).string(), torch_save_bytes(t, stem));
    }
    leaf["data_name"] = file;
  } else if (sink.task == DumpTask::md5) {
    if (sink.mindspore && t.dtype == DType::bfloat16) {
      NpySaveOptions o;
      o.bf16 = NpyBf16::float32;
      const std::string b = npy_bytes(t, o);
      const std::size_t header = npy_header_bytes("<f4", t.shape).size();
      leaf["md5"] = crc32_hex(b.data() + header, b.size() - header);
    } else {
      leaf["md5"] = crc32_hex(t);
    }
  }
  return leaf;
}

/// The dump.json form of `v`; tensors are written to files on the way.
/// `suffix` is the index path so far ("0", "1.2", "mask").
inline nlohmann::ordered_json leaf_json(const DumpValue& v, const LeafSink& sink, const std::string& suffix, int depth = 0) {
  using J = nlohmann::ordered_json;
  using K = DumpValue::Kind;
  if (depth > 100) throw Error(ErrorCategory::invalid_argument, "DumpWriter: value nested deeper than 100 levels");
  auto typed = [](const char* type, J value, const char* key = "value") {
    J j = J::object();
    j["type"] = type;
    j[key] = std::move(value);
    return j;
  };
  auto child = [&](const std::string& k) { return suffix.empty() ? k : suffix + "." + k; };
  switch (v.kind()) {
    case K::tensor: return tensor_leaf(v, sink, suffix);
    case K::none: return nullptr;
    case K::boolean: return typed("bool", v.as_bool());
    case K::integer: return typed("int", v.as_int());
    case K::real: return typed("float", v.as_real());
    case K::string: return typed("str", v.text());
    case K::ellipsis: return typed("ellipsis", "...");
    case K::slice: {
      J parts = J::array();
      for (int i = 0; i < 3; ++i) parts.push_back(v.slice_parts()[i] ? J(*v.slice_parts()[i]) : J(nullptr));
      return typed("slice", parts);
    }
    case K::torch_dtype: return typed(sink.mindspore ? "mindspore.dtype" : "torch.dtype", v.text());
    case K::torch_size: {
      J dims = J::array();
      for (auto d : v.size()) dims.push_back(d);
      return typed("torch.Size", dims);
    }
    case K::device: return typed("torch.device", v.text());
    case K::memory_format: return typed("torch.memory_format", v.text(), "format");
    case K::numpy_scalar: {
      J j = J::object();
      j["type"] = v.text();
      if (v.numpy_is_integer()) j["value"] = v.as_int();
      else j["value"] = v.as_real();
      return j;
    }
    case K::list: {
      J a = J::array();
      for (std::size_t i = 0; i < v.items().size(); ++i)
        a.push_back(leaf_json(v.items()[i], sink, child(std::to_string(i)), depth + 1));
      return a;
    }
    case K::dict: {
      J o = J::object();
      for (const auto& [k, x] : v.entries()) o[k] = leaf_json(x, sink, child(k), depth + 1);
      return o;
    }
  }
  return nullptr;
}

}  // namespace detail
}  // namespace io
TD_NAMESPACE_END
