// tensordiff — a folder of plain tensor files as an msprobe-layout dump
// (`tensordiff dump --from DIR --to ROOT`), so dumps from tools without
// dump.json meet the same matching, statistics and first-divergence workflow.
//
// File names follow TF precision_tool (formats.md §4.3):
// `{op}.{output_index}.{timestamp}.npy`. Each file becomes output
// `{output_index}` of call n of API `{prefix}.{op}` (op with '.' → '_'),
// where n counts earlier files with the same op and output index, so the
// k-th execution of an op is call k-1; calls are entered in the order of their
// first file, files ordered by timestamp (then name). A name without a
// timestamp or output index is one call with output 0. A file holding several
// tensors (.pt / .npz / .safetensors) gives a list output, in file order.
#pragma once
#include <algorithm>
#include <filesystem>
#include <map>
#include <regex>
#include <string>
#include <vector>

#include "dump_writer.hpp"
#include "registry.hpp"

TD_NAMESPACE_BEGIN
namespace io {

/// One file of a plain folder, as convert_tensor_folder() reads its name.
struct PlainFileName {
  std::string op;             ///< the op name ('.' replaced by '_')
  int output_index = 0;       ///< the output slot
  std::string timestamp;      ///< digits, "" when the name has none
};

/// Splits `{op}.{output_index}.{timestamp}` (a stem without extension).
inline PlainFileName parse_plain_file_name(const std::string& stem) {
  static const std::regex ts(R"(^(.*)\.(\d{10,})$)");
  static const std::regex idx(R"(^(.*)\.(\d{1,6})$)");
  PlainFileName r;
  std::string rest = stem;
  std::smatch m;
  if (std::regex_match(rest, m, ts)) {
    r.timestamp = m[2];
    rest = m[1];
  }
  if (std::regex_match(rest, m, idx) && m[1].length() > 0) {
    r.output_index = std::stoi(m[2]);
    rest = m[1];
  }
  std::replace(rest.begin(), rest.end(), '.', '_');
  r.op = rest.empty() ? "tensor" : rest;
  return r;
}

/// Writes every tensor file of `from` into `w` (see the file comment);
/// returns the number of entries written. Errors name the file.
inline std::size_t convert_tensor_folder(const std::filesystem::path& from, DumpWriter& w,
                                         const std::string& prefix = "Op") {
  namespace fs = std::filesystem;
  struct File {
    fs::path path;
    PlainFileName name;
  };
  std::vector<File> files;
  std::error_code ec;
  for (const auto& e : fs::directory_iterator(from, ec)) {
    if (!e.is_regular_file(ec)) continue;
    std::string ext = e.path().extension().string();
    for (auto& c : ext) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
    if (ext != ".npy" && ext != ".npz" && ext != ".pt" && ext != ".pth" && ext != ".bin" && ext != ".safetensors") continue;
    files.push_back({e.path(), parse_plain_file_name(e.path().stem().string())});
  }
  if (ec) throw Error(ErrorCategory::io, "cannot list folder: " + ec.message(), {from.string(), "", std::nullopt});
  std::sort(files.begin(), files.end(), [](const File& a, const File& b) {
    if (a.name.timestamp.size() != b.name.timestamp.size()) return a.name.timestamp.size() < b.name.timestamp.size();
    if (a.name.timestamp != b.name.timestamp) return a.name.timestamp < b.name.timestamp;
    return a.path.filename() < b.path.filename();
  });
  // (op, call) → outputs by index, in order of first appearance.
  struct Call {
    std::string op;
    std::uint64_t n = 0;
    std::map<int, std::vector<LoadedTensor>> outputs;
  };
  std::vector<Call> calls;
  std::map<std::pair<std::string, std::uint64_t>, std::size_t> where;
  std::map<std::pair<std::string, int>, std::uint64_t> seen;
  for (const auto& f : files) {
    const std::uint64_t n = seen[{f.name.op, f.name.output_index}]++;
    auto [it, fresh] = where.try_emplace({f.name.op, n}, calls.size());
    if (fresh) calls.push_back({f.name.op, n, {}});
    calls[it->second].outputs[f.name.output_index] = load(f.path.string());
    if (calls[it->second].outputs[f.name.output_index].empty())
      throw Error(ErrorCategory::format, "file holds no tensor", {f.path.string(), "", std::nullopt});
  }
  for (const auto& c : calls) {
    auto s = w.api(prefix + "." + c.op, Direction::forward, c.n);
    const int last = c.outputs.rbegin()->first;
    for (int i = 0; i <= last; ++i) {
      auto o = c.outputs.find(i);
      if (o == c.outputs.end()) {
        s.output(nullptr);
      } else if (o->second.size() == 1) {
        s.output(o->second[0].tensor);
      } else {
        std::vector<DumpValue> items;
        for (const auto& t : o->second) items.emplace_back(t.tensor);
        s.output(DumpValue::list(std::move(items)));
      }
    }
    s.commit();
  }
  return calls.size();
}

}  // namespace io
TD_NAMESPACE_END
