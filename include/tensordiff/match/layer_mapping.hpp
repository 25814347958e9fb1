// tensordiff — layer mapping (msprobe -lm, spec §5.8), MindSpore ↔ PyTorch.
//
// A module item "Cell.net.layers.0.attn.ParallelAttention.forward.0.input.0"
// has the scope path "net.layers.0.attn". Each path component is renamed with
// the mapping of its parent's class (YAML `{LayerClass: {ms_child: pt_child}}`,
// `TopLayer` — or the old key `Cell` — for top-level children; dotted keys map
// several components at once). The bench module is then found by (mapped
// path, direction, call number), whatever its class is called there. An API
// item is found by (its mapped construct.json parent path, API name without
// the framework prefix, occurrence within that parent).
//
// A simplified reading of msprobe's trie-based implementation: it does not use
// stack.json to split API scopes by framework function.
#pragma once
#include <functional>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <tuple>
#include <utility>
#include <vector>

#include "mapping_files.hpp"

TD_NAMESPACE_BEGIN
namespace match {

/// {LayerClass: [(child name(s), mapped name(s))]}.
using LayerMapping = std::map<std::string, std::vector<std::pair<std::string, std::string>>>;

namespace detail {
inline std::vector<std::string> split_dots(const std::string& s) {
  std::vector<std::string> f;
  std::size_t start = 0;
  while (true) {
    const std::size_t d = s.find('.', start);
    f.push_back(s.substr(start, d == std::string::npos ? std::string::npos : d - start));
    if (d == std::string::npos) break;
    start = d + 1;
  }
  return f;
}
inline std::string join_dots(const std::vector<std::string>& f, std::size_t a, std::size_t b) {
  std::string s;
  for (std::size_t i = a; i < b; ++i) s += (i > a ? "." : "") + f[i];
  return s;
}

/// A module entry name → {path, class, direction, number}; false for APIs.
inline bool parse_module_entry(const std::string& e, std::string& path, std::string& cls, std::string& dir, std::string& num) {
  if (e.rfind("Module.", 0) != 0 && e.rfind("Cell.", 0) != 0) return false;
  const auto f = split_dots(e);
  // {Prefix}.{path...}.{Class}.{forward|backward}.{n}
  if (f.size() < 5) return false;
  dir = f[f.size() - 2];
  if (dir != "forward" && dir != "backward") return false;
  num = f.back();
  cls = f[f.size() - 3];
  path = join_dots(f, 1, f.size() - 3);
  return true;
}
}  // namespace detail

/// -lm: pairs module and API items across MindSpore and PyTorch by their scope paths renamed
/// with a LayerMapping (see the file comment); the dtype gate applies.
class LayerMappingMatcher final : public Matcher {
 public:
  /// `mapping`: {LayerClass: [(ms child, pt child)]}; an old-style `Cell` key also serves as
  /// `TopLayer` when that is absent.
  explicit LayerMappingMatcher(LayerMapping mapping) : map_(std::move(mapping)) {
    if (map_.count("Cell") && !map_.count("TopLayer")) map_["TopLayer"] = map_["Cell"];
  }
  /// Short name for reports and --verbose output.
  std::string_view name() const override { return "layer mapping"; }

  /// The NPU scope path renamed into the bench's names, using `class_of`
  /// (NPU path → its class).
  std::string map_path(const std::string& path, const std::map<std::string, std::string>& class_of) const {
    const auto f = detail::split_dots(path);
    std::vector<std::string> out;
    std::size_t i = 0;
    while (i < f.size()) {
      const std::string parent = detail::join_dots(f, 0, i);
      const auto c = class_of.find(parent);
      const std::string cls = i == 0 ? "TopLayer" : c == class_of.end() ? "" : c->second;
      bool done = false;
      if (auto m = map_.find(cls); m != map_.end()) {
        // longest dotted key first
        for (std::size_t len = f.size() - i; len >= 1 && !done; --len) {
          const std::string key = detail::join_dots(f, i, i + len);
          for (const auto& [k, v] : m->second)
            if (k == key) {
              for (const auto& p : detail::split_dots(v)) out.push_back(p);
              i += len;
              done = true;
              break;
            }
        }
      }
      if (!done) out.push_back(f[i++]);
    }
    return detail::join_dots(out, 0, out.size());
  }

