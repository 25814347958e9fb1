// tensordiff — the values a DumpWriter records: every leaf kind msprobe's
// dump.json holds, and lists / dicts of them.
//
//   call.input(x)                                   // a tensor (any view)
//       .input(io::DumpValue::list({w, b}))         // a tuple argument
//       .kwarg("dim", -1)                           // int, float, bool, str
//       .kwarg("dtype", io::DumpValue::torch_dtype("torch.float32"))
//       .kwarg("out", nullptr);                     // None
//
// A DumpValue only refers to tensor memory (a TensorView, no copy): the writer
// reads it while the call that receives it runs, then forgets it.
#pragma once
#include <cstdint>
#include <initializer_list>
#include <optional>
#include <string>
#include <type_traits>
#include <utility>
#include <vector>

#include "../core/tensor.hpp"
#include "../core/tensor_view.hpp"

TD_NAMESPACE_BEGIN
namespace io {

/// One argument of a dumped call: a tensor, a Python scalar, a torch object
/// (dtype, Size, device, memory_format), a numpy scalar, None, or a list/dict.
class DumpValue {
 public:
  /// What the value is; decides its dump.json form.
  enum class Kind : std::uint8_t {
    tensor, none, boolean, integer, real, string, ellipsis, slice,
    torch_dtype, torch_size, device, memory_format, numpy_scalar, list, dict
  };

  /// None (JSON null).
  DumpValue() = default;
  /// None (JSON null).
  DumpValue(std::nullptr_t) {}  // NOLINT
  /// A tensor; `requires_grad` is written for PyTorch dumps (false when not given).
  DumpValue(const TensorView& v, std::optional<bool> requires_grad = std::nullopt)  // NOLINT
      : kind_(Kind::tensor), view_(v), requires_grad_(requires_grad) {}
  /// A tensor owned by a Tensor (kept alive by the caller).
  DumpValue(const Tensor& t, std::optional<bool> requires_grad = std::nullopt)  // NOLINT
      : DumpValue(t.view(), requires_grad) {}
  /// Python bool.
  DumpValue(bool b) : kind_(Kind::boolean), boolean_(b) {}  // NOLINT
  /// Python int.
  template <class I, std::enable_if_t<std::is_integral_v<I> && !std::is_same_v<I, bool>, int> = 0>
  DumpValue(I i) : kind_(Kind::integer), integer_(static_cast<std::int64_t>(i)) {}  // NOLINT
  /// Python float.
  template <class F, std::enable_if_t<std::is_floating_point_v<F>, int> = 0>
  DumpValue(F f) : kind_(Kind::real), real_(static_cast<double>(f)) {}  // NOLINT
  /// Python str.
  DumpValue(std::string s) : kind_(Kind::string), text_(std::move(s)) {}  // NOLINT
  /// Python str.
  DumpValue(const char* s) : DumpValue(std::string(s)) {}  // NOLINT

  /// `...` (written as {"type": "ellipsis", "value": "..."}).
  static DumpValue ellipsis() { return DumpValue(Kind::ellipsis); }
  /// slice(start, stop, step); nullopt is None.
  static DumpValue slice(std::optional<std::int64_t> start, std::optional<std::int64_t> stop,
                         std::optional<std::int64_t> step = std::nullopt) {
    DumpValue v(Kind::slice);
    v.slice_[0] = start;
    v.slice_[1] = stop;
    v.slice_[2] = step;
    return v;
  }
  /// A dtype object: "torch.float32" (PyTorch) or "Float32" (MindSpore), written as its str().
  static DumpValue torch_dtype(std::string name) { return DumpValue(Kind::torch_dtype, std::move(name)); }
  /// torch.Size([...]).
  static DumpValue torch_size(Shape s) {
    DumpValue v(Kind::torch_size);
    v.shape_ = std::move(s);
    return v;
  }
  /// torch.device, as msprobe writes it: "cuda:0", "npu:1" ("cpu:None" for a device without index).
  static DumpValue device(std::string name) { return DumpValue(Kind::device, std::move(name)); }
  /// torch.memory_format: "contiguous_format", "channels_last", ...
  static DumpValue memory_format(std::string name) { return DumpValue(Kind::memory_format, std::move(name)); }
  /// A numpy scalar: type name as numpy spells it ("float32", "int64") and its value.
  static DumpValue numpy_scalar(std::string type, double value) {
    DumpValue v(Kind::numpy_scalar, std::move(type));
    v.real_ = value;
    return v;
  }
  /// A numpy integer scalar.
  static DumpValue numpy_scalar(std::string type, std::int64_t value) {
    DumpValue v(Kind::numpy_scalar, std::move(type));
    v.integer_ = value;
    v.numpy_integer_ = true;
    return v;
  }
  /// A list or tuple.
  static DumpValue list(std::vector<DumpValue> items) {
    DumpValue v(Kind::list);
    v.items_ = std::move(items);
    return v;
  }
  /// A list or tuple.
  static DumpValue list(std::initializer_list<DumpValue> items) { return list(std::vector<DumpValue>(items)); }
  /// A dict (keys in insertion order).
  static DumpValue dict(std::vector<std::pair<std::string, DumpValue>> entries) {
    DumpValue v(Kind::dict);
    v.entries_ = std::move(entries);
    return v;
  }

  Kind kind() const noexcept { return kind_; }  ///< the leaf kind (or list / dict)
  const TensorView& view() const noexcept { return view_; }  ///< tensor: the data
  std::optional<bool> requires_grad() const noexcept { return requires_grad_; }  ///< tensor: as given
  bool as_bool() const noexcept { return boolean_; }  ///< boolean: the value
  std::int64_t as_int() const noexcept { return integer_; }  ///< integer / integer numpy scalar
  double as_real() const noexcept { return real_; }  ///< real / float numpy scalar
  bool numpy_is_integer() const noexcept { return numpy_integer_; }  ///< numpy scalar holds an integer
  /// string: the text; torch_dtype / device / memory_format: the name; numpy_scalar: the type.
  const std::string& text() const noexcept { return text_; }
  /// slice: start, stop, step.
  const std::optional<std::int64_t>* slice_parts() const noexcept { return slice_; }
  const Shape& size() const noexcept { return shape_; }  ///< torch_size: the extents
  const std::vector<DumpValue>& items() const noexcept { return items_; }  ///< list: the items
  const std::vector<std::pair<std::string, DumpValue>>& entries() const noexcept { return entries_; }  ///< dict

 private:
  explicit DumpValue(Kind k, std::string text = {}) : kind_(k), text_(std::move(text)) {}
  Kind kind_ = Kind::none;
  TensorView view_;
  std::optional<bool> requires_grad_;
  bool boolean_ = false;
  bool numpy_integer_ = false;
  std::int64_t integer_ = 0;
  double real_ = 0;
  std::string text_;
  std::optional<std::int64_t> slice_[3];
  Shape shape_;
  std::vector<DumpValue> items_;
  std::vector<std::pair<std::string, DumpValue>> entries_;
};

}  // namespace io
TD_NAMESPACE_END
