// Two translation units of one program include the same tensordiff headers
// with different settings (settings_on.cpp, settings_off.cpp; built without
// inlining, so every inline function is one weak symbol the linker picks once).
// The settings are part of the inline namespace's name (core/config.hpp), so
// each TU must keep its own behaviour: with one shared namespace the linker
// would keep one definition of abi_tag(), highway_targets() and the zip reader
// for both, and one of the checks below would fail.
#include <cstdio>
#include <string>
#include <vector>

#include "observed.hpp"

Observed observe_settings_on(const std::string& npz);
Observed observe_settings_off(const std::string& npz);

namespace {
int failures = 0;
void check(bool ok, const char* what, const Observed& o) {
  std::string targets;
  for (const auto& t : o.targets) targets += " " + t;
  std::printf("%s %s  [abi %s; targets%s; npz: %s]\n", ok ? "ok  " : "FAIL", what, o.abi.c_str(), targets.c_str(),
              o.npz.c_str());
  failures += !ok;
}
bool contains(const std::string& s, const char* part) { return s.find(part) != std::string::npos; }
}  // namespace

int main(int argc, char** argv) {
  if (argc != 2) {
    std::fprintf(stderr, "usage: abi_mixed_settings DEFLATED.npz\n");
    return 2;
  }
  const Observed on = observe_settings_on(argv[1]), off = observe_settings_off(argv[1]);
  check(contains(on.abi, "_hwy_dyn_zlib_yaml"), "settings_on.cpp's abi_tag() names its settings", on);
  check(!contains(off.abi, "_hwy") && !contains(off.abi, "_dyn") && !contains(off.abi, "_zlib") &&
            !contains(off.abi, "_yaml") && off.abi != on.abi,
        "settings_off.cpp's abi_tag() names none", off);
  check(on.npz == "3 tensors", "settings_on.cpp inflates deflated members (TD_HAS_ZLIB)", on);
  check(contains(off.npz, "deflate"), "settings_off.cpp refuses them (no zlib)", off);
  check(off.targets.size() == 1, "settings_off.cpp's Highway kernel has the static target only", off);
#if defined(__x86_64__) && (defined(__GNUC__) || defined(__clang__))
  // Run-time dispatch lists every compiled target the CPU runs: several on any x86-64 with AVX2.
  if (__builtin_cpu_supports("avx2"))
    check(on.targets.size() > 1, "settings_on.cpp's Highway kernel dispatches at run time (TD_HWY_DYNAMIC)", on);
#endif
  return failures ? 1 : 0;
}
