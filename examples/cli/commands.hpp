// The sub-commands of the `tensordiff` example CLI. Each returns the process
// exit code: 0 = ran and nothing failed, 1 = something failed the standard,
// 2 = usage or input error (reported by main as one line on stderr).
#pragma once
#include <optional>
#include <string>

namespace cli {

struct StatArgs {
  std::string file;
  bool json = false;
};

struct LsArgs {
  std::string file;
};

struct DiffArgs {
  std::string a, b;  ///< FILE or FILE::PATH
  bool json = false;
  std::string standard = "torch";
  std::optional<double> rtol, atol;
  std::string save_diff;
  bool strict = false;
  std::string target;  ///< forced SIMD target (Highway), "" = best
  std::string metrics = "all";  ///< --metrics: comma-separated names (metric_set_from_names)
};

struct CompareArgs {
  std::string npu, bench, out_dir;
  std::string mode = "auto";
  bool fuzzy = false;
  std::string data_map, cell_map, api_map, layer_map;
  bool use_cell_map = false, use_api_map = false;  ///< given, possibly without a file (built-in rules)
  std::string compat;        ///< "" or "msprobe"
  bool legacy_result = false;
  bool html = false;
  bool jsonl = false;
  unsigned jobs = 0;
  bool strict = false;
  bool quiet = false;
};

struct OverflowArgs {
  std::string dump;
  bool json = false;
};

int run_stat(const StatArgs&);
int run_ls(const LsArgs&);
int run_diff(const DiffArgs&);
int run_compare(const CompareArgs&);
int run_overflow(const OverflowArgs&);

/// "tensordiff 0.1.0" and the kernel in use (--version).
std::string version_text();

}  // namespace cli
