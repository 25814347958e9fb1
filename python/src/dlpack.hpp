// tensordiff Python module — the DLPack ABI (dlpack.h v0.8, which torch 1.13
// exports, plus DLPack 1.0's float8 codes). The header is not packaged for
// Debian, and the layout is fixed by the standard.
#pragma once
#include <cstdint>

namespace tdpy::dlpack {

struct DLDevice {
  std::int32_t device_type;
  std::int32_t device_id;
};
struct DLDataType {
  std::uint8_t code;
  std::uint8_t bits;
  std::uint16_t lanes;
};
struct DLTensor {
  void* data;
  DLDevice device;
  std::int32_t ndim;
  DLDataType dtype;
  std::int64_t* shape;
  std::int64_t* strides;  // in elements; null = C-contiguous
  std::uint64_t byte_offset;
};
struct DLManagedTensor {
  DLTensor dl_tensor;
  void* manager_ctx;
  void (*deleter)(DLManagedTensor*);
};
enum : std::int32_t { kDLCPU = 1, kDLCUDA = 2, kDLCUDAHost = 3, kDLROCMHost = 11 };
enum : std::uint8_t { kDLInt = 0, kDLUInt = 1, kDLFloat = 2, kDLBfloat = 4, kDLComplex = 5, kDLBool = 6 };
// DLPack 1.0's float8 codes (7..14); tensordiff holds the two OCP formats torch has.
enum : std::uint8_t { kDLFloat8_e4m3fn = 10, kDLFloat8_e5m2 = 12 };

}  // namespace tdpy::dlpack
