// `tensordiff stat | ls | diff`: single files and tensor pairs.
#include <cstdio>
#include <iostream>
#include <tensordiff/io/registry.hpp>
#include <tensordiff/io/npy.hpp>
#include <tensordiff/metrics/compare.hpp>
#include <tensordiff/metrics/difference.hpp>
#include <tensordiff/metrics/standards.hpp>
#include <tensordiff/report/json.hpp>
#include <tensordiff/report/text.hpp>
#include <tensordiff/version.hpp>

#include "commands.hpp"

namespace td = tensordiff;

namespace cli {
namespace {

td::io::LoadOptions options_of(const ReadArgs& r) {
  td::io::LoadOptions o;
  o.allow_pipes = true;  // `tensordiff stat <(...)` reads the pipe; named FIFOs without a writer read as empty
  o.verify_crc = !r.no_crc_check;
  o.allow_opaque = r.allow_opaque;
  if (r.as == "bfloat16") o.bf16 = td::io::Bf16Hint::bfloat16;
  if (r.as == "float8_e4m3fn" || r.as == "float8_e5m2") o.void1_as = td::parse_dtype(r.as);
  return o;
}

std::vector<td::io::LoadedTensor> load_all(const std::string& spec, const ReadArgs& r) {
  if (spec.find("::") != std::string::npos) {
    std::vector<td::io::LoadedTensor> one;
    one.push_back(td::io::load_one(spec, options_of(r)));
    return one;
  }
  return td::io::load(spec, options_of(r));
}

std::string label(const td::io::LoadedTensor& t) { return t.path.empty() ? "(root)" : t.path; }

std::string strides_text(const td::TensorView& v) {
  std::string s = "(";
  for (std::size_t i = 0; i < v.strides.size(); ++i) s += (i ? ", " : "") + std::to_string(v.strides[i]);
  return s + (v.strides.size() == 1 ? ",)" : ")");
}

std::string text_value(const nlohmann::json& j) {
  if (j.is_null()) return "-";
  if (j.is_string()) return j.get<std::string>();
  if (j.is_number_float()) {
    char buf[40];
    std::snprintf(buf, sizeof buf, "%.9g", j.get<double>());
    return buf;
  }
  return j.dump();
}

void print_stat_text(const nlohmann::json& j) {
  std::cout << (j["path"].get<std::string>().empty() ? "(root)" : j["path"].get<std::string>()) << "  "
            << j["dtype"].get<std::string>() << " " << j["shape"].dump() << "  numel " << j["numel"] << "\n";
  for (const char* k : {"min", "max", "finite_min", "finite_max", "mean", "sum", "l2norm", "nan_count", "inf_count"})
    std::cout << "  " << k << std::string(12 - std::string(k).size(), ' ') << text_value(j[k]) << "\n";
  std::cout << "  md5         " << j["md5"].get<std::string>() << "\n  crc32       " << j["crc32"].get<std::string>() << "\n";
  if (j["overflow"].is_object())
    std::cout << "  overflow    nan/inf " << j["overflow"]["nan_inf"] << ", float16 range " << j["overflow"]["float16"]
              << ", bfloat16 range " << j["overflow"]["bfloat16"] << "\n";
}

/// One tensor from FILE or FILE::PATH (a container must hold exactly one when no PATH is given).
td::io::LoadedTensor load_single(const std::string& spec, const ReadArgs& r) {
  auto all = load_all(spec, r);
  if (all.size() != 1)
    throw td::Error(td::ErrorCategory::invalid_argument,
                    "holds " + std::to_string(all.size()) + " tensors; select one with FILE::PATH (see `tensordiff ls`)",
                    {spec, "", std::nullopt});
  return std::move(all.front());
}

}  // namespace

int run_stat(const StatArgs& a) {
  nlohmann::json out = nlohmann::json::array();
  for (const auto& t : load_all(a.file, a.read)) out.push_back(td::report::stat_json(t.tensor.view(), t.path));
  if (a.json) {
    std::cout << out.dump(2) << "\n";
  } else {
    for (const auto& j : out) print_stat_text(j);
  }
  return 0;
}

int run_ls(const LsArgs& a) {
  for (const auto& t : load_all(a.file, a.read)) {
    const td::TensorView& v = t.tensor.view();
    std::cout << label(t) << "  " << td::dtype_name(v.dtype) << " " << td::shape_to_string(v.shape);
    if (!t.meta.storage_key.empty())
      std::cout << "  storage " << t.meta.storage_key << " offset " << t.meta.storage_offset << " strides "
                << strides_text(v);
    if (!t.meta.location.empty()) std::cout << "  " << t.meta.location;
    if (t.meta.is_parameter) std::cout << "  parameter";
    if (t.meta.requires_grad) std::cout << "  requires_grad";
    std::cout << "\n";
  }
  return 0;
}

int run_diff(const DiffArgs& a) {
  const auto ta = load_single(a.a, a.read), tb = load_single(a.b, a.read);
  const td::TensorView& va = ta.tensor.view();
  const td::TensorView& vb = tb.tensor.view();
  const td::Standard standard = td::standard_from_name(a.standard, a.rtol, a.atol);
  td::CompareOptions opt;
  opt.threads = 0;
  opt.metrics = td::metric_set_from_names(a.metrics);
  const td::Comparison c = td::compare(va, vb, opt);
  const td::Verdict verdict = standard.check(va, vb);
  if (!a.save_diff.empty()) td::io::save_npy(a.save_diff, td::difference(va, vb).view());

  if (a.json) {
    nlohmann::json j = td::report::comparison_json(c);
    j["standard"] = {{"name", verdict.standard},
                     {"description", verdict.description},
                     {"verdict", td::to_string(verdict.level)},
                     {"mismatched", verdict.mismatched},
                     {"reasons", verdict.reasons}};
    j["a"] = td::report::stat_json(va, ta.path);
    j["b"] = td::report::stat_json(vb, tb.path);
    std::cout << j.dump(2) << "\n";
  } else {
    const nlohmann::json j = td::report::comparison_json(c);
    std::cout << "a: " << a.a << "  " << td::dtype_name(va.dtype) << " " << td::shape_to_string(va.shape) << "\n"
              << "b: " << a.b << "  " << td::dtype_name(vb.dtype) << " " << td::shape_to_string(vb.shape) << "\n";
    for (const char* k : {"cosine", "euc_dist", "max_abs_err", "max_rel_err", "mean_abs_err", "mean_rel_err", "rmse",
                          "one_thousandth_err_ratio", "five_thousandths_err_ratio"})
      std::cout << "  " << k << std::string(28 - std::string(k).size(), ' ') << text_value(j[k]) << "\n";
    if (c.max_abs_index != td::no_index)
      std::cout << "  max_abs_err at " << td::report::index_tuple(va.squeezed().shape, c.max_abs_index) << ": a = "
                << text_value(td::report::number(c.actual_at_max_abs)) << ", b = " << text_value(td::report::number(c.expected_at_max_abs))
                << "\n";
    std::cout << "  nan/inf positions " << (c.nonfinite_positions_match ? "agree" : "differ") << "\n";
    for (const auto& m : c.messages) std::cout << "  note: " << m << "\n";
    std::cout << "verdict: " << td::to_string(verdict.level) << " — " << verdict.description << "\n";
    if (!verdict.passed() || verdict.level == td::VerdictLevel::warning) std::cout << td::report::format_verdict(verdict) << "\n";
  }
  const bool failed = !verdict.passed() || (a.strict && verdict.level == td::VerdictLevel::warning);
  return failed ? 1 : 0;
}

}  // namespace cli

std::string cli::kernel_text() {
  return std::string("kernel: ") + tensordiff::kernels::default_kernel_description() + "\nabi: " + tensordiff::abi_tag();
}
