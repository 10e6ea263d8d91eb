// The ops of the last op batch (3-D windows, the pooling variants, cells,
// multi-head attention, im2col / col2im, the metric and image ops,
// reverse_sequence, depth/space blocks, upsampling, pointwise conv, dropout) on cuda:0 against the CPU, on larger shapes than their
// numpy goldens (which golden_ops_test.cpp runs on the GPU from
// tests_cpu/golden/conv3d, layers, metrics, image, windows and shape_ops).
// Integer inputs (indices, lengths, labels, box indices, crop sizes) are in
// range: the errors for bad ones are the CPU's, checked on the host first.
#include <cmath>
#include <functional>
#include <string>

#include "cuda_test_util.h"
#include "libops/ops/image/crop_and_resize.h"
#include "libops/ops/image/grid_sample.h"
#include "libops/ops/image/max_roi_pool.h"
#include "libops/ops/image/roi_align.h"
#include "libops/ops/image/non_max_suppression.h"
#include "libops/ops/metrics/in_top_k.h"
#include "libops/ops/nn/adaptive_pool.h"
#include "libops/ops/nn/deform_conv2d.h"
#include "libops/ops/nn/max_pool_with_argmax.h"
#include "libops/ops/shape/reverse_sequence.h"
#include "op_test_util.h"

