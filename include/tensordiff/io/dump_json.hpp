// tensordiff — msprobe's dump.json / stack.json / construct.json (spec §4).
//
// One dump folder (a rank folder) holds dump.json, optionally stack.json and
// construct.json, and dump_tensor_data/ with one .pt (PyTorch) or .npy
// (MindSpore) file per tensor. load_dump_folder() reads all three JSON files
// into a DumpFile. data_name resolves against the dump.json folder
// (DumpFile::data_path), never against the recorded absolute dump_data_dir.
//
// Needs nlohmann/json (link tensordiff::json). Python's json module writes
// NaN / Infinity / -Infinity literals for non-finite statistics; they are
// accepted here.
#pragma once
#include <cstdint>
#include <filesystem>
#include <fstream>
#include <limits>
#include <map>
#include <optional>
#include <sstream>
#include <string>
#include <utility>
#include <vector>

#include <nlohmann/json.hpp>

#include "../core/error.hpp"
#include "../core/tensor_view.hpp"
#include "../core/pyformat.hpp"
#include "detail/json_builder.hpp"
#include "mapped_file.hpp"

TD_NAMESPACE_BEGIN
namespace io {

/// nlohmann's JSON value that keeps object keys in file order (msprobe's output follows the
/// order of dump.json, as Python dicts do).
using ordered_json = nlohmann::ordered_json;

/// A JSON scalar as msprobe's Python code sees it after json.load.
struct JsonScalar {
  /// Python's type after json.load: None, bool, int, float, str, or a list / dict (composite).
  enum class Kind : std::uint8_t { null, boolean, integer, real, string, composite };
  /// Which of the fields below holds the value.
  Kind kind = Kind::null;
  /// The value when kind == boolean.
  bool boolean = false;
  /// The value when kind == integer (JSON integers beyond int64 are read as real).
  std::int64_t integer = 0;
  /// The value when kind == real; NaN / Infinity / -Infinity literals included.
  double real = 0;
  std::string text;  ///< the string (string) or Python str() of a list/dict (composite)

