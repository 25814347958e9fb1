// tensordiff — command-line front end. All logic lives in the library; this
// file only parses arguments (CLI11) and maps failures to exit codes.
#include <CLI/CLI.hpp>

#include <cstdio>
#include <exception>
#include <functional>
#include <string>
#include <new>
#include <tensordiff/core/error.hpp>
#include <tensordiff/io/registry.hpp>
#include <tensordiff/io/safetensors.hpp>
#include <tensordiff/version.hpp>

#include "commands.hpp"

namespace {
/// The options every command that reads tensor files takes.
void add_read_options(CLI::App* c, cli::ReadArgs& r) {
  c->add_option("--as", r.as,
                "bfloat16: an npy '<V2' (2-byte void, as ml_dtypes/JAX write bfloat16) holds bfloat16; "
                "float8_e4m3fn / float8_e5m2: an npy '|V1' (1-byte void, as ml_dtypes writes float8) holds that float8")
      ->check(CLI::IsMember({"bfloat16", "float8_e4m3fn", "float8_e5m2"}));
  c->add_flag("--no-crc-check", r.no_crc_check, "Skip the CRC-32 check of zip members (.npz, .pt): faster, trusts the archive");
  c->add_flag("--allow-opaque", r.allow_opaque,
              "Show dtypes without arithmetic here (float8 fnuz, '<V2'/'|V1' without --as) as raw unsigned words instead of refusing");
}

/// Every format the library has, for --help ("npy, npz, pt, safetensors").
std::string format_list() {
  std::string s;
  for (const auto& n : tensordiff::io::Registry::global().names()) s += (s.empty() ? "" : ", ") + n;
  return s;
}
}  // namespace

