// Helpers shared by the tests of libops/ops/nn: load the goldens of
// tools/gen_goldens_nn.py in a chosen dtype, compare messages. Ops run
// through run_op (op_test_util.h).
#pragma once

#include <fstream>

#include <string>
#include <vector>

#include "golden_util.h"
#include "op_test_util.h"

namespace libops::test {

// `a` converted to `dtype` (a dense copy).
inline NDArray cast_to(const NDArray& a, DataType dtype) {
  NDArray out;
  EXPECT_OK(NDArray::create(dtype, a.shape(), 'c', out));
  EXPECT_OK(out.assign(a));
  return out;
}

// tests_cpu/golden/nn/<prefix>_<name>.npy, converted to `dtype`.
inline NDArray nn_golden(const std::string& prefix, const char* name, DataType dtype = DataType::kFloat64) {
  NDArray a = load_golden("nn/" + prefix + "_" + name + ".npy");
  if (a.is_null() || a.dtype() == dtype) return a;
  return cast_to(a, dtype);
}

// The golden, or a null array where the case has no such file (an optional
// input the case leaves out: pools have no w or b, batchnorm cases may lack
// gamma or beta).
inline NDArray nn_golden_if_present(const std::string& prefix, const char* name, DataType dtype) {
  std::ifstream probe(std::string(LIBOPS_GOLDEN_DIR) + "/nn/" + prefix + "_" + name + ".npy");
  return probe.good() ? nn_golden(prefix, name, dtype) : NDArray();
}

inline std::vector<int64_t> nn_golden_ints(const std::string& prefix, const char* name) {
  NDArray a = load_golden("nn/" + prefix + "_" + name + ".npy");
  std::vector<int64_t> v;
  for (int64_t i = 0; i < a.length(); ++i) v.push_back(a.get_int64(i));
  return v;
}

// Tolerances of a float dtype against float64 goldens.
inline double golden_tolerance(DataType dtype) {
  switch (dtype) {
    case DataType::kFloat64: return 1e-10;
    case DataType::kFloat32: return 2e-5;
    default: return 3e-2;  // float16, bfloat16
  }
}

// Runs the convolution-family op `op` on golden case <op>_<name> (inputs
// x, w and, where present, b; i args from the file) in `dtype` and checks
// dtype, shape and values against the golden z.
inline void expect_conv_golden(const char* op, const std::string& name, DataType dtype) {
  const std::string prefix = std::string(op) + "_" + name;
  NDArray x = nn_golden(prefix, "x", dtype), w = nn_golden(prefix, "w", dtype);
  NDArray b = nn_golden_if_present(prefix, "b", dtype);
  NDArray want = nn_golden(prefix, "z");
  std::vector<NDArray*> in = {&x, &w};
  if (!b.is_null()) in.push_back(&b);
  Context ctx;
  ASSERT_OK(run_op(op, {.in = in, .i = nn_golden_ints(prefix, "iargs")}, ctx));
  EXPECT_EQ(ctx.output(0)->dtype(), dtype);
  EXPECT_EQ(ctx.output(0)->shape(), want.shape());
  const double tol = golden_tolerance(dtype);
  EXPECT_TRUE(all_close(*ctx.output(0), values(want), tol, tol));
}

// Whether `text` contains `part`, printing both when not.
inline ::testing::AssertionResult has_substr(const std::string& text, const std::string& part) {
  if (text.find(part) != std::string::npos) return ::testing::AssertionSuccess();
  return ::testing::AssertionFailure() << "\"" << text << "\" does not contain \"" << part << "\"";
}

}  // namespace libops::test
