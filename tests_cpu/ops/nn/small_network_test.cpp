// A small CNN (conv -> batchnorm -> relu -> maxpool -> flatten -> dense ->
// softmax) and an MLP run op by op, as a graph would run them, against
// numpy forward passes (tools/gen_goldens_nn.py: cnn_small_*, mlp_small_*).
// The dense layers use the matmul, reshape and softmax ops.
#include "nn_test_util.h"

using namespace libops;
using namespace libops::test;

namespace {

// Runs one op and returns its output (a failed op fails the test).
NDArray step(const char* op, const OpCall& call) {
  Context ctx;
  Status s = run_op(op, call, ctx);
  EXPECT_TRUE(s.is_ok()) << s.message();
  return s.is_ok() ? *ctx.output(0) : NDArray();
}

TEST(SmallNetwork, CnnForwardMatchesNumpy) {
  for (DataType dt : {DataType::kFloat64, DataType::kFloat32}) {
    auto g = [&](const char* name) { return nn_golden("cnn_small", name, dt); };
    NDArray x = g("x"), w1 = g("w1"), b1 = g("b1"), mean = g("mean"), var = g("var"), gamma = g("gamma"),
            beta = g("beta"), w2 = g("w2"), b2 = g("b2");
    NDArray h = step("conv2d", {.in = {&x, &w1, &b1}, .i = {3, 3, 1, 1, 1, 1, 1, 1, 0}});
    h = step("batchnorm", {.in = {&h, &mean, &var, &gamma, &beta}, .t = {1e-5}, .i = {1, 1, 1}});
    h = step("relu", {.in = {&h}});
    h = step("maxpool2d", {.in = {&h}, .i = {2, 2, 2, 2, 0, 0, 1, 1, 0}});
    ASSERT_EQ(h.shape(), (Dims{2, 4, 4, 4}));
    h = step("reshape", {.in = {&h}, .i = {2, -1}});
    h = step("matmul", {.in = {&h, &w2}});
    h = step("bias_add", {.in = {&h, &b2}});
    NDArray z = step("softmax", {.in = {&h}});
    ASSERT_EQ(z.shape(), (Dims{2, 5}));
    const double tol = golden_tolerance(dt);
    EXPECT_TRUE(all_close(z, values(nn_golden("cnn_small", "z")), tol, tol)) << dtype_name(dt);
  }
}

TEST(SmallNetwork, MlpForwardMatchesNumpy) {
  for (DataType dt : {DataType::kFloat64, DataType::kFloat32}) {
    auto g = [&](const char* name) { return nn_golden("mlp_small", name, dt); };
    NDArray x = g("x"), w1 = g("w1"), b1 = g("b1"), w2 = g("w2"), b2 = g("b2"), w3 = g("w3"), b3 = g("b3");
    NDArray h = step("matmul", {.in = {&x, &w1}});
    h = step("bias_add", {.in = {&h, &b1}});
    h = step("relu", {.in = {&h}});
    h = step("matmul", {.in = {&h, &w2}});
    h = step("bias_add", {.in = {&h, &b2}});
    h = step("relu6", {.in = {&h}});
    h = step("matmul", {.in = {&h, &w3}});
    h = step("bias_add", {.in = {&h, &b3}});
    NDArray z = step("softmax", {.in = {&h}});
    ASSERT_EQ(z.shape(), (Dims{4, 3}));
    const double tol = golden_tolerance(dt);
    EXPECT_TRUE(all_close(z, values(nn_golden("mlp_small", "z")), tol, tol)) << dtype_name(dt);
  }
}

}  // namespace
