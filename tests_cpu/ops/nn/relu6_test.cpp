// relu6: hand values over dtypes, NaN, in place.
#include <limits>

#include "nn_test_util.h"

using namespace libops;
using namespace libops::test;

namespace {

TEST(Relu6Op, ClampsToZeroAndSix) {
  const double nan = std::numeric_limits<double>::quiet_NaN();
  for (DataType dt : {DataType::kFloat64, DataType::kFloat32, DataType::kFloat16}) {
    NDArray x = make(dt, {7}, {-4, 0, 0.5, 5.75, 6, 7.5, nan});
    Context ctx;
    ASSERT_OK(run_op("relu6", {.in = {&x}}, ctx));
    EXPECT_TRUE(all_close(*ctx.output(0), {0, 0, 0.5, 5.75, 6, 6, nan})) << dtype_name(dt);
  }
}

TEST(Relu6Op, IntegersInPlace) {
  NDArray x = make(DataType::kInt64, {2, 2}, {-9, 3, 6, 100});
  Context ctx;
  ASSERT_OK(run_op("relu6", {.in = {&x}, .inplace = true}, ctx));
  EXPECT_TRUE(all_close(x, {0, 3, 6, 6}));
}

TEST(Relu6Op, RejectsArgs) {
  NDArray x = make(DataType::kFloat32, {2}, {1, 2});
  Context ctx;
  Status s = run_op("relu6", {.in = {&x}, .t = {1.0}}, ctx);
  EXPECT_EQ(s.message(), "relu6: takes no float (t) args; got 1 (t arg 0 = 1)");
}

}  // namespace
