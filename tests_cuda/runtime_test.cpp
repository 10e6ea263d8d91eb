// The CUDA runtime of libops: device discovery, the no-device errors,
// host <-> device copies through DataBuffer's sync state, and their order
// against work queued on the LaunchContext's stream.
#include <cuda_runtime_api.h>

#include <cstring>
#include <thread>
#include <vector>

#include "cuda_test_util.h"
#include "libops/array/data_buffer.h"
#include "libops/backends/cuda/launch_context.h"
#include "libops/legacy/legacy.h"
#include "libops/legacy/ops/binary_ops.h"

namespace libops {
namespace {

TEST(CudaRuntime, IsRegisteredInACudaBuild) {
  ASSERT_NE(device_runtime(DeviceType::kCuda), nullptr);
}

TEST(CudaRuntime, WithoutADeviceEveryCudaRequestSaysSo) {
  if (test::cuda_device_present()) GTEST_SKIP() << "a CUDA device is present";
  Status s = check_device(Device::cuda(0));
  EXPECT_EQ(s.code(), StatusCode::kDevice);
  EXPECT_NE(s.message().find("no CUDA device"), std::string::npos) << s.message();

  // A buffer cannot move there, and says why.
  auto b = DataBuffer::allocate(16);
  ASSERT_TRUE(b);
  s = b->sync_to_device(Device::cuda(0));
  EXPECT_EQ(s.code(), StatusCode::kDevice);
  EXPECT_EQ(b->sync(), DataBuffer::Sync::kHostOnly);

  // CPU work is unaffected in a CUDA build.
  NDArray x = test::make(DataType::kFloat32, {3}, {1, 2, 3});
  NDArray z = test::zeros(DataType::kFloat32, {3});
  legacy::LegacyCall call;
  call.group = OPS_PAIRWISE;
  call.num = static_cast<int>(legacy::BinaryOp::add);
  call.x = &x;
  call.y = &x;
  call.z = &z;
  ASSERT_TRUE(legacy::exec(call).is_ok());
  EXPECT_EQ(test::values(z), (std::vector<double>{2, 4, 6}));
}

TEST(CudaRuntime, WithoutADeviceNoLaunchContextIsMade) {
  if (test::cuda_device_present()) GTEST_SKIP() << "a CUDA device is present";
  cuda::LaunchContext* ctx = nullptr;
  Status s = cuda::LaunchContext::get(0, &ctx);
  EXPECT_EQ(s.code(), StatusCode::kDevice);
  EXPECT_NE(s.message().find("no CUDA device"), std::string::npos) << s.message();
  EXPECT_EQ(ctx, nullptr);
}

TEST(CudaRuntime, IndexPastTheLastDeviceIsAnError) {
  REQUIRE_CUDA_DEVICE();
  const int n = device_runtime(DeviceType::kCuda)->device_count();
  Status s = check_device(Device::cuda(n));
  EXPECT_EQ(s.code(), StatusCode::kDevice);
  EXPECT_NE(s.message().find("does not exist"), std::string::npos) << s.message();
}

TEST(CudaRuntime, BufferRoundTripCopiesOnlyWhenStale) {
  REQUIRE_CUDA_DEVICE();
  auto b = DataBuffer::allocate(4 * sizeof(float));
  ASSERT_TRUE(b);
  float* h = static_cast<float*>(b->host());
  for (int i = 0; i < 4; ++i) h[i] = 1.5f * static_cast<float>(i);
  ASSERT_TRUE(b->sync_to_device(Device::cuda(0)).is_ok());
  EXPECT_EQ(b->sync(), DataBuffer::Sync::kInSync);
  ASSERT_NE(b->device_data(), nullptr);
  float back[4] = {};
  ASSERT_EQ(cudaMemcpy(back, b->device_data(), sizeof back, cudaMemcpyDeviceToHost), cudaSuccess);
  for (int i = 0; i < 4; ++i) EXPECT_EQ(back[i], 1.5f * static_cast<float>(i));

  // Written on the device: the host copy is refreshed by sync_to_host only.
  const float written[4] = {9, 8, 7, 6};
  ASSERT_EQ(cudaMemcpy(b->device_data(), written, sizeof written, cudaMemcpyHostToDevice), cudaSuccess);
  b->mark_device_written();
  EXPECT_EQ(h[0], 0.0f);
  ASSERT_TRUE(b->sync_to_host().is_ok());
  for (int i = 0; i < 4; ++i) EXPECT_EQ(h[i], written[i]);
}

// Queues some milliseconds of memory traffic on `stream`, so that work
// queued after it is still pending when the host acts next.
void queue_busy_work(cudaStream_t stream) {
  constexpr size_t kBytes = size_t{256} << 20;
  void* scratch = nullptr;
  ASSERT_EQ(cudaMallocAsync(&scratch, kBytes, stream), cudaSuccess);
  for (int i = 0; i < 16; ++i) ASSERT_EQ(cudaMemsetAsync(scratch, i, kBytes, stream), cudaSuccess);
  ASSERT_EQ(cudaFreeAsync(scratch, stream), cudaSuccess);
}

TEST(CudaRuntime, ContextStreamIsBlockingAndPerThread) {
  REQUIRE_CUDA_DEVICE();
  cuda::LaunchContext* a = nullptr;
  cuda::LaunchContext* again = nullptr;
  ASSERT_OK(cuda::LaunchContext::get(0, &a));
  ASSERT_OK(cuda::LaunchContext::get(0, &again));
  EXPECT_EQ(a, again);
  unsigned int flags = 123;
  ASSERT_EQ(cudaStreamGetFlags(a->stream(), &flags), cudaSuccess);
  EXPECT_EQ(flags, static_cast<unsigned int>(cudaStreamDefault));  // orders against the legacy stream
  cudaStream_t other = nullptr;
  std::thread([&] {
    cuda::LaunchContext* b = nullptr;
    if (cuda::LaunchContext::get(0, &b).is_ok()) other = b->stream();
  }).join();
  EXPECT_NE(other, nullptr);
  EXPECT_NE(other, a->stream());
}

TEST(CudaRuntime, HostReadWaitsForWorkQueuedOnTheStream) {
  REQUIRE_CUDA_DEVICE();
  cuda::LaunchContext* ctx = nullptr;
  ASSERT_OK(cuda::LaunchContext::get(0, &ctx));
  constexpr size_t kBytes = size_t{1} << 20;
  auto b = DataBuffer::allocate(kBytes);
  ASSERT_TRUE(b);
  std::memset(b->host(), 1, kBytes);
  ASSERT_OK(b->sync_to_device(Device::cuda(0)));
  queue_busy_work(ctx->stream());
  ASSERT_EQ(cudaMemsetAsync(b->device_data(), 7, kBytes, ctx->stream()), cudaSuccess);
  b->mark_device_written();
  ASSERT_OK(b->sync_to_host());
  const unsigned char* h = static_cast<const unsigned char*>(b->host());
  EXPECT_EQ(h[0], 7);
  EXPECT_EQ(h[kBytes - 1], 7);
}

TEST(CudaRuntime, BufferFreedWhileQueuedWorkUsesItIsFreedAfterThatWork) {
  REQUIRE_CUDA_DEVICE();
  cuda::LaunchContext* ctx = nullptr;
  ASSERT_OK(cuda::LaunchContext::get(0, &ctx));
  constexpr size_t kBytes = size_t{1} << 20;
  auto first = DataBuffer::allocate(kBytes);
  ASSERT_TRUE(first);
  ASSERT_OK(first->sync_to_device(Device::cuda(0), /*overwrite=*/true));
  queue_busy_work(ctx->stream());
  ASSERT_EQ(cudaMemsetAsync(first->device_data(), 0x11, kBytes, ctx->stream()), cudaSuccess);
  first.reset();  // the memset above is still queued
  // The pool may hand the same memory to the next buffer: the late memset
  // must not land on it.
  auto second = DataBuffer::allocate(kBytes);
  ASSERT_TRUE(second);
  std::memset(second->host(), 0x22, kBytes);
  ASSERT_OK(second->sync_to_device(Device::cuda(0)));
  ASSERT_EQ(cudaDeviceSynchronize(), cudaSuccess);
  std::vector<unsigned char> back(kBytes);
  ASSERT_EQ(cudaMemcpy(back.data(), second->device_data(), kBytes, cudaMemcpyDeviceToHost), cudaSuccess);
  EXPECT_EQ(back[0], 0x22);
  EXPECT_EQ(back[kBytes / 2], 0x22);
  EXPECT_EQ(back[kBytes - 1], 0x22);
}

TEST(CudaRuntime, ThreadExitWithWorkQueuedAndHandlesMadeLosesNothing) {
  REQUIRE_CUDA_DEVICE();
  constexpr size_t kBytes = size_t{1} << 20;
  auto b = DataBuffer::allocate(kBytes);
  ASSERT_TRUE(b);
  std::memset(b->host(), 1, kBytes);
  ASSERT_OK(b->sync_to_device(Device::cuda(0)));
  Status in_thread;
  std::thread([&] {
    cuda::LaunchContext* ctx = nullptr;
    in_thread = cuda::LaunchContext::get(0, &ctx);
    cublasHandle_t blas = nullptr;
    cudnnHandle_t dnn = nullptr;
    cusolverDnHandle_t solver = nullptr;
    void* ws = nullptr;
    if (in_thread.is_ok()) in_thread = ctx->cublas(&blas);
    if (in_thread.is_ok()) in_thread = ctx->cudnn(&dnn);
    if (in_thread.is_ok()) in_thread = ctx->cusolver(&solver);
    if (in_thread.is_ok()) in_thread = ctx->workspace(4096, &ws);
    if (!in_thread.is_ok()) return;
    queue_busy_work(ctx->stream());
    if (cudaMemsetAsync(b->device_data(), 9, kBytes, ctx->stream()) != cudaSuccess)
      in_thread = Status::error(StatusCode::kDevice, "cudaMemsetAsync failed");
    b->mark_device_written();
  }).join();  // the thread's context (stream, handles, workspace) is gone now
  ASSERT_OK(in_thread);
  ASSERT_OK(b->sync_to_host());
  const unsigned char* h = static_cast<const unsigned char*>(b->host());
  EXPECT_EQ(h[0], 9);
  EXPECT_EQ(h[kBytes - 1], 9);
  EXPECT_EQ(cudaGetLastError(), cudaSuccess);
}

}  // namespace
}  // namespace libops
