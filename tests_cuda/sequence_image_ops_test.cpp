// lstm_layer, gru_layer, rnn_layer, resize, conv1d and dot_product_attention
// on cuda:0 against the CPU, on larger shapes than their numpy goldens
// (which golden_ops_test.cpp runs on the GPU from tests_cpu/golden/rnn,
// image, conv and attention): many batch rows and units for the recurrent
// cell kernel's grid-stride loop, sequence lengths and both directions,
// every resize mode in both layouts.
#include <cmath>
#include <string>

#include "cuda_test_util.h"
#include "libops/ops/image/resize.h"
#include "libops/ops/rnn/recurrent.h"
#include "op_test_util.h"

namespace libops {
namespace {

struct DeviceCase {
  const char* op;
  std::vector<Dims> in;           // float inputs, in order
  bool lengths;                   // an int32 seq_len input (N values in [0, T]) after the biases
  std::vector<int64_t> i;
  std::vector<double> t;
  std::vector<bool> b;
};

// ONNX layouts (weights_format 1): T 20, N 37, I 24, H 70.
const DeviceCase kCases[] = {
    {"lstm_layer", {{20, 37, 24}, {2, 280, 24}, {2, 280, 70}, {2, 560}}, true, {3, 4, 2, 0, 0, 1}, {},
     {true, true, false, false, false, true, true, true}},
    {"lstm_layer", {{37, 20, 24}, {24, 280}, {70, 280}}, false, {1, 1, 2, 0, 0, 0}, {0.8}, {}},
    {"gru_layer", {{20, 37, 24}, {2, 210, 24}, {2, 210, 70}, {2, 420}}, true, {3, 4, 2, 0, 1}, {},
     {true, true, false, false, true, true}},
    {"gru_layer", {{20, 37, 24}, {1, 210, 24}, {1, 210, 70}, {1, 420}}, false, {0, 1, 2, 0, 1}, {},
     {true, false, false, true, true, true}},
    {"rnn_layer", {{20, 37, 24}, {2, 70, 24}, {2, 70, 70}, {2, 140}}, false, {0, 2, 0, 1}, {}, {true}},
    {"resize", {{2, 5, 33, 47}}, false, {70, 20, 1, 0}, {}, {}},
    {"resize", {{2, 33, 47, 5}}, false, {61, 90, 2, 3, 0, 1}, {}, {}},
    {"resize", {{3, 4, 17, 19}}, false, {40, 9, 0, 1, 1}, {}, {}},
    {"conv1d", {{3, 16, 200}, {32, 16, 5}, {32}}, false, {5, 2, 2, 1}, {}, {}},
    {"dot_product_attention", {{2, 4, 77, 32}, {2, 4, 129, 32}, {2, 4, 129, 48}}, false, {}, {}, {true, true}},
};

std::vector<double> wave(int64_t n, double scale, double phase) {
  std::vector<double> v(static_cast<size_t>(n));
  for (int64_t k = 0; k < n; ++k) v[static_cast<size_t>(k)] = scale * std::sin(0.731 * static_cast<double>(k) + phase);
  return v;
}

TEST(CudaSequenceImageOps, EveryCaseMatchesTheCpu) {
  REQUIRE_CUDA_DEVICE();
  for (const DeviceCase& c : kCases) {
    for (DataType dt : {DataType::kFloat32, DataType::kFloat64}) {
      SCOPED_TRACE(std::string(c.op) + " " + c.in[0].str() + " " + dtype_name(dt));
      std::vector<NDArray> host;
      for (size_t k = 0; k < c.in.size(); ++k)
        host.push_back(test::make(dt, c.in[k], wave(c.in[k].product(), k == 0 ? 1.5 : 0.3, static_cast<double>(k))));
      if (c.lengths) {  // after x, W, R and the bias (has_biases is set in these cases): N lengths in [0, T]
        const int64_t T = c.in[0][0], N = c.in[0][1];
        std::vector<double> len;
        for (int64_t k = 0; k < N; ++k) len.push_back(static_cast<double>((k * 7) % (T + 1)));
        host.insert(host.begin() + 4, test::make(DataType::kInt32, {N}, len));
      }
      Context cpu, gpu;
      ASSERT_OK(test::run_on_cpu_and_gpu(c.op, host, {.t = c.t, .i = c.i, .b = c.b}, cpu, gpu));
      ASSERT_EQ(gpu.num_outputs(), cpu.num_outputs());
      for (int k = 0; k < cpu.num_outputs(); ++k) {
        NDArray& z = *gpu.output(k);
        ASSERT_OK(z.buffer()->sync_to_host());
        EXPECT_EQ(z.shape(), cpu.output(k)->shape()) << "output " << k;
        const double tol = dt == DataType::kFloat64 ? 1e-10 : 2e-4;
        EXPECT_TRUE(test::all_close(z, test::values(*cpu.output(k)), tol, tol)) << "output " << k;
      }
    }
  }
}

// resize with ONNX's sizes and scales as inputs (read on the host, as the
// i args are): the same output on the device as on the CPU, and as with
// the args.
TEST(CudaSequenceImageOps, ResizeSizeAndScalesInputsMatchTheCpu) {
  REQUIRE_CUDA_DEVICE();
  NDArray x = test::make(DataType::kFloat32, {2, 3, 17, 9}, wave(2 * 3 * 17 * 9, 1.5, 0.0));
  NDArray size = test::make(DataType::kInt64, {4}, {2, 3, 40, 5}), none = test::make(DataType::kInt64, {0}, {});
  NDArray scales = test::make(DataType::kFloat32, {2}, {1.7, 2.25});
  for (int64_t coords : {0, 2, 5}) {
    SCOPED_TRACE(coords);
    for (int by_scales = 0; by_scales < 2; ++by_scales) {
      std::vector<NDArray> in = by_scales ? std::vector<NDArray>{x, none, scales} : std::vector<NDArray>{x, size};
      Context cpu, gpu;
      ASSERT_OK(test::run_on_cpu_and_gpu("resize", in, {.i = {-1, -1, 1, coords}}, cpu, gpu));
      NDArray& z = *gpu.output(0);
      ASSERT_OK(z.buffer()->sync_to_host());
      EXPECT_EQ(z.shape(), cpu.output(0)->shape());
      EXPECT_TRUE(test::all_close(z, test::values(*cpu.output(0)), 2e-5, 2e-5));
    }
  }
}

// tf_crop_and_resize (coordinate mode 6): a box partly outside the image,
// whose outputs there take the extrapolation value by a where on the
// device; every interpolation mode, NCHW and NHWC, against the CPU.
TEST(CudaSequenceImageOps, ResizeTfCropAndResizeMatchesTheCpu) {
  REQUIRE_CUDA_DEVICE();
  NDArray x = test::make(DataType::kFloat32, {2, 3, 17, 9}, wave(2 * 3 * 17 * 9, 1.5, 0.0));
  NDArray none = test::make(DataType::kInt64, {0}, {}), no_scales = test::make(DataType::kFloat32, {0}, {});
  NDArray roi = test::make(DataType::kFloat32, {4}, {-0.2, 0.1, 0.9, 1.3});
  for (int64_t mode : {0, 1, 2}) {
    for (int64_t nhwc : {0, 1}) {
      SCOPED_TRACE(testing::Message() << "mode " << mode << " nhwc " << nhwc);
      std::vector<NDArray> in = {x, none, no_scales, roi};
      Context cpu, gpu;
      ASSERT_OK(test::run_on_cpu_and_gpu("resize", in, {.t = {0, 0, -0.75, 4.5}, .i = {11, 7, mode, 6, 0, nhwc}},
                                         cpu, gpu));
      NDArray& z = *gpu.output(0);
      ASSERT_OK(z.buffer()->sync_to_host());
      EXPECT_EQ(z.shape(), cpu.output(0)->shape());
      EXPECT_TRUE(test::all_close(z, test::values(*cpu.output(0)), 2e-5, 2e-5));
    }
  }
}

// antialias (i arg 7): tables of 6 taps on H (scale 0.35) and 4 on W
// (0.6), the W tables padded to 6 with zero weights; linear and cubic, NCHW
// and NHWC, against the CPU.
TEST(CudaSequenceImageOps, ResizeAntialiasMatchesTheCpu) {
  REQUIRE_CUDA_DEVICE();
  const int64_t n = 2 * 3 * 17 * 15;
  for (int64_t mode : {1, 2}) {
    for (int64_t nhwc : {0, 1}) {
      SCOPED_TRACE(testing::Message() << "mode " << mode << " nhwc " << nhwc);
      std::vector<NDArray> in = {test::make(DataType::kFloat32, nhwc ? Dims{2, 17, 15, 3} : Dims{2, 3, 17, 15},
                                            wave(n, 1.5, 0.0))};
      Context cpu, gpu;
      ASSERT_OK(test::run_on_cpu_and_gpu("resize", in, {.t = {0.35, 0.6}, .i = {5, 9, mode, 0, 0, nhwc, 0, 1}},
                                         cpu, gpu));
      NDArray& z = *gpu.output(0);
      ASSERT_OK(z.buffer()->sync_to_host());
      EXPECT_EQ(z.shape(), cpu.output(0)->shape());
      EXPECT_TRUE(test::all_close(z, test::values(*cpu.output(0)), 2e-5, 2e-5));
    }
  }
}

// Runs without a GPU: the kernels these ops need are registered for CUDA.
TEST(CudaSequenceImageOps, DeviceKernelsAreRegistered) {
  EXPECT_NE(ops::rnn::cell_device_kernel.get(DeviceType::kCuda), nullptr) << "lstm_layer, gru_layer, rnn_layer";
  EXPECT_NE(ops::image::resize_device_kernel.get(DeviceType::kCuda), nullptr) << "resize";
  for (const char* op : {"lstm_layer", "gru_layer", "rnn_layer", "resize", "conv1d", "dot_product_attention"})
    EXPECT_TRUE(OpRegistry::instance().find(op)->descriptor().any_device) << op;
}

}  // namespace
}  // namespace libops
