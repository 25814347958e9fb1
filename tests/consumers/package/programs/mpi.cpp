// tensordiff::mpi: the dump compare over an MPI communicator (run as a
// singleton here: one process) gives run_compare's table.
#include <tensordiff/distributed/mpi.hpp>
#include <tensordiff/io/npy.hpp>

#include <cstdio>
#include <filesystem>
#include <vector>

namespace td = tensordiff;

int main(int argc, char** argv) {
  int provided = 0;
  MPI_Init_thread(&argc, &argv, MPI_THREAD_SERIALIZED, &provided);
  const std::vector<float> a = {1, 2, 3, 4}, b = {1, 2, 3, 5};
  for (const char* side : {"consumer_mpi_npu", "consumer_mpi_bench"}) std::filesystem::create_directories(side);
  td::io::save_npy("consumer_mpi_npu/x.npy", td::TensorView::of(a.data(), {4}));
  td::io::save_npy("consumer_mpi_bench/x.npy", td::TensorView::of(b.data(), {4}));
  td::match::CompareRequest req;
  req.npu = "consumer_mpi_npu";
  req.bench = "consumer_mpi_bench";
  const auto r = td::distributed::mpi_compare(req, MPI_COMM_WORLD);
  const auto plain = td::match::run_compare(req);
  bool ok = r && r->ranks.size() == 1 && r->ranks[0].rows.size() == 1;
  if (ok) {
    const auto &x = r->ranks[0].rows[0], &y = plain.ranks[0].rows[0];
    ok = x.compared && x.metrics[td::match::max_abs_err].value == 1.0 && x.metrics[td::match::cosine].value == y.metrics[td::match::cosine].value;
  }
  std::printf("mpi: %s, %s\n", td::distributed::mpi_library_version().c_str(), ok ? "same table" : "DIFFERENT");
  MPI_Finalize();
  return ok ? 0 : 1;
}
