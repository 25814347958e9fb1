// tensordiff — dump comparison over MPI (link tensordiff::mpi; not part of
// the umbrella header).
//
//   #include <tensordiff/distributed/mpi.hpp>
//   int provided;
//   MPI_Init_thread(&argc, &argv, MPI_THREAD_SERIALIZED, &provided);
//   td::match::CompareRequest req;  req.npu = "npu_dump";  req.bench = "bench_dump";
//   std::optional<td::match::DumpComparison> r = td::distributed::mpi_compare(req, MPI_COMM_WORLD);
//   if (r) { /* process 0: the whole comparison, as run_compare(req) would give */ }
//   MPI_Finalize();
//
// Process 0 receives on a second thread while its main thread computes, so
// MPI must run at MPI_THREAD_SERIALIZED or above. Messages travel on a
// duplicate of the given communicator, never mixing with the caller's.
#pragma once
#include <mpi.h>

#include <limits>
#include <string>
#include <utility>

#include "run.hpp"

TD_NAMESPACE_BEGIN
namespace distributed {

/// A Channel over an MPI communicator (point-to-point messages to process 0).
class MpiChannel : public Channel {
 public:
  /// Uses `comm` as it is (mpi_compare() passes a duplicate).
  explicit MpiChannel(MPI_Comm comm) : comm_(comm) {
    MPI_Comm_size(comm_, &size_);
    MPI_Comm_rank(comm_, &rank_);
  }
  int size() const override { return size_; }
  int index() const override { return rank_; }
  void send(const std::string& bytes) override {
    if (bytes.size() > static_cast<std::size_t>(std::numeric_limits<int>::max()))
      throw Error(ErrorCategory::invalid_argument, "MPI message over 2 GiB");
    MPI_Send(bytes.data(), static_cast<int>(bytes.size()), MPI_BYTE, 0, tag, comm_);
  }
  std::pair<int, std::string> receive() override {
    MPI_Status st;
    MPI_Probe(MPI_ANY_SOURCE, tag, comm_, &st);
    int n = 0;
    MPI_Get_count(&st, MPI_BYTE, &n);
    std::string bytes(static_cast<std::size_t>(n), '\0');
    MPI_Recv(bytes.data(), n, MPI_BYTE, st.MPI_SOURCE, tag, comm_, MPI_STATUS_IGNORE);
    return {st.MPI_SOURCE, std::move(bytes)};
  }

 private:
  static constexpr int tag = 7311;
  MPI_Comm comm_;
  int size_ = 1, rank_ = 0;
};

/// Runs `req` over the processes of `comm` (collective: every process calls
/// it with the same request). Process 0 gets the comparison; the others get
/// nullopt. Throws Error on process 0 when the input is bad or another
/// process failed: end the job then (MPI_Abort), as the others may wait.
inline std::optional<match::DumpComparison> mpi_compare(const match::CompareRequest& req, MPI_Comm comm = MPI_COMM_WORLD) {
  int provided = MPI_THREAD_SINGLE;
  MPI_Query_thread(&provided);
  int size = 1;
  MPI_Comm_size(comm, &size);
  if (size > 1 && provided < MPI_THREAD_SERIALIZED)
    throw Error(ErrorCategory::invalid_argument, "mpi_compare needs MPI_Init_thread(..., MPI_THREAD_SERIALIZED or more, ...)");
  MPI_Comm dup;
  MPI_Comm_dup(comm, &dup);
  MpiChannel ch(dup);
  // On an exception the duplicate stays: process 0's receiver may still use it until the job ends.
  std::optional<match::DumpComparison> r = distributed_compare(req, ch);
  MPI_Comm_free(&dup);
  return r;
}

/// "Open MPI v4.1.4, …": the MPI library this program runs with.
inline std::string mpi_library_version() {
  char buf[MPI_MAX_LIBRARY_VERSION_STRING];
  int n = 0;
  MPI_Get_library_version(buf, &n);
  std::string s(buf, static_cast<std::size_t>(n));
  const auto cut = s.find_first_of(",\n");
  return cut == std::string::npos ? s : s.substr(0, cut);
}

}  // namespace distributed
TD_NAMESPACE_END