  /// JSON null, or the key was absent (Python's None).
  bool is_null() const noexcept { return kind == Kind::null; }
  /// An integer or a real (not bool, unlike Python's isinstance(v, int)).
  bool is_number() const noexcept { return kind == Kind::integer || kind == Kind::real; }
  /// The numeric value (bool as 0/1); nullopt for null, strings, composites.
  std::optional<double> as_double() const {
    switch (kind) {
      case Kind::integer: return static_cast<double>(integer);
      case Kind::real: return real;
      case Kind::boolean: return boolean ? 1.0 : 0.0;
      default: return std::nullopt;
    }
  }
  /// Python's str() of the value: None, True, 3, 0.001, nan, inf, 'text' → text.
  std::string py_str() const;
  /// Python's type name as str(type(v)) writes it: "<class 'int'>".
  std::string py_type() const {
    switch (kind) {
      case Kind::null: return "<class 'NoneType'>";
      case Kind::boolean: return "<class 'bool'>";
      case Kind::integer: return "<class 'int'>";
      case Kind::real: return "<class 'float'>";
      case Kind::string: return "<class 'str'>";
      case Kind::composite: return text.empty() || text[0] == '[' ? "<class 'list'>" : "<class 'dict'>";
    }
    return "<class 'NoneType'>";
  }
  /// A real scalar holding `v`.
  static JsonScalar of_real(double v) {
    JsonScalar s;
    s.kind = Kind::real;
    s.real = v;
    return s;
  }
};

/// One leaf of an entry: a tensor, a non-tensor value, or null (None).
struct DumpLeaf {
  /// tensor: the leaf has a "dtype" key; value: a non-tensor (int, slice, ...); none: JSON null.
  enum class Kind : std::uint8_t { tensor, value, none };
  /// What the leaf is (a "dtype" key makes it a tensor, as in msprobe).
  Kind kind = Kind::none;
  std::string type;   ///< "torch.Tensor", "mindspore.Tensor", "int", "slice", ...
  std::string dtype;  ///< the dtype string as dumped ("torch.float32", "Float32"); empty if absent
  /// The leaf has a "dtype" key (even a null one), which makes it a tensor.
  bool has_dtype = false;
  std::optional<Shape> shape;  ///< tensor shape when it is a list of integers
  ///@{
  /// The dumped statistics "Max", "Min", "Mean", "Norm" (L2 norm) of a tensor, null when
  /// absent; a non-tensor leaf repeats its value in all four, as msprobe's compare reads it.
  JsonScalar max, min, mean, norm;
  ///@}
  JsonScalar requires_grad;  ///< bool, or null when absent (MindSpore)
  std::string data_name;     ///< file name in dump_tensor_data/; empty when none
  std::optional<std::string> md5;  ///< msprobe's "md5" (CRC-32 hex) when dumped
  JsonScalar value;          ///< non-tensor leaves: the value
  std::string pointer;       ///< JSON pointer of the leaf in dump.json
};

/// A node of an argument tree: a leaf, a list or a dict (children in file order).
struct DumpNode {
  /// leaf: JSON null or an object with a string "type" key; list: an array; dict: any other object.
  enum class Kind : std::uint8_t { leaf, list, dict };
  /// Which of `leaf` and `children` is used.
  Kind kind = Kind::leaf;
  /// The leaf, when kind == leaf.
  DumpLeaf leaf;
  /// The elements of a list (keys "0", "1", ...) or the items of a dict, in file order.
  std::vector<std::pair<std::string, DumpNode>> children;
};

/// One key of dump.json's "data": an API or module call.
struct DumpEntry {
  std::string name;  ///< e.g. "Functional.linear.0.forward"
  /// The argument trees in file order, keyed by section: input_args,
  /// input_kwargs, input, output, parameters. For a parameters_grad entry the
  /// keys are the parameter names.
  std::vector<std::pair<std::string, DumpNode>> sections;
  /// The name has a `parameters_grad` field ("Module.fc.Linear.parameters_grad"): the
  /// sections are the module's parameter gradients.
  bool is_parameters_grad = false;
  std::string pointer;  ///< "/data/<name>"
};

/// stack.json: entry name → call-stack lines.
struct StackInfo {
  /// The distinct stacks, each stored once: the newer format shares one stack among several
  /// names, and copying it per name let a small file expand to gigabytes.
  std::vector<std::vector<std::string>> stacks;
  /// Each entry name with the index of its stack in `stacks` (both formats resolved to one map).
  std::map<std::string, std::size_t> by_name;
  /// The file used the newer `{"0": [[names], [lines]]}` layout, which shares one stack among
  /// several names.
  bool new_format = false;
  /// The stack of an entry, or null when stack.json does not list it.
  const std::vector<std::string>* find(const std::string& name) const {
    auto it = by_name.find(name);
    return it == by_name.end() ? nullptr : &stacks[it->second];
  }
};

/// construct.json: node → parent module (nullopt for roots), in file order.
/// Parent cycles are refused when it is parsed, so every chain ends.
struct ConstructInfo {
  /// Every node with its parent (nullopt for a root), in file order.
  std::vector<std::pair<std::string, std::optional<std::string>>> nodes;
  /// Position of each node in `nodes`.
  std::map<std::string, std::size_t> index;
  std::vector<std::size_t> depths;  ///< per node: how many parent links lead up from it
  /// The parent of `node`; nullopt for a root or a node construct.json does not list.
  std::optional<std::string> parent(const std::string& node) const {
    auto it = index.find(node);
    return it == index.end() ? std::nullopt : nodes[it->second].second;
  }
  /// Parent links above `node` (0 for roots and names construct.json does not list), in O(log n).
  std::size_t depth(const std::string& node) const {
    auto it = index.find(node);
    return it == index.end() || it->second >= depths.size() ? 0 : depths[it->second];
  }
};

/// Budgets for dump folders (hostile or broken dumps must fail fast and
/// name the limit, not exhaust memory or the stack).
struct DumpLimits {
  std::uint64_t max_json_bytes = 4ull << 30;   ///< dump.json / stack.json / construct.json file size
  std::uint64_t max_depth = 1000;              ///< JSON nesting, checked before parsing
};

/// One dump folder.
struct DumpFile {
  std::filesystem::path path;  ///< dump.json (or debug.json)
  std::filesystem::path dir;   ///< its folder
  std::string task;            ///< "tensor" or "statistics"
  /// The dump level: "L0" (modules), "L1" (APIs), "mix", "L2" (kernels) or "debug".
  std::string level;
  std::string framework = "pytorch";  ///< missing → pytorch, as msprobe
  /// "dump_data_dir" as recorded at dump time (an absolute path on the dumping machine); only
  /// informative: data_path() resolves against `dir`, so a moved dump still works.
  std::optional<std::string> recorded_dump_data_dir;
  bool has_md5 = false;  ///< some leaf carries "md5" (md5/xor summary mode)
  /// The keys of "data", in file order (the execution order).
  std::vector<DumpEntry> entries;
  /// stack.json, when the folder has one.
  std::optional<StackInfo> stack;
  /// construct.json, when the folder has one.
  std::optional<ConstructInfo> construct;

