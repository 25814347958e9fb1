// tensordiff — write msprobe-layout dumps from C++ (engines, custom ops, test
// harnesses), so `tensordiff compare` and msprobe's own compare can pair them
// with a PyTorch dump made by msprobe.
//
//   io::DumpWriter w("dump", {io::DumpTask::tensor, "pytorch", "mix", /*rank*/ 0, /*step*/ 0});
//   {
//     auto m = w.module("fc1", "Linear");            // Module.fc1.Linear.forward.0
//     m.input(x).parameter("weight", W).parameter("bias", b);
//     {
//       auto f = w.api("Functional.linear");         // Functional.linear.0.forward
//       f.input(x).input(W).input(b).output(y);
//     }                                              // committed here
//     m.output(y);
//   }
//   w.flush();                                       // also done by ~DumpWriter
//
// Layout (msprobe 26.0's service.py / json_writer.py):
//   ROOT/step{S}/rank{R}/dump.json, stack.json, construct.json, dump_tensor_data/
//   (proc{pid} instead of rank{R} when no rank is given; dump_tensor_data/ in tensor mode only).
// Names: APIs "{api}.{n}.{forward|backward}" with n counted per API name from 0;
// modules "Module.{path}.{Class}.{forward|backward}.{n}" ("Cell." for
// MindSpore) counted per module; a backward call takes the number of the most
// recent forward of the same name that has no backward yet, unless given one.
// dump.json entries appear in the order calls finish (msprobe inserts module
// entries again when their output arrives); construct.json maps each entry to
// its enclosing module (APIs only at level "mix"; nothing at "L1"); stack.json
// groups the entries that share a call stack.
//
// Flushing: dump.json is rewritten through a temporary file renamed into place,
// so a crash leaves the last complete flush. It flushes when the number of
// entries reaches a multiple of msprobe's thresholds (1000; 5000 in md5 mode;
// 20000 from 20000 entries on) or of Options::flush_every, on flush(), and in
// the destructor. Unflushed entries are kept as JSON text; flushed ones live
// only on disk (a flush copies the previous file and appends), and tensor data
// goes to its file while the call runs, so memory stays bounded by what is
// unflushed plus names (construct.json, stack.json).
// Thread-safe: calls may run on several threads of one rank; each thread has
// its own module nesting.
#pragma once
#include <cstdint>
#include <filesystem>
#include <fstream>
#include <map>
#include <mutex>
#include <optional>
#include <set>
#include <string>
#include <thread>
#include <utility>
#include <vector>

#if defined(__unix__) || defined(__APPLE__)
#include <unistd.h>
#endif

#include <nlohmann/json.hpp>

#include "../core/error.hpp"
#include "detail/dump_leaf.hpp"
#include "detail/pyjson.hpp"
#include "dump_value.hpp"

TD_NAMESPACE_BEGIN
namespace io {

/// Forward or backward half of a call.
enum class Direction : std::uint8_t { forward, backward };

/// How a DumpWriter names, lays out and flushes a dump.
struct DumpWriterOptions {
  DumpTask task = DumpTask::statistics;  ///< tensor | statistics | md5
  std::string framework = "pytorch";     ///< "pytorch" (.pt files) or "mindspore" (.npy files, Cell.* modules)
  std::string level = "L1";              ///< "L0" (modules), "L1" (APIs) or "mix" (both)
  std::optional<int> rank;               ///< rank{R}; none: proc{pid}, as msprobe without distributed
  int step = 0;                          ///< step{S}
  std::size_t flush_every = 0;           ///< flush at multiples of this many entries; 0: msprobe's thresholds
  bool extra_info = true;                ///< write stack.json and construct.json (msprobe's extra_info)
};

class DumpWriter;

/// One API or module call being recorded. Committed (added to dump.json's
/// data) by commit() or the destructor. A scope the level does not dump
/// (an API at L0, a module at L1) accepts every call and records nothing.
class CallScope {
 public:
  /// Takes over an open call; `o` is left committed (empty).
  CallScope(CallScope&& o) noexcept { *this = std::move(o); }
  /// Commits this scope's call (errors swallowed), then takes over `o`'s.
  CallScope& operator=(CallScope&& o) noexcept;
  CallScope(const CallScope&) = delete;
  CallScope& operator=(const CallScope&) = delete;
  ~CallScope();

  const std::string& name() const noexcept { return name_; }  ///< the dump.json key
  std::uint64_t index() const noexcept { return index_; }     ///< the call number
  bool enabled() const noexcept { return writer_ && enabled_; }  ///< whether the level dumps it

