// How fast each CPU this process may run on executes a chain of dependent integer adds (one add a
// cycle on an idle host core). On this project's 2-vCPU VMs one vCPU ran it 1.6–2.8× slower than
// the other, which one changing within minutes (a host core busy with another guest; the VM
// reports no steal time); the kernels lost 5–40 % there, scalar bookkeeping up to 2×. So an
// unpinned one-thread benchmark ran fast or slow with the vCPU the scheduler picked: the bimodal
// runs earlier READMEs called noise. The run's header shows it (`cpu_speeds`); pin with
// `taskset -c <the fastest>` when they differ.
#pragma once
#include <chrono>
#include <cstdio>
#include <string>
#include <vector>

#if defined(__linux__)
#include <sched.h>
#endif

namespace tensordiff_bench {

inline constexpr unsigned long kChainAdds = 10'000'000;

/// Seconds for kChainAdds dependent adds on the calling thread (best of three).
inline double add_chain_seconds() {
  double best = 1e9;
  for (int round = 0; round < 3; ++round) {
    const auto t0 = std::chrono::steady_clock::now();
    unsigned long x = 1;
    for (unsigned long i = 0; i < kChainAdds; ++i) {
      x += i;
      asm volatile("" : "+r"(x));  // keeps every add, one after the other
    }
    const std::chrono::duration<double> dt = std::chrono::steady_clock::now() - t0;
    if (dt.count() < best) best = dt.count();
  }
  return best;
}

/// "cpu0 3.31, cpu1 1.19": each allowed CPU's dependent adds per nanosecond; "" where the
/// affinity cannot be set (not Linux). Warns on stderr when one is below 0.9 of the fastest.
inline std::string cpu_speeds() {
#if defined(__linux__)
  cpu_set_t allowed;
  if (sched_getaffinity(0, sizeof allowed, &allowed) != 0) return "";
  std::vector<std::pair<int, double>> seconds;
  for (int cpu = 0; cpu < CPU_SETSIZE; ++cpu) {
    if (!CPU_ISSET(cpu, &allowed)) continue;
    cpu_set_t one;
    CPU_ZERO(&one);
    CPU_SET(cpu, &one);
    if (sched_setaffinity(0, sizeof one, &one) != 0) continue;
    seconds.emplace_back(cpu, add_chain_seconds());
  }
  sched_setaffinity(0, sizeof allowed, &allowed);
  if (seconds.empty()) return "";
  double fastest = seconds[0].second;
  for (const auto& s : seconds) fastest = s.second < fastest ? s.second : fastest;
  std::string out;
  bool uneven = false;
  for (const auto& [cpu, s] : seconds) {
    char item[48];
    std::snprintf(item, sizeof item, "%scpu%d %.2f", out.empty() ? "" : ", ", cpu, kChainAdds / s * 1e-9);
    out += item;
    uneven = uneven || fastest / s < 0.9;
  }
  if (uneven)
    std::fprintf(stderr,
                 "tensordiff_bench: the CPUs run at different speeds (%s dependent adds per ns): pin the run "
                 "with taskset -c <the fastest>, and read two-thread cases as bound by the slowest\n",
                 out.c_str());
  return out;
#else
  return "";
#endif
}

}  // namespace tensordiff_bench
