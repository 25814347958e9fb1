// tensordiff — the HTML report's rows as one compact JSON document.
//
// The page embeds the data once (no per-row HTML) and renders only what is on
// screen, so its size grows by a few dozen bytes per row. Layout (version 1):
//
//   {"v":1, "title", "npu", "bench", "mode",
//    "strings": [...],          every name, dtype, shape, message and stack, once
//    "first": k | null,         the run holding the job's first divergence
//    "runs": [{"step", "rank", "label",
//      "st": "ppwe..",          one status letter per row: pass / warning / error / unmatched
//      "e": [node | -1],        the row's entry, an index into nodes (-1: none)
//      "sfx": [s],              the name after the entry's name (the whole name when e is -1)
//      "bench", "bdt", "bshape": [0 | -1 | s+1],   0: same as the NPU side, -1: none
//      "dt", "shape": [s], "msg", "stack": [s | -1],
//      "cos", "abs", "rel": [number | null | "nan" | "inf" | "-inf"],
//      "nodes": {"name": [s], "parent": [node | -1], "st": "..", "cos": [..], "abs": [..]},
//      "first": {"row", "entry", "origin", "messages"} | null,
//      "bench_only": [s]}]}
//
// `s` is an index into "strings". Numbers keep 7 significant digits (the CSV
// keeps them all). '<', '>' and '&' are written as \u escapes so the text can
// sit inside a <script> element.
#pragma once
#include <cmath>
#include <cstdio>
#include <string>
#include <string_view>
#include <unordered_map>

#include "html_model.hpp"

TD_NAMESPACE_BEGIN
namespace report {
namespace detail {

/// Appends compact JSON values to a string; strings are interned in a table.
class HtmlJson {
 public:
  std::string out;

  void raw(std::string_view s) { out += s; }

  void string(std::string_view s) {
    out += '"';
    for (unsigned char c : s) {
      switch (c) {
        case '"': out += "\\\""; break;
        case '\\': out += "\\\\"; break;
        case '\n': out += "\\n"; break;
        case '\t': out += "\\t"; break;
        case '<': out += "\\u003c"; break;
        case '>': out += "\\u003e"; break;
        case '&': out += "\\u0026"; break;
        default:
          if (c < 0x20) {
            char buf[8];
            std::snprintf(buf, sizeof buf, "\\u%04x", c);
            out += buf;
          } else {
            out += static_cast<char>(c);
          }
      }
    }
    out += '"';
  }

  void integer(long long v) { out += std::to_string(v); }

  void number(const std::optional<double>& v) {
    if (!v) return raw("null");
    if (std::isnan(*v)) return raw("\"nan\"");
    if (std::isinf(*v)) return raw(*v > 0 ? "\"inf\"" : "\"-inf\"");
    char buf[32];
    std::snprintf(buf, sizeof buf, "%.7g", *v);
    out += buf;
  }

  /// Index of `s` in the string table (added on first use).
  std::size_t intern(const std::string& s) {
    auto [it, added] = index_.try_emplace(s, strings_.size());
    if (added) strings_.push_back(&it->first);
    return it->second;
  }

  /// 0 when `s` equals `same`, -1 when empty, else intern(s) + 1.
  long long relative(const std::string& s, const std::string& same) {
    if (s == same) return 0;
    if (s.empty()) return -1;
    return static_cast<long long>(intern(s)) + 1;
  }

  void string_table() {
    out += '[';
    for (std::size_t i = 0; i < strings_.size(); ++i) {
      if (i) out += ',';
      string(*strings_[i]);
    }
    out += ']';
  }

  template <class T, class F>
  void array(const std::vector<T>& v, F&& each) {
    out += '[';
    for (std::size_t i = 0; i < v.size(); ++i) {
      if (i) out += ',';
      each(v[i]);
    }
    out += ']';
  }

