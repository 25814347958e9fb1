// tensordiff — the format registry and the load() entry points.
//
//   auto tensors = tensordiff::io::load("dump.npz");             // detect, load all
//   auto one     = tensordiff::io::load_one("dump.npz::layer1"); // one entry by path
//   tensordiff::io::Registry::global().add(std::make_unique<MyFormat>());
//
// Built-in formats register on the first call of Registry::global() (a
// function-local static, so there is no static-initialisation order problem
// in a header-only library): npy, npz, and pt when io/pt.hpp exists.
#pragma once
#include <algorithm>
#include <memory>
#include <mutex>
#include <string>
#include <vector>

#include "npy.hpp"
#include "npz.hpp"
#include "reader.hpp"
#if defined(__has_include)
#if __has_include("pt.hpp")
#include "pt.hpp"
#define TD_IO_HAS_PT 1
#endif
#endif

TD_NAMESPACE_BEGIN
namespace io {

/// The set of known formats. Thread-safe.
class Registry {
 public:
  Registry() = default;
  Registry(const Registry&) = delete;
  Registry& operator=(const Registry&) = delete;

  /// The process-wide registry, holding the built-in formats.
  static Registry& global() {
    static Registry* r = [] {
      auto* reg = new Registry();  // never destroyed: usable from other statics' destructors
      reg->add(std::make_unique<NpyFormat>());
      reg->add(std::make_unique<NpzFormat>());
#if defined(TD_IO_HAS_PT)
      reg->add(std::make_unique<PtFormat>());
#endif
      return reg;
    }();
    return *r;
  }

  /// Adds a format; one with the same name is replaced. Later additions win
  /// ties in detection, so a plug-in can override a built-in's extension.
  void add(std::unique_ptr<Format> format) {
    if (!format) throw Error(ErrorCategory::invalid_argument, "Registry::add: null format");
    std::lock_guard<std::mutex> lock(mutex_);
    const std::string_view name = format->name();
    auto it = std::find_if(formats_.begin(), formats_.end(), [&](const auto& f) { return f->name() == name; });
    if (it != formats_.end()) formats_.erase(it);
    formats_.push_back(std::shared_ptr<const Format>(std::move(format)));
  }

  /// The format called `name`, or nullptr.
  std::shared_ptr<const Format> find(std::string_view name) const {
    std::lock_guard<std::mutex> lock(mutex_);
    for (const auto& f : formats_)
      if (f->name() == name) return f;
    return nullptr;
  }

  /// The names of the registered formats, in the order they were added.
  std::vector<std::string> names() const {
    std::lock_guard<std::mutex> lock(mutex_);
    std::vector<std::string> out;
    for (const auto& f : formats_) out.emplace_back(f->name());
    return out;
  }

  /// The best match for a file (magic beats extension; later-added formats
  /// win ties), or nullptr.
  std::shared_ptr<const Format> detect(const FileProbe& probe) const {
    std::lock_guard<std::mutex> lock(mutex_);
    std::shared_ptr<const Format> best;
    Match best_match = Match::no;
    for (const auto& f : formats_) {
      const Match m = f->recognises(probe);
      if (m != Match::no && m >= best_match) {
        best = f;
        best_match = m;
      }
    }
    return best;
  }

  /// Loads every tensor of an opened file.
  std::vector<LoadedTensor> load(const FileHandle& file, const LoadOptions& options = {}) const {
    std::shared_ptr<const Format> f;
    if (!options.format.empty()) {
      f = find(options.format);
      if (!f)
        throw Error(ErrorCategory::invalid_argument, "unknown format '" + options.format + "' (known: " + known() + ")",
                    {file->path(), "", std::nullopt});
    } else {
      f = detect(detail::make_probe(*file));
      if (!f)
        throw Error(ErrorCategory::unsupported,
                    "unrecognised file format (known: " + known() + "); name one with the format option",
                    {file->path(), "", std::nullopt});
    }
    try {
      std::vector<LoadedTensor> out = f->load(file, options);
      for (auto& t : out) detail::normalise_bools(t);
      return out;
    } catch (const Error& e) {
      throw e.with_file(file->path());
    }
  }

  /// Opens `path` (mmap or read, per options.map) and loads every tensor.
  std::vector<LoadedTensor> load(const std::string& path, const LoadOptions& options = {}) const {
    return load(MappedFile::open(path, options.map, options.map_threshold, options.allow_pipes), options);
  }

 private:
  std::string known() const {
    std::string s;
    for (const auto& n : names()) s += (s.empty() ? "" : ", ") + n;
    return s;
  }

  mutable std::mutex mutex_;
  std::vector<std::shared_ptr<const Format>> formats_;
};

/// Every tensor of a file, in file order, through the global registry.
inline std::vector<LoadedTensor> load(const std::string& path, const LoadOptions& options = {}) {
  return Registry::global().load(path, options);
}

/// Splits "file.npz::entry" into file and entry; no "::" after the last '/'
/// means the whole string is the file.
inline std::pair<std::string, std::optional<std::string>> split_selector(const std::string& spec) {
  const std::size_t slash = spec.find_last_of('/');
  const std::size_t sel = spec.find("::", slash == std::string::npos ? 0 : slash);
  if (sel == std::string::npos) return {spec, std::nullopt};
  return {spec.substr(0, sel), spec.substr(sel + 2)};
}

/// One tensor: "file" when the file holds exactly one, or "file::path" to
/// pick an entry by path. Errors list the available paths.
inline LoadedTensor load_one(const std::string& spec, const LoadOptions& options = {}) {
  auto [path, selector] = split_selector(spec);
  std::vector<LoadedTensor> all = load(path, options);
  auto list = [&] {
    std::string s;
    std::size_t shown = 0;
    for (const auto& t : all) {
      if (shown++ == 20) return s + ", ...";
      s += (s.empty() ? "'" : ", '") + t.path + "'";
    }
    return s;
  };
  if (!selector) {
    if (all.size() == 1) return std::move(all.front());
    throw Error(ErrorCategory::invalid_argument,
                "holds " + std::to_string(all.size()) + " tensors; pick one with FILE::PATH (paths: " + list() + ")",
                {path, "", std::nullopt});
  }
  for (auto& t : all)
    if (t.path == *selector) return std::move(t);
  throw Error(ErrorCategory::invalid_argument, "no tensor with path '" + *selector + "' (paths: " + list() + ")",
              {path, "", std::nullopt});
}

}  // namespace io
TD_NAMESPACE_END
