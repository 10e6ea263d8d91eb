// The axis-set table shared by the reduce_sum, reduce_mean and reduce_max
// golden tests: tools/gen_goldens_custom_ops.py (reduce_cases) writes
// custom_ops/<op>_<tag>_z.npy for one float32 [2,3,4] input, and every op
// must match numpy on every row. Some tags are reached by more than one
// spelling of the same axes (order, negative axes), which must agree.
#pragma once

#include <string>
#include <vector>

#include "golden_util.h"
#include "op_test_util.h"

namespace libops::test {

struct ReduceAxesCase {
  std::vector<int64_t> axes;
  bool keep;
  const char* tag;  // golden file tag
};

inline const std::vector<ReduceAxesCase>& reduce_axes_cases() {
  static const std::vector<ReduceAxesCase> cases = {
      {{1}, false, "1"},           {{0, 2}, false, "0_2"},      {{}, false, "all"},
      {{0, 2}, true, "0_2_keep"},  {{2, 0}, true, "0_2_keep"},  {{0, -1}, true, "0_2_keep"},
      {{-1}, true, "-1_keep"},
  };
  return cases;
}

// Runs `op` over every row of the table on the golden input and compares
// shape, dtype (float32) and values (within `tol`) with numpy's.
inline void expect_reduce_matches_goldens(const char* op, double tol) {
  NDArray x = load_golden("custom_ops/reduce_x.npy");  // float32 [2,3,4]
  for (const ReduceAxesCase& c : reduce_axes_cases()) {
    SCOPED_TRACE(std::string(op) + " tag " + c.tag);
    NDArray want = load_golden(std::string("custom_ops/") + op + "_" + c.tag + "_z.npy");
    Context ctx;
    ASSERT_OK(run_op(op, {.in = {&x}, .i = c.axes, .b = {c.keep}}, ctx));
    EXPECT_EQ(ctx.output(0)->shape(), want.shape());
    EXPECT_EQ(ctx.output(0)->dtype(), DataType::kFloat32);
    EXPECT_TRUE(all_close(*ctx.output(0), values(want), tol, tol));
  }
}

}  // namespace libops::test