  /// Where a data_name lives: `dir / "dump_tensor_data" / data_name`.
  std::filesystem::path data_path(const std::string& data_name) const { return dir / "dump_tensor_data" / data_name; }
};

/// Refuses `file` when, after following symlinks, it lies outside `folder`
/// (a data file linked to /etc/passwd or another user's dump), unless
/// `follow_symlinks`. A file that does not exist passes: opening it reports that.
inline void check_inside_folder(const std::filesystem::path& folder, const std::filesystem::path& file, bool follow_symlinks) {
  if (follow_symlinks) return;
  namespace fs = std::filesystem;
  std::error_code ec1, ec2;
  const fs::path real = fs::canonical(file, ec1);
  if (ec1) return;
  const fs::path root = fs::canonical(folder.empty() ? fs::path(".") : folder, ec2);
  if (ec2) return;
  const fs::path rel = real.lexically_relative(root);
  if (rel.empty() || *rel.begin() == "..")
    throw Error(ErrorCategory::security,
                "resolves to " + real.string() + ", outside the dump folder " + root.string() +
                    " (a symlink out of the dump; pass --follow-symlinks to allow)",
                {file.string(), "", std::nullopt});
}

namespace detail {

inline std::string json_pointer_escape(const std::string& key) {
  std::string out;
  for (char c : key) {
    if (c == '~') out += "~0";
    else if (c == '/') out += "~1";
    else out += c;
  }
  return out;
}

// Sentinels for Python's NaN / Infinity literals (strings JSON cannot hold by accident).
inline const std::string& nan_sentinel() { static const std::string s("\x01td:NaN"); return s; }
inline const std::string& inf_sentinel() { static const std::string s("\x01td:Infinity"); return s; }
inline const std::string& ninf_sentinel() { static const std::string s("\x01td:-Infinity"); return s; }

/// Rewrites NaN / Infinity / -Infinity outside strings as sentinel strings.
/// `shifts` records (position in output, bytes added so far) to map parse
/// error offsets back to the file.
inline std::string rewrite_python_literals(const std::string& in, std::vector<std::pair<std::size_t, long>>& shifts) {
  std::string out;
  out.reserve(in.size());
  bool in_str = false;
  long delta = 0;
  for (std::size_t i = 0; i < in.size();) {
    const char c = in[i];
    if (in_str) {
      out += c;
      if (c == '\\' && i + 1 < in.size()) {
        out += in[i + 1];
        i += 2;
        continue;
      }
      if (c == '"') in_str = false;
      ++i;
      continue;
    }
    if (c == '"') {
      in_str = true;
      out += c;
      ++i;
      continue;
    }
    auto try_lit = [&](const char* lit, const std::string& sentinel) {
      const std::size_t n = std::char_traits<char>::length(lit);
      if (in.compare(i, n, lit) != 0) return false;
      const std::string rep = "\"\\u0001td:" + sentinel.substr(4) + "\"";
      out += rep;
      delta += static_cast<long>(rep.size()) - static_cast<long>(n);
      shifts.emplace_back(out.size(), delta);
      i += n;
      return true;
    };
    if (c == 'N' && try_lit("NaN", nan_sentinel())) continue;
    if (c == 'I' && try_lit("Infinity", inf_sentinel())) continue;
    if (c == '-' && try_lit("-Infinity", ninf_sentinel())) continue;
    out += c;
    ++i;
  }
  return out;
}

/// A regular file's text, refused by type (FIFO, device, directory) and by
/// size before anything is read; open() never blocks.
inline std::string read_text_file(const std::filesystem::path& p, std::uint64_t max_bytes = DumpLimits{}.max_json_bytes) {
  std::error_code ec;
  const auto st = std::filesystem::status(p, ec);
  if (!ec && std::filesystem::is_regular_file(st)) {
    const auto size = std::filesystem::file_size(p, ec);
    if (!ec && size > max_bytes)
      throw Error(ErrorCategory::security,
                  "file of " + std::to_string(size) + " bytes exceeds the limit of " + std::to_string(max_bytes) + " bytes",
                  {p.string(), "", std::nullopt});
  }
  const FileHandle f = MappedFile::open(p.string(), MapPolicy::never);  // type checks, O_NONBLOCK
  if (f->size() > max_bytes)
    throw Error(ErrorCategory::security,
                "file of " + std::to_string(f->size()) + " bytes exceeds the limit of " + std::to_string(max_bytes) + " bytes",
                {p.string(), "", std::nullopt});
  return std::string(reinterpret_cast<const char*>(f->data()), static_cast<std::size_t>(f->size()));
}

/// Refuses JSON nested deeper than `max_depth` with one linear scan before
/// any parser or printer recurses into it.
inline void check_json_depth(const std::string& text, const std::string& file, std::uint64_t max_depth) {
  std::uint64_t depth = 0;
  bool in_string = false;
  for (std::size_t i = 0; i < text.size(); ++i) {
    const char c = text[i];
    if (in_string) {
      if (c == '\\') ++i;
      else if (c == '"') in_string = false;
    } else if (c == '"') {
      in_string = true;
    } else if (c == '[' || c == '{') {
      if (++depth > max_depth)
        throw Error(ErrorCategory::security, "JSON nested deeper than " + std::to_string(max_depth) + " levels",
                    {file, "", static_cast<std::uint64_t>(i)});
    } else if ((c == ']' || c == '}') && depth > 0) {
      --depth;
    }
  }
}

/// Parses a JSON file written by Python's json module (NaN / Infinity allowed).
inline ordered_json parse_python_json(const std::string& text, const std::string& file,
                                      std::uint64_t max_depth = DumpLimits{}.max_depth) {
  check_json_depth(text, file, max_depth);
  std::vector<std::pair<std::size_t, long>> shifts;
  const std::string rewritten = rewrite_python_literals(text, shifts);
  try {
    OrderedJsonBuilder builder;  // linear time; ordered_json::parse is quadratic in an object's size
    nlohmann::ordered_json::sax_parse(rewritten, &builder);
    return std::move(builder.result);
  } catch (const nlohmann::json::parse_error& e) {
    long off = static_cast<long>(e.byte) - 1;  // nlohmann counts from 1
    long d = 0;
    for (const auto& s : shifts)
      if (s.first <= static_cast<std::size_t>(off)) d = s.second;
    off -= d;
    if (off < 0) off = 0;
    std::string what = e.what();
    const auto pos = what.find("parse error");
    throw Error(ErrorCategory::format, "malformed JSON: " + (pos == std::string::npos ? what : what.substr(pos)),
                {file, "", static_cast<std::uint64_t>(off)});
  } catch (const nlohmann::json::exception& e) {  // e.g. 1e999: beyond double's range
    throw Error(ErrorCategory::format, std::string("malformed JSON: ") + e.what(), {file, "", 0});
  }
}

inline bool is_sentinel(const ordered_json& j, double& v) {
  if (!j.is_string()) return false;
  const auto& s = j.get_ref<const std::string&>();
  if (s.empty() || s[0] != '\x01') return false;
  if (s == nan_sentinel()) v = std::numeric_limits<double>::quiet_NaN();
  else if (s == inf_sentinel()) v = std::numeric_limits<double>::infinity();
  else if (s == ninf_sentinel()) v = -std::numeric_limits<double>::infinity();
  else return false;
  return true;
}

inline std::string py_str_of(const ordered_json& j, bool nested);

inline JsonScalar to_scalar(const ordered_json& j) {
  JsonScalar s;
  double v = 0;
  if (j.is_null()) s.kind = JsonScalar::Kind::null;
  else if (j.is_boolean()) s.kind = JsonScalar::Kind::boolean, s.boolean = j.get<bool>();
  else if (j.is_number_integer() && !j.is_number_unsigned()) s.kind = JsonScalar::Kind::integer, s.integer = j.get<std::int64_t>();
  else if (j.is_number_unsigned()) {
    const auto u = j.get<std::uint64_t>();
    if (u <= static_cast<std::uint64_t>(INT64_MAX)) s.kind = JsonScalar::Kind::integer, s.integer = static_cast<std::int64_t>(u);
    else s.kind = JsonScalar::Kind::real, s.real = static_cast<double>(u);
  } else if (j.is_number_float()) s.kind = JsonScalar::Kind::real, s.real = j.get<double>();
  else if (is_sentinel(j, v)) s.kind = JsonScalar::Kind::real, s.real = v;
  else if (j.is_string()) s.kind = JsonScalar::Kind::string, s.text = j.get<std::string>();
  else s.kind = JsonScalar::Kind::composite, s.text = py_str_of(j, false);
  return s;
}

inline std::string py_str_of(const ordered_json& j, bool nested) {
  double v = 0;
  if (j.is_array()) {
    std::string out = "[";
    bool first = true;
    for (const auto& e : j) {
      if (!first) out += ", ";
      first = false;
      out += py_str_of(e, true);
    }
    return out + "]";
  }
  if (j.is_object()) {
    std::string out = "{";
    bool first = true;
    for (auto it = j.begin(); it != j.end(); ++it) {
      if (!first) out += ", ";
      first = false;
      out += "'" + it.key() + "': " + py_str_of(it.value(), true);
    }
    return out + "}";
  }
  if (j.is_string() && !is_sentinel(j, v)) {
    const auto& s = j.get_ref<const std::string&>();
    return nested ? "'" + s + "'" : s;
  }
  return to_scalar(j).py_str();
}

}  // namespace detail

inline std::string JsonScalar::py_str() const {
  switch (kind) {
    case Kind::null: return "None";
    case Kind::boolean: return boolean ? "True" : "False";
    case Kind::integer: return std::to_string(integer);
    case Kind::real: return pyformat::repr(real);
    case Kind::string:
    case Kind::composite: return text;
  }
  return "None";
}

namespace detail {

struct DumpParser {
  std::string file;
  bool has_md5 = false;

