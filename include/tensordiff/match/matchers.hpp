// tensordiff — pairing NPU items with bench items (spec §5.2–§5.7).
//
// Every matcher is a small component behind one interface:
//
//   class Matcher { MatchResult match(const MatchInput&) const; };
//
// and records for every pairing why it was made (MatchResult::reason):
// "exact", "fuzzy: <normalised name>", "data mapping", "cell mapping: a -> b",
// "api mapping: Mint.abs -> Torch.abs". Items left unpaired carry an empty
// reason (or why they were refused, e.g. the dtype gate).
//
//   ExactMatcher        full names, backward call numbers renumbered, dtype gate
//   FuzzyMatcher        msprobe's -fm: names without call numbers / classes, greedy queues
//   DataMappingMatcher  -dm: {npu_item: bench_item}, no dtype gate
//   CellMappingMatcher  -cm: Cell→Module plus cell-class renames
//   ApiMappingMatcher   -am: MindSpore API → PyTorch API (rules, built-in table, user list)
//
// Mapping files (YAML) are read by match/mapping_files.hpp.
#pragma once
#include <algorithm>
#include <cctype>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <unordered_map>
#include <utility>
#include <vector>

#include "items.hpp"

TD_NAMESPACE_BEGIN
namespace match {

/// Whose behaviour to follow where msprobe has a known quirk (docs/msprobe-differences.md).
enum class Compat : std::uint8_t {
  tensordiff,  ///< do the right thing
  msprobe,     ///< reproduce msprobe 26.0.0 exactly, quirks included
};

/// What a matcher sees: both dumps and their flattened items.
struct MatchInput {
  /// The NPU (device under test) dump.
  const io::DumpFile& npu_dump;
  /// Its items, in dump order; MatchResult is indexed like this vector.
  const std::vector<Item>& npu;
  /// The bench (reference) dump.
  const io::DumpFile& bench_dump;
  /// Its items, in dump order; MatchResult's indices point into this vector.
  const std::vector<Item>& bench;
  /// Whether to reproduce msprobe's known quirks (e.g. in FuzzyMatcher's name split).
  Compat compat = Compat::tensordiff;
};

/// The pairing: for each NPU item the bench item index (or -1) and why.
struct MatchResult {
  /// For each NPU item, the index of its bench item, or -1 when unpaired.
  std::vector<std::ptrdiff_t> bench_of;
  /// For each NPU item, why it was paired ("exact", "fuzzy: ...") or refused; empty when
  /// nothing was tried.
  std::vector<std::string> reason;
  /// A bench item with the same key that the dtype gate refused (-1 if none):
  /// the row is unmatched, but the bench item is not bench-only.
  std::vector<std::ptrdiff_t> gated;
  /// NPU items left out of the table altogether (msprobe's fuzzy walk stops early; see
  /// FuzzyMatcher). Empty: none.
  std::vector<bool> omitted;
  /// `n` NPU items, all unpaired.
  explicit MatchResult(std::size_t n = 0) : bench_of(n, -1), reason(n), gated(n, -1) {}
};

/// A pairing strategy (see the file comment). Implementations are stateless after construction
/// and may be shared between ranks and threads.
class Matcher {
 public:
  virtual ~Matcher() = default;
  /// Short name for reports: "exact", "fuzzy", "data mapping", ...
  virtual std::string_view name() const = 0;
  /// Pairs the NPU items of `in` with its bench items; the result has one slot per NPU item.
  virtual MatchResult match(const MatchInput& in) const = 0;
};

// --- dtype gate ----------------------------------------------------------------------

namespace detail {
inline std::string lower(std::string s) {
  for (char& c : s) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  return s;
}

/// int / float / bool / complex / other (msprobe's cross_dtype_mapping).
inline std::string dtype_class(const std::string& dt) {
  const std::string s = lower(dt);
  if (s.find("complex") != std::string::npos) return "complex";
  if (s.find("bool") != std::string::npos) return "bool";
  if (s.find("float") != std::string::npos || s.find("half") != std::string::npos || s.find("double") != std::string::npos)
    return "float";
  if (s.find("int") != std::string::npos || s.find("long") != std::string::npos || s.find("short") != std::string::npos)
    return "int";
  return s;
}

inline bool is_low_float(const std::string& dt) {
  static const char* names[] = {"float16", "float32", "bfloat16", "Float16", "Float32", "BFloat16",
                                "torch.float16", "torch.float32", "torch.bfloat16"};
  for (const char* n : names)
    if (dt == n) return true;
  return false;
}
inline int float_family(const std::string& dt) {
  if (dt.rfind("torch.", 0) == 0) return 1;
  if (!dt.empty() && std::isupper(static_cast<unsigned char>(dt[0]))) return 2;
  return 0;
}
}  // namespace detail

/// msprobe's dtype gate (§5.2): paired items keep their bench side when the
/// dtypes are equal, both low-precision floats of the same naming family, or
/// (cross-framework) of the same class.
inline bool dtypes_pairable(const std::string& a, const std::string& b, bool cross_framework) {
  if (a == b) return true;
  if (detail::is_low_float(a) && detail::is_low_float(b) && detail::float_family(a) == detail::float_family(b)) return true;
  if (cross_framework) return detail::dtype_class(a) == detail::dtype_class(b);
  return false;
}

/// The dumps come from different frameworks (dump.json's "framework": pytorch vs mindspore),
/// which widens the dtype gate to dtype classes.
inline bool is_cross_framework(const MatchInput& in) { return in.npu_dump.framework != in.bench_dump.framework; }

namespace detail {
/// Pairs NPU items with bench items whose key is equal (the k-th NPU item of a
/// key with the k-th bench item of that key); `npu_key` returning nullopt
/// leaves the item unpaired.
template <class NpuKey, class BenchKey, class Reason>
MatchResult key_merge(const MatchInput& in, NpuKey&& npu_key, BenchKey&& bench_key, Reason&& reason, bool dtype_gate) {
  MatchResult r(in.npu.size());
  std::unordered_map<std::string, std::vector<std::size_t>> by_key;
  for (std::size_t j = 0; j < in.bench.size(); ++j) by_key[bench_key(j)].push_back(j);
  std::unordered_map<std::string, std::size_t> next;
  const bool cross = is_cross_framework(in);
  for (std::size_t i = 0; i < in.npu.size(); ++i) {
    const std::optional<std::string> k = npu_key(i);
    if (!k) continue;
    auto it = by_key.find(*k);
    if (it == by_key.end()) continue;
    // Repeated keys pair in order (the k-th NPU item with the k-th bench item).
    std::size_t& pos = next[*k];
    if (pos >= it->second.size()) continue;
    const std::size_t j = it->second[pos++];
    if (dtype_gate && !dtypes_pairable(in.npu[i].dtype, in.bench[j].dtype, cross)) {
      r.reason[i] = "unmatched: dtype " + in.npu[i].dtype + " vs " + in.bench[j].dtype + " (dtype gate)";
      r.gated[i] = static_cast<std::ptrdiff_t>(j);
      continue;
    }
    r.bench_of[i] = static_cast<std::ptrdiff_t>(j);
    r.reason[i] = reason(i, j);
  }
  return r;
}

inline std::string rename_with(const std::string& item_name, const std::string& entry, const std::string& new_entry) {
  if (item_name.compare(0, entry.size(), entry) == 0) return new_entry + item_name.substr(entry.size());
  return item_name;
}
}  // namespace detail

// --- exact -----------------------------------------------------------------------------

/// Full item names, backward call numbers renumbered on both sides (off for
/// debug.json dumps), then the dtype gate.
class ExactMatcher final : public Matcher {
 public:
  /// `renumber_backward`: on both sides, replace each backward entry's call number by the count
  /// of earlier backward entries of the same API / module, as msprobe does (spec §5.2); false
  /// compares the names as dumped.
  explicit ExactMatcher(bool renumber_backward = true) : renumber_(renumber_backward) {}
  /// Short name for reports and --verbose output.
  std::string_view name() const override { return "exact"; }

