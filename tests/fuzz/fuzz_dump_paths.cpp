// libFuzzer target: io::check_inside_folder, the rule that keeps a dump's
// data files inside the dump. The input builds a small tree of folders,
// files and symlinks (relative or absolute targets, loops, "..", chains) in a
// fresh temporary folder holding `dump/` and `outside/`; then every path under
// dump/ is checked. Property: whatever is accepted (and exists) really
// resolves inside dump/, and whatever is refused really resolves outside.
//
// Input: records of 3 bytes [kind, a, b] — kind % 4: 0 folder, 1 file,
// 2 symlink to a relative target, 3 symlink to an absolute target; a and b
// pick names from a small table, so loops and escapes are found quickly.
#include <tensordiff/io/dump_json.hpp>

#include <climits>
#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <string>
#include <unistd.h>

namespace fs = std::filesystem;
namespace tio = tensordiff::io;

namespace {
const char* const names[] = {"dump/a", "dump/b", "dump/dump_tensor_data", "dump/dump_tensor_data/x.npy",
                             "dump/c/d", "outside/s.npy", "outside", "dump", "dump/..", "dump/a/../b",
                             ".", "dump/dump_tensor_data/y.pt", "outside/dir", "dump/l1", "dump/l2", "/"};

// The reference: realpath(3) and a string prefix test.
bool inside(const fs::path& root, const fs::path& p) {
  char rp[PATH_MAX], rr[PATH_MAX];
  if (!::realpath(p.c_str(), rp)) return true;  // does not resolve: nothing can be read through it
  if (!::realpath(root.c_str(), rr)) return false;
  const std::string f(rp), r(rr);
  return f == r || (f.size() > r.size() && f.compare(0, r.size(), r) == 0 && f[r.size()] == '/');
}
}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  if (size > 3 * 24) return 0;
  char tmpl[] = "/tmp/td_fuzz_paths_XXXXXX";
  if (!::mkdtemp(tmpl)) return 0;
  const fs::path base(tmpl);
  std::error_code ec;
  fs::create_directories(base / "dump" / "dump_tensor_data", ec);
  fs::create_directories(base / "outside", ec);
  for (std::size_t i = 0; i + 3 <= size; i += 3) {
    const fs::path a = base / names[data[i + 1] % 16];
    const std::string b = names[data[i + 2] % 16];
    fs::create_directories(a.parent_path(), ec);
    switch (data[i] % 4) {
      case 0: fs::create_directories(a, ec); break;
      case 1: std::ofstream(a) << "x"; break;
      case 2: fs::create_symlink(fs::path(b).lexically_relative(fs::path(names[data[i + 1] % 16]).parent_path()), a, ec); break;
      default: fs::create_symlink(b == "/" ? fs::path("/") : base / b, a, ec); break;
    }
  }
  const fs::path root = base / "dump";
  for (auto it = fs::recursive_directory_iterator(root, ec); !ec && it != fs::recursive_directory_iterator(); it.increment(ec)) {
    const fs::path p = it->path();
    bool accepted = true;
    try {
      tio::check_inside_folder(root, p, false);
    } catch (const tensordiff::Error&) {
      accepted = false;
    }
    if (accepted != inside(root, p)) std::abort();
    if (it.depth() > 4) it.disable_recursion_pending();
  }
  fs::remove_all(base, ec);
  return 0;
}