  [[noreturn]] void fail(const std::string& pointer, const std::string& reason) const {
    throw Error(ErrorCategory::format, reason, {file, pointer.empty() ? "/" : pointer, std::nullopt});
  }

  static const char* kind_name(const ordered_json& j) {
    double v;
    if (is_sentinel(j, v)) return "number";
    return j.type_name();
  }

  JsonScalar stat(const ordered_json& leaf, const char* key, const std::string& ptr) const {
    auto it = leaf.find(key);
    if (it == leaf.end()) return {};
    if (it->is_array() || it->is_object())
      fail(ptr + "/" + key, std::string("expected a number, string, bool or null, got ") + kind_name(*it));
    return to_scalar(*it);
  }

  DumpLeaf parse_leaf(const ordered_json& j, const std::string& ptr) {
    DumpLeaf l;
    l.pointer = ptr;
    l.type = j["type"].get<std::string>();
    if (auto it = j.find("dtype"); it != j.end()) {
      l.has_dtype = true;
      if (it->is_string()) l.dtype = it->get<std::string>();
      else if (!it->is_null()) fail(ptr + "/dtype", std::string("expected a string, got ") + kind_name(*it));
    }
    l.kind = l.has_dtype ? DumpLeaf::Kind::tensor : DumpLeaf::Kind::value;
    if (l.kind == DumpLeaf::Kind::tensor) {
      if (auto it = j.find("shape"); it != j.end() && !it->is_null()) {
        if (!it->is_array()) fail(ptr + "/shape", std::string("expected a list of integers, got ") + kind_name(*it));
        Shape s;
        for (std::size_t i = 0; i < it->size(); ++i) {
          const auto& d = (*it)[i];
          if (!d.is_number_integer())
            fail(ptr + "/shape/" + std::to_string(i), std::string("expected an integer, got ") + kind_name(d));
          if (d.is_number_unsigned() && d.get<std::uint64_t>() > static_cast<std::uint64_t>(INT64_MAX))
            fail(ptr + "/shape/" + std::to_string(i),
                 "dimension " + std::to_string(d.get<std::uint64_t>()) + " does not fit in a signed 64-bit integer");
          if (d.get<std::int64_t>() < 0) fail(ptr + "/shape/" + std::to_string(i), "negative dimension");
          s.push_back(d.get<std::int64_t>());
        }
        l.shape = std::move(s);
      }
      l.max = stat(j, "Max", ptr);
      l.min = stat(j, "Min", ptr);
      l.mean = stat(j, "Mean", ptr);
      l.norm = stat(j, "Norm", ptr);
      if (auto it = j.find("requires_grad"); it != j.end()) {
        if (!it->is_boolean() && !it->is_null())
          fail(ptr + "/requires_grad", std::string("expected a bool, got ") + kind_name(*it));
        l.requires_grad = to_scalar(*it);
      }
    } else {
      if (auto it = j.find("value"); it != j.end()) l.value = to_scalar(*it);
      l.max = l.min = l.mean = l.norm = l.value;
    }
    if (auto it = j.find("data_name"); it != j.end() && !it->is_null()) {
      if (!it->is_string()) fail(ptr + "/data_name", std::string("expected a string, got ") + kind_name(*it));
      l.data_name = it->get<std::string>();
      if (l.data_name.find('/') != std::string::npos || l.data_name.find('\\') != std::string::npos ||
          l.data_name == ".." || l.data_name == ".")
        throw Error(ErrorCategory::security, "data_name must be a plain file name, got \"" + l.data_name + "\"",
                    {file, ptr + "/data_name", std::nullopt});
    }
    if (auto it = j.find("md5"); it != j.end() && !it->is_null()) {
      if (!it->is_string()) fail(ptr + "/md5", std::string("expected a string, got ") + kind_name(*it));
      l.md5 = it->get<std::string>();
      has_md5 = true;
    }
    return l;
  }

