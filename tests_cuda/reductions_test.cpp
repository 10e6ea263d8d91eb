// The reduction ops (libops/ops/reduce/) on cuda:0: every golden case of
// tests_cpu/golden/reductions/MANIFEST (numpy and scipy values) runs on the
// GPU and is held to the golden within 4x the CPU's tolerance (device
// reductions add in another order), NaN and infinities where numpy has them.
#include <cmath>
#include <fstream>
#include <map>
#include <sstream>

#include "cuda_test_util.h"
#include "golden_util.h"
#include "libops/ops/reduce/reduce_common.h"
#include "op_test_util.h"

namespace libops {
namespace {

struct Case {
  std::string op, name;
  double rtol = 0, atol = 0;
  bool keep = false, bias = false;
  std::vector<int64_t> axes;
};

std::vector<Case> manifest() {
  std::vector<Case> v;
  std::ifstream in(std::string(LIBOPS_GOLDEN_DIR) + "/reductions/MANIFEST");
  std::string line;
  while (std::getline(in, line)) {
    if (line.empty() || line[0] == '#') continue;
    std::istringstream ss(line);
    Case c;
    int keep = 0, bias = 0;
    std::string axes;
    ss >> c.op >> c.name >> c.rtol >> c.atol >> keep >> bias >> axes;
    c.keep = keep, c.bias = bias;
    if (axes != "-") {
      std::istringstream as(axes);
      for (std::string a; std::getline(as, a, ',');) c.axes.push_back(std::stoll(a));
    }
    v.push_back(c);
  }
  return v;
}

void expect_golden(const NDArray& got, const NDArray& want, double rtol, double atol) {
  ASSERT_EQ(got.dtype(), want.dtype());
  ASSERT_EQ(got.shape(), want.shape());
  for (int64_t i = 0; i < want.length(); ++i) {
    const double g = got.get_double(i), w = want.get_double(i);
    const bool ok = std::isnan(w) ? std::isnan(g) : std::isinf(w) ? g == w : std::fabs(g - w) <= atol + rtol * std::fabs(w);
    EXPECT_TRUE(ok) << "element " << i << ": cuda " << g << ", numpy " << w;
  }
}

TEST(CudaReductions, EveryGoldenCaseMatchesOnTheGpu) {
  REQUIRE_CUDA_DEVICE();
  const std::vector<Case> cases = manifest();
  ASSERT_GT(cases.size(), 100u);
  for (const Case& c : cases) {
    SCOPED_TRACE(c.op + " " + c.name);
    const std::string prefix = "reductions/" + c.op + "_" + c.name + "_";
    NDArray x = test::load_golden(prefix + "x.npy");
    test::OpCall call{.in = {&x}, .i = c.axes};
    call.b = {c.keep};
    if (c.bias) call.b.push_back(true);
    Context gpu;
    gpu.set_device(Device::cuda(0));
    CASE_OK(test::run_op(c.op.c_str(), call, gpu));
    for (int k = 0; k < gpu.num_outputs(); ++k) {
      CASE_OK(gpu.output(k)->buffer()->sync_to_host());
      expect_golden(*gpu.output(k), test::load_golden(prefix + (k == 0 ? "z.npy" : "v.npy")), 4 * c.rtol, c.atol);
    }
  }
}

// Runs without a GPU: every reduction runs on devices and has a case.
TEST(CudaReductions, EveryOpHasACase) {
  std::map<std::string, int> n;
  for (const Case& c : manifest()) ++n[c.op];
  std::vector<std::string> ops = ops::reduction_op_names();
  ops.push_back("reduce_logsumexp");
  ops.push_back("moments");
  for (const std::string& op : ops) {
    EXPECT_GT(n[op], 0) << op;
    EXPECT_TRUE(OpRegistry::instance().find(op)->descriptor().any_device) << op;
  }
}

}  // namespace
}  // namespace libops
