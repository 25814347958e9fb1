// TEST DOUBLE implementation of the ACL calls in acl/acl.h (see there).
#include "fake_acl.hpp"

#include <algorithm>
#include <cstring>
#include <map>

namespace fake_acl {
namespace {

struct Copy {
  unsigned char* dst;
  const unsigned char* src;
  std::size_t bytes, done;
};

struct State {
  std::map<const unsigned char*, std::size_t> host;    // pinned allocations
  std::map<const unsigned char*, int> host_ids;
  std::vector<std::pair<const unsigned char*, std::size_t>> devices;
  std::vector<Copy> pending;
  std::vector<Event> log;
  std::vector<std::string> violations;
  std::map<std::string, std::pair<int, aclError>> faults;  // function -> (calls left, code)
  bool partial = false;
  int next_host_id = 0;
  std::size_t host_bytes = 0, peak = 0;
};

State& st() {
  static State s;
  return s;
}

/// Returns the injected code when this call of `fn` is the one to fail.
aclError injected(const char* fn) {
  auto it = st().faults.find(fn);
  if (it == st().faults.end()) return ACL_SUCCESS;
  if (--it->second.first > 0) return ACL_SUCCESS;
  const aclError code = it->second.second;
  st().faults.erase(it);
  return code;
}

bool find_host(const void* p, std::size_t bytes, int& id, std::size_t& off) {
  const auto* q = static_cast<const unsigned char*>(p);
  for (const auto& [base, size] : st().host)
    if (q >= base && q + bytes <= base + size) {
      id = st().host_ids[base];
      off = static_cast<std::size_t>(q - base);
      return true;
    }
  return false;
}

bool find_device(const void* p, std::size_t bytes, int& id, std::size_t& off) {
  const auto* q = static_cast<const unsigned char*>(p);
  for (std::size_t i = 0; i < st().devices.size(); ++i) {
    const auto [base, size] = st().devices[i];
    if (q >= base && q + bytes <= base + size) {
      id = static_cast<int>(i);
      off = static_cast<std::size_t>(q - base);
      return true;
    }
  }
  return false;
}

}  // namespace

void reset() { st() = State{}; }

int register_device(const void* p, std::size_t bytes) {
  st().devices.emplace_back(static_cast<const unsigned char*>(p), bytes);
  return static_cast<int>(st().devices.size() - 1);
}

void fail_call(const std::string& function, int nth, aclError code) { st().faults[function] = {nth, code}; }
void set_partial_copies(bool on) { st().partial = on; }
const std::vector<Event>& log() { return st().log; }
void record(const Event& e) { st().log.push_back(e); }
const std::vector<std::string>& violations() { return st().violations; }
std::size_t pending_copies() { return st().pending.size(); }
std::size_t live_host_allocations() { return st().host.size(); }
std::size_t peak_host_bytes() { return st().peak; }

bool pending_write_overlaps(const void* p, std::size_t bytes) {
  const auto* q = static_cast<const unsigned char*>(p);
  for (const Copy& c : st().pending)
    if (q < c.dst + c.bytes && c.dst < q + bytes) return true;
  return false;
}

}  // namespace fake_acl

using namespace fake_acl;

extern "C" aclError aclrtMallocHost(void** hostPtr, size_t size) {
  if (aclError e = injected("aclrtMallocHost")) return e;
  if (!hostPtr || size == 0) return ACL_ERROR_INVALID_PARAM;
  auto* p = new unsigned char[size];
  st().host[p] = size;
  const int id = st().next_host_id++;
  st().host_ids[p] = id;
  st().host_bytes += size;
  st().peak = std::max(st().peak, st().host_bytes);
  *hostPtr = p;
  Event e{"malloc_host"};
  e.host_id = id;
  e.bytes = size;
  st().log.push_back(e);
  return ACL_SUCCESS;
}

extern "C" aclError aclrtFreeHost(void* hostPtr) {
  if (aclError e = injected("aclrtFreeHost")) return e;
  auto* p = static_cast<unsigned char*>(hostPtr);
  auto it = st().host.find(p);
  if (it == st().host.end()) {
    st().violations.push_back("aclrtFreeHost of a pointer aclrtMallocHost did not return");
    return ACL_ERROR_INVALID_PARAM;
  }
  if (pending_write_overlaps(p, it->second)) {
    st().violations.push_back("aclrtFreeHost while a copy into it is pending");
    auto& q = st().pending;  // drop them: the memory is gone
    q.erase(std::remove_if(q.begin(), q.end(), [&](const Copy& c) { return c.dst >= p && c.dst < p + it->second; }), q.end());
  }
  Event e{"free_host"};
  e.host_id = st().host_ids[p];
  e.bytes = it->second;
  st().log.push_back(e);
  st().host_bytes -= it->second;
  st().host.erase(it);
  st().host_ids.erase(p);
  delete[] p;
  return ACL_SUCCESS;
}

extern "C" aclError aclrtMemcpyAsync(void* dst, size_t destMax, const void* src, size_t count, aclrtMemcpyKind kind,
                                     aclrtStream) {
  if (aclError e = injected("aclrtMemcpyAsync")) return e;
  Event e{"memcpy"};
  e.bytes = count;
  if (kind != ACL_MEMCPY_DEVICE_TO_HOST || count > destMax || !find_host(dst, count, e.host_id, e.host_offset) ||
      !find_device(src, count, e.device_id, e.device_offset)) {
    st().violations.push_back("aclrtMemcpyAsync: not a device-to-host copy from registered device memory into "
                              "pinned memory of at least destMax bytes");
    return ACL_ERROR_INVALID_PARAM;
  }
  st().log.push_back(e);
  Copy c{static_cast<unsigned char*>(dst), static_cast<const unsigned char*>(src), count, 0};
  std::memset(c.dst, 0xff, count);
  if (st().partial) {
    c.done = count / 2;
    std::memcpy(c.dst, c.src, c.done);
  }
  st().pending.push_back(c);
  return ACL_SUCCESS;
}

extern "C" aclError aclrtSynchronizeStream(aclrtStream) {
  if (aclError e = injected("aclrtSynchronizeStream")) return e;
  for (const Copy& c : st().pending) std::memcpy(c.dst + c.done, c.src + c.done, c.bytes - c.done);
  st().pending.clear();
  st().log.push_back(Event{"sync"});
  return ACL_SUCCESS;
}
