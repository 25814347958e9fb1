// Compares a float32 tensor with its bfloat16 rounding, both on the GPU, as
// one would compare a layer's output of two runs without copying it back.
//
//   td_cuda_compare [n]
#include <tensordiff/backends/cuda.hpp>

#include <cstdio>
#include <cstdlib>

namespace td = tensordiff;

__global__ void fill(float* x, td::bfloat16* y, std::size_t n) {
  for (std::size_t i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += gridDim.x * blockDim.x) {
    x[i] = sinf(0.001f * static_cast<float>(i)) * 10.0f;
    y[i] = td::bfloat16(x[i]);  // the same round-to-nearest-even as the host type
  }
}

int main(int argc, char** argv) {
  const std::size_t n = argc > 1 ? std::strtoull(argv[1], nullptr, 10) : std::size_t{1} << 24;
  try {
    int devices = 0;
    if (cudaGetDeviceCount(&devices) != cudaSuccess || devices == 0) {
      std::puts("no CUDA device: nothing to compare");
      return 0;
    }
    float* x = nullptr;
    td::bfloat16* y = nullptr;
    td::cuda::detail::check(cudaMalloc(&x, n * sizeof(float)), "cudaMalloc");
    td::cuda::detail::check(cudaMalloc(&y, n * sizeof(td::bfloat16)), "cudaMalloc");
    fill<<<1024, 256>>>(x, y, n);
    td::cuda::detail::check(cudaGetLastError(), "fill");

    // Views of device memory: pointer, dtype, shape (strides default to C order).
    const td::Shape shape{static_cast<std::int64_t>(n)};
    const td::TensorView vx(x, td::DType::float32, shape), vy(y, td::DType::bfloat16, shape);
    (void)td::cuda::compare(vx, vy);  // the first call also loads the kernels: keep it out of the timing
    cudaEvent_t start, stop;
    cudaEventCreate(&start);
    cudaEventCreate(&stop);
    cudaEventRecord(start);
    const td::Comparison c = td::cuda::compare(vx, vy);
    cudaEventRecord(stop);
    cudaEventSynchronize(stop);
    float ms = 0;
    cudaEventElapsedTime(&ms, start, stop);

    std::printf("n = %zu, %.3f ms (%.1f GB/s)\n", n, ms, static_cast<double>(n) * 6 / (ms * 1e6));
    std::printf("cosine            %.12f\n", c.cosine.value);
    std::printf("max abs err       %.6g at %llu (%g vs %g)\n", c.max_abs_err.value,
                static_cast<unsigned long long>(c.max_abs_index), c.actual_at_max_abs, c.expected_at_max_abs);
    std::printf("max rel err       %.6g\n", c.max_rel_err.value);
    std::printf("rel err < 0.001   %.6f\n", c.one_thousandth_ratio.value);
    std::printf("rmse              %.6g\n", c.rmse.value);
    cudaFree(x);
    cudaFree(y);
    return 0;
  } catch (const td::Error& e) {
    std::fprintf(stderr, "td_cuda_compare: %s\n", e.what());
    return 1;
  }
}
