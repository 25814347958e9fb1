// TEST DOUBLE control panel for tests/fakes/acl/acl/acl.h (see there).
//
// "Device" memory is host memory the test registers. aclrtMemcpyAsync only
// queues a copy: the destination is poisoned with 0xFF bytes (NaN for floats)
// and filled when aclrtSynchronizeStream runs, so a consumer that reads before
// synchronising sees garbage. With partial copies on, the first half of each
// copy lands at once and the rest at synchronisation. Every call is logged.
#pragma once
#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

#include <acl/acl.h>

namespace fake_acl {

struct Event {
  std::string op;          ///< "malloc_host", "free_host", "memcpy", "sync", or a test's own ("compute")
  int device_id = -1;      ///< memcpy: registered device buffer read
  std::size_t device_offset = 0;
  int host_id = -1;        ///< memcpy / malloc_host / free_host: pinned allocation
  std::size_t host_offset = 0;
  std::size_t bytes = 0;
  std::uint64_t value = 0; ///< free for test events (e.g. first index of a compute)
};

/// Forgets everything (allocations must have been freed) and clears faults.
void reset();
/// Registers [p, p + bytes) as device memory; returns its id.
int register_device(const void* p, std::size_t bytes);

/// The `nth` (1-based) next call of `function` returns `code` and does nothing.
void fail_call(const std::string& function, int nth, aclError code);
void set_partial_copies(bool on);

const std::vector<Event>& log();
void record(const Event& e);  ///< a test's own event, in call order
/// Protocol violations seen (bad pointers, reads of memory being written, frees
/// with copies pending), one line each.
const std::vector<std::string>& violations();
/// True when a queued copy writes into [p, p + bytes).
bool pending_write_overlaps(const void* p, std::size_t bytes);
std::size_t pending_copies();
std::size_t live_host_allocations();
std::size_t peak_host_bytes();

}  // namespace fake_acl