  /// The name each item is matched by: its full name, with the entry part renumbered for
  /// backward calls when `renumber` (never for debug.json dumps).
  static std::vector<std::string> keys(const io::DumpFile& d, const std::vector<Item>& items, bool renumber) {
    std::vector<std::string> k;
    k.reserve(items.size());
    const bool debug = d.path.filename() == "debug.json";
    const auto ren = renumber && !debug ? renumber_backward(d) : std::map<std::string, std::string>{};
    for (const auto& it : items) {
      auto r = ren.find(it.entry);
      k.push_back(r == ren.end() ? it.name : detail::rename_with(it.name, it.entry, r->second));
    }
    return k;
  }

  /// Pairs each NPU item with at most one bench item; see the class comment for the rule.
  MatchResult match(const MatchInput& in) const override {
    const auto nk = keys(in.npu_dump, in.npu, renumber_);
    const auto bk = keys(in.bench_dump, in.bench, renumber_);
    return detail::key_merge(
        in, [&](std::size_t i) { return std::optional<std::string>(nk[i]); }, [&](std::size_t j) { return bk[j]; },
        [&](std::size_t i, std::size_t) { return nk[i] == in.npu[i].name ? std::string("exact") : "exact (backward renumbered: " + nk[i] + ")"; },
        true);
  }

