// fft, ifft, rfft and irfft on cuda:0 (cuFFT, blas/fft_cuda.cu): every
// numpy golden case of tests_cpu on the GPU, then the GPU against the CPU
// (tests_cpu checks the CPU against numpy and the DFT's definition) over
// lengths that take each of cuFFT's paths (powers of two, 3/5/7-smooth,
// primes, one point, 2^20) and over both strided batch layouts of
// blas/fft_cuda.cu (a launch per outer index, or per inner index). The
// inputs of the irfft cases have imaginary parts in bin 0 and bin n / 2,
// which the CPU ignores, as numpy does, and cuFFT must be kept from reading
// (Note [Staging complex-to-real bins] in blas/fft_cuda.cu).
#include <cmath>
#include <string>

#include "cuda_test_util.h"
#include "op_test_util.h"
#include "ops/signal/fft_golden_cases.h"

namespace libops {
namespace {

using test::values;

// Runs op on cuda:0 into a device-newest output and brings it to the host.
void run_on_cuda(const char* op, NDArray& x, const std::vector<int64_t>& i_args, Context& ctx) {
  ctx.set_device(Device::cuda(0));
  ASSERT_OK(test::run_op(op, {.in = {&x}, .i = i_args}, ctx));
  EXPECT_EQ(ctx.output(0)->buffer()->sync(), DataBuffer::Sync::kDeviceNewer) << op;
  ASSERT_OK(ctx.output(0)->buffer()->sync_to_host());
}

TEST(CudaFft, EveryNumpyGoldenCase) {
  REQUIRE_CUDA_DEVICE();
  for (const test::FftGoldenCase& c : test::kFftGoldenCases) {
    test::FftGoldenArrays g = test::load_fft_golden(c);
    Context ctx;
    run_on_cuda(c.op, g.x, g.i_args, ctx);
    const double tol = test::fft_golden_tolerance(g.x.dtype());
    EXPECT_EQ(ctx.output(0)->shape(), g.z.shape()) << c.op << " " << c.name;
    EXPECT_TRUE(test::all_close(*ctx.output(0), values(g.z), tol, tol)) << c.op << " " << c.name;
  }
}

// A smooth, bounded signal of `count` values.
std::vector<double> wave(int64_t count, double phase) {
  std::vector<double> v(static_cast<size_t>(count));
  for (int64_t i = 0; i < count; ++i)
    v[static_cast<size_t>(i)] = std::sin(0.37 * static_cast<double>(i) + phase) + 0.5 * std::cos(0.011 * static_cast<double>(i));
  return v;
}

// op over `shape` (its i args) on the CPU and on cuda:0; the results agree
// to a tolerance relative to the largest magnitude of the CPU's.
void expect_cuda_matches_cpu(const char* op, DataType dt, const Dims& shape, const std::vector<int64_t>& i_args) {
  int64_t count = 1;
  for (int d = 0; d < shape.size(); ++d) count *= shape[d];
  NDArray host = test::make(dt, shape, wave(count, 0.2)), dev;
  ASSERT_OK(host.dup('c', dev));
  Context cpu, gpu;
  ASSERT_OK(test::run_op(op, {.in = {&host}, .i = i_args}, cpu));
  run_on_cuda(op, dev, i_args, gpu);
  const std::vector<double> want = values(*cpu.output(0));
  double peak = 0;
  for (double w : want) peak = std::max(peak, std::abs(w));
  const double tol = (dt == DataType::kFloat64 ? 1e-12 : 2e-6) * std::max(peak, 1.0) * std::log2(static_cast<double>(count) + 2);
  EXPECT_EQ(gpu.output(0)->shape(), cpu.output(0)->shape()) << op << shape.str();
  EXPECT_TRUE(test::all_close(*gpu.output(0), want, 0, tol)) << op << shape.str() << " " << dtype_name(dt);
}

TEST(CudaFft, LengthsOfEveryKindMatchTheCpu) {
  REQUIRE_CUDA_DEVICE();
  for (DataType dt : {DataType::kFloat32, DataType::kFloat64})
    for (int64_t n : {1, 2, 3, 5, 7, 16, 37, 60, 97, 210, 1000, 1024, 4096, 4099}) {
      expect_cuda_matches_cpu("fft", dt, {3, n, 2}, {});
      expect_cuda_matches_cpu("ifft", dt, {3, n, 2}, {});
      expect_cuda_matches_cpu("rfft", dt, {3, n}, {});
      expect_cuda_matches_cpu("irfft", dt, {3, n / 2 + 1, 2}, {n});
    }
}

TEST(CudaFft, StridedBatchLayoutsMatchTheCpu) {
  REQUIRE_CUDA_DEVICE();
  for (DataType dt : {DataType::kFloat32, DataType::kFloat64}) {
    // [outer, n, inner] along axis 1: outer <= inner (a launch per outer
    // index) and outer > inner (a launch per inner index).
    for (const Dims& signal : {Dims{2, 12, 7}, Dims{5, 12, 3}, Dims{4, 37, 4}}) {
      Dims complex_shape = signal;
      complex_shape.push_back(2);
      expect_cuda_matches_cpu("fft", dt, complex_shape, {1});
      expect_cuda_matches_cpu("ifft", dt, complex_shape, {1});
      expect_cuda_matches_cpu("rfft", dt, signal, {1});
      expect_cuda_matches_cpu("irfft", dt, complex_shape, {0, 1});
      expect_cuda_matches_cpu("irfft", dt, complex_shape, {15, 1});  // padded bins
    }
    // Several axes, the real one first in the array.
    expect_cuda_matches_cpu("fft", dt, {6, 5, 8, 2}, {0, 1, 2});
    expect_cuda_matches_cpu("rfft", dt, {6, 5, 8}, {2, 0});
    expect_cuda_matches_cpu("irfft", dt, {4, 5, 8, 2}, {0, 2, 0});
  }
}

TEST(CudaFft, ALongSignal) {
  REQUIRE_CUDA_DEVICE();
  expect_cuda_matches_cpu("fft", DataType::kFloat32, {1 << 20, 2}, {});
  expect_cuda_matches_cpu("rfft", DataType::kFloat64, {2, 1 << 19}, {});
}

}  // namespace
}  // namespace libops
