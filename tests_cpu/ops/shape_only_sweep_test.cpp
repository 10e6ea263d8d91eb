// Shape functions run on shape-only arrays: a graph's load-time plan (and the
// ONNX importer's probes) call every op's shape function with inputs that
// carry a dtype and a shape but no data, for every value not known until the
// graph runs. A shape function that needs an input's values must then fail
// with a status, never read the missing data: pad's read a shape-only
// paddings input and crashed the loader on any graph that computed its pads.
//
// Every registered op is called with shape-only inputs of a few dtypes and
// shapes (integer vectors and matrices, as shape inputs are, and float data),
// each input count its signature allows up to four, with no args and with its
// required args set to 1. Each call may succeed or fail; none may crash (the
// sanitizer builds run it too).
#include <gtest/gtest.h>

#include <algorithm>
#include <string>
#include <vector>

#include "libops/ops/declarable_op.h"
#include "libops/ops/registry.h"

namespace libops {
namespace {

struct Variant {
  DataType dtype;
  Dims shape;
};

TEST(ShapeOnlySweep, EveryShapeFunctionFailsCleanlyWithoutData) {
  const std::vector<Variant> first = {
      {DataType::kFloat32, {2, 3, 4}}, {DataType::kInt64, {3}}, {DataType::kFloat32, {}}, {DataType::kBool, {2, 2}}};
  const std::vector<Variant> rest = {{DataType::kInt64, {2}},
                                     {DataType::kInt64, {3, 2}},
                                     {DataType::kInt64, {}},
                                     {DataType::kInt32, {1}},
                                     {DataType::kFloat32, {2, 3, 4}}};
  int calls = 0, ok = 0;
  for (const DeclarableOp* c_op : OpRegistry::instance().list()) {
    auto* op = const_cast<DeclarableOp*>(c_op);
    const OpSignature& sig = op->descriptor().signature;
    const int lo = std::max(sig.min_inputs(), 1);
    const int hi = std::min(sig.max_inputs(), 4);
    SCOPED_TRACE(op->name());
    for (int n = lo; n <= hi; ++n) {
      // Every combination of variants for the n inputs.
      std::vector<size_t> pick(static_cast<size_t>(n), 0);
      for (;;) {
        std::vector<NDArray> arrays(static_cast<size_t>(n));
        for (int k = 0; k < n; ++k) {
          const Variant& v = k == 0 ? first[pick[0]] : rest[pick[static_cast<size_t>(k)]];
          arrays[static_cast<size_t>(k)] = NDArray::shape_only(TensorShape{v.dtype, v.shape, 'c'});
        }
        for (int with_args = 0; with_args < 2; ++with_args) {
          Context ctx;
          for (NDArray& a : arrays) ctx.add_input(&a);
          if (with_args) {
            ctx.i_args().assign(static_cast<size_t>(std::min(sig.required_count(ArgKind::kInt), 8)), 1);
            ctx.t_args().assign(static_cast<size_t>(std::min(sig.required_count(ArgKind::kFloat), 8)), 1.0);
            ctx.d_args().assign(static_cast<size_t>(std::min(sig.required_count(ArgKind::kDtype), 8)),
                                DataType::kFloat32);
          }
          ShapeList shapes;
          ok += op->infer_shapes(ctx, shapes).is_ok() ? 1 : 0;
          ++calls;
        }
        int k = 0;
        for (; k < n; ++k) {
          const size_t limit = k == 0 ? first.size() : rest.size();
          if (++pick[static_cast<size_t>(k)] < limit) break;
          pick[static_cast<size_t>(k)] = 0;
        }
        if (k == n) break;
      }
    }
  }
  // The sweep reached the ops: some calls are valid (an add of two floats).
  EXPECT_GT(calls, 10000);
  EXPECT_GT(ok, 500);
}

}  // namespace
}  // namespace libops