 private:
  bool renumber_;
};

// --- fuzzy -----------------------------------------------------------------------------

/// msprobe's rename_api: split at the first forward/backward and drop the two
/// dot-fields before it: "Functional.linear.3.forward.input.0" →
/// "Functional.linear.forward.input.0". Under Compat::msprobe the split is at
/// the first *substring* "forward" (so "feed_forward" is mangled, as msprobe
/// does); otherwise at the first dot-field equal to forward/backward.
inline std::string fuzzy_name(const std::string& name, Compat compat) {
  std::string process;
  std::size_t pos = std::string::npos;
  if (compat == Compat::msprobe) {
    process = name.find("forward") != std::string::npos ? "forward" : "backward";
    pos = name.find(process);
    if (pos == std::string::npos) return name;
    const std::string head = name.substr(0, pos);
    const std::size_t next = name.find(process, pos + process.size());  // Python split → parts[1] only
    const std::string in_out = name.substr(pos + process.size(), next == std::string::npos ? std::string::npos : next - pos - process.size());
    // head.rsplit('.', 2)[0]: cut at the second dot from the right (or the first found)
    std::size_t cut = std::string::npos;
    std::size_t from = head.size();
    for (int k = 0; k < 2 && from > 0; ++k) {
      const std::size_t d = head.rfind('.', from - 1);
      if (d == std::string::npos) break;
      cut = d;
      from = d;
    }
    const std::string keep = cut == std::string::npos ? head : head.substr(0, cut);
    return keep + "." + process + in_out;
  }
  std::size_t start = 0;
  while (start < name.size()) {
    const std::size_t dot = name.find('.', start);
    const std::string f = name.substr(start, dot == std::string::npos ? std::string::npos : dot - start);
    if (f == "forward" || f == "backward") {
      pos = start;
      process = f;
      break;
    }
    if (dot == std::string::npos) break;
    start = dot + 1;
  }
  if (pos == std::string::npos || pos == 0) return name;
  const std::string head = name.substr(0, pos - 1);  // without the dot before forward
  const std::size_t c1 = head.rfind('.');              // drop the call number / class field
  const std::string keep = c1 == std::string::npos ? std::string() : head.substr(0, c1);
  return keep + "." + name.substr(pos);
}

/// msprobe's -fm: names without their call index (fuzzy_name), two greedy queues walked in
/// step, with the dtype gate; what is passed over is unmatched. tensordiff walks whole API
/// entries (their items pair by position when every item name agrees) and writes every NPU
/// item. Compat::msprobe walks item rows as msprobe 26.0 does (process_fuzzy_match) and stops
/// where it stops: once one side's queue runs dry while the other has rows, the queued NPU rows
/// are unmatched and the later ones are left out of the table (MatchResult::omitted).
class FuzzyMatcher final : public Matcher {
 public:
  /// Short name for reports and --verbose output.
  std::string_view name() const override { return "fuzzy"; }

  /// Pairs each NPU item with at most one bench item; see the class comment for the rule.
  MatchResult match(const MatchInput& in) const override {
    return in.compat == Compat::msprobe ? match_items(in) : match_entries(in);
  }