 private:
  std::unordered_map<std::string, std::size_t> index_;
  std::vector<const std::string*> strings_;  // keys of index_ (node-stable)
};

inline char status_letter(const std::string& s) {
  if (s == "pass") return 'p';
  if (s == "warning") return 'w';
  if (s == "error") return 'e';
  return 'u';
}

inline void html_run_json(HtmlJson& j, const HtmlRun& run) {
  std::unordered_map<std::string, long long> node_of;
  for (std::size_t i = 0; i < run.modules.size(); ++i) node_of.emplace(run.modules[i].name, static_cast<long long>(i));
  auto node = [&](const HtmlRow& r) -> long long {
    auto it = r.entry.empty() || r.name.compare(0, r.entry.size(), r.entry) != 0 ? node_of.end() : node_of.find(r.entry);
    return it == node_of.end() ? -1 : it->second;
  };
  auto ints = [&](const char* key, auto&& value) {
    j.raw(",\"");
    j.raw(key);
    j.raw("\":");
    j.array(run.rows, [&](const HtmlRow& r) { j.integer(value(r)); });
  };
  auto nums = [&](const char* key, std::optional<double> HtmlRow::*field) {
    j.raw(",\"");
    j.raw(key);
    j.raw("\":");
    j.array(run.rows, [&](const HtmlRow& r) { j.number(r.*field); });
  };
  auto status_string = [&](const auto& items) {
    std::string st;
    st.reserve(items.size());
    for (const auto& x : items) st += status_letter(x.status);
    j.string(st);
  };

  j.raw("{\"step\":");
  j.string(run.step);
  j.raw(",\"rank\":");
  j.integer(run.rank);
  j.raw(",\"label\":");
  j.string(run.label);
  j.raw(",\"st\":");
  status_string(run.rows);
  ints("e", node);
  ints("sfx", [&](const HtmlRow& r) {
    const long long n = node(r);
    return static_cast<long long>(j.intern(n < 0 ? r.name : r.name.substr(r.entry.size())));
  });
  ints("bench", [&](const HtmlRow& r) { return j.relative(r.bench_name, r.name); });
  ints("dt", [&](const HtmlRow& r) { return static_cast<long long>(j.intern(r.npu_dtype)); });
  ints("bdt", [&](const HtmlRow& r) { return j.relative(r.bench_dtype, r.npu_dtype); });
  ints("shape", [&](const HtmlRow& r) { return static_cast<long long>(j.intern(r.npu_shape)); });
  ints("bshape", [&](const HtmlRow& r) { return j.relative(r.bench_shape, r.npu_shape); });
  ints("msg", [&](const HtmlRow& r) { return r.message.empty() ? -1 : static_cast<long long>(j.intern(r.message)); });
  std::vector<long long> stack_ids(run.stacks.size(), -1);  // interned on first use
  ints("stack", [&](const HtmlRow& r) -> long long {
    if (!r.stack || *r.stack >= run.stacks.size()) return -1;
    long long& id = stack_ids[*r.stack];
    if (id < 0) {
      std::string text;
      for (const auto& line : run.stacks[*r.stack]) text += line + "\n";
      id = static_cast<long long>(j.intern(text));
    }
    return id;
  });
  nums("cos", &HtmlRow::cosine);
  nums("abs", &HtmlRow::max_abs_err);
  nums("rel", &HtmlRow::max_rel_err);

  j.raw(",\"nodes\":{\"name\":");
  j.array(run.modules, [&](const HtmlModule& m) { j.integer(static_cast<long long>(j.intern(m.name))); });
  j.raw(",\"parent\":");
  j.array(run.modules, [&](const HtmlModule& m) {
    j.integer(m.parent && *m.parent < run.modules.size() ? static_cast<long long>(*m.parent) : -1);
  });
  j.raw(",\"st\":");
  status_string(run.modules);
  j.raw(",\"cos\":");
  j.array(run.modules, [&](const HtmlModule& m) { j.number(m.min_cosine); });
  j.raw(",\"abs\":");
  j.array(run.modules, [&](const HtmlModule& m) { j.number(m.max_abs_err); });
  j.raw("},\"first\":");
  if (run.first_divergence_row && *run.first_divergence_row < run.rows.size()) {
    j.raw("{\"row\":");
    j.integer(static_cast<long long>(*run.first_divergence_row));
    j.raw(",\"entry\":");
    j.string(run.first_divergence_name);
    j.raw(",\"origin\":");
    j.string(run.first_divergence_origin);
    j.raw(",\"messages\":");
    j.array(run.first_divergence_messages, [&](const std::string& m) { j.string(m); });
    j.raw("}");
  } else {
    j.raw("null");
  }
  j.raw(",\"bench_only\":");
  j.array(run.bench_only, [&](const std::string& b) { j.integer(static_cast<long long>(j.intern(b))); });
  j.raw("}");
}

}  // namespace detail

/// The report's data as the compact JSON the page reads (layout above).
inline std::string html_data_json(const HtmlReport& r) {
  detail::HtmlJson runs;  // interns every string while it writes the runs
  runs.array(r.runs, [&](const HtmlRun& run) { detail::html_run_json(runs, run); });
  const std::string runs_json = std::move(runs.out);
  runs.out.clear();
  runs.string_table();
  detail::HtmlJson j;
  j.raw("{\"v\":1,\"title\":");
  j.string(r.title);
  j.raw(",\"npu\":");
  j.string(r.npu_path);
  j.raw(",\"bench\":");
  j.string(r.bench_path);
  j.raw(",\"mode\":");
  j.string(r.mode);
  j.raw(",\"first\":");
  const auto has_row = [](const HtmlRun& run) {
    return run.first_divergence_row && *run.first_divergence_row < run.rows.size();
  };
  if (r.first_divergence_run && *r.first_divergence_run < r.runs.size() &&
      has_row(r.runs[*r.first_divergence_run]))  // the page opens that run at that row
    j.integer(static_cast<long long>(*r.first_divergence_run));
  else
    j.raw("null");
  j.raw(",\"strings\":");
  j.raw(runs.out);
  j.raw(",\"runs\":");
  j.raw(runs_json);
  j.raw("}");
  return std::move(j.out);
}

}  // namespace report
TD_NAMESPACE_END
