// gemm_batched_on: the CPU's GEMM or the one a device backend registered.
#include <atomic>

#include "blas/gemm.h"

namespace libops::blas {

namespace {
std::atomic<DeviceGemmBatchedFn> g_device_gemm[kNumDeviceTypes];
}  // namespace

void register_device_gemm(DeviceType type, DeviceGemmBatchedFn fn) {
  g_device_gemm[static_cast<int>(type)].store(fn, std::memory_order_release);
}

DeviceGemmBatchedFn device_gemm(DeviceType type) {
  return g_device_gemm[static_cast<int>(type)].load(std::memory_order_acquire);
}

Status gemm_batched_on(Device device, DataType dtype, bool trans_a, bool trans_b, int64_t m, int64_t n, int64_t k,
                       double alpha, const void* a, int64_t lda, int64_t stride_a, const void* b, int64_t ldb,
                       int64_t stride_b, double beta, void* c, int64_t ldc, int64_t stride_c, int64_t batch) {
  if (device.is_cpu())
    return gemm_batched(dtype, trans_a, trans_b, m, n, k, alpha, a, lda, stride_a, b, ldb, stride_b, beta, c, ldc,
                        stride_c, batch);
  RETURN_IF_ERROR(check_device(device));
  const DeviceGemmBatchedFn fn = device_gemm(device.type);
  if (fn == nullptr)
    return Status::error(StatusCode::kNotImplemented, "gemm: no %s implementation (device %s)",
                         device_type_name(device.type), device.str().c_str());
  return fn(device.index, dtype, trans_a, trans_b, m, n, k, alpha, a, lda, stride_a, b, ldb, stride_b, beta, c, ldc,
            stride_c, batch);
}

}  // namespace libops::blas
