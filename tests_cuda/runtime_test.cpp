// The CUDA runtime of libops: device discovery, the no-device errors, and
// host <-> device copies through DataBuffer's sync state.
#include <cuda_runtime_api.h>

#include <vector>

#include "cuda_test_util.h"
#include "libops/array/data_buffer.h"
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

}  // namespace
}  // namespace libops