  /// Forward: the next positional argument (input_args). Backward: the next
  /// gradient flowing in (the "input" list: grads of the forward outputs).
  CallScope& input(const DumpValue& v);
  /// A keyword argument (forward only; input_kwargs).
  CallScope& kwarg(const std::string& key, const DumpValue& v);
  /// Forward: the next output. Backward: the next gradient flowing out (grads of the forward inputs; None allowed).
  CallScope& output(const DumpValue& v);
  /// A module parameter (forward module calls; "parameters").
  CallScope& parameter(const std::string& key, const DumpValue& v);
  /// The call stack, innermost frame last, as msprobe writes it
  /// ("File f.py, line 9, in forward, \n y = fc(x)").
  CallScope& stack(std::vector<std::string> lines);
  /// Adds the entry to dump.json's data (flushing when a threshold is reached). Idempotent.
  void commit();

 private:
  friend class DumpWriter;
  CallScope() = default;
  void check_open(const char* what) const;
  nlohmann::ordered_json value(const DumpValue& v, const char* category, const std::string& key);

  DumpWriter* writer_ = nullptr;
  bool enabled_ = false;
  bool is_module_ = false;
  Direction dir_ = Direction::forward;
  std::string name_;
  std::uint64_t index_ = 0;
  std::optional<std::string> parent_;
  nlohmann::ordered_json body_;
  std::size_t n_inputs_ = 0, n_outputs_ = 0;
  std::optional<std::vector<std::string>> stack_;
};

/// Writes one rank's msprobe-layout dump (see the file comment).
class DumpWriter {
 public:
  /// Creates ROOT/step{S}/rank{R}/ (and dump_tensor_data/ in tensor mode) and
  /// the initial dump.json ({} data), stack.json and construct.json.
  explicit DumpWriter(const std::filesystem::path& root, DumpWriterOptions options = {});
  /// Flushes; errors are swallowed (call flush() to see them).
  ~DumpWriter();
  DumpWriter(const DumpWriter&) = delete;
  DumpWriter& operator=(const DumpWriter&) = delete;

  /// An API call, e.g. "Functional.linear", "Torch.matmul", "Tensor.__add__".
  CallScope api(const std::string& api_name, Direction dir = Direction::forward);
  /// An API call with an explicit call number (its forward's, for a backward).
  CallScope api(const std::string& api_name, Direction dir, std::uint64_t call_index);
  /// A module call: `path` as in named_modules() ("layers.0.fc1"), `class_name` as type(m).__name__.
  CallScope module(const std::string& path, const std::string& class_name, Direction dir = Direction::forward);
  /// A module call with an explicit call number.
  CallScope module(const std::string& path, const std::string& class_name, Direction dir, std::uint64_t call_index);
  /// The parameter gradients of a module, one entry "Module.{path}.{Class}.parameters_grad.{n}"
  /// ({param: [leaf]}) numbered after the module's latest forward call.
  void parameters_grad(const std::string& path, const std::string& class_name,
                       const std::vector<std::pair<std::string, DumpValue>>& grads);

  /// Writes dump.json (and stack.json, construct.json) with every committed entry.
  void flush();

  const std::filesystem::path& dir() const noexcept { return dir_; }  ///< the rank folder
  const DumpWriterOptions& options() const noexcept { return opt_; }  ///< as constructed
  std::size_t entries() const;          ///< entries committed so far
  std::size_t flushed_entries() const;  ///< entries in dump.json on disk

 private:
  friend class CallScope;
  using J = nlohmann::ordered_json;

  bool mindspore() const noexcept { return opt_.framework == "mindspore"; }
  bool dumps_apis() const noexcept { return opt_.level != "L0"; }
  bool dumps_modules() const noexcept { return opt_.level != "L1"; }
  CallScope open(std::string base, bool is_module, Direction dir, std::optional<std::uint64_t> index);
  void close(CallScope& s);
  void add_entry(const std::string& name, const J& body);  // mutex held
  void merge_module_nodes();                               // mutex held
  void add_stack(const std::string& name, const std::vector<std::string>& lines);  // mutex held
  void flush_locked();
  std::string header_text() const;
  static void check_name(const std::string& n, const char* what);

