// dot_product_attention beyond its goldens (tests_cpu/golden/attention,
// tools/gen_goldens_attention.py): one key by hand, and the errors.
#include "op_test_util.h"

using namespace libops;
using namespace libops::test;

namespace {

// A single key: every query's weight on it is 1, so z is v's row.
TEST(DotProductAttention, OneKeyGivesItsValue) {
  NDArray q = make(DataType::kFloat32, {3, 2}, {1, 2, -3, 0.5, 100, -100});
  NDArray k = make(DataType::kFloat32, {1, 2}, {0.25, -1});
  NDArray v = make(DataType::kFloat32, {1, 3}, {7, -8, 9});
  Context ctx;
  ASSERT_OK(run_op("dot_product_attention", {.in = {&q, &k, &v}}, ctx));
  EXPECT_TRUE(all_close(*ctx.output(0), {7, -8, 9, 7, -8, 9, 7, -8, 9}));
}

TEST(DotProductAttention, BadShapesAndMaskDtype) {
  NDArray q = zeros(DataType::kFloat32, {2, 4, 8});
  NDArray k = zeros(DataType::kFloat32, {2, 5, 6});
  NDArray v = zeros(DataType::kFloat32, {2, 5, 3});
  Context c1;
  EXPECT_EQ(run_op("dot_product_attention", {.in = {&q, &k, &v}}, c1).message(),
            "dot_product_attention: q[2,4,8], k[2,5,6] and v[2,5,3] do not fit [..., Tq, d], [..., Tk, d], [..., Tk, dv]");
  NDArray k8 = zeros(DataType::kFloat32, {2, 5, 8});
  NDArray mask = zeros(DataType::kInt32, {5});
  Context c2;
  EXPECT_FALSE(run_op("dot_product_attention", {.in = {&q, &k8, &v, &mask}}, c2).is_ok());
}

}  // namespace