int main(int argc, char** argv) {
  tensordiff::io::register_safetensors();  // the CLI reads every format the library has
  CLI::App app{"tensordiff — fast, exact tensor and dump comparison"};
  app.set_version_flag("--version", std::function<std::string()>([] { return cli::version_text() + "\n" + cli::kernel_text(); }));
  app.require_subcommand(1);

  cli::StatArgs stat;
  auto* c_stat = app.add_subcommand("stat", "Statistics, MD5 and CRC-32 of every tensor in a file");
  c_stat->add_option("file", stat.file, "tensor file (" + format_list() + "); FILE::PATH selects one tensor")->required();
  c_stat->add_flag("--json", stat.json, "Print a JSON array of stat objects");
  add_read_options(c_stat, stat.read);

  cli::LsArgs ls;
  auto* c_ls = app.add_subcommand("ls", "List the tensors in a file (path, dtype, shape, storage layout)");
  c_ls->add_option("file", ls.file, "tensor file (" + format_list() + ")")->required();
  add_read_options(c_ls, ls.read);

  cli::DiffArgs diff;
  auto* c_diff = app.add_subcommand("diff", "Compare two tensors: every metric and a standard's verdict");
  c_diff->add_option("a", diff.a, "actual / NPU tensor: FILE or FILE::PATH")->required();
  c_diff->add_option("b", diff.b, "expected / bench tensor: FILE or FILE::PATH")->required();
  c_diff->add_flag("--json", diff.json, "Print JSON");
  c_diff->add_option("--standard", diff.standard,
                     "torch | numpy | isclose | ulp[:N] | polygraphy[:max|mean|median|quantile] | msprobe | precheck | bitwise")
      ->capture_default_str();
  c_diff->add_option("--rtol", diff.rtol, "relative tolerance (overrides the standard's)");
  c_diff->add_option("--atol", diff.atol, "absolute tolerance (overrides the standard's)");
  c_diff->add_option("--save-diff", diff.save_diff, "Write a - b (float64) to this .npy file");
  c_diff->add_flag("--strict", diff.strict, "Exit 1 on warnings too");
  c_diff->add_option("--metrics", diff.metrics,
                     "metrics to compute, comma-separated: cosine, euclidean, max_abs, max_rel, thousandths, mean_abs, "
                     "mean_rel, rmse, statistics, all, assert_close; a leading '-' removes one (all,-mean_rel). The others "
                     "print as not requested")
      ->capture_default_str();
  add_read_options(c_diff, diff.read);

  cli::CompareArgs cmp;
  auto* c_cmp = app.add_subcommand("compare", "Compare two msprobe dumps (or folders of tensor files) like msprobe compare");
  c_cmp->add_option("npu", cmp.npu, "NPU dump: dump.json, rank folder, step folder or dump root")->required();
  c_cmp->add_option("bench", cmp.bench, "bench dump, same layout")->required();
  c_cmp->add_option("-o,--output", cmp.out_dir, "output folder for the CSV(s) and report")->required();
  c_cmp->add_option("--mode", cmp.mode, "auto | tensor | statistics | md5")
      ->check(CLI::IsMember({"auto", "tensor", "statistics", "md5"}))
      ->capture_default_str();
  c_cmp->add_flag("--fuzzy", cmp.fuzzy, "Fuzzy name matching (msprobe -fm)");
  c_cmp->add_option("--data-map", cmp.data_map, "YAML {npu item: bench item} (msprobe -dm)");
  auto* o_cell = c_cmp->add_option("--cell-map", cmp.cell_map, "YAML cell/module name mapping (msprobe -cm)")->expected(0, 1);
  auto* o_api = c_cmp->add_option("--api-map", cmp.api_map, "YAML API mapping list (msprobe -am)")->expected(0, 1);
  c_cmp->add_option("--layer-map", cmp.layer_map, "YAML layer mapping (msprobe -lm)");
  c_cmp->add_option("--compat", cmp.compat, "msprobe: reproduce msprobe's quirks exactly")
      ->check(CLI::IsMember({"msprobe", "tensordiff"}));
  c_cmp->add_flag("--legacy-result", cmp.legacy_result, "Write msprobe 8.x 'Accuracy Reached or Not' instead of Result");
  c_cmp->add_flag("--html", cmp.html, "Also write OUTDIR/report.html (every rank and step in one page)");
  c_cmp->add_flag("--jsonl", cmp.jsonl, "Also write the rows as JSON lines");
  c_cmp->add_option("--jobs", cmp.jobs, "tensor pairs compared at once (0 = automatic)");
  c_cmp->add_flag("--strict", cmp.strict, "Exit 1 on warnings too");
  c_cmp->add_flag("-q,--quiet", cmp.quiet, "No progress bar");
  c_cmp->add_option("--steps", cmp.steps, "compare only these step{N} folders, e.g. 2-4 or 0,3");
  c_cmp->add_option("--ranks", cmp.ranks, "compare only these rank{N} folders, e.g. 0,3-7");
  c_cmp->add_option("--filter", cmp.filter, "keep rows whose API/module name matches this regex (ECMAScript)");
  c_cmp->add_option("--shard", cmp.shard, "I/N: compute share I of N into OUTDIR/tensordiff-shard.jsonl (then: tensordiff merge)");
  c_cmp->add_flag("--follow-symlinks", cmp.follow_symlinks,
                  "Read data files that are symlinks resolving outside their dump folder (refused by default)");

  cli::MergeArgs mrg;
  auto* c_mrg = app.add_subcommand("merge", "Join the outputs of `compare --shard I/N` runs: the same outputs as one compare");
  c_mrg->add_option("out", mrg.out_dir, "output folder (as compare -o)")->required();
  c_mrg->add_option("shards", mrg.shard_dirs, "the -o folders of the shard runs, all N of them")->required();
  c_mrg->add_flag("-q,--quiet", mrg.quiet, "No progress bar");

  cli::OverflowArgs ovf;
  auto* c_ovf = app.add_subcommand("overflow", "Overflow scan of one dump (msprobe overflow_check)");
  c_ovf->add_option("dump", ovf.dump, "dump.json, rank folder or step folder")->required();
  c_ovf->add_flag("--json", ovf.json, "Print JSON");

  cli::DumpArgs dmp;
  auto* c_dump = app.add_subcommand("dump", "Turn a folder of tensor files (TF precision_tool names) into an msprobe-layout dump");
  c_dump->add_option("--from", dmp.from, "folder of .npy/.npz/.pt/.safetensors files named {op}.{output}.{timestamp}")->required();
  c_dump->add_option("--to", dmp.to, "dump root: writes ROOT/step{S}/rank{R}/dump.json and dump_tensor_data/")->required();
  c_dump->add_option("--task", dmp.task, "tensor | statistics | md5")
      ->check(CLI::IsMember({"tensor", "statistics", "md5"}))
      ->capture_default_str();
  c_dump->add_option("--framework", dmp.framework, "pytorch (.pt files) | mindspore (.npy files)")
      ->check(CLI::IsMember({"pytorch", "mindspore"}))
      ->capture_default_str();
  c_dump->add_option("--prefix", dmp.prefix, "API prefix of the entry names")->capture_default_str();
  c_dump->add_option("--rank", dmp.rank, "rank folder number (default: proc{pid}, as msprobe without a rank)");
  c_dump->add_option("--step", dmp.step, "step folder number")->capture_default_str();

  try {
    app.parse(argc, argv);
  } catch (const CLI::ParseError& e) {
    const int code = app.exit(e);
    return code == 0 ? 0 : 2;
  }
  cmp.use_cell_map = o_cell->count() > 0;
  cmp.use_api_map = o_api->count() > 0;
  try {
    if (*c_stat) return cli::run_stat(stat);
    if (*c_ls) return cli::run_ls(ls);
    if (*c_diff) return cli::run_diff(diff);
    if (*c_cmp) return cli::run_compare(cmp);
    if (*c_ovf) return cli::run_overflow(ovf);
    if (*c_mrg) return cli::run_merge(mrg);
    if (*c_dump) return cli::run_dump(dmp);
  } catch (const tensordiff::Error& e) {
    std::fprintf(stderr, "tensordiff: %s\n", e.what());  // escaped and truncated by Error
    return 2;
  } catch (const std::bad_alloc&) {
    std::fprintf(stderr, "tensordiff: out of memory: the input needs more memory than this process may use\n");
    return 2;
  } catch (const std::exception& e) {
    std::fprintf(stderr, "tensordiff: %s\n", tensordiff::escape_for_message(e.what()).c_str());
    return 2;
  }
  return 2;
}
