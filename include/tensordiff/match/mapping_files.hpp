// tensordiff — msprobe's mapping files (YAML): -dm data mapping, -cm cell
// mapping, -am API mapping. Needs yaml-cpp (link tensordiff::yaml); without it
// every loader throws Error{unsupported} naming the file.
#pragma once
#include <map>
#include <memory>
#include <string>
#include <utility>
#include <vector>

#include "matchers.hpp"

#if defined(TD_HAS_YAML)
#include <yaml-cpp/yaml.h>
#endif

TD_NAMESPACE_BEGIN
namespace match {

namespace detail {
#if defined(TD_HAS_YAML)
/// A parsed mapping file and what reading it may still cost. YAML aliases let a few bytes name
/// a large node many times (a "billion laughs"): every value read spends 16 bytes plus its
/// length from a budget of 64 times the file's size (a file without aliases needs at most 16
/// times), so such a file is refused by name instead of filling memory.
struct YamlFile {
  std::string name;
  YAML::Node root;
  std::size_t budget = 0;

  void spend(std::size_t bytes, const std::string& where) {
    if (bytes > budget)
      throw Error(ErrorCategory::security, "YAML aliases expand to more than 64 times the file's size (an alias bomb?)",
                  {name, where, std::nullopt});
    budget -= bytes;
  }
};

inline YamlFile load_yaml(const std::string& file) {
  // Read as the dump's JSON files are (regular files only, size-capped, never
  // blocking), so a directory or FIFO is named in the error, not yaml-cpp's or
  // the C++ library's message.
  const std::string text = io::detail::read_text_file(file);
  try {
    return {file, YAML::Load(text), 64 * text.size() + 65536};
  } catch (const YAML::Exception& e) {
    throw Error(ErrorCategory::format, "malformed YAML: " + e.msg, {file, "line " + std::to_string(e.mark.line + 1), std::nullopt});
  }
}

inline std::string scalar_of(YamlFile& f, const YAML::Node& n, const std::string& where) {
  if (!n.IsScalar()) throw Error(ErrorCategory::format, "expected a string", {f.name, where, std::nullopt});
  f.spend(16 + n.Scalar().size(), where);
  return n.as<std::string>();
}

inline std::vector<int> int_list(YamlFile& f, const YAML::Node& n, const std::string& where) {
  std::vector<int> v;
  if (!n) return v;
  if (!n.IsSequence()) throw Error(ErrorCategory::format, "expected a list of integers", {f.name, where, std::nullopt});
  for (std::size_t i = 0; i < n.size(); ++i) {
    f.spend(16, where);
    try {
      v.push_back(n[i].as<int>());
    } catch (const YAML::Exception&) {
      throw Error(ErrorCategory::format, "expected an integer", {f.name, where + "/" + std::to_string(i), std::nullopt});
    }
  }
  return v;
}

inline std::vector<std::string> str_list(YamlFile& f, const YAML::Node& n, const std::string& where) {
  std::vector<std::string> v;
  if (!n) return v;
  if (!n.IsSequence()) throw Error(ErrorCategory::format, "expected a list of strings", {f.name, where, std::nullopt});
  for (std::size_t i = 0; i < n.size(); ++i) v.push_back(scalar_of(f, n[i], where + "/" + std::to_string(i)));
  return v;
}
#else
[[noreturn]] inline void no_yaml(const std::string& file) {
  throw Error(ErrorCategory::unsupported, "mapping files need yaml-cpp: build with tensordiff::yaml", {file, "", std::nullopt});
}
#endif

/// A YAML mapping of strings, in file order.
inline std::vector<std::pair<std::string, std::string>> string_pairs(const std::string& file) {
#if defined(TD_HAS_YAML)
  YamlFile f = load_yaml(file);
  std::vector<std::pair<std::string, std::string>> out;
  if (!f.root || f.root.IsNull()) return out;
  if (!f.root.IsMap()) throw Error(ErrorCategory::format, "expected a mapping {name: name}", {file, "/", std::nullopt});
  for (auto it = f.root.begin(); it != f.root.end(); ++it) {
    const std::string k = scalar_of(f, it->first, "/");
    out.emplace_back(k, scalar_of(f, it->second, "/" + k));
  }
  return out;
#else
  no_yaml(file);
#endif
}
}  // namespace detail

/// -dm file: `{npu_item_name: bench_item_name}`.
inline std::shared_ptr<DataMappingMatcher> load_data_mapping(const std::string& file) {
  std::map<std::string, std::string> m;
  for (auto& [k, v] : detail::string_pairs(file)) m[k] = v;
  return std::make_shared<DataMappingMatcher>(std::move(m));
}

/// -cm file (optional): `{cell_part: module_part}`, e.g. `fc2.Dense: fc2.Linear`.
inline std::shared_ptr<CellMappingMatcher> load_cell_mapping(const std::string& file = "") {
  if (file.empty()) return std::make_shared<CellMappingMatcher>();
  return std::make_shared<CellMappingMatcher>(detail::string_pairs(file));
}

/// -am file (optional): a YAML list of {ms_api, pt_api, ms_args, pt_args,
/// ms_outputs, pt_outputs[, ms_parameters, pt_parameters]}. Entries whose
/// index lists differ in length are skipped (listed in `skipped`).
inline std::shared_ptr<ApiMappingMatcher> load_api_mapping(const std::string& file = "", std::vector<std::string>* skipped = nullptr) {
  if (file.empty()) return std::make_shared<ApiMappingMatcher>();
#if defined(TD_HAS_YAML)
  detail::YamlFile f = detail::load_yaml(file);
  const YAML::Node& root = f.root;
  std::vector<ApiMapEntry> list;
  if (root && !root.IsNull()) {
    if (!root.IsSequence()) throw Error(ErrorCategory::format, "expected a list of {ms_api, pt_api, ...} entries", {file, "/", std::nullopt});
    for (std::size_t i = 0; i < root.size(); ++i) {
      const YAML::Node& n = root[i];
      const std::string w = "/" + std::to_string(i);
      if (!n.IsMap()) throw Error(ErrorCategory::format, "expected a mapping", {file, w, std::nullopt});
      ApiMapEntry e;
      if (!n["ms_api"] || !n["pt_api"]) throw Error(ErrorCategory::format, "missing ms_api or pt_api", {file, w, std::nullopt});
      e.ms_api = detail::scalar_of(f, n["ms_api"], w + "/ms_api");
      e.pt_api = detail::scalar_of(f, n["pt_api"], w + "/pt_api");
      e.ms_args = detail::int_list(f, n["ms_args"], w + "/ms_args");
      e.pt_args = detail::int_list(f, n["pt_args"], w + "/pt_args");
      e.ms_outputs = detail::int_list(f, n["ms_outputs"], w + "/ms_outputs");
      e.pt_outputs = detail::int_list(f, n["pt_outputs"], w + "/pt_outputs");
      e.ms_parameters = detail::str_list(f, n["ms_parameters"], w + "/ms_parameters");
      e.pt_parameters = detail::str_list(f, n["pt_parameters"], w + "/pt_parameters");
      if (e.ms_args.size() != e.pt_args.size() || e.ms_outputs.size() != e.pt_outputs.size() ||
          e.ms_parameters.size() != e.pt_parameters.size()) {
        if (skipped) skipped->push_back(e.ms_api);
        continue;
      }
      list.push_back(std::move(e));
    }
  }
  return std::make_shared<ApiMappingMatcher>(std::move(list));
#else
  (void)skipped;
  detail::no_yaml(file);
#endif
}

}  // namespace match
TD_NAMESPACE_END
