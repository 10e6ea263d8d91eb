// unique*, argwhere, nonzero and where(cond) on cuda:0 against the same ops
// on the CPU (which tests_cpu checks against numpy): inputs large enough
// for many CUB tiles, with ties, NaNs and both zeros, in every key dtype;
// strided and empty inputs. Values must match bit for bit (the sign of
// zero, NaN payloads), every other output exactly, and the outputs' newest
// copy must be on the device.
#include <cmath>
#include <cstring>
#include <limits>

#include "cuda_test_util.h"
#include "golden_manifest.h"
#include "op_test_util.h"

namespace libops {
namespace {

using test::make;

// Runs `op` on the CPU and on cuda:0; every output identical.
void expect_same_on_gpu(const char* op, const test::OpCall& call) {
  Context cpu, gpu;
  ASSERT_OK(test::run_op(op, call, cpu));
  gpu.set_device(Device::cuda(0));
  ASSERT_OK(test::run_op(op, call, gpu));
  ASSERT_EQ(cpu.num_outputs(), gpu.num_outputs()) << op;
  for (int i = 0; i < gpu.num_outputs(); ++i) {
    NDArray& g = *gpu.output(i);
    const NDArray& c = *cpu.output(i);
    if (g.length() > 0) {
      EXPECT_EQ(g.buffer()->sync(), DataBuffer::Sync::kDeviceNewer) << op << " output " << i;
    }
    ASSERT_OK(g.buffer()->sync_to_host());
    ASSERT_EQ(g.shape(), c.shape()) << op << " output " << i;
    ASSERT_EQ(g.dtype(), c.dtype()) << op << " output " << i;
    ASSERT_TRUE(g.is_c_contiguous() && c.is_c_contiguous());
    EXPECT_EQ(std::memcmp(g.data(), c.data(), static_cast<size_t>(g.length()) * g.element_size()), 0)
        << op << " output " << i << ": " << test::same_array(g, c);
  }
}

// n values drawn from `distinct` levels, with NaNs and both zeros for floats.
NDArray mixed(DataType t, const Dims& shape, int64_t distinct, uint64_t seed) {
  const int64_t n = shape.product();
  std::vector<double> v(static_cast<size_t>(n));
  uint64_t s = seed;
  for (int64_t i = 0; i < n; ++i) {
    s = s * 6364136223846793005ull + 1442695040888963407ull;
    const int64_t level = static_cast<int64_t>((s >> 33) % static_cast<uint64_t>(distinct));
    double x = static_cast<double>(level - distinct / 2);
    if (dtype_is_float(t)) {
      x *= 0.25;
      if (i % 97 == 5) x = std::numeric_limits<double>::quiet_NaN();
      if (i % 89 == 3) x = -0.0;
    }
    v[static_cast<size_t>(i)] = t == DataType::kBool ? level % 2 : x;
  }
  return make(t, shape, v);
}

TEST(CudaSelection, UniqueMatchesTheCpu) {
  REQUIRE_CUDA_DEVICE();
  const struct {
    DataType t;
    int64_t n, distinct;
  } cases[] = {
      {DataType::kFloat32, 300000, 5000}, {DataType::kFloat64, 100000, 100000}, {DataType::kFloat16, 50000, 400},
      {DataType::kInt64, 200000, 70},     {DataType::kInt32, 1000, 1000000},    {DataType::kUInt8, 70000, 256},
      {DataType::kBool, 5000, 2},         {DataType::kInt16, 1, 3},
  };
  for (const auto& c : cases) {
    SCOPED_TRACE(std::string(dtype_name(c.t)) + " n=" + std::to_string(c.n));
    NDArray x = mixed(c.t, {c.n}, c.distinct, static_cast<uint64_t>(c.n));
    for (bool sorted : {true, false})
      for (bool equal_nan : {true, false}) {
        SCOPED_TRACE(std::string(sorted ? "sorted" : "unsorted") + (equal_nan ? "" : ", NaNs apart"));
        expect_same_on_gpu("unique_all", {.in = {&x}, .b = {sorted, equal_nan}});
      }
    expect_same_on_gpu("unique", {.in = {&x}});
    expect_same_on_gpu("unique_with_counts", {.in = {&x}, .b = {false}});
  }
}

TEST(CudaSelection, UniqueOfStridedAndEmptyInputs) {
  REQUIRE_CUDA_DEVICE();
  NDArray base = mixed(DataType::kFloat32, {300, 200}, 50, 7), t, stepped;
  ASSERT_OK(base.permute({1, 0}, t));
  ASSERT_OK(base.slice(0, 299, 0, -3, stepped));
  NDArray empty = make(DataType::kFloat64, {0, 5}, {});
  NDArray scalar = make(DataType::kInt32, {}, {4});
  for (NDArray* x : {&t, &stepped, &empty, &scalar}) {
    SCOPED_TRACE(x->shape().str());
    expect_same_on_gpu("unique_all", {.in = {x}});
    expect_same_on_gpu("unique_all", {.in = {x}, .b = {false, false}});
  }
}

// About one element in `one_in` nonzero.
NDArray sparse(DataType t, const Dims& shape, uint64_t one_in, uint64_t seed) {
  std::vector<double> v(static_cast<size_t>(shape.product()), 0.0);
  uint64_t s = seed;
  for (double& e : v) {
    s = s * 6364136223846793005ull + 1442695040888963407ull;
    if ((s >> 33) % one_in == 0) e = static_cast<double>((s >> 40) % 5 + 1);
  }
  return make(t, shape, v);
}

TEST(CudaSelection, NonzeroMatchesTheCpu) {
  REQUIRE_CUDA_DEVICE();
  NDArray few = sparse(DataType::kUInt8, {40, 50, 60}, 50, 3);
  NDArray dense = mixed(DataType::kFloat32, {1000, 300}, 7, 11);  // NaNs count, -0.0 does not
  NDArray zeros = make(DataType::kFloat16, {3, 4}, std::vector<double>(12, 0.0));
  NDArray flags = mixed(DataType::kBool, {1 << 20}, 2, 5);
  NDArray empty = make(DataType::kInt32, {4, 0}, {});
  NDArray scalar = make(DataType::kFloat64, {}, {-2});
  NDArray permuted;
  ASSERT_OK(few.permute({2, 0, 1}, permuted));
  for (NDArray* x : {&few, &dense, &zeros, &flags, &empty, &scalar, &permuted}) {
    SCOPED_TRACE(std::string(dtype_name(x->dtype())) + x->shape().str());
    for (const char* op : {"argwhere", "nonzero", "where"}) expect_same_on_gpu(op, {.in = {x}});
  }
}

}  // namespace
}  // namespace libops
