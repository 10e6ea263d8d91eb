// The CUDA DeviceRuntime (libops/core/device.h) and LaunchContext: host code
// over the CUDA runtime API; registered when the library loads.
#include <nvtx3/nvToolsExt.h>

#include <atomic>
#include <memory>
#include <mutex>
#include <unordered_map>

#include "libops/backends/cuda/cuda_check.h"
#include "libops/backends/cuda/launch_context.h"
#include "libops/core/device.h"

namespace libops::cuda {

Status cuda_error(cudaError_t e, const char* what) {
  const StatusCode code = e == cudaErrorMemoryAllocation ? StatusCode::kOutOfMemory : StatusCode::kDevice;
  return Status::error(code, "%s failed: %s (%s)", what, cudaGetErrorString(e), cudaGetErrorName(e));
}

Status cublas_error(cublasStatus_t e, const char* what) {
  const StatusCode code = e == CUBLAS_STATUS_ALLOC_FAILED ? StatusCode::kOutOfMemory : StatusCode::kDevice;
  return Status::error(code, "%s failed: %s (%s)", what, cublasGetStatusString(e), cublasGetStatusName(e));
}

Status cudnn_error(cudnnStatus_t e, const char* what) {
  const StatusCode code = e == CUDNN_STATUS_ALLOC_FAILED ? StatusCode::kOutOfMemory : StatusCode::kDevice;
  return Status::error(code, "%s failed: %s", what, cudnnGetErrorString(e));
}

// cuSOLVER has no error-string function: the codes its dense API returns.
Status cusolver_error(cusolverStatus_t e, const char* what) {
  const char* name = "unknown cuSOLVER status";
  switch (e) {
    case CUSOLVER_STATUS_NOT_INITIALIZED: name = "CUSOLVER_STATUS_NOT_INITIALIZED"; break;
    case CUSOLVER_STATUS_ALLOC_FAILED: name = "CUSOLVER_STATUS_ALLOC_FAILED"; break;
    case CUSOLVER_STATUS_INVALID_VALUE: name = "CUSOLVER_STATUS_INVALID_VALUE"; break;
    case CUSOLVER_STATUS_ARCH_MISMATCH: name = "CUSOLVER_STATUS_ARCH_MISMATCH"; break;
    case CUSOLVER_STATUS_EXECUTION_FAILED: name = "CUSOLVER_STATUS_EXECUTION_FAILED"; break;
    case CUSOLVER_STATUS_INTERNAL_ERROR: name = "CUSOLVER_STATUS_INTERNAL_ERROR"; break;
    case CUSOLVER_STATUS_NOT_SUPPORTED: name = "CUSOLVER_STATUS_NOT_SUPPORTED"; break;
    default: break;
  }
  const StatusCode code = e == CUSOLVER_STATUS_ALLOC_FAILED ? StatusCode::kOutOfMemory : StatusCode::kDevice;
  return Status::error(code, "%s failed: %s (%d)", what, name, static_cast<int>(e));
}

Status cufft_error(cufftResult e, const char* what) {
  const char* name = "unknown cuFFT result";
  switch (e) {
    case CUFFT_INVALID_PLAN: name = "CUFFT_INVALID_PLAN"; break;
    case CUFFT_ALLOC_FAILED: name = "CUFFT_ALLOC_FAILED"; break;
    case CUFFT_INVALID_VALUE: name = "CUFFT_INVALID_VALUE"; break;
    case CUFFT_INTERNAL_ERROR: name = "CUFFT_INTERNAL_ERROR"; break;
    case CUFFT_EXEC_FAILED: name = "CUFFT_EXEC_FAILED"; break;
    case CUFFT_SETUP_FAILED: name = "CUFFT_SETUP_FAILED"; break;
    case CUFFT_INVALID_SIZE: name = "CUFFT_INVALID_SIZE"; break;
    case CUFFT_NOT_SUPPORTED: name = "CUFFT_NOT_SUPPORTED"; break;
    default: break;
  }
  const StatusCode code = e == CUFFT_ALLOC_FAILED ? StatusCode::kOutOfMemory : StatusCode::kDevice;
  return Status::error(code, "%s failed: %s (%d)", what, name, static_cast<int>(e));
}

namespace {

// cudaGetDeviceCount, remembered: the answer cannot change while the
// process runs, and asking again costs a driver call.
struct DeviceCount {
  int count = 0;
  cudaError_t error = cudaSuccess;
};
const DeviceCount& device_count_once() {
  static const DeviceCount value = [] {
    DeviceCount c;
    c.error = cudaGetDeviceCount(&c.count);
    if (c.error != cudaSuccess) {
      c.count = 0;
      cudaGetLastError();  // clear the sticky error for later calls
    }
    return c;
  }();
  return value;
}

int count_devices() { return device_count_once().count; }

Status check(int index) {
  const DeviceCount& c = device_count_once();
  if (c.error != cudaSuccess)
    return Status::error(StatusCode::kDevice, "cuda:%d: no CUDA device is usable: %s (%s)", index,
                         cudaGetErrorString(c.error), cudaGetErrorName(c.error));
  if (c.count == 0) return Status::error(StatusCode::kDevice, "cuda:%d: no CUDA device is present", index);
  if (index < 0 || index >= c.count)
    return Status::error(StatusCode::kDevice, "cuda:%d does not exist: this machine has %d CUDA device%s", index,
                         c.count, c.count == 1 ? "" : "s");
  return Status::ok();
}

// Device memory comes from the stream-ordered pool, which keeps freed blocks
// for reuse (release threshold raised once per device), so a graph run that
// frees and allocates intermediates does not go to the driver each time.
Status prepare_pool(int index) {
  static std::mutex mu;
  static std::unordered_map<int, bool> done;
  std::lock_guard<std::mutex> lock(mu);
  if (done[index]) return Status::ok();
  cudaMemPool_t pool;
  LIBOPS_CUDA_CHECK(cudaDeviceGetDefaultMemPool(&pool, index));
  uint64_t keep = UINT64_MAX;
  LIBOPS_CUDA_CHECK(cudaMemPoolSetAttribute(pool, cudaMemPoolAttrReleaseThreshold, &keep));
  done[index] = true;
  return Status::ok();
}

Status allocate(int index, size_t bytes, void** out) {
  RETURN_IF_ERROR(check(index));
  LIBOPS_CUDA_CHECK(cudaSetDevice(index));
  RETURN_IF_ERROR(prepare_pool(index));
  void* p = nullptr;
  // On the legacy default stream, which every (blocking) stream of ours
  // orders against: the memory is ready before any later kernel uses it.
  LIBOPS_CUDA_CHECK(cudaMallocAsync(&p, bytes, cudaStreamLegacy));
  *out = p;
  return Status::ok();
}

void release(int index, void* p) {
  // Ordered after all work already queued on blocking streams that may still
  // read or write p; never waits on the host.
  if (cudaSetDevice(index) != cudaSuccess || cudaFreeAsync(p, cudaStreamLegacy) != cudaSuccess)
    cudaGetLastError();  // nothing to report to from a destructor; the process goes on
}

Status copy_to_device(int index, void* dst, const void* src, size_t bytes) {
  LIBOPS_CUDA_CHECK(cudaSetDevice(index));
  LIBOPS_CUDA_CHECK(cudaMemcpy(dst, src, bytes, cudaMemcpyHostToDevice));
  return Status::ok();
}

Status copy_to_host(int index, void* dst, const void* src, size_t bytes) {
  LIBOPS_CUDA_CHECK(cudaSetDevice(index));
  LIBOPS_CUDA_CHECK(cudaMemcpy(dst, src, bytes, cudaMemcpyDeviceToHost));
  return Status::ok();
}

Status synchronize(int index) {
  RETURN_IF_ERROR(check(index));
  LIBOPS_CUDA_CHECK(cudaSetDevice(index));
  LIBOPS_CUDA_CHECK(cudaDeviceSynchronize());
  return Status::ok();
}

void range_push(const char* name) { nvtxRangePushA(name); }
void range_pop() { nvtxRangePop(); }

const DeviceRuntime kCudaRuntime{count_devices, check,       allocate,   release, copy_to_device,
                                 copy_to_host,  synchronize, range_push, range_pop};

[[maybe_unused]] const bool kRegistered = [] {
  register_device_runtime(DeviceType::kCuda, &kCudaRuntime);
  return true;
}();

}  // namespace

// ---- LaunchContext ----

Status LaunchContext::get(int index, LaunchContext** out) {
  thread_local std::unordered_map<int, std::unique_ptr<LaunchContext>> contexts;
  auto it = contexts.find(index);
  if (it != contexts.end()) {
    *out = it->second.get();
    LIBOPS_CUDA_CHECK(cudaSetDevice(index));
    return Status::ok();
  }
  RETURN_IF_ERROR(check(index));
  LIBOPS_CUDA_CHECK(cudaSetDevice(index));
  std::unique_ptr<LaunchContext> c(new LaunchContext());
  c->device_ = index;
  // Blocking (cudaStreamDefault), never cudaStreamNonBlocking: allocate,
  // release and the synchronous copies run on the legacy stream, and only a
  // blocking stream orders against it.
  LIBOPS_CUDA_CHECK(cudaStreamCreateWithFlags(&c->stream_, cudaStreamDefault));
  *out = c.get();
  contexts.emplace(index, std::move(c));
  return Status::ok();
}

Status LaunchContext::cublas(cublasHandle_t* out) {
  if (cublas_ == nullptr) {
    // A handle belongs to the device current when it is made, and a buffer
    // freed or copied on another device since get() may have changed that.
    LIBOPS_CUDA_CHECK(cudaSetDevice(device_));
    cublasHandle_t h = nullptr;
    LIBOPS_CUBLAS_CHECK(cublasCreate(&h));
    const cublasStatus_t s = cublasSetStream(h, stream_);
    if (s != CUBLAS_STATUS_SUCCESS) {
      cublasDestroy(h);
      return cublas_error(s, "cublasSetStream");
    }
    cublas_ = h;
  }
  *out = cublas_;
  return Status::ok();
}

Status LaunchContext::cudnn(cudnnHandle_t* out) {
  if (cudnn_ == nullptr) {
    LIBOPS_CUDA_CHECK(cudaSetDevice(device_));  // as in cublas()
    cudnnHandle_t h = nullptr;
    LIBOPS_CUDNN_CHECK(cudnnCreate(&h));
    const cudnnStatus_t s = cudnnSetStream(h, stream_);
    if (s != CUDNN_STATUS_SUCCESS) {
      cudnnDestroy(h);
      return cudnn_error(s, "cudnnSetStream");
    }
    cudnn_ = h;
  }
  *out = cudnn_;
  return Status::ok();
}

Status LaunchContext::cusolver(cusolverDnHandle_t* out) {
  if (cusolver_ == nullptr) {
    LIBOPS_CUDA_CHECK(cudaSetDevice(device_));  // as in cublas()
    cusolverDnHandle_t h = nullptr;
    LIBOPS_CUSOLVER_CHECK(cusolverDnCreate(&h));
    const cusolverStatus_t s = cusolverDnSetStream(h, stream_);
    if (s != CUSOLVER_STATUS_SUCCESS) {
      cusolverDnDestroy(h);
      return cusolver_error(s, "cusolverDnSetStream");
    }
    cusolver_ = h;
  }
  *out = cusolver_;
  return Status::ok();
}

Status LaunchContext::workspace(size_t bytes, void** out) {
  if (bytes > workspace_bytes_) {
    if (workspace_ != nullptr) cudaFreeAsync(workspace_, stream_);
    workspace_ = nullptr;
    workspace_bytes_ = 0;
    void* p = nullptr;
    RETURN_IF_ERROR(prepare_pool(device_));
    LIBOPS_CUDA_CHECK(cudaMallocAsync(&p, bytes, stream_));
    workspace_ = p;
    workspace_bytes_ = bytes;
  }
  *out = workspace_;
  return Status::ok();
}

LaunchContext::~LaunchContext() {
  // Runs at thread exit; errors cannot be reported and must not throw.
  if (cudaSetDevice(device_) != cudaSuccess) return;
  // Work still queued here may use buffers that other threads free later on
  // the legacy stream: let it finish while its stream still exists, so that
  // ordering never rests on a destroyed stream.
  if (stream_ != nullptr) cudaStreamSynchronize(stream_);
  if (workspace_ != nullptr) cudaFreeAsync(workspace_, stream_);
  if (cusolver_ != nullptr) cusolverDnDestroy(cusolver_);
  if (cudnn_ != nullptr) cudnnDestroy(cudnn_);
  if (cublas_ != nullptr) cublasDestroy(cublas_);
  if (stream_ != nullptr) cudaStreamDestroy(stream_);
}

}  // namespace libops::cuda