 private:
  static MatchResult match_items(const MatchInput& in) {
    MatchResult r(in.npu.size());
    const bool cross = is_cross_framework(in);
    std::vector<std::string> nk, bk;
    for (const Item& it : in.npu) nk.push_back(fuzzy_name(it.name, in.compat));
    for (const Item& it : in.bench) bk.push_back(fuzzy_name(it.name, in.compat));
    const std::size_t N = in.npu.size(), B = in.bench.size();
    std::vector<std::size_t> nq, bq;
    for (std::size_t i = 0; i < std::max(N, B); ++i) {
      if (i < N) nq.push_back(i);
      if (i < B) bq.push_back(i);
      if (nq.empty() != bq.empty()) {  // one side ran dry: msprobe stops here
        r.omitted.assign(N, false);
        for (std::size_t k = i + 1; k < N; ++k) r.omitted[k] = true;
        break;
      }
      // match_op: the newest NPU row against the queued bench rows (the newest last),
      // then the queued NPU rows against the newest bench row.
      std::ptrdiff_t mn = -1, mb = -1;
      for (std::size_t b = 0; b < bq.size() && mn < 0; ++b)
        if (nk[nq.back()] == bk[bq[b]]) mn = static_cast<std::ptrdiff_t>(nq.size() - 1), mb = static_cast<std::ptrdiff_t>(b);
      for (std::size_t n = 0; n + 1 < nq.size() && mn < 0; ++n)
        if (nk[nq[n]] == bk[bq.back()]) mn = static_cast<std::ptrdiff_t>(n), mb = static_cast<std::ptrdiff_t>(bq.size() - 1);
      if (mn < 0) continue;
      const std::size_t ni = nq[static_cast<std::size_t>(mn)], bj = bq[static_cast<std::size_t>(mb)];
      if (dtypes_pairable(in.npu[ni].dtype, in.bench[bj].dtype, cross)) {
        r.bench_of[ni] = static_cast<std::ptrdiff_t>(bj);
        r.reason[ni] = "fuzzy: " + nk[ni];
      } else {
        r.reason[ni] = "unmatched: dtype " + in.npu[ni].dtype + " vs " + in.bench[bj].dtype + " (dtype gate)";
        r.gated[ni] = static_cast<std::ptrdiff_t>(bj);
      }
      nq.erase(nq.begin(), nq.begin() + mn + 1);
      bq.erase(bq.begin(), bq.begin() + mb + 1);
    }
    return r;
  }

