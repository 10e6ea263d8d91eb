// The random ops on cuda:0 against the same calls on the CPU, which
// tests_cpu checks against numpy (Note [Threefry random numbers] in
// libops/ops/random/threefry.h): a seed draws the same numbers on both, bit
// for bit, for every op, dtype and layout of z, at sizes that fill many
// blocks of the grid-stride kernels. golden_ops_test.cpp runs the goldens
// themselves on the GPU.
#include <numeric>
#include <vector>

#include "cuda_test_util.h"
#include "op_test_util.h"

namespace libops {
namespace {

using test::make;
using test::values;

// Runs `op` on the CPU and on cuda:0; every output must be equal, with its
// newest copy on the device.
void expect_same_on_gpu(const char* op, const test::OpCall& call) {
  SCOPED_TRACE(op);
  Context cpu, gpu;
  ASSERT_OK(test::run_op(op, call, cpu));
  gpu.set_device(Device::cuda(0));
  ASSERT_OK(test::run_op(op, call, gpu));
  ASSERT_EQ(cpu.num_outputs(), gpu.num_outputs());
  for (int i = 0; i < gpu.num_outputs(); ++i) {
    if (gpu.output(i)->length() > 0) {
      EXPECT_EQ(gpu.output(i)->buffer()->sync(), DataBuffer::Sync::kDeviceNewer);
    }
    ASSERT_OK(gpu.output(i)->buffer()->sync_to_host());
    EXPECT_EQ(gpu.output(i)->shape(), cpu.output(i)->shape());
    EXPECT_EQ(gpu.output(i)->dtype(), cpu.output(i)->dtype());
    EXPECT_EQ(values(*gpu.output(i)), values(*cpu.output(i))) << "output " << i;
  }
}

TEST(CudaRandomOps, UniformNormalBernoulliMatchTheCpu) {
  REQUIRE_CUDA_DEVICE();
  for (DataType t : {DataType::kFloat32, DataType::kFloat64, DataType::kFloat16, DataType::kBFloat16}) {
    SCOPED_TRACE(dtype_name(t));
    expect_same_on_gpu("random_uniform", {.t = {-2.5, 4.0}, .i = {42, 1000, 333}, .d = {t}});
    expect_same_on_gpu("random_normal", {.t = {1.5, 3.0}, .i = {-7, 1000, 333}, .d = {t}});
  }
  expect_same_on_gpu("random_uniform", {.i = {int64_t{1} << 40, 7}});
  for (DataType t : {DataType::kFloat32, DataType::kBool, DataType::kInt8, DataType::kFloat64})
    expect_same_on_gpu("random_bernoulli", {.t = {0.3}, .i = {9, 4096, 17}, .d = {t}});
  NDArray shape = make(DataType::kInt32, {2}, {64, 65});
  expect_same_on_gpu("random_normal", {.in = {&shape}, .i = {3}});
}

TEST(CudaRandomOps, StridedOutputsMatchTheCpu) {
  REQUIRE_CUDA_DEVICE();
  NDArray f = test::zeros(DataType::kFloat64, {70, 50}), zt, want;
  ASSERT_OK(f.permute({1, 0}, zt));  // [50, 70], F order
  Context cpu, gpu;
  const test::OpCall call = {.i = {5, 50, 70}, .d = {DataType::kFloat64}};
  ASSERT_OK(test::run_op("random_normal", call, cpu));
  gpu.set_device(Device::cuda(0));
  test::OpCall into = call;
  into.out = {&zt};
  ASSERT_OK(test::run_op("random_normal", into, gpu));
  ASSERT_OK(zt.buffer()->sync_to_host());
  EXPECT_EQ(values(zt), values(*cpu.output(0)));
}

TEST(CudaRandomOps, Threefry2x32MatchesTheCpu) {
  REQUIRE_CUDA_DEVICE();
  std::vector<double> words(2 * 3000);
  for (size_t k = 0; k < words.size(); ++k) words[k] = static_cast<double>((k * 2654435761u) & 0xffffffffu);
  NDArray ctr = make(DataType::kUInt32, {1000, 3, 2}, words);
  NDArray key = make(DataType::kUInt32, {3, 2}, {1, 2, 3, 4, 0xffffffff, 0});
  NDArray key_i = make(DataType::kInt32, {1000, 1, 2}, std::vector<double>(2000, -5));
  expect_same_on_gpu("threefry2x32", {.in = {&key, &ctr}});
  expect_same_on_gpu("threefry2x32", {.in = {&key_i, &ctr}});
  NDArray base = make(DataType::kInt32, {2, 500}, std::vector<double>(words.begin(), words.begin() + 1000)), pairs;
  ASSERT_OK(base.permute({1, 0}, pairs));  // [500, 2], word stride 500
  expect_same_on_gpu("threefry", {.in = {&key_i, &pairs}});
}

TEST(CudaRandomOps, ShuffleAndMultinomialMatchTheCpu) {
  REQUIRE_CUDA_DEVICE();
  std::vector<double> rows(5000 * 3);
  std::iota(rows.begin(), rows.end(), 0.0);
  NDArray x = make(DataType::kFloat32, {5000, 3}, rows);  // two sorting rounds
  NDArray small = make(DataType::kInt16, {7, 2}, std::vector<double>(rows.begin(), rows.begin() + 14));
  expect_same_on_gpu("random_shuffle", {.in = {&x}, .i = {11}});
  expect_same_on_gpu("random_shuffle", {.in = {&small}, .i = {-3}});
  std::vector<double> w(40 * 25);
  for (size_t k = 0; k < w.size(); ++k) w[k] = static_cast<double>(k % 7) * 0.5 - 1.0;
  NDArray logits = make(DataType::kFloat32, {40, 25}, w);
  NDArray logits64 = make(DataType::kFloat64, {40, 25}, w);
  NDArray probs = make(DataType::kFloat16, {40, 25}, std::vector<double>(w.size(), 0.25));
  expect_same_on_gpu("random_multinomial", {.in = {&logits}, .i = {1, 300}});
  expect_same_on_gpu("random_multinomial", {.in = {&logits64}, .i = {2, 300}, .d = {DataType::kInt32}});
  expect_same_on_gpu("random_multinomial", {.in = {&probs}, .i = {3, 64}, .b = {true}});
}

}  // namespace
}  // namespace libops
