// compare() for every dtype pair (15 × 15, float8 included), several strided layouts and
// non-finite patterns, against the independent long-double reference.
#include "foundation_reference.hpp"

namespace {
using namespace tdref;

void run_all_pairs(NonFinite nf, std::uint64_t seed) {
  std::mt19937_64 rng(seed);
  const auto& types = real_dtypes();
  int combo = 0;
  for (DType ta : types)
    for (DType tb : types)
      for (int rep = 0; rep < 2; ++rep, ++combo) {
        const std::int64_t rows = 7 + static_cast<std::int64_t>(rng() % 20), cols = 5 + static_cast<std::int64_t>(rng() % 40);
        const Layout la = all_layouts[combo % 6], lb = all_layouts[(combo / 6 + rep) % 6];
        std::vector<long double> va, vb;
        random_pair(ta, tb, static_cast<std::size_t>(rows * cols), nf, rng, va, vb);
        const Held a = make_view(ta, rows, cols, la, va);
        const Held b = make_view(tb, rows, cols, lb, vb);
        const std::string ctx = std::string(dtype_name(ta)) + " vs " + dtype_name(tb) + ", " + layout_name(la) + " vs " +
                                layout_name(lb) + ", shape [" + std::to_string(rows) + ", " + std::to_string(cols) + "]";
        const Comparison c = compare(a.view, b.view);
        const PairRef r = reference_pair(a.view, b.view, 0, static_cast<std::uint64_t>(rows * cols));
        expect_comparison_matches(c, a.view, b.view, r, ctx);
        // the data exercise what the mode promises (a broadcast side keeps
        // only its first row, so its pattern is whatever row 0 holds)
        const bool bc = la == Layout::broadcast || lb == Layout::broadcast;
        if (!bc && nf == NonFinite::mismatching && (is_floating(ta) || is_floating(tb))) {
          EXPECT_GT(r.mismatch, 0u) << ctx;
        }
        if (!bc && nf == NonFinite::matching && is_floating(ta) && is_floating(tb)) {
          EXPECT_EQ(r.mismatch, 0u) << ctx;
          EXPECT_GT(r.a.nan + r.a.pinf + r.a.ninf, 0u) << ctx;
        }
        if (!bc && nf == NonFinite::none) {
          EXPECT_EQ(c.validation, Validation::ok) << ctx;
        }
        if (::testing::Test::HasFailure()) return;  // one failing pair is enough output
      }
}

TEST(ComparePairs, AllDtypePairsFinite) { run_all_pairs(NonFinite::none, 1); }
TEST(ComparePairs, AllDtypePairsMatchingNanInf) { run_all_pairs(NonFinite::matching, 2); }
TEST(ComparePairs, AllDtypePairsMismatchingNanInf) { run_all_pairs(NonFinite::mismatching, 3); }

TEST(ComparePairs, ChunkedAndThreadedAgreeWithReference) {
  std::mt19937_64 rng(4);
  for (DType t : {DType::float32, DType::bfloat16, DType::int64, DType::float64}) {
    std::vector<long double> va, vb;
    random_pair(t, DType::float64, 64 * 129, NonFinite::matching, rng, va, vb);
    const Held a = make_view(t, 64, 129, Layout::transposed, va);
    const Held b = make_view(DType::float64, 64, 129, Layout::sliced, vb);
    CompareOptions o;
    o.chunk_elements = 1000;
    o.threads = 3;
    const Comparison c = compare(a.view, b.view, o);
    expect_comparison_matches(c, a.view, b.view, reference_pair(a.view, b.view, 0, 64 * 129),
                              std::string("chunked ") + dtype_name(t));
  }
}

}  // namespace
