// The element-wise ops (libops/ops/elementwise/) on cuda:0: every golden
// case of tests_cpu/golden/elementwise/MANIFEST (numpy and scipy values)
// runs on the GPU and is held to the golden within 4x the CPU's tolerance
// (CUDA's math functions round differently by an ulp or two), and to the
// CPU's result: the same dtype, shape, NaN and infinity positions. Each op
// of both tables must have a case.
#include <cmath>
#include <fstream>
#include <map>
#include <sstream>

#include "cuda_test_util.h"
#include "golden_util.h"
#include "libops/ops/elementwise/elementwise.h"
#include "op_test_util.h"

namespace libops {
namespace {

struct Case {
  std::string op, name;
  double rtol = 0, atol = 0;
};

std::vector<Case> manifest() {
  std::vector<Case> v;
  std::ifstream in(std::string(LIBOPS_GOLDEN_DIR) + "/elementwise/MANIFEST");
  std::string line;
  while (std::getline(in, line)) {
    if (line.empty() || line[0] == '#') continue;
    std::istringstream ss(line);
    Case c;
    ss >> c.op >> c.name >> c.rtol >> c.atol;
    v.push_back(c);
  }
  return v;
}

NDArray golden(const Case& c, const char* role) {
  return test::load_golden("elementwise/" + c.op + "_" + c.name + "_" + role + ".npy");
}

TEST(CudaElementwise, EveryGoldenCaseMatchesOnTheGpu) {
  REQUIRE_CUDA_DEVICE();
  const std::vector<Case> cases = manifest();
  ASSERT_GT(cases.size(), 100u);
  for (const Case& c : cases) {
    SCOPED_TRACE(c.op + " " + c.name);
    NDArray x = golden(c, "x"), want = golden(c, "z");
    std::ifstream has_y(std::string(LIBOPS_GOLDEN_DIR) + "/elementwise/" + c.op + "_" + c.name + "_y.npy");
    NDArray y = has_y.good() ? golden(c, "y") : NDArray();
    std::vector<NDArray*> in = {&x};
    if (!y.is_null()) in.push_back(&y);
    Context gpu;
    gpu.set_device(Device::cuda(0));
    CASE_OK(test::run_op(c.op.c_str(), {.in = in}, gpu));
    NDArray& z = *gpu.output(0);
    EXPECT_EQ(z.buffer()->sync(), DataBuffer::Sync::kDeviceNewer);
    CASE_OK(z.buffer()->sync_to_host());
    CASE_TRUE(z.dtype() == want.dtype());
    CASE_TRUE(z.shape() == want.shape());
    const double rtol = 4 * c.rtol + (z.dtype() == DataType::kFloat32 ? 1e-7 : 0.0);
    for (int64_t i = 0; i < want.length(); ++i) {
      const double g = z.get_double(i), w = want.get_double(i);
      const bool ok = std::isnan(w) ? std::isnan(g) : std::isinf(w) ? g == w : std::fabs(g - w) <= c.atol + rtol * std::fabs(w);
      EXPECT_TRUE(ok) << "element " << i << ": cuda " << g << ", numpy " << w;
    }
  }
}

// Runs without a GPU: every table op has a golden case the test above runs.
TEST(CudaElementwise, EveryOpHasACase) {
  std::map<std::string, int> n;
  for (const Case& c : manifest()) ++n[c.op];
  for (auto table : {ops::unary_elementwise_defs, ops::binary_elementwise_defs}) {
    int count = 0;
    const ops::ElementwiseDef* defs = table(count);
    for (int k = 0; k < count; ++k) {
      EXPECT_GT(n[defs[k].name], 0) << defs[k].name;
      EXPECT_TRUE(OpRegistry::instance().find(defs[k].name)->descriptor().any_device) << defs[k].name;
    }
  }
}

}  // namespace
}  // namespace libops
