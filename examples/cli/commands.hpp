// The sub-commands of the `tensordiff` example CLI. Each returns the process
// exit code: 0 = ran and nothing failed, 1 = something failed the standard,
// 2 = usage or input error (reported by main as one line on stderr).
#pragma once
#include <optional>
#include <string>
#include <vector>

namespace cli {

/// How tensor files given on the command line are read (stat, ls, diff).
struct ReadArgs {
  std::string as;            ///< "" or "bfloat16": what an npy `<V2` (2-byte void) holds
  bool no_crc_check = false;  ///< skip the zip members' CRC-32 check
  bool allow_opaque = false;  ///< show unsupported dtypes (float8, `<V2`) as raw unsigned words
};

struct StatArgs {
  std::string file;
  bool json = false;
  ReadArgs read;
};

struct LsArgs {
  std::string file;
  ReadArgs read;
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
  ReadArgs read;
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
  std::string steps, ranks, filter;  ///< selection: "2-4", "0,3-7", a regex on API/module names
  std::string shard;                 ///< "I/N": write shard I of N to out_dir (tensordiff merge joins them)
  bool follow_symlinks = false;  ///< allow data files that resolve outside their dump folder
};

struct MergeArgs {
  std::string out_dir;
  std::vector<std::string> shard_dirs;
  bool quiet = false;
};

struct OverflowArgs {
  std::string dump;
  bool json = false;
};

struct DumpArgs {
  std::string from, to;
  std::string task = "tensor";         ///< tensor | statistics | md5
  std::string framework = "pytorch";   ///< pytorch (.pt data files) | mindspore (.npy)
  std::string prefix = "Op";           ///< entry names: {prefix}.{op}.{n}.forward
  std::optional<int> rank;
  int step = 0;
};

int run_stat(const StatArgs&);
int run_ls(const LsArgs&);
int run_diff(const DiffArgs&);
int run_compare(const CompareArgs&);
int run_overflow(const OverflowArgs&);
int run_dump(const DumpArgs&);
int run_merge(const MergeArgs&);

/// "0.1.0 (MPI: Open MPI v4.1.4)" or "0.1.0 (MPI: not built)".
std::string version_text();

/// The kernel in use and the ABI tag, for --version: "kernel: highway AVX3_DL (run-time
/// dispatch)\nabi: v0_1_hwy_dyn_zlib_yaml".
std::string kernel_text();

}  // namespace cli
