// TEST DOUBLE — not the CANN runtime. Declares exactly the ACL types and
// functions that include/tensordiff/backends/npu.hpp uses, with the signatures
// of CANN's acl/acl_base.h and acl/acl_rt.h, so the adapter compiles and runs
// in CI without an Ascend toolkit. The implementation (fake_acl.cpp) works on
// host memory; fake_acl.hpp is its control panel (fault injection, call log).
// A real build puts ${ASCEND_TOOLKIT_HOME}/include first on the include path
// instead and links libascendcl.so.
#ifndef TD_FAKE_ACL_ACL_H_
#define TD_FAKE_ACL_ACL_H_
#include <stddef.h>

#ifdef __cplusplus
extern "C" {
#endif

typedef int aclError;
typedef void* aclrtStream;

static const int ACL_SUCCESS = 0;
static const int ACL_ERROR_INVALID_PARAM = 100000;

typedef enum aclrtMemcpyKind {
  ACL_MEMCPY_HOST_TO_HOST,
  ACL_MEMCPY_HOST_TO_DEVICE,
  ACL_MEMCPY_DEVICE_TO_HOST,
  ACL_MEMCPY_DEVICE_TO_DEVICE,
} aclrtMemcpyKind;

aclError aclrtMallocHost(void** hostPtr, size_t size);
aclError aclrtFreeHost(void* hostPtr);
aclError aclrtMemcpyAsync(void* dst, size_t destMax, const void* src, size_t count, aclrtMemcpyKind kind,
                          aclrtStream stream);
aclError aclrtSynchronizeStream(aclrtStream stream);

#ifdef __cplusplus
}
#endif
#endif  // TD_FAKE_ACL_ACL_H_
