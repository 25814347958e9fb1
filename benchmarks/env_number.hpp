// A whole number from an environment variable, for the benchmarks' settings (TD_BENCH_OFFSET,
// TD_BENCH_DUMP_MB). A misspelt setting stops the run: measuring the default under the label the
// user asked for is worse than no measurement.
#pragma once
#include <charconv>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <system_error>

namespace tensordiff_bench {

/// `name`'s value as a whole number 0..max (decimal digits only), `fallback` when unset or empty;
/// anything else prints why and exits with status 2.
inline unsigned long long env_number(const char* name, unsigned long long fallback, unsigned long long max) {
  const char* v = std::getenv(name);
  if (v == nullptr || *v == '\0') return fallback;
  const char* end = v + std::strlen(v);
  unsigned long long n = 0;
  const auto [stop, ec] = std::from_chars(v, end, n);
  if (ec != std::errc{} || stop != end || n > max) {
    std::fprintf(stderr, "tensordiff_bench: %s=%s: want a whole number, 0 to %llu\n", name, v, max);
    std::exit(2);
  }
  return n;
}

}  // namespace tensordiff_bench