  static MatchResult match_entries(const MatchInput& in) {
    MatchResult r(in.npu.size());
    // entry → its items
    auto group = [](const std::vector<Item>& items, std::size_t n_entries) {
      std::vector<std::vector<std::size_t>> g(n_entries);
      for (std::size_t i = 0; i < items.size(); ++i) g[items[i].entry_index].push_back(i);
      return g;
    };
    const auto ng = group(in.npu, in.npu_dump.entries.size());
    const auto bg = group(in.bench, in.bench_dump.entries.size());
    auto ename = [&](const io::DumpFile& d, std::size_t e) { return fuzzy_name(d.entries[e].name, in.compat); };
    std::vector<std::string> nn, bn;
    for (std::size_t e = 0; e < in.npu_dump.entries.size(); ++e) nn.push_back(ename(in.npu_dump, e));
    for (std::size_t e = 0; e < in.bench_dump.entries.size(); ++e) bn.push_back(ename(in.bench_dump, e));
    const bool cross = is_cross_framework(in);
    auto check = [&](std::size_t ne, std::size_t be) {
      if (nn[ne] != bn[be] || ng[ne].size() != bg[be].size()) return false;
      for (std::size_t k = 0; k < ng[ne].size(); ++k) {
        const Item& a = in.npu[ng[ne][k]];
        const Item& b = in.bench[bg[be][k]];
        if (fuzzy_name(a.name, in.compat) != fuzzy_name(b.name, in.compat)) return false;
      }
      return true;
    };
    auto pair_entries = [&](std::size_t ne, std::size_t be) {
      for (std::size_t k = 0; k < ng[ne].size(); ++k) {
        const std::size_t i = ng[ne][k], j = bg[be][k];
        if (!dtypes_pairable(in.npu[i].dtype, in.bench[j].dtype, cross)) {
          r.reason[i] = "unmatched: dtype " + in.npu[i].dtype + " vs " + in.bench[j].dtype + " (dtype gate)";
          r.gated[i] = static_cast<std::ptrdiff_t>(j);
          continue;
        }
        r.bench_of[i] = static_cast<std::ptrdiff_t>(j);
        r.reason[i] = "fuzzy: " + fuzzy_name(in.npu[i].name, in.compat);
      }
    };
    std::vector<std::size_t> nq, bq;
    std::size_t ni = 0, bi = 0;
    const std::size_t NE = nn.size(), BE = bn.size();
    while (ni < NE || bi < BE) {
      if (ni < NE) nq.push_back(ni++);
      if (bi < BE) bq.push_back(bi++);
      if (nq.empty() || bq.empty()) continue;
      // msprobe's match_op: the newest NPU entry against queued bench entries,
      // then the newest bench entry against queued NPU entries.
      std::ptrdiff_t mn = -1, mb = -1;
      for (std::size_t b = 0; b < bq.size() && mn < 0; ++b)
        if (check(nq.back(), bq[b])) mn = static_cast<std::ptrdiff_t>(nq.size() - 1), mb = static_cast<std::ptrdiff_t>(b);
      for (std::size_t n = 0; n + 1 < nq.size() && mn < 0; ++n)
        if (check(nq[n], bq.back())) mn = static_cast<std::ptrdiff_t>(n), mb = static_cast<std::ptrdiff_t>(bq.size() - 1);
      if (mn < 0) continue;
      pair_entries(nq[static_cast<std::size_t>(mn)], bq[static_cast<std::size_t>(mb)]);
      nq.erase(nq.begin(), nq.begin() + mn + 1);
      bq.erase(bq.begin(), bq.begin() + mb + 1);
    }
    return r;
  }
};

// --- data mapping ------------------------------------------------------------------

/// -dm: compare_key = mapping.get(name, name); no dtype gate.
class DataMappingMatcher final : public Matcher {
 public:
  /// `mapping`: NPU item name → bench item name (names it does not list map to themselves).
  explicit DataMappingMatcher(std::map<std::string, std::string> mapping) : map_(std::move(mapping)) {}
  /// Short name for reports and --verbose output.
  std::string_view name() const override { return "data mapping"; }
  /// Pairs each NPU item with at most one bench item; see the class comment for the rule.
  MatchResult match(const MatchInput& in) const override {
    return detail::key_merge(
        in,
        [&](std::size_t i) {
          auto it = map_.find(in.npu[i].name);
          return std::optional<std::string>(it == map_.end() ? in.npu[i].name : it->second);
        },
        [&](std::size_t j) { return in.bench[j].name; },
        [&](std::size_t i, std::size_t) {
          return map_.count(in.npu[i].name) ? "data mapping: " + in.npu[i].name + " -> " + map_.at(in.npu[i].name) : std::string("exact");
        },
        false);
  }

 private:
  std::map<std::string, std::string> map_;
};

// --- cell mapping ------------------------------------------------------------------

/// -cm: MindSpore Cell names → PyTorch Module names (or PT → PT across configs).
/// `mapping` holds cell-part renames ({"fc2.Dense": "fc2.Linear"}, or class
/// renames applied as substrings).
class CellMappingMatcher final : public Matcher {
 public:
  /// `mapping`: cell-part renames in file order (empty: only the Cell → Module rename).
  explicit CellMappingMatcher(std::vector<std::pair<std::string, std::string>> mapping = {}) : map_(std::move(mapping)) {}
  /// Short name for reports and --verbose output.
  std::string_view name() const override { return "cell mapping"; }

  /// The bench name an NPU item name maps to; nullopt when it has no
  /// forward/backward/parameters_grad field (msprobe: N/A).
  std::optional<std::string> map_name(const std::string& npu_name) const {
    static const char* dirs[] = {".forward", ".backward", ".parameters_grad"};
    std::size_t cut = std::string::npos;
    for (const char* d : dirs) {
      const std::size_t p = npu_name.find(d);
      if (p != std::string::npos && p < cut) cut = p;
    }
    if (cut == std::string::npos) return std::nullopt;
    std::string name = npu_name;
    const std::size_t cell = name.find("Cell");
    if (cell != std::string::npos && cell < cut) name.replace(cell, 4, "Module");
    const std::size_t cut2 = cut + (name.size() - npu_name.size());
    const std::size_t pre = name.find('.');
    if (pre == std::string::npos || pre >= cut2) return name;
    const std::string prefix = name.substr(0, pre + 1);
    std::string part = name.substr(pre + 1, cut2 - pre - 1);
    const std::string rest = name.substr(cut2);
    bool exact = false;
    for (const auto& [k, v] : map_)
      if (k == part) {
        part = v;
        exact = true;
        break;
      }
    if (!exact)
      for (const auto& [k, v] : map_) {
        const std::size_t p = part.find(k);
        if (!k.empty() && p != std::string::npos) part.replace(p, k.size(), v);
      }
    return prefix + part + rest;
  }