  /// Pairs each NPU item with at most one bench item; see the class comment for the rule.
  MatchResult match(const MatchInput& in) const override {
    MatchResult r(in.npu.size());
    // NPU path → class, from the NPU module entries
    std::map<std::string, std::string> class_of;
    for (const auto& e : in.npu_dump.entries) {
      std::string p, c, d, n;
      if (detail::parse_module_entry(e.name, p, c, d, n)) class_of[p] = c;
    }
    // bench entries by key
    using Key = std::tuple<std::string, std::string, std::string>;  // (path or parent path, dir or api, number or occurrence)
    auto api_key = [](const io::DumpFile& d, const std::string& entry, std::map<std::pair<std::string, std::string>, int>& seen,
                      const std::function<std::string(const std::string&)>& path_of) -> std::optional<Key> {
      const auto f = detail::split_dots(entry);
      if (f.size() < 4) return std::nullopt;
      const std::string api = f[1], dir = f[3];
      std::string parent_path;
      if (d.construct)
        if (auto p = d.construct->parent(entry)) {
          std::string pp, c, dd, n;
          if (detail::parse_module_entry(*p, pp, c, dd, n)) parent_path = path_of(pp);
        }
      const int k = seen[{parent_path, api + "." + dir}]++;
      return Key{"api:" + parent_path, api + "." + dir, std::to_string(k)};
    };
    std::map<Key, std::string> bench_entry;
    {
      std::map<std::pair<std::string, std::string>, int> seen;
      for (const auto& e : in.bench_dump.entries) {
        std::string p, c, d, n;
        if (detail::parse_module_entry(e.name, p, c, d, n)) bench_entry[Key{p, d, n}] = e.name;
        else if (auto k = api_key(in.bench_dump, e.name, seen, [](const std::string& s) { return s; })) bench_entry[*k] = e.name;
      }
    }
    std::map<std::string, std::string> npu_to_bench;  // entry → entry
    {
      std::map<std::pair<std::string, std::string>, int> seen;
      auto mp = [&](const std::string& s) { return map_path(s, class_of); };
      for (const auto& e : in.npu_dump.entries) {
        std::string p, c, d, n;
        std::optional<Key> k;
        if (detail::parse_module_entry(e.name, p, c, d, n)) k = Key{mp(p), d, n};
        else k = api_key(in.npu_dump, e.name, seen, mp);
        if (!k) continue;
        if (auto it = bench_entry.find(*k); it != bench_entry.end()) npu_to_bench[e.name] = it->second;
      }
    }
    std::map<std::string, std::size_t> bench_index;
    for (std::size_t j = 0; j < in.bench.size(); ++j) bench_index.emplace(in.bench[j].name, j);
    const bool cross = is_cross_framework(in);
    for (std::size_t i = 0; i < in.npu.size(); ++i) {
      auto e = npu_to_bench.find(in.npu[i].entry);
      if (e == npu_to_bench.end()) continue;
      auto j = bench_index.find(e->second + in.npu[i].suffix);
      if (j == bench_index.end()) continue;
      if (!dtypes_pairable(in.npu[i].dtype, in.bench[j->second].dtype, cross)) {
        r.reason[i] = "unmatched: dtype " + in.npu[i].dtype + " vs " + in.bench[j->second].dtype + " (dtype gate)";
        r.gated[i] = static_cast<std::ptrdiff_t>(j->second);
        continue;
      }
      r.bench_of[i] = static_cast<std::ptrdiff_t>(j->second);
      r.reason[i] = "layer mapping: " + in.npu[i].entry + " -> " + e->second;
    }
    return r;
  }

 private:
  LayerMapping map_;
};

/// -lm file: `{LayerClass: {ms_child_name: pt_child_name}}` (`TopLayer` or `Cell` for the top level).
inline std::shared_ptr<LayerMappingMatcher> load_layer_mapping(const std::string& file) {
#if defined(TD_HAS_YAML)
  detail::YamlFile f = detail::load_yaml(file);
  const YAML::Node& root = f.root;
  LayerMapping m;
  if (root && !root.IsNull()) {
    if (!root.IsMap()) throw Error(ErrorCategory::format, "expected {LayerClass: {child: child}}", {file, "/", std::nullopt});
    for (auto it = root.begin(); it != root.end(); ++it) {
      const std::string cls = detail::scalar_of(f, it->first, "/");
      if (!it->second.IsMap()) throw Error(ErrorCategory::format, "expected a mapping {child: child}", {file, "/" + cls, std::nullopt});
      for (auto c = it->second.begin(); c != it->second.end(); ++c) {
        const std::string k = detail::scalar_of(f, c->first, "/" + cls);
        m[cls].emplace_back(k, detail::scalar_of(f, c->second, "/" + cls + "/" + k));
      }
    }
  }
  return std::make_shared<LayerMappingMatcher>(std::move(m));
#else
  detail::no_yaml(file);
#endif
}

}  // namespace match
TD_NAMESPACE_END
