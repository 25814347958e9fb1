// tensordiff — one dump's table items, flattened exactly as msprobe does (spec §5.1).
//
// Every leaf of every entry becomes an Item: "Functional.linear.0.forward.input.0",
// kwargs as ".input.{key}" (or, when the leaf has a data file, the data file
// name minus its extension: ".kwargs.{key}" in tensor dumps), parameters as
// ".parameters.{name}", parameter grads as "<entry>.{param}". Within an entry
// the order is inputs, parameters, outputs, parameter grads.
#pragma once
#include <array>
#include <cstdint>
#include <map>
#include <string>
#include <vector>

#include "../io/dump_json.hpp"
#include "../metrics/crc32.hpp"

TD_NAMESPACE_BEGIN
namespace match {

/// Which comparison the dumps allow (spec §4.1).
enum class Mode : std::uint8_t {
  tensor,      ///< dump task "tensor": data files, six metrics
  statistics,  ///< dump task "statistics": Max/Min/Mean/Norm differences
  md5,         ///< statistics with "md5" (CRC-32) per leaf
};

/// "tensor", "statistics" or "md5".
inline const char* to_string(Mode m) noexcept {
  switch (m) {
    case Mode::tensor: return "tensor";
    case Mode::statistics: return "statistics";
    case Mode::md5: return "md5";
  }
  return "?";
}

/// Where an item sits in its entry: an `input` (args and kwargs), an `output`, one of the
/// module's `parameters`, or a `parameters_grad` (a parameter's gradient).
enum class ItemState : std::uint8_t { input, output, parameters, parameters_grad };

/// One row-side of the table.
struct Item {
  std::string name;        ///< the row name (msprobe's full_op_name)
  std::string entry;       ///< the entry (API/module call) it belongs to
  /// Position of the entry in the dump's execution order (DumpFile::entries).
  std::size_t entry_index = 0;
  /// Whether it is an input, output, parameter or parameter gradient of its entry.
  ItemState state = ItemState::input;
  const io::DumpLeaf* leaf = nullptr;  ///< into the DumpFile (keep it alive)
  std::string dtype;       ///< as the table shows it ("torch.float32", "<class 'int'>", "None")
  std::string shape;       ///< "[2, 3]", "[]", "None"
  ///@{
  /// The leaf's dumped statistics (Max, Min, Mean, Norm), as in DumpLeaf.
  io::JsonScalar max, min, mean, norm;
  ///@}
  std::string requires_grad;  ///< "True" / "False" / "None"
  std::string md5;            ///< CRC-32 hex; crc32(str(value)) for non-tensor leaves
  std::string data_name;      ///< file name, or "-1" when there is none
  std::string suffix;         ///< the name after the entry name: ".input.0"
  /// The item is an output of its entry (its name has ".output."): the rows the first
  /// divergence and the module roll-up look at.
  bool is_output() const { return name.find(".output.") != std::string::npos; }
};

namespace detail {

/// zlib's CRC-32 of a string (msprobe's md5 column of non-tensor leaves).
inline std::uint32_t crc32(const std::string& s) { return tensordiff::crc32(s.data(), s.size()); }

inline std::string hex8(std::uint32_t v) {
  static const char* d = "0123456789abcdef";
  std::string s(8, '0');
  for (int i = 7; i >= 0; --i, v >>= 4) s[static_cast<std::size_t>(i)] = d[v & 15];
  return s;
}

inline std::string shape_py_str(const Shape& s) {
  std::string out = "[";
  for (std::size_t i = 0; i < s.size(); ++i) out += (i ? ", " : "") + std::to_string(s[i]);
  return out + "]";
}

/// The numpy shape of a JSON value as str(np.shape(v)) writes it: "()", "(3,)".
inline std::string np_shape_of(const io::JsonScalar& v) {
  if (v.kind != io::JsonScalar::Kind::composite || v.text.empty() || v.text[0] != '[') return "()";
  // A flat list: count top-level commas.
  int depth = 0;
  std::size_t n = v.text.size() > 2 ? 1 : 0;
  for (char c : v.text) {
    if (c == '[' || c == '{' || c == '(') ++depth;
    else if (c == ']' || c == '}' || c == ')') --depth;
    else if (c == ',' && depth == 1) ++n;
  }
  return "(" + std::to_string(n) + ",)";
}

inline Item make_item(const io::DumpLeaf& leaf, const std::string& op_name, const io::DumpEntry& e, std::size_t ei,
                      ItemState state) {
  Item it;
  it.entry = e.name;
  it.entry_index = ei;
  it.state = state;
  it.leaf = &leaf;
  if (leaf.kind == io::DumpLeaf::Kind::none) {
    it.name = op_name;
    it.dtype = "None";
    it.shape = "None";
    it.requires_grad = "None";
    it.md5 = "None";
    it.data_name = "-1";
  } else {
    it.data_name = leaf.data_name.empty() ? "-1" : leaf.data_name;
    if (it.data_name != "-1") {
      const auto dot = it.data_name.rfind('.');
      it.name = dot == std::string::npos ? it.data_name : it.data_name.substr(0, dot);
    } else {
      it.name = op_name;
    }
    it.max = leaf.max;
    it.min = leaf.min;
    it.mean = leaf.mean;
    it.norm = leaf.norm;
    it.requires_grad = leaf.requires_grad.py_str();
    if (leaf.kind == io::DumpLeaf::Kind::tensor) {
      it.dtype = leaf.dtype.empty() ? "None" : leaf.dtype;
      it.shape = leaf.shape ? shape_py_str(*leaf.shape) : "None";
    } else {
      it.dtype = leaf.value.py_type();
      it.shape = "[]";
      if (leaf.type == "torch.Size") {
        it.dtype = "torch.Size";
        it.shape = leaf.value.py_str();
      } else if (leaf.type == "slice") {
        it.shape = np_shape_of(leaf.value);
      }
    }
    if (leaf.md5 && !leaf.md5->empty()) it.md5 = *leaf.md5;
    else it.md5 = hex8(crc32(leaf.kind == io::DumpLeaf::Kind::value ? leaf.value.py_str() : std::string()));
  }
  it.suffix = it.name.size() > e.name.size() && it.name.compare(0, e.name.size(), e.name) == 0 ? it.name.substr(e.name.size())
                                                                                             : it.name;
  return it;
}

inline void flatten_node(const io::DumpNode& n, const std::string& op_name, const io::DumpEntry& e, std::size_t ei,
                         ItemState state, std::vector<Item>& out) {
  switch (n.kind) {
    case io::DumpNode::Kind::leaf: out.push_back(make_item(n.leaf, op_name, e, ei, state)); return;
    case io::DumpNode::Kind::list:
      for (const auto& [k, c] : n.children)
        flatten_node(c, state == ItemState::parameters_grad ? op_name : op_name + "." + k, e, ei, state, out);
      return;
    case io::DumpNode::Kind::dict:
      for (const auto& [k, c] : n.children) flatten_node(c, op_name + "." + k, e, ei, state, out);
      return;
  }
}

}  // namespace detail

/// The items of one entry, in msprobe's order (inputs, parameters, outputs, grads).
inline void flatten_entry(const io::DumpEntry& e, std::size_t ei, std::vector<Item>& out) {
  if (e.is_parameters_grad) {
    for (const auto& [k, n] : e.sections) detail::flatten_node(n, e.name + "." + k, e, ei, ItemState::parameters_grad, out);
    return;
  }
  auto section = [&](const char* key, const char* suffix, ItemState st) {
    for (const auto& [k, n] : e.sections)
      if (k == key) detail::flatten_node(n, e.name + suffix, e, ei, st, out);
  };
  section("input_args", ".input", ItemState::input);
  section("input_kwargs", ".input", ItemState::input);
  section("input", ".input", ItemState::input);
  section("parameters", ".parameters", ItemState::parameters);
  section("output", ".output", ItemState::output);
}

/// Every item of a dump, in dump order.
inline std::vector<Item> flatten(const io::DumpFile& d) {
  std::vector<Item> out;
  for (std::size_t i = 0; i < d.entries.size(); ++i) flatten_entry(d.entries[i], i, out);
  return out;
}

/// The comparison mode a dump allows.
inline Mode detect_mode(const io::DumpFile& d) {
  if (d.task == "tensor") return Mode::tensor;
  return d.has_md5 ? Mode::md5 : Mode::statistics;
}

// --- entry-name parsing -----------------------------------------------------------

/// Splits an entry name into msprobe's op_no_number and call_direction:
/// "Functional.linear.3.backward" → {"Functional.linear", "3.backward"};
/// "Module.fc1.Linear.backward.0" → {"Module.fc1.Linear", "backward.0"}.
/// Returns false when the name has neither form.
inline bool split_entry_name(const std::string& name, std::string& op_no_number, std::string& number,
                             std::string& direction) {
  auto is_num = [](const std::string& s) { return !s.empty() && s.find_first_not_of("0123456789") == std::string::npos; };
  std::vector<std::string> f;
  std::size_t start = 0;
  while (true) {
    const std::size_t dot = name.find('.', start);
    f.push_back(name.substr(start, dot == std::string::npos ? std::string::npos : dot - start));
    if (dot == std::string::npos) break;
    start = dot + 1;
  }
  if (f.size() < 3) return false;
  auto join = [&](std::size_t n) {
    std::string s;
    for (std::size_t i = 0; i < n; ++i) s += (i ? "." : "") + f[i];
    return s;
  };
  const std::string& last = f.back();
  const std::string& prev = f[f.size() - 2];
  if ((last == "forward" || last == "backward") && is_num(prev)) {  // API: X.api.N.direction
    op_no_number = join(f.size() - 2);
    number = prev;
    direction = last;
    return true;
  }
  if (is_num(last) && (prev == "forward" || prev == "backward")) {  // module: X.Class.direction.N
    op_no_number = join(f.size() - 2);
    number = last;
    direction = prev;
    return true;
  }
  return false;
}

/// msprobe's backward renumbering (spec §5.2): each backward entry's call
/// number becomes the 0-based count of earlier backward entries with the same
/// op_no_number. Returns entry name → renumbered name (backward entries only).
inline std::map<std::string, std::string> renumber_backward(const io::DumpFile& d) {
  std::map<std::string, std::string> out;
  std::map<std::string, int> count;
  for (const auto& e : d.entries) {
    std::string op, num, dir;
    if (!split_entry_name(e.name, op, num, dir) || dir != "backward") continue;
    const int k = count[op]++;
    const bool api_form = e.name.size() >= 9 && e.name.compare(e.name.size() - 9, 9, ".backward") == 0;
    out[e.name] = api_form ? op + "." + std::to_string(k) + ".backward" : op + ".backward." + std::to_string(k);
  }
  return out;
}

}  // namespace match
TD_NAMESPACE_END