  DumpNode parse_node(const ordered_json& j, const std::string& ptr, int depth) {
    if (depth > 200) fail(ptr, "nesting deeper than 200 levels");
    DumpNode n;
    if (j.is_null()) {
      n.kind = DumpNode::Kind::leaf;
      n.leaf.kind = DumpLeaf::Kind::none;
      n.leaf.pointer = ptr;
      return n;
    }
    if (j.is_array()) {
      n.kind = DumpNode::Kind::list;
      for (std::size_t i = 0; i < j.size(); ++i)
        n.children.emplace_back(std::to_string(i), parse_node(j[i], ptr + "/" + std::to_string(i), depth + 1));
      return n;
    }
    if (j.is_object()) {
      auto t = j.find("type");
      if (t != j.end() && t->is_string()) {
        n.kind = DumpNode::Kind::leaf;
        n.leaf = parse_leaf(j, ptr);
        return n;
      }
      n.kind = DumpNode::Kind::dict;
      for (auto it = j.begin(); it != j.end(); ++it)
        n.children.emplace_back(it.key(), parse_node(it.value(), ptr + "/" + json_pointer_escape(it.key()), depth + 1));
      return n;
    }
    fail(ptr, std::string("expected a list, an object or null, got ") + kind_name(j));
  }
};

inline bool name_has_field(const std::string& name, const std::string& field) {
  std::size_t start = 0;
  while (start <= name.size()) {
    const std::size_t dot = name.find('.', start);
    const std::size_t end = dot == std::string::npos ? name.size() : dot;
    if (name.compare(start, end - start, field) == 0 && end - start == field.size()) return true;
    if (dot == std::string::npos) break;
    start = dot + 1;
  }
  return false;
}

}  // namespace detail

/// Parses dump.json text. `file` names it in errors.
inline DumpFile parse_dump_json(const std::string& text, const std::string& file, const DumpLimits& limits = {}) {
  const ordered_json root = detail::parse_python_json(text, file, limits.max_depth);
  detail::DumpParser p{file};
  if (!root.is_object()) p.fail("", std::string("expected an object at the top level, got ") + root.type_name());
  DumpFile d;
  d.path = file;
  d.dir = std::filesystem::path(file).parent_path();
  auto str_field = [&](const char* key, std::string& out, bool required) {
    auto it = root.find(key);
    if (it == root.end() || it->is_null()) {
      if (required) p.fail(std::string("/") + key, "missing field");
      return;
    }
    if (!it->is_string()) p.fail(std::string("/") + key, std::string("expected a string, got ") + it->type_name());
    out = it->get<std::string>();
  };
  str_field("task", d.task, false);
  str_field("level", d.level, false);
  str_field("framework", d.framework, false);
  if (d.framework.empty()) d.framework = "pytorch";
  if (auto it = root.find("dump_data_dir"); it != root.end() && it->is_string()) d.recorded_dump_data_dir = it->get<std::string>();
  auto data = root.find("data");
  if (data == root.end()) p.fail("/data", "missing field");
  if (!data->is_object()) p.fail("/data", std::string("expected an object, got ") + data->type_name());
  d.entries.reserve(data->size());
  for (auto it = data->begin(); it != data->end(); ++it) {
    DumpEntry e;
    e.name = it.key();
    e.pointer = "/data/" + detail::json_pointer_escape(e.name);
    const auto& v = it.value();
    if (!v.is_object()) p.fail(e.pointer, std::string("expected an object, got ") + v.type_name());
    e.is_parameters_grad = detail::name_has_field(e.name, "parameters_grad");
    if (e.is_parameters_grad) {
      for (auto f = v.begin(); f != v.end(); ++f)
        e.sections.emplace_back(f.key(), p.parse_node(f.value(), e.pointer + "/" + detail::json_pointer_escape(f.key()), 1));
    } else {
      for (auto f = v.begin(); f != v.end(); ++f) {
        const std::string& k = f.key();
        if (k != "input_args" && k != "input_kwargs" && k != "input" && k != "output" && k != "parameters") continue;
        e.sections.emplace_back(k, p.parse_node(f.value(), e.pointer + "/" + k, 1));
      }
    }
    d.entries.push_back(std::move(e));
  }
  d.has_md5 = p.has_md5;
  return d;
}

/// Parses stack.json (new `{"0": [[names], [lines]]}` or old `{name: [lines]}` format).
inline StackInfo parse_stack_json(const std::string& text, const std::string& file, const DumpLimits& limits = {}) {
  const ordered_json root = detail::parse_python_json(text, file, limits.max_depth);
  detail::DumpParser p{file};
  if (!root.is_object()) p.fail("", std::string("expected an object at the top level, got ") + root.type_name());
  StackInfo s;
  auto lines_of = [&](const ordered_json& j, const std::string& ptr) {
    std::vector<std::string> lines;
    if (j.is_null()) return lines;
    if (j.is_string()) return std::vector<std::string>{j.get<std::string>()};
    if (!j.is_array()) p.fail(ptr, std::string("expected a list of strings, got ") + j.type_name());
    for (std::size_t i = 0; i < j.size(); ++i) {
      if (!j[i].is_string()) p.fail(ptr + "/" + std::to_string(i), std::string("expected a string, got ") + j[i].type_name());
      lines.push_back(j[i].get<std::string>());
    }
    return lines;
  };
  for (auto it = root.begin(); it != root.end(); ++it) {
    const std::string ptr = "/" + detail::json_pointer_escape(it.key());
    const auto& v = it.value();
    const bool new_fmt = v.is_array() && v.size() == 2 && v[0].is_array() && (v[1].is_array() || v[1].is_null());
    if (new_fmt) {
      s.new_format = true;
      s.stacks.push_back(lines_of(v[1], ptr + "/1"));
      for (std::size_t i = 0; i < v[0].size(); ++i) {
        if (!v[0][i].is_string()) p.fail(ptr + "/0/" + std::to_string(i), std::string("expected a string, got ") + v[0][i].type_name());
        s.by_name[v[0][i].get<std::string>()] = s.stacks.size() - 1;
      }
    } else {
      s.stacks.push_back(lines_of(v, ptr));
      s.by_name[it.key()] = s.stacks.size() - 1;
    }
  }
  return s;
}

/// Parses construct.json: `{node: parent or null}`.
inline ConstructInfo parse_construct_json(const std::string& text, const std::string& file, const DumpLimits& limits = {}) {
  const ordered_json root = detail::parse_python_json(text, file, limits.max_depth);  // linear in the keys
  detail::DumpParser p{file};
  if (!root.is_object()) p.fail("", std::string("expected an object at the top level, got ") + root.type_name());
  ConstructInfo c;
  for (auto it = root.begin(); it != root.end(); ++it) {
    std::optional<std::string> parent;
    if (it.value().is_string()) parent = it.value().get<std::string>();
    else if (!it.value().is_null())
      p.fail("/" + detail::json_pointer_escape(it.key()), std::string("expected a string or null, got ") + it.value().type_name());
    c.index[it.key()] = c.nodes.size();
    c.nodes.emplace_back(it.key(), std::move(parent));
  }
  // Depths and cycles in one pass: each node is walked up once (O(n log n)
  // with the map); meeting a node of the current walk is a cycle.
  constexpr std::size_t unknown = SIZE_MAX, on_path = SIZE_MAX - 1;
  c.depths.assign(c.nodes.size(), unknown);
  std::vector<std::size_t> path;
  for (std::size_t start = 0; start < c.nodes.size(); ++start) {
    path.clear();
    std::size_t i = start, above = 0;
    while (true) {
      if (c.depths[i] == on_path)
        throw Error(ErrorCategory::format,
                    "parent cycle: '" + c.nodes[i].first + "' is its own ancestor (through " +
                        std::to_string(path.size()) + " parent links)",
                    {file, "/" + detail::json_pointer_escape(c.nodes[i].first), std::nullopt});
      if (c.depths[i] != unknown) {
        above = c.depths[i];
        break;
      }
      c.depths[i] = on_path;
      path.push_back(i);
      const auto& parent = c.nodes[i].second;
      auto up = parent ? c.index.find(*parent) : c.index.end();
      if (up == c.index.end()) {
        above = parent ? 1 : 0;  // a parent construct.json does not list is a root one link up
        c.depths[i] = above;
        path.pop_back();
        break;
      }
      i = up->second;
    }
    for (std::size_t k = path.size(); k-- > 0;) c.depths[path[k]] = ++above;
  }
  return c;
}

/// Reads `folder`/dump.json (or debug.json) plus stack.json and construct.json
/// when present. `folder` may also name the dump.json file itself.
inline DumpFile load_dump_folder(const std::filesystem::path& folder, const DumpLimits& limits = {}) {
  namespace fs = std::filesystem;
  fs::path json = folder;
  std::error_code ec;
  if (fs::is_directory(folder, ec)) {
    json = folder / "dump.json";
    if (!fs::exists(json, ec) && fs::exists(folder / "debug.json", ec)) json = folder / "debug.json";
  }
  if (!fs::exists(json, ec))
    throw Error(ErrorCategory::io, "no dump.json in this folder", {folder.string(), "", std::nullopt});
  DumpFile d = parse_dump_json(detail::read_text_file(json, limits.max_json_bytes), json.string(), limits);
  const fs::path dir = json.parent_path();
  if (fs::exists(dir / "stack.json", ec))
    d.stack = parse_stack_json(detail::read_text_file(dir / "stack.json", limits.max_json_bytes), (dir / "stack.json").string(), limits);
  if (fs::exists(dir / "construct.json", ec))
    d.construct = parse_construct_json(detail::read_text_file(dir / "construct.json", limits.max_json_bytes),
                                       (dir / "construct.json").string(), limits);
  return d;
}

}  // namespace io
TD_NAMESPACE_END
