// tensordiff — what the HTML report shows: a neutral model of a whole
// comparison job (every rank of every step), filled by an adapter
// (html_dump.hpp for match::DumpComparison) or by hand.
#pragma once
#include <cstddef>
#include <optional>
#include <string>
#include <vector>

#include "../core/config.hpp"

TD_NAMESPACE_BEGIN
namespace report {

/// One table row: an NPU item and what it was compared with.
struct HtmlRow {
  std::string name;        ///< NPU item name
  std::string bench_name;  ///< matched bench item ("" when unmatched)
  /// The API / module call the item belongs to; when it names an HtmlModule
  /// of the same run, the row is part of that module's subtree.
  std::string entry;
  std::string status;      ///< "pass", "warning", "error" or "unmatched"
  std::string npu_dtype;    ///< as the table shows it ("torch.float32")
  std::string bench_dtype;  ///< "" when unmatched
  std::string npu_shape;    ///< as the table shows it ("[2, 3]")
  std::string bench_shape;  ///< "" when unmatched
  // Tensor mode: cosine, max abs and max relative error. Statistics mode
  // (html_dump.hpp): |Max diff| and NormRelativeErr (a fraction), no cosine.
  std::optional<double> cosine;       ///< none when not computed
  std::optional<double> max_abs_err;  ///< statistics mode: |Max diff|
  std::optional<double> max_rel_err;  ///< statistics mode: NormRelativeErr (a fraction)
  std::string message;  ///< the Result's messages (or why the row is unmatched)
  std::optional<std::size_t> stack;  ///< index into HtmlRun::stacks
};

/// A node of the module / API call tree, with its subtree's worst metrics.
struct HtmlModule {
  std::string name;                   ///< the entry name ("Module.layers.0.Layer.forward.0")
  std::optional<std::size_t> parent;  ///< index into HtmlRun::modules; none for a root
  std::optional<double> min_cosine;   ///< lowest cosine of its subtree's outputs
  std::optional<double> max_abs_err;  ///< highest max abs error of its subtree's outputs
  std::string status;  ///< worst status of the rows in its subtree ("pass" when none)
};

/// One rank of one step: its table, its module tree and its first divergence.
struct HtmlRun {
  std::string step;  ///< "step3", or "" for a single step
  int rank = -1;     ///< -1 when the folder is not a rank folder
  std::string label;  ///< "step3/rank0", "rank0", or the folder name
  std::vector<HtmlRow> rows;  ///< execution (dump) order
  std::vector<HtmlModule> modules;  ///< flat tree; a child may come before or after its parent
  std::vector<std::vector<std::string>> stacks;  ///< call stacks, shared by rows (stack.json lines)
  std::vector<std::string> bench_only;           ///< bench items no NPU item matched
  std::optional<std::size_t> first_divergence_row;  ///< index into rows
  std::string first_divergence_name;                 ///< its entry (API / module call)
  std::string first_divergence_origin;  ///< innermost module whose outputs fail while its inputs pass
  std::vector<std::string> first_divergence_messages;  ///< the rules that tripped
};

/// A whole comparison job: one page, every run selectable.
struct HtmlReport {
  std::string title = "tensordiff compare";  ///< page title and heading
  std::string npu_path;    ///< shown in the header
  std::string bench_path;  ///< shown in the header
  std::string mode;        ///< "tensor", "statistics" or "md5" (statistics relabels the error columns)
  std::vector<HtmlRun> runs;  ///< every rank of every step, in step then rank order
  std::optional<std::size_t> first_divergence_run;  ///< the job's first divergence (index into runs)
};

}  // namespace report
TD_NAMESPACE_END
