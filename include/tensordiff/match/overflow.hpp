// tensordiff — overflow scan of one dump (spec §7, msprobe overflow_check):
// per API/module, from dump.json's statistics alone.
//
//   input normal    + output anomalous → CRITICAL (overflow starts here)
//   input anomalous + output anomalous → HIGH
//   input anomalous + output normal    → MEDIUM
//   max output Norm / max input Norm > 100 (or input 0, output > 100) → NumericalMutation (HIGH)
//
// A leaf is anomalous when its Max, Min or Mean is inf, -inf or nan.
#pragma once
#include <algorithm>
#include <cmath>
#include <limits>
#include <filesystem>
#include <optional>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "matchers.hpp"

TD_NAMESPACE_BEGIN
namespace match {

/// One API or module call the scan flags: an overflow (anomalous statistics) or a numerical
/// mutation (output norm far above input norm).
struct OverflowFinding {
  /// The entry's name ("Functional.linear.0.forward"), msprobe's op_name.
  std::string op_name;
  /// Position of the entry in the dump (DumpFile::entries).
  std::size_t entry_index = 0;
  std::string scene;  ///< "CRITICAL", "HIGH", "MEDIUM"
  std::string kind;   ///< "Overflow" or "NumericalMutation"
  ///@{
  /// JSON pointers (into dump.json) of the tensor leaves whose Max, Min or Mean is inf, -inf or
  /// nan: inputs (args and kwargs) and outputs (or the gradients of a parameters_grad entry).
  std::vector<std::string> anomalous_inputs, anomalous_outputs;  ///< JSON pointers of the leaves
  ///@}
  double norm_ratio = std::numeric_limits<double>::quiet_NaN();  ///< NumericalMutation only
  std::optional<std::string> parent;  ///< construct.json parent
  /// The entry's stack.json lines, when the dump has them.
  std::vector<std::string> stack;
};

/// The overflow scan of one dump (one rank).
struct OverflowReport {
  std::string label;  ///< "rank0" or the folder name
  std::vector<OverflowFinding> findings;  ///< dump order
  std::optional<std::size_t> first_critical;  ///< index into findings: where overflow starts
};

/// Options of scan_overflow().
struct OverflowOptions {
  /// NumericalMutation fires when the largest finite output Norm exceeds this many times the
  /// largest finite input Norm (or exceeds this value when the input Norm is 0); msprobe's 100.
  double mutation_ratio = 100;
};

namespace detail {
inline bool anomalous(const io::JsonScalar& s) {
  if (s.kind == io::JsonScalar::Kind::real) return !std::isfinite(s.real);
  if (s.kind == io::JsonScalar::Kind::string) {
    const std::string l = lower(s.text);
    return l == "inf" || l == "-inf" || l == "nan";
  }
  return false;
}

inline void walk_leaves(const io::DumpNode& n, std::vector<const io::DumpLeaf*>& out) {
  if (n.kind == io::DumpNode::Kind::leaf) out.push_back(&n.leaf);
  for (const auto& c : n.children) walk_leaves(c.second, out);
}
}  // namespace detail

/// Scans one dump.
inline OverflowReport scan_overflow(const io::DumpFile& d, const OverflowOptions& o = {}) {
  OverflowReport r;
  r.label = d.dir.filename().string();
  for (std::size_t ei = 0; ei < d.entries.size(); ++ei) {
    const auto& e = d.entries[ei];
    std::vector<const io::DumpLeaf*> in, out;
    for (const auto& [k, n] : e.sections) {
      if (k == "input_args" || k == "input_kwargs" || k == "input") detail::walk_leaves(n, in);
      else if (k == "output" || e.is_parameters_grad) detail::walk_leaves(n, out);
    }
    OverflowFinding f;
    f.op_name = e.name;
    f.entry_index = ei;
    double in_norm = -1, out_norm = -1;
    for (const auto* l : in) {
      if (l->kind != io::DumpLeaf::Kind::tensor) continue;
      if (detail::anomalous(l->max) || detail::anomalous(l->min) || detail::anomalous(l->mean)) f.anomalous_inputs.push_back(l->pointer);
      if (auto v = l->norm.as_double(); v && std::isfinite(*v)) in_norm = std::max(in_norm, *v);
    }
    for (const auto* l : out) {
      if (l->kind != io::DumpLeaf::Kind::tensor) continue;
      if (detail::anomalous(l->max) || detail::anomalous(l->min) || detail::anomalous(l->mean)) f.anomalous_outputs.push_back(l->pointer);
      if (auto v = l->norm.as_double(); v && std::isfinite(*v)) out_norm = std::max(out_norm, *v);
    }
    if (d.construct) f.parent = d.construct->parent(e.name);
    if (d.stack)
      if (const auto* s = d.stack->find(e.name)) f.stack = *s;
    const bool ai = !f.anomalous_inputs.empty(), ao = !f.anomalous_outputs.empty();
    if (ai || ao) {
      f.kind = "Overflow";
      f.scene = !ai ? "CRITICAL" : ao ? "HIGH" : "MEDIUM";
      if (f.scene == "CRITICAL" && !r.first_critical) r.first_critical = r.findings.size();
      r.findings.push_back(f);
    } else if (in_norm >= 0 && out_norm >= 0) {
      const bool mut = in_norm == 0 ? out_norm > o.mutation_ratio : out_norm / in_norm > o.mutation_ratio;
      if (mut) {
        f.kind = "NumericalMutation";
        f.scene = "HIGH";
        f.norm_ratio = in_norm == 0 ? std::numeric_limits<double>::infinity() : out_norm / in_norm;
        r.findings.push_back(f);
      }
    }
  }
  return r;
}

/// Scans a rank folder, or every rank{N} / proc* subfolder of a step folder.
inline std::vector<OverflowReport> scan_overflow_folder(const std::filesystem::path& dir, const OverflowOptions& o = {}) {
  namespace fs = std::filesystem;
  std::vector<OverflowReport> out;
  std::error_code ec;
  if (fs::exists(dir / "dump.json", ec) || fs::is_regular_file(dir, ec)) {
    out.push_back(scan_overflow(io::load_dump_folder(dir), o));
    return out;
  }
  std::vector<fs::path> subs;
  for (const auto& e : fs::directory_iterator(dir, ec)) {
    const std::string n = e.path().filename().string();
    if (e.is_directory(ec) && (n.rfind("rank", 0) == 0 || n.rfind("proc", 0) == 0) && fs::exists(e.path() / "dump.json", ec)) subs.push_back(e.path());
  }
  if (subs.empty()) throw Error(ErrorCategory::io, "no dump.json here nor in rank*/proc* subfolders", {dir.string(), "", std::nullopt});
  std::sort(subs.begin(), subs.end(), [](const fs::path& a, const fs::path& b) {
    const std::string x = a.filename().string(), y = b.filename().string();
    return x.size() != y.size() ? x.size() < y.size() : x < y;
  });
  for (const auto& s : subs) out.push_back(scan_overflow(io::load_dump_folder(s), o));
  return out;
}

/// msprobe's anomaly_analyze JSON shape, `{rank_N: [{op_name, data_info,
/// construct_info, stack_info}]}`, plus the scene and where overflow starts.
inline nlohmann::ordered_json overflow_json(const std::vector<OverflowReport>& reports) {
  nlohmann::ordered_json root = nlohmann::ordered_json::object();
  for (std::size_t i = 0; i < reports.size(); ++i) {
    const auto& r = reports[i];
    std::string key = r.label;
    if (key.rfind("rank", 0) == 0 && key.size() > 4) key = "rank_" + key.substr(4);
    nlohmann::ordered_json list = nlohmann::ordered_json::array();
    for (const auto& f : r.findings) {
      nlohmann::ordered_json j;
      j["op_name"] = f.op_name;
      j["scene"] = f.scene;
      j["type"] = f.kind;
      j["data_info"] = {{"anomalous_inputs", f.anomalous_inputs}, {"anomalous_outputs", f.anomalous_outputs}};
      if (f.kind == "NumericalMutation")
        j["data_info"]["norm_ratio"] = std::isfinite(f.norm_ratio) ? nlohmann::ordered_json(f.norm_ratio) : nlohmann::ordered_json("inf");
      j["construct_info"] = f.parent ? nlohmann::ordered_json(*f.parent) : nlohmann::ordered_json(nullptr);
      j["stack_info"] = f.stack;
      list.push_back(std::move(j));
    }
    root[key] = std::move(list);
    if (r.first_critical) root["first_overflow"][key] = r.findings[*r.first_critical].op_name;
  }
  return root;
}

}  // namespace match
TD_NAMESPACE_END
