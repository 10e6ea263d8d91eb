// The activation and normalization ops on cuda:0 against the CPU: larger
// and odd shapes than the numpy goldens (which golden_ops_test.cpp runs on
// the GPU from tests_cpu/golden/nn_act), in float32, float16, bfloat16 and
// float64, with the GPU's result newest on the device. Rows of more than
// one block's worth of elements and many rows exercise the row kernel's
// reductions and its grid-stride loop.
#include <cmath>
#include <string>

#include "cuda_test_util.h"
#include "op_test_util.h"

namespace libops {
namespace {

struct DeviceCase {
  const char* op;
  Dims x;
  std::vector<Dims> params;  // more inputs, after x
  std::vector<int64_t> i;
  std::vector<double> t;
};

const DeviceCase kCases[] = {
    {"leaky_relu", {33, 65}, {}, {}, {0.1}},
    {"thresholded_relu", {1000}, {}, {}, {0.3}},
    {"elu", {7, 300}, {}, {}, {0.7}},
    {"celu", {7, 300}, {}, {}, {1.7}},
    {"selu", {513}, {}, {}, {}},
    {"hard_sigmoid", {513}, {}, {}, {0.3, 0.4}},
    {"hard_swish", {2, 513}, {}, {}, {}},
    {"gelu", {4, 999}, {}, {0}, {}},
    {"gelu", {4, 999}, {}, {1}, {}},
    {"prelu", {2, 8, 5, 7}, {{8, 1, 1}}, {}, {}},
    {"log_softmax", {6, 1500}, {}, {-1}, {}},
    {"log_softmax", {5, 300, 7}, {}, {1}, {}},
    {"layer_norm", {300, 1027}, {{1027}, {1027}}, {-1}, {}},
    {"layer_norm", {3, 5, 4, 70}, {{4, 70}}, {2}, {}},
    {"rms_norm", {129, 4099}, {{4099}}, {-1}, {}},
    {"group_norm", {3, 12, 9, 11}, {{12}, {12}}, {4}, {}},
    {"instance_norm", {2, 5, 33, 17}, {{5}, {5}}, {}, {}},
    {"l2_normalize", {40, 257}, {}, {1}, {}},
    {"lrn", {2, 11, 6, 7}, {}, {5}, {1e-2, 0.75, 2.0}},
};

std::vector<double> wave(int64_t n, double scale, double phase) {
  std::vector<double> v(static_cast<size_t>(n));
  for (int64_t k = 0; k < n; ++k) v[static_cast<size_t>(k)] = scale * std::sin(0.731 * static_cast<double>(k) + phase) + 0.1;
  return v;
}

TEST(CudaNnAct, EveryOpMatchesTheCpu) {
  REQUIRE_CUDA_DEVICE();
  for (const DeviceCase& c : kCases) {
    for (DataType dt : {DataType::kFloat32, DataType::kFloat16, DataType::kBFloat16, DataType::kFloat64}) {
      SCOPED_TRACE(std::string(c.op) + " " + c.x.str() + " " + dtype_name(dt));
      std::vector<NDArray> host;
      host.push_back(test::make(dt, c.x, wave(c.x.product(), 3.0, 0.2)));
      for (size_t k = 0; k < c.params.size(); ++k)
        host.push_back(test::make(dt, c.params[k], wave(c.params[k].product(), 1.0, 1.0 + static_cast<double>(k))));
      Context cpu, gpu;
      ASSERT_OK(test::run_on_cpu_and_gpu(c.op, host, {.t = c.t, .i = c.i}, cpu, gpu));
      NDArray& z = *gpu.output(0);
      EXPECT_EQ(z.buffer()->sync(), DataBuffer::Sync::kDeviceNewer);
      ASSERT_OK(z.buffer()->sync_to_host());
      EXPECT_EQ(z.dtype(), dt);
      const double tol = dt == DataType::kFloat64 ? 1e-12 : dt == DataType::kFloat32 ? 1e-5 : 1e-2;
      EXPECT_TRUE(test::all_close(z, test::values(*cpu.output(0)), tol, tol));
    }
  }
}

}  // namespace
}  // namespace libops
