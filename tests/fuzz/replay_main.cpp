// Replays fuzz inputs without libFuzzer: every file under the given paths
// (directories are walked) goes through the target's LLVMFuzzerTestOneInput.
// ctest runs it over the committed seed corpus and tests/fuzz/regressions, so
// every reproducer a fuzzer ever found stays a regression test, with g++ and
// under the ASan+UBSan job.
#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <vector>

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size);

namespace fs = std::filesystem;

static bool replay(const fs::path& file) {
  std::ifstream in(file, std::ios::binary);
  if (!in) {
    std::fprintf(stderr, "cannot read %s\n", file.string().c_str());
    return false;
  }
  const std::vector<char> bytes((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  std::printf("replay %s (%zu bytes)\n", file.string().c_str(), bytes.size());
  std::fflush(stdout);  // so a crash names the input that caused it
  LLVMFuzzerTestOneInput(reinterpret_cast<const std::uint8_t*>(bytes.data()), bytes.size());
  return true;
}

int main(int argc, char** argv) {
  std::size_t count = 0;
  bool ok = true;
  for (int i = 1; i < argc; ++i) {
    const fs::path root(argv[i]);
    if (fs::is_directory(root)) {
      std::vector<fs::path> files;
      for (const auto& e : fs::recursive_directory_iterator(root))
        if (e.is_regular_file()) files.push_back(e.path());
      std::sort(files.begin(), files.end());
      for (const auto& f : files) ok &= replay(f), ++count;
    } else if (fs::exists(root)) {
      ok &= replay(root), ++count;
    } else {
      std::fprintf(stderr, "no such input: %s\n", argv[i]);
      ok = false;
    }
  }
  std::printf("%zu inputs replayed\n", count);
  return ok && count > 0 ? 0 : 1;
}