  DumpWriterOptions opt_;
  std::filesystem::path dir_, data_dir_;
  mutable std::mutex mu_;
  std::map<std::string, std::uint64_t> counters_;                   // base name → next call number
  std::map<std::string, std::vector<std::uint64_t>> open_forwards_;  // base name → forwards without backward
  std::map<std::thread::id, std::vector<std::string>> module_stack_;
  std::vector<std::pair<std::string, std::optional<std::string>>> module_nodes_;  // msprobe's module_node
  std::map<std::string, bool> module_node_seen_;
  std::set<std::string> names_;  // every entry opened: a name is recorded once
  std::vector<std::pair<std::string, std::optional<std::string>>> construct_;
  std::map<std::string, std::size_t> construct_index_;
  std::vector<std::pair<std::vector<std::string>, std::vector<std::string>>> stacks_;  // (lines, names)
  std::map<std::vector<std::string>, std::size_t> stack_index_;
  std::vector<std::string> pending_;  // committed entries not yet on disk, as JSON text
  std::size_t committed_ = 0, flushed_ = 0;
  std::uint64_t body_end_ = 0;  // bytes of dump.json before its closing "\n }\n}"
  bool extra_dirty_ = false;
};

// ------------------------------------------------------------------ CallScope

inline CallScope& CallScope::operator=(CallScope&& o) noexcept {
  if (this != &o) {
    try {
      commit();
    } catch (...) {  // noexcept: as in the destructor
    }
    writer_ = o.writer_;
    enabled_ = o.enabled_;
    is_module_ = o.is_module_;
    dir_ = o.dir_;
    name_ = std::move(o.name_);
    index_ = o.index_;
    parent_ = std::move(o.parent_);
    body_ = std::move(o.body_);
    n_inputs_ = o.n_inputs_;
    n_outputs_ = o.n_outputs_;
    stack_ = std::move(o.stack_);
    o.writer_ = nullptr;
  }
  return *this;
}

inline CallScope::~CallScope() {
  try {
    commit();
  } catch (...) {  // a destructor must not throw; commit() explicitly to see errors
  }
}

inline void CallScope::check_open(const char* what) const {
  if (!writer_) throw Error(ErrorCategory::invalid_argument, std::string("DumpWriter: ") + what + " on a committed call scope");
}

inline nlohmann::ordered_json CallScope::value(const DumpValue& v, const char* category, const std::string& key) {
  detail::LeafSink sink;
  sink.mindspore = writer_->mindspore();
  sink.task = writer_->opt_.task;
  sink.data_dir = writer_->data_dir_;
  sink.name_prefix = name_ + "." + category;
  return detail::leaf_json(v, sink, key);
}

inline CallScope& CallScope::input(const DumpValue& v) {
  check_open("input()");
  if (!enabled_) return *this;
  const char* key = dir_ == Direction::forward ? "input_args" : "input";
  body_[key].push_back(value(v, "input", std::to_string(n_inputs_++)));
  return *this;
}

inline CallScope& CallScope::kwarg(const std::string& key, const DumpValue& v) {
  check_open("kwarg()");
  if (!enabled_) return *this;
  if (dir_ != Direction::forward) throw Error(ErrorCategory::invalid_argument, "DumpWriter: kwarg() on a backward call " + name_);
  body_["input_kwargs"][key] = value(v, "kwargs", key);
  return *this;
}

inline CallScope& CallScope::output(const DumpValue& v) {
  check_open("output()");
  if (!enabled_) return *this;
  body_["output"].push_back(value(v, "output", std::to_string(n_outputs_++)));
  return *this;
}

inline CallScope& CallScope::parameter(const std::string& key, const DumpValue& v) {
  check_open("parameter()");
  if (!enabled_) return *this;
  if (!is_module_ || dir_ != Direction::forward)
    throw Error(ErrorCategory::invalid_argument, "DumpWriter: parameter() needs a forward module call, not " + name_);
  body_["parameters"][key] = value(v, "parameters", key);
  return *this;
}

inline CallScope& CallScope::stack(std::vector<std::string> lines) {
  check_open("stack()");
  if (!enabled_ || !writer_->opt_.extra_info) return *this;
  if (is_module_) {  // msprobe records a module's stack in its pre-hook, an API's when it finishes
    std::lock_guard<std::mutex> lock(writer_->mu_);
    writer_->add_stack(name_, lines);
  } else {
    stack_ = std::move(lines);
  }
  return *this;
}

inline void CallScope::commit() {
  if (!writer_) return;
  DumpWriter* w = writer_;
  writer_ = nullptr;
  w->close(*this);
}

// ----------------------------------------------------------------- DumpWriter

inline DumpWriter::DumpWriter(const std::filesystem::path& root, DumpWriterOptions options) : opt_(std::move(options)) {
  namespace fs = std::filesystem;
  if (opt_.framework != "pytorch" && opt_.framework != "mindspore")
    throw Error(ErrorCategory::invalid_argument, "DumpWriter: framework must be pytorch or mindspore, got \"" + opt_.framework + "\"");
  if (opt_.level != "L0" && opt_.level != "L1" && opt_.level != "mix")
    throw Error(ErrorCategory::invalid_argument, "DumpWriter: level must be L0, L1 or mix, got \"" + opt_.level + "\"");
  if (opt_.step < 0 || (opt_.rank && *opt_.rank < 0))
    throw Error(ErrorCategory::invalid_argument, "DumpWriter: step and rank must not be negative");
#if defined(__unix__) || defined(__APPLE__)
  const std::string proc = "proc" + std::to_string(::getpid());
#else
  const std::string proc = "proc0";
#endif
  dir_ = fs::absolute(root).lexically_normal() / ("step" + std::to_string(opt_.step)) /
         (opt_.rank ? "rank" + std::to_string(*opt_.rank) : proc);
  std::error_code ec;
  fs::create_directories(dir_, ec);
  if (ec) throw Error(ErrorCategory::io, "cannot create dump folder: " + ec.message(), {dir_.string(), "", std::nullopt});
  if (opt_.task == DumpTask::tensor) {
    data_dir_ = dir_ / "dump_tensor_data";
    fs::create_directories(data_dir_, ec);
    if (ec) throw Error(ErrorCategory::io, "cannot create folder: " + ec.message(), {data_dir_.string(), "", std::nullopt});
  }
  std::lock_guard<std::mutex> lock(mu_);
  const std::string head = header_text();
  detail::write_bytes_atomically((dir_ / "dump.json").string(), head + "{}\n}");
  if (opt_.extra_info) {
    detail::write_bytes_atomically((dir_ / "stack.json").string(), "{}");
    detail::write_bytes_atomically((dir_ / "construct.json").string(), "{}");
  }
}

inline DumpWriter::~DumpWriter() {
  try {
    flush();
  } catch (...) {  // destructors must not throw
  }
}

inline std::string DumpWriter::header_text() const {
  J h = J::object();
  h["task"] = opt_.task == DumpTask::tensor ? "tensor" : "statistics";
  h["level"] = opt_.level;
  h["framework"] = opt_.framework;
  h["dump_data_dir"] = opt_.task == DumpTask::tensor ? J(data_dir_.string()) : J(nullptr);
  std::string out = "{";
  for (auto it = h.begin(); it != h.end(); ++it) {
    out += "\n ";
    detail::py_json_string(out, it.key());
    out += ": ";
    detail::py_json_dump(out, it.value(), 1, 1);
    out += ",";
  }
  return out + "\n \"data\": ";
}

inline void DumpWriter::check_name(const std::string& n, const char* what) {
  if (n.empty() || n.find('/') != std::string::npos || n.find('\\') != std::string::npos || n.front() == '.' ||
      n.back() == '.')
    throw Error(ErrorCategory::invalid_argument,
                std::string("DumpWriter: ") + what + " \"" + n + "\" must be a non-empty dotted name without '/'");
}

inline CallScope DumpWriter::api(const std::string& api_name, Direction dir) {
  check_name(api_name, "API name");
  return open(api_name, false, dir, std::nullopt);
}

inline CallScope DumpWriter::api(const std::string& api_name, Direction dir, std::uint64_t call_index) {
  check_name(api_name, "API name");
  return open(api_name, false, dir, call_index);
}

inline CallScope DumpWriter::module(const std::string& path, const std::string& class_name, Direction dir) {
  check_name(path, "module path");
  check_name(class_name, "module class");
  return open((mindspore() ? "Cell." : "Module.") + path + "." + class_name, true, dir, std::nullopt);
}

inline CallScope DumpWriter::module(const std::string& path, const std::string& class_name, Direction dir,
                                    std::uint64_t call_index) {
  check_name(path, "module path");
  check_name(class_name, "module class");
  return open((mindspore() ? "Cell." : "Module.") + path + "." + class_name, true, dir, call_index);
}

inline CallScope DumpWriter::open(std::string base, bool is_module, Direction dir, std::optional<std::uint64_t> index) {
  CallScope s;
  s.writer_ = this;
  s.is_module_ = is_module;
  s.dir_ = dir;
  s.enabled_ = is_module ? dumps_modules() : dumps_apis();
  s.body_ = J::object();
  std::lock_guard<std::mutex> lock(mu_);
  if (index) {
    s.index_ = *index;
    if (dir == Direction::forward) counters_[base] = std::max(counters_[base], *index + 1);
  } else if (dir == Direction::forward) {
    s.index_ = counters_[base]++;
  } else {
    auto& open = open_forwards_[base];
    if (open.empty())
      throw Error(ErrorCategory::invalid_argument, "DumpWriter: backward of " + base + " with no forward call to pair it with");
    s.index_ = open.back();
  }
  auto& fw = open_forwards_[base];
  if (dir == Direction::forward) {
    fw.push_back(s.index_);
  } else {
    for (auto it = fw.end(); it != fw.begin();) {
      if (*--it == s.index_) {
        fw.erase(it);
        break;
      }
    }
  }
  const char* d = dir == Direction::forward ? "forward" : "backward";
  s.name_ = is_module ? base + "." + d + "." + std::to_string(s.index_) : base + "." + std::to_string(s.index_) + "." + d;
  if (s.enabled_ && !names_.insert(s.name_).second)  // its data files would be overwritten
    throw Error(ErrorCategory::invalid_argument, "DumpWriter: " + s.name_ + " was already recorded");
  if (s.enabled_) {
    if (dir == Direction::forward) {
      s.body_["input_args"] = J::array();
      s.body_["input_kwargs"] = J::object();
      s.body_["output"] = J::array();
    } else {
      s.body_["input"] = J::array();
      s.body_["output"] = J::array();
    }
  }
  auto& nest = module_stack_[std::this_thread::get_id()];
  if (!nest.empty()) s.parent_ = nest.back();
  if (is_module && s.enabled_) {
    if (!module_node_seen_[s.name_]) {
      module_node_seen_[s.name_] = true;
      module_nodes_.emplace_back(s.name_, s.parent_);
    }
    nest.push_back(s.name_);
  }
  return s;
}

inline void DumpWriter::close(CallScope& s) {
  std::lock_guard<std::mutex> lock(mu_);
  if (s.is_module_ && s.enabled_) {
    auto& nest = module_stack_[std::this_thread::get_id()];
    for (auto it = nest.end(); it != nest.begin();) {
      if (*--it == s.name_) {
        nest.erase(it);
        break;
      }
    }
  }
  if (!s.enabled_) return;
  if (opt_.extra_info && s.stack_) add_stack(s.name_, *s.stack_);
  if (opt_.extra_info && opt_.level == "mix" && !s.is_module_) {
    auto it = construct_index_.find(s.name_);
    if (it == construct_index_.end()) {
      construct_index_[s.name_] = construct_.size();
      construct_.emplace_back(s.name_, s.parent_);
    } else {
      construct_[it->second].second = s.parent_;
    }
    extra_dirty_ = true;
  }
  merge_module_nodes();
  add_entry(s.name_, s.body_);
}

inline void DumpWriter::parameters_grad(const std::string& path, const std::string& class_name,
                                        const std::vector<std::pair<std::string, DumpValue>>& grads) {
  check_name(path, "module path");
  check_name(class_name, "module class");
  if (!dumps_modules()) return;
  const std::string base = (mindspore() ? "Cell." : "Module.") + path + "." + class_name;
  std::uint64_t index = 0;
  {
    std::lock_guard<std::mutex> lock(mu_);
    auto it = counters_.find(base);
    if (it == counters_.end() || it->second == 0)
      throw Error(ErrorCategory::invalid_argument, "DumpWriter: parameters_grad of " + base + " before any forward call");
    index = it->second - 1;
    if (!names_.insert(base + ".parameters_grad." + std::to_string(index)).second)
      throw Error(ErrorCategory::invalid_argument, "DumpWriter: parameters_grad of " + base + " was already recorded for call " +
                                                       std::to_string(index));
  }
  const std::string name = base + ".parameters_grad." + std::to_string(index);
  J body = J::object();
  for (const auto& [param, g] : grads) {
    check_name(param, "parameter name");
    detail::LeafSink sink;
    sink.mindspore = mindspore();
    sink.task = opt_.task;
    sink.data_dir = data_dir_;
    sink.name_prefix = name + "." + param;
    sink.prefix_is_save_name = true;
    body[param] = J::array({detail::leaf_json(g, sink, "")});
  }
  std::lock_guard<std::mutex> lock(mu_);
  merge_module_nodes();
  add_entry(name, body);
}

inline void DumpWriter::merge_module_nodes() {
  if (!opt_.extra_info) return;
  for (auto& [node, parent] : module_nodes_) {
    if (construct_index_.count(node)) continue;
    construct_index_[node] = construct_.size();
    construct_.emplace_back(node, parent);
    extra_dirty_ = true;
  }
}

inline void DumpWriter::add_stack(const std::string& name, const std::vector<std::string>& lines) {
  auto it = stack_index_.find(lines);
  if (it == stack_index_.end()) {
    stack_index_[lines] = stacks_.size();
    stacks_.push_back({lines, {name}});
  } else {
    stacks_[it->second].second.push_back(name);
  }
  extra_dirty_ = true;
}

inline void DumpWriter::add_entry(const std::string& name, const J& body) {
  std::string text = "\n  ";
  detail::py_json_string(text, name);
  text += ": ";
  detail::py_json_dump(text, body, 1, 2);
  pending_.push_back(std::move(text));
  ++committed_;
  std::size_t threshold = opt_.flush_every;
  if (threshold == 0)
    threshold = opt_.task == DumpTask::md5 ? 5000 : committed_ < 20000 ? 1000 : 20000;
  if (committed_ % threshold == 0) flush_locked();
}

inline void DumpWriter::flush() {
  std::lock_guard<std::mutex> lock(mu_);
  flush_locked();
}

inline std::size_t DumpWriter::entries() const {
  std::lock_guard<std::mutex> lock(mu_);
  return committed_;
}

inline std::size_t DumpWriter::flushed_entries() const {
  std::lock_guard<std::mutex> lock(mu_);
  return flushed_;
}

inline void DumpWriter::flush_locked() {
  namespace fs = std::filesystem;
  const fs::path json = dir_ / "dump.json";
  if (!pending_.empty()) {
    fs::path tmp = json;
    tmp += ".tmp";
    std::error_code ec;
    const auto write_tmp = [&] {  // the new dump.json into tmp; returns where its body ends
      std::uint64_t end = 0;
      std::ofstream out;
      if (flushed_ == 0) {
        out.open(tmp, std::ios::binary | std::ios::trunc);
        out << header_text() << '{';
        end = header_text().size() + 1;
      } else {  // the previous flush is the prefix: copy it, drop its closing brackets, append
        fs::copy_file(json, tmp, fs::copy_options::overwrite_existing, ec);
        if (!ec) fs::resize_file(tmp, body_end_, ec);
        if (ec) throw Error(ErrorCategory::io, "cannot copy the previous flush: " + ec.message(), {tmp.string(), "", std::nullopt});
        out.open(tmp, std::ios::binary | std::ios::app);
        out << ',';
        end = body_end_ + 1;
      }
      if (!out) throw Error(ErrorCategory::io, "cannot create file", {tmp.string(), "", std::nullopt});
      for (std::size_t i = 0; i < pending_.size(); ++i) {
        if (i) out << ',', ++end;
        out << pending_[i];
        end += pending_[i].size();
      }
      out << "\n }\n}";
      out.close();  // the buffered tail is written here: check after it
      if (!out) throw Error(ErrorCategory::io, "write failed (disk full?)", {tmp.string(), "", std::nullopt});
      return end;
    };
    std::uint64_t end = 0;
    try {
      end = write_tmp();
    } catch (const Error& e) {
      fs::remove(tmp, ec);  // never leave half a file behind; the last flush stays valid
      throw e.with_final_file(tmp.string(), json.string());
    }
    fs::rename(tmp, json, ec);
    if (ec) throw Error(ErrorCategory::io, "cannot rename into place: " + ec.message(), {json.string(), "", std::nullopt});
    body_end_ = end;
    flushed_ += pending_.size();
    pending_.clear();
  }
  if (opt_.extra_info && extra_dirty_) {
    J st = J::object();
    for (std::size_t i = 0; i < stacks_.size(); ++i) st[std::to_string(i)] = J::array({stacks_[i].second, stacks_[i].first});
    if (!stacks_.empty()) detail::write_bytes_atomically((dir_ / "stack.json").string(), detail::py_json_dumps(st, 1));
    J c = J::object();
    for (const auto& [node, parent] : construct_) c[node] = parent ? J(*parent) : J(nullptr);
    if (!construct_.empty()) detail::write_bytes_atomically((dir_ / "construct.json").string(), detail::py_json_dumps(c, 1));
    extra_dirty_ = false;
  }
}

}  // namespace io
TD_NAMESPACE_END