  /// Pairs each NPU item with at most one bench item; see the class comment for the rule.
  MatchResult match(const MatchInput& in) const override {
    return detail::key_merge(
        in, [&](std::size_t i) { return map_name(in.npu[i].name); }, [&](std::size_t j) { return in.bench[j].name; },
        [&](std::size_t i, std::size_t j) {
          return in.npu[i].name == in.bench[j].name ? std::string("exact") : "cell mapping: " + in.npu[i].entry + " -> " + in.bench[j].entry;
        },
        true);
  }

 private:
  std::vector<std::pair<std::string, std::string>> map_;
};

// --- API mapping ------------------------------------------------------------------

/// One user API mapping entry (the -am YAML list format).
struct ApiMapEntry {
  ///@{
  /// The MindSpore API and the PyTorch API it maps to ("Mint.abs" → "Torch.abs").
  std::string ms_api, pt_api;
  ///@}
  ///@{
  /// Argument and output indices, pairwise: ms_args[k] maps to pt_args[k], ms_outputs[k] to
  /// pt_outputs[k]; an index a listed section does not name leaves its item unmatched.
  std::vector<int> ms_args, pt_args, ms_outputs, pt_outputs;
  ///@}
  ///@{
  /// Parameter names, pairwise (optional).
  std::vector<std::string> ms_parameters, pt_parameters;
  ///@}
};

/// A few common MindSpore functional APIs and their PyTorch names (msprobe
/// ships 399 in ms_to_pt_api.yaml; pass the rest as a user mapping).
inline const std::map<std::string, std::string>& builtin_ms_to_pt_api() {
  static const std::map<std::string, std::string> m = {
      {"Functional.abs", "Torch.abs"},         {"Functional.add", "Torch.add"},
      {"Functional.sub", "Torch.sub"},         {"Functional.mul", "Torch.mul"},
      {"Functional.div", "Torch.div"},         {"Functional.matmul", "Torch.matmul"},
      {"Functional.bmm", "Torch.bmm"},         {"Functional.exp", "Torch.exp"},
      {"Functional.log", "Torch.log"},         {"Functional.sqrt", "Torch.sqrt"},
      {"Functional.rsqrt", "Torch.rsqrt"},     {"Functional.pow", "Torch.pow"},
      {"Functional.square", "Torch.square"},   {"Functional.neg", "Torch.neg"},
      {"Functional.mean", "Torch.mean"},       {"Functional.sum", "Torch.sum"},
      {"Functional.max", "Torch.max"},         {"Functional.min", "Torch.min"},
      {"Functional.maximum", "Torch.maximum"}, {"Functional.minimum", "Torch.minimum"},
      {"Functional.reshape", "Torch.reshape"}, {"Functional.transpose", "Torch.transpose"},
      {"Functional.permute", "Torch.permute"}, {"Functional.concat", "Torch.cat"},
      {"Functional.cat", "Torch.cat"},         {"Functional.stack", "Torch.stack"},
      {"Functional.split", "Torch.split"},     {"Functional.squeeze", "Torch.squeeze"},
      {"Functional.unsqueeze", "Torch.unsqueeze"}, {"Functional.tanh", "Torch.tanh"},
      {"Functional.sigmoid", "Torch.sigmoid"}, {"Functional.cos", "Torch.cos"},
      {"Functional.sin", "Torch.sin"},         {"Functional.where", "Torch.where"},
      {"Functional.zeros_like", "Torch.zeros_like"}, {"Functional.ones_like", "Torch.ones_like"},
      {"Functional.cumsum", "Torch.cumsum"},   {"Functional.argmax", "Torch.argmax"},
      {"Functional.topk", "Torch.topk"},       {"Functional.gather", "Torch.gather"},
      {"Functional.relu", "Functional.relu"},  {"Functional.gelu", "Functional.gelu"},
      {"Functional.silu", "Functional.silu"},  {"Functional.softmax", "Functional.softmax"},
      {"Functional.log_softmax", "Functional.log_softmax"}, {"Functional.dropout", "Functional.dropout"},
      {"Functional.layer_norm", "Functional.layer_norm"}, {"Functional.dense", "Functional.linear"},
      {"Functional.conv2d", "Functional.conv2d"}, {"Functional.embedding", "Functional.embedding"},
      {"Functional.cross_entropy", "Functional.cross_entropy"},
  };
  return m;
}

/// -am (MindSpore target): Mint.* → Torch.*, MintFunctional.* → Functional.*,
/// the built-in table, then the user list (which also remaps argument and
/// output indices; items it does not list stay unmatched).
class ApiMappingMatcher final : public Matcher {
 public:
  /// `user`: the -am list, consulted after the prefix rules and the built-in table.
  explicit ApiMappingMatcher(std::vector<ApiMapEntry> user = {}) : user_(std::move(user)) {}
  /// Short name for reports and --verbose output.
  std::string_view name() const override { return "api mapping"; }