namespace libops {
namespace {

std::vector<double> wave(int64_t n, double scale, double phase) {
  std::vector<double> v(static_cast<size_t>(n));
  for (int64_t k = 0; k < n; ++k) v[static_cast<size_t>(k)] = scale * std::sin(0.731 * static_cast<double>(k) + phase);
  return v;
}

// Integers k * step mod m, a spread of values in [0, m).
std::vector<double> ints(int64_t n, int64_t step, int64_t m) {
  std::vector<double> v(static_cast<size_t>(n));
  for (int64_t k = 0; k < n; ++k) v[static_cast<size_t>(k)] = static_cast<double>((k * step) % m);
  return v;
}

NDArray floats(const Dims& d, double scale, double phase) { return test::make(DataType::kFloat32, d, wave(d.product(), scale, phase)); }
NDArray int32s(const Dims& d, int64_t step, int64_t m) { return test::make(DataType::kInt32, d, ints(d.product(), step, m)); }

struct DeviceCase {
  const char* op;
  std::function<std::vector<NDArray>()> inputs;
  test::OpCall args;
};

std::vector<DeviceCase> cases() {
  return {
      {"conv3d", [] { return std::vector<NDArray>{floats({2, 6, 9, 10, 8}, 1.5, 0), floats({8, 3, 3, 3, 2}, 0.3, 1),
                                                  floats({8}, 0.3, 2)}; },
       {.i = {0, 0, 0, 2, 1, 2, 1, 1, 0, 1, 2, 1, 0, 0, 1, 2}}},
      {"deconv3d", [] { return std::vector<NDArray>{floats({2, 4, 5, 6, 4}, 1.5, 0), floats({4, 3, 2, 3, 2}, 0.3, 1),
                                                    floats({6}, 0.3, 2)}; },
       {.i = {0, 0, 0, 2, 1, 2, 0, 1, 0, 1, 1, 1, 0, 0, 1, 1, 0, 1, 2}}},
      {"maxpool3d", [] { return std::vector<NDArray>{floats({2, 3, 9, 10, 8}, 1.5, 0)}; },
       {.i = {3, 3, 2, 2, 2, 2, 1, 1, 0, 1, 1, 1, 0, 0, 0, 1}}},
      {"avgpool3d", [] { return std::vector<NDArray>{floats({2, 3, 9, 10, 8}, 1.5, 0)}; },
       {.i = {3, 3, 2, 2, 2, 2, 1, 1, 0, 1, 1, 1, 0, 1, 0, 1}}},
      {"avgpool3d", [] { return std::vector<NDArray>{floats({2, 9, 10, 8, 3}, 1.5, 0)}; },
       {.i = {2, 3, 3, 1, 2, 2, 1, 0, 1, 2, 1, 1, 0, 0, 1, 0}}},
      {"max_pool_with_argmax", [] { return std::vector<NDArray>{floats({3, 5, 33, 27}, 1.5, 0)}; },
       {.i = {3, 3, 2, 2, 1, 1, 1, 1, 0, 0, 0, 0}}},
      {"max_pool_with_argmax", [] { return std::vector<NDArray>{floats({3, 33, 27, 5}, 1.5, 0)}; },
       {.i = {2, 3, 2, 1, 0, 1, 2, 1, 0, 0, 1, 1}}},
      {"adaptive_avg_pool2d", [] { return std::vector<NDArray>{floats({3, 5, 33, 27}, 1.5, 0)}; }, {.i = {7, 5}}},
      {"adaptive_max_pool2d", [] { return std::vector<NDArray>{floats({3, 33, 27, 5}, 1.5, 0)}; }, {.i = {40, 9, 1}}},
      {"lp_pool2d", [] { return std::vector<NDArray>{floats({3, 5, 33, 27}, 1.5, 0)}; },
       {.i = {3, 2, 2, 2, 1, 0, 1, 1, 0, 3, 0, 1}}},
      {"lstm_cell", [] { return std::vector<NDArray>{floats({37, 24}, 1.5, 0), floats({24, 280}, 0.3, 1),
                                                     floats({70, 280}, 0.3, 2), floats({280}, 0.3, 3),
                                                     floats({37, 70}, 0.5, 4), floats({37, 70}, 0.5, 5)}; },
       {.b = {true, false}}},
      {"gru_cell", [] { return std::vector<NDArray>{floats({37, 24}, 1.5, 0), floats({37, 70}, 0.5, 1),
                                                    floats({94, 140}, 0.3, 2), floats({94, 70}, 0.3, 3),
                                                    floats({140}, 0.3, 4), floats({70}, 0.3, 5)}; },
       {}},
      {"multi_head_dot_product_attention",
       [] { return std::vector<NDArray>{floats({2, 16, 40}, 1.0, 0), floats({2, 12, 50}, 1.0, 1),
                                        floats({2, 10, 50}, 1.0, 2), floats({4, 8, 16}, 0.3, 3),
                                        floats({4, 8, 12}, 0.3, 4), floats({4, 6, 10}, 0.3, 5),
                                        floats({24, 20}, 0.3, 6)}; },
       {.b = {true, true}}},
      {"xw_plus_b", [] { return std::vector<NDArray>{floats({100, 64}, 1.0, 0), floats({64, 48}, 0.3, 1),
                                                     floats({48}, 0.3, 2)}; },
       {}},
      {"im2col", [] { return std::vector<NDArray>{floats({2, 3, 17, 19}, 1.5, 0)}; },
       {.t = {0.5}, .i = {3, 2, 2, 1, 1, 0, 1, 2, 0}}},
      {"col2im", [] { return std::vector<NDArray>{floats({2, 3, 3, 2, 9, 17}, 1.5, 0)}; },
       {.i = {2, 1, 1, 0, 17, 19, 1, 2, 0}}},
      {"embedding_lookup", [] { return std::vector<NDArray>{floats({50, 16}, 1.5, 0), int32s({7, 9}, 13, 50)}; }, {}},
      {"reverse_sequence", [] { return std::vector<NDArray>{floats({20, 37, 8}, 1.5, 0), int32s({37}, 7, 21)}; },
       {.i = {0, 1}}},
      {"in_top_k", [] { return std::vector<NDArray>{floats({64, 100}, 1.5, 0), int32s({64}, 17, 100)}; }, {.i = {5}}},
      {"confusion_matrix", [] { return std::vector<NDArray>{int32s({500}, 7, 10), int32s({500}, 3, 10)}; },
       {.i = {12}}},
      // 1-, 2- and 3-grams over tokens 0..4 with skips; TFIDF with weights,
      // and TF (weights unread).
      {"tfidf_vectorizer",
       [] {
         return std::vector<NDArray>{
             int32s({4, 30}, 7, 5),
             test::make(DataType::kInt64, {26}, {0, 1, 2, 3, 4, 0, 1, 1, 2, 2, 3, 3, 4, 4, 0, 0, 3, 0, 1, 2, 2, 4, 1, 3, 3, 3}),
             test::make(DataType::kInt64, {3}, {0, 5, 17}), test::make(DataType::kInt64, {14}, ints(14, 5, 14)),
             floats({14}, 2.0, 1)};
       },
       {.i = {1, 3, 2, 2}}},
      {"tfidf_vectorizer",
       [] {
         return std::vector<NDArray>{int32s({30}, 3, 5), test::make(DataType::kInt64, {5}, {0, 1, 2, 3, 4}),
                                     test::make(DataType::kInt64, {1}, {0}), test::make(DataType::kInt64, {5}, {4, 2, 0, 1, 3})};
       },
       {.i = {1, 1, 3, 0}}},
      {"crop_and_resize",
       [] {
         std::vector<double> boxes;
         for (int k = 0; k < 10; ++k)  // some reach past the image: extrapolated samples
           for (double v : {0.1 * k - 0.1, 0.05 * k, 1.1 - 0.07 * k, 0.9 - 0.03 * k}) boxes.push_back(v);
         return std::vector<NDArray>{floats({3, 20, 25, 4}, 1.5, 0), test::make(DataType::kFloat32, {10, 4}, boxes),
                                     int32s({10}, 2, 3), test::make(DataType::kInt32, {2}, {7, 9})};
       },
       {.t = {-1.0}, .i = {0}}},
      // Grid points from -1.8 to 1.8: inside, on and outside the image.
      {"grid_sample", [] { return std::vector<NDArray>{floats({2, 3, 17, 19}, 1.5, 0), floats({2, 11, 13, 2}, 1.8, 1)}; },
       {.i = {0, 0}, .b = {false}}},
      {"grid_sample", [] { return std::vector<NDArray>{floats({2, 3, 17, 19}, 1.5, 0), floats({2, 11, 13, 2}, 1.8, 1)}; },
       {.i = {1, 2}, .b = {true}}},
      {"grid_sample", [] { return std::vector<NDArray>{floats({1, 4, 9, 8}, 1.5, 0), floats({1, 12, 10, 2}, 1.8, 1)}; },
       {.i = {2, 1}, .b = {false}}},
      // Deformable convolution: offsets up to 1.8 pixels, 2 groups, 2 offset
      // groups, a bias and a mask; strides, pads and dilations.
      {"deform_conv2d",
       [] {
         return std::vector<NDArray>{floats({2, 4, 9, 8}, 1.5, 0), floats({6, 2, 3, 3}, 0.5, 1),
                                     floats({2, 36, 5, 4}, 1.8, 2), floats({6}, 0.5, 3), floats({2, 18, 5, 4}, 1.0, 4)};
       },
       {.i = {2, 2, 1, 1, 1, 0, 1, 2, 2, 2}}},
      // Volumes: trilinear with zeros, nearest with reflection.
      {"grid_sample",
       [] { return std::vector<NDArray>{floats({2, 3, 5, 7, 6}, 1.5, 0), floats({2, 4, 6, 5, 3}, 1.8, 1)}; },
       {.i = {0, 0}, .b = {false}}},
      {"grid_sample",
       [] { return std::vector<NDArray>{floats({1, 2, 4, 6, 5}, 1.5, 0), floats({1, 3, 5, 4, 3}, 1.8, 1)}; },
       {.i = {1, 2}, .b = {true}}},
      {"roi_align",
       [] {
         std::vector<double> rois;
         for (int k = 0; k < 12; ++k)  // some reach past the image
           for (double v : {1.3 * k - 3, 0.9 * k - 1, 1.3 * k + 6, 0.7 * k + 8}) rois.push_back(v);
         return std::vector<NDArray>{floats({2, 5, 16, 18}, 1.5, 0), test::make(DataType::kFloat32, {12, 4}, rois),
                                     int32s({12}, 1, 2)};
       },
       {.t = {1.0}, .i = {4, 5, 0, 0, 0}}},
      {"roi_align",
       [] {
         std::vector<double> rois;
         for (int k = 0; k < 7; ++k)
           for (double v : {2.0 * k, 1.5 * k, 2.0 * k + 20, 1.5 * k + 25}) rois.push_back(v);
         return std::vector<NDArray>{floats({2, 3, 16, 18}, 1.5, 0), test::make(DataType::kFloat32, {7, 4}, rois),
                                     int32s({7}, 1, 2)};
       },
       {.t = {0.5}, .i = {3, 3, 2, 1, 1}}},
      {"max_roi_pool",
       [] {
         std::vector<double> rois;
         for (int k = 0; k < 9; ++k)  // some reach past the image
           for (double v : {double(k % 2), 1.3 * k - 3, 0.9 * k - 1, 1.3 * k + 6, 0.7 * k + 8}) rois.push_back(v);
         return std::vector<NDArray>{floats({2, 5, 16, 18}, 1.5, 0), test::make(DataType::kFloat32, {9, 5}, rois)};
       },
       {.t = {1.0}, .i = {3, 4}}},
      {"non_max_suppression",
       [] {
         std::vector<double> boxes;
         for (int k = 0; k < 200; ++k) {
           const double y = 10 * std::fabs(std::sin(0.37 * k)), x = 10 * std::fabs(std::cos(0.53 * k));
           for (double v : {y, x, y + 1 + (k % 3), x + 1 + (k % 4)}) boxes.push_back(v);
         }
         return std::vector<NDArray>{test::make(DataType::kFloat32, {200, 4}, boxes), floats({200}, 1.0, 0.3)};
       },
       {.t = {0.4}}},
      {"non_max_suppression",
       [] { return std::vector<NDArray>{floats({2, 50, 4}, 5.0, 0), floats({2, 3, 50}, 1.0, 1)}; },
       {.t = {0.3, 0.1}, .i = {10, 1}}},
      {"depth_to_space", [] { return std::vector<NDArray>{floats({2, 36, 7, 5}, 1.5, 0)}; }, {.i = {3, 0, 1}}},
      {"space_to_depth", [] { return std::vector<NDArray>{floats({2, 14, 10, 3}, 1.5, 0)}; }, {.i = {2, 1}}},
      {"upsampling2d", [] { return std::vector<NDArray>{floats({2, 9, 7, 5}, 1.5, 0)}; }, {.i = {3, 2}}},
      {"pointwise_conv2d", [] { return std::vector<NDArray>{floats({2, 16, 9, 7}, 1.5, 0), floats({1, 1, 16, 24}, 0.3, 1),
                                                            floats({24}, 0.3, 2)}; },
       {}},
      {"dropout", [] { return std::vector<NDArray>{floats({33, 17}, 1.5, 0)}; }, {.t = {0.3}}},
  };
}

TEST(CudaLayerOps, EveryCaseMatchesTheCpu) {
  REQUIRE_CUDA_DEVICE();
  for (const DeviceCase& c : cases()) {
    std::vector<NDArray> host = c.inputs();
    SCOPED_TRACE(std::string(c.op) + " " + host[0].shape().str());
    Context cpu, gpu;
    ASSERT_OK(test::run_on_cpu_and_gpu(c.op, host, c.args, cpu, gpu));
    ASSERT_EQ(gpu.num_outputs(), cpu.num_outputs());
    for (int k = 0; k < cpu.num_outputs(); ++k) {
      NDArray& z = *gpu.output(k);
      ASSERT_OK(z.buffer()->sync_to_host());
      EXPECT_EQ(z.shape(), cpu.output(k)->shape()) << "output " << k;
      EXPECT_EQ(z.dtype(), cpu.output(k)->dtype()) << "output " << k;
      const double tol = dtype_is_float(z.dtype()) ? 2e-4 : 0;  // indices, counts and flags exactly
      EXPECT_TRUE(test::all_close(z, test::values(*cpu.output(k)), tol, tol)) << "output " << k;
    }
  }
}

// Runs without a GPU: the kernels of these ops are registered for CUDA, and
// the composed ones run on any device.
TEST(CudaLayerOps, DeviceKernelsAreRegistered) {
  EXPECT_NE(ops::reverse_sequence_device_kernel.get(DeviceType::kCuda), nullptr) << "reverse_sequence";
  EXPECT_NE(ops::in_top_k_device_kernel.get(DeviceType::kCuda), nullptr) << "in_top_k";
  EXPECT_NE(ops::argmax_pool_device_kernel.get(DeviceType::kCuda), nullptr) << "max_pool_with_argmax";
  EXPECT_NE(ops::adaptive_pool_device_kernel.get(DeviceType::kCuda), nullptr) << "adaptive pooling";
  EXPECT_NE(ops::crop_resize_device_kernel.get(DeviceType::kCuda), nullptr) << "crop_and_resize";
  EXPECT_NE(ops::grid_sample_device_kernel.get(DeviceType::kCuda), nullptr) << "grid_sample";
  EXPECT_NE(ops::deform_columns_device_kernel.get(DeviceType::kCuda), nullptr) << "deform_conv2d";
  EXPECT_NE(ops::roi_align_device_kernel.get(DeviceType::kCuda), nullptr) << "roi_align";
  EXPECT_NE(ops::max_roi_pool_device_kernel.get(DeviceType::kCuda), nullptr) << "max_roi_pool";
  EXPECT_NE(ops::nms_device_kernel.get(DeviceType::kCuda), nullptr) << "non_max_suppression";
  for (const DeviceCase& c : cases()) EXPECT_TRUE(OpRegistry::instance().find(c.op)->descriptor().any_device) << c.op;
}

}  // namespace
}  // namespace libops
