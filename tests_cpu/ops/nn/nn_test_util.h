// Helpers shared by the tests of libops/ops/nn: run an op by name with
// args, and load the goldens of tools/gen_goldens_nn.py in a chosen dtype.
#pragma once

#include <string>
#include <vector>

#include "golden_util.h"
#include "libops/ops/declarable_op.h"
#include "test_util.h"

namespace libops::test {

struct OpArgs {
  std::vector<int64_t> i;
  std::vector<double> t;
};

// Runs op `name` on `in` (outputs allocated by the op unless `out` is given).
inline Status run_op(const char* name, const std::vector<NDArray*>& in, const OpArgs& args, Context& ctx,
                     const std::vector<NDArray*>& out = {}) {
  DeclarableOp* op = OpRegistry::instance().find(name);
  EXPECT_NE(op, nullptr) << "op not registered: " << name;
  if (op == nullptr) return Status::error(StatusCode::kUnknownOp, "missing op %s", name);
  for (NDArray* a : in) ctx.add_input(a);
  for (NDArray* a : out) ctx.add_output(a);
  ctx.set_i_args(args.i.data(), static_cast<int>(args.i.size()));
  ctx.set_t_args(args.t.data(), static_cast<int>(args.t.size()));
  return op->execute(ctx);
}

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

// Whether `text` contains `part`, printing both when not.
inline ::testing::AssertionResult has_substr(const std::string& text, const std::string& part) {
  if (text.find(part) != std::string::npos) return ::testing::AssertionSuccess();
  return ::testing::AssertionFailure() << "\"" << text << "\" does not contain \"" << part << "\"";
}

}  // namespace libops::test