  /// The bench name for an NPU item name, or nullopt when the user mapping
  /// drops it (msprobe appends "abandoned").
  std::optional<std::string> map_name(const std::string& name) const {
    // "Prefix.api.rest"
    const std::size_t d1 = name.find('.');
    if (d1 == std::string::npos) return name;
    const std::size_t d2 = name.find('.', d1 + 1);
    const std::string api = name.substr(0, d2);
    const std::string rest = d2 == std::string::npos ? std::string() : name.substr(d2);
    for (const auto& u : user_) {
      if (u.ms_api != api) continue;
      return remap(u, rest);
    }
    const std::string prefix = name.substr(0, d1);
    if (prefix == "Mint") return "Torch" + name.substr(d1);
    if (prefix == "MintFunctional") return "Functional" + name.substr(d1);
    auto it = builtin_ms_to_pt_api().find(api);
    if (it != builtin_ms_to_pt_api().end()) return it->second + rest;
    return name;
  }

  /// Pairs each NPU item with at most one bench item; see the class comment for the rule.
  MatchResult match(const MatchInput& in) const override {
    return detail::key_merge(
        in, [&](std::size_t i) { return map_name(in.npu[i].name); }, [&](std::size_t j) { return in.bench[j].name; },
        [&](std::size_t i, std::size_t j) {
          return in.npu[i].name == in.bench[j].name ? std::string("exact") : "api mapping: " + in.npu[i].name + " -> " + in.bench[j].name;
        },
        true);
  }

 private:
  static std::optional<std::string> remap(const ApiMapEntry& u, const std::string& rest) {
    // rest = ".N.forward.input.K..." : find .input./.output./.parameters.
    auto swap_index = [&](const char* tag, const std::vector<int>& from, const std::vector<int>& to) -> std::optional<std::string> {
      const std::string t = std::string(".") + tag + ".";
      const std::size_t p = rest.find(t);
      if (p == std::string::npos) return std::nullopt;
      const std::size_t s = p + t.size();
      const std::size_t e = rest.find('.', s);
      const std::string idx = rest.substr(s, e == std::string::npos ? std::string::npos : e - s);
      for (std::size_t k = 0; k < from.size() && k < to.size(); ++k)
        if (idx == std::to_string(from[k]))
          return u.pt_api + rest.substr(0, s) + std::to_string(to[k]) + (e == std::string::npos ? std::string() : rest.substr(e));
      return std::string();  // listed section, unlisted index: abandoned
    };
    for (auto [tag, from, to] : {std::make_tuple("input", &u.ms_args, &u.pt_args), std::make_tuple("output", &u.ms_outputs, &u.pt_outputs)}) {
      auto r = swap_index(tag, *from, *to);
      if (!r) continue;
      if (r->empty()) return std::nullopt;
      return r;
    }
    const std::string pt = ".parameters.";
    if (const std::size_t p = rest.find(pt); p != std::string::npos) {
      const std::string pname = rest.substr(p + pt.size());
      for (std::size_t k = 0; k < u.ms_parameters.size() && k < u.pt_parameters.size(); ++k)
        if (pname == u.ms_parameters[k]) return u.pt_api + rest.substr(0, p + pt.size()) + u.pt_parameters[k];
    }
    return std::nullopt;
  }

  std::vector<ApiMapEntry> user_;
};

}  // namespace match
TD_NAMESPACE_END
