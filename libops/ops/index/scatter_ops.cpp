// The scatters into a copy of x (Note [Indexed rows]), a row per op:
//   scatter, scatter_upd/add/sub/mul/div/max/min  (libnd4j) indices name
//       positions along dim 0: x [n, rest...], indices [m...] (any shape),
//       updates [m..., rest...]
//   scatter_nd_update, scatter_nd_add/sub/...  (libnd4j, TF's
//       tensor_scatter_nd_*, ONNX's ScatterND) indices [m..., K] name rows
//       of x's first K dims: updates [m..., x.shape[K:]...]
// The generic scatter and scatter_nd_update take the mode as an i arg; the
// others have theirs fixed. z has x's dtype and shape; the combining runs in
// the scatter compute dtype (index_call.h) on the call's device.
#include <memory>
#include <string>

#include "libops/ops/index/index_call.h"
#include "libops/ops/registry.h"

namespace libops::ops {
namespace {

struct ScatterDef {
  const char* name;
  bool dim0;    // libnd4j's along-dim-0 form; else the nd form
  int mode;     // a ScatterMode, or -1: i arg 0
  const char* summary;
  const char* aliases;
};

const ScatterDef kScatters[] = {
    {"scatter", true, -1, "Combines update rows into a copy of x at positions along dim 0.", ""},
    {"scatter_upd", true, 0, "Writes update rows into a copy of x at positions along dim 0; the last wins.",
     "scatter_update"},
    {"scatter_add", true, 1, "Adds update rows into a copy of x at positions along dim 0.", ""},
    {"scatter_sub", true, 2, "Subtracts update rows from a copy of x at positions along dim 0.", ""},
    {"scatter_mul", true, 3, "Multiplies a copy of x by update rows at positions along dim 0.", ""},
    {"scatter_div", true, 4, "Divides a copy of x by update rows at positions along dim 0.", ""},
    {"scatter_max", true, 5, "The larger of x and each update row, at positions along dim 0.", ""},
    {"scatter_min", true, 6, "The smaller of x and each update row, at positions along dim 0.", ""},
    {"scatter_nd_update", false, -1, "Combines update slices into a copy of x at multi-dimensional indices.",
     "tensor_scatter_update"},
    {"scatter_nd_add", false, 1, "Adds update slices into a copy of x at multi-dimensional indices.",
     "tensor_scatter_add"},
    {"scatter_nd_sub", false, 2, "Subtracts update slices from a copy of x at multi-dimensional indices.",
     "tensor_scatter_sub"},
    {"scatter_nd_mul", false, 3, "Multiplies a copy of x by update slices at multi-dimensional indices.", ""},
    {"scatter_nd_max", false, 5, "The larger of x and each update slice, at multi-dimensional indices.",
     "tensor_scatter_max"},
    {"scatter_nd_min", false, 6, "The smaller of x and each update slice, at multi-dimensional indices.",
     "tensor_scatter_min"},
};

class ScatterOp final : public DeclarableOp {
 public:
  explicit ScatterOp(const ScatterDef& def) : DeclarableOp(def.name, OpKind::kCustom, 3, 1, false, 0, 0), def_(def) {}

 protected:
  void declare_types(OpDescriptor& descriptor) override {
    // On a device through the backend's row kernel (indexed_rows.cu).
    descriptor.allow_input(0, types::kNumeric).allow_input(1, types::kIndex).allow_input(2, types::kNumeric);
    descriptor.runs_on_any_device();
  }

  void declare_args(OpSignature& args) override {
    args.describe(def_.summary);
    args.input("x", def_.dim0 ? "[n, rest...]" : "[D0..D(K-1), rest...]");
    args.input("indices", def_.dim0 ? "positions along dim 0, int32 or int64, any shape [m...]"
                                    : "[m..., K], int32 or int64");
    args.input("updates", def_.dim0 ? "[m..., rest...], converted to x's dtype" : "[m..., rest...], converted to x's dtype");
    args.output("z", "x with the updates combined in");
    if (def_.mode < 0)
      args.i_arg("mode", 0, "how an update combines with its target")
          .one_of({{0, "set"}, {1, "add"}, {2, "subtract"}, {3, "multiply"}, {4, "divide"}, {5, "max"}, {6, "min"}});
  }

  Status plan(Context& block, IndexedRows& d) {
    const NDArray& x = *block.input(0);
    const NDArray& idx = *block.input(1);
    const NDArray& upd = *block.input(2);
    Dims want;  // the updates' shape
    if (def_.dim0) {
      REQUIRE_TRUE(x.rank() >= 1, OPS_ERR_SHAPE, "x%s needs rank >= 1", x.shape().str().c_str());
      d.k = 1;
      d.count = idx.length();
      want = idx.shape();
    } else {
      REQUIRE_TRUE(idx.rank() >= 1 && idx.dim(idx.rank() - 1) <= x.rank(), OPS_ERR_SHAPE,
                   "indices%s: the last dim (K) must be at most x%s's rank", idx.shape().str().c_str(),
                   x.shape().str().c_str());
      d.k = idx.dim(idx.rank() - 1);
      d.count = d.k == 0 ? 0 : idx.length() / d.k;
      for (int j = 0; j + 1 < idx.rank(); ++j) want.push_back(idx.dim(j));
    }
    for (int64_t j = 0; j < d.k; ++j) d.dims[j] = x.dim(static_cast<int>(j));
    d.row = 1;
    for (int j = static_cast<int>(d.k); j < x.rank(); ++j) {
      want.push_back(x.dim(j));
      d.row *= x.dim(j);
    }
    REQUIRE_TRUE(upd.shape() == want, OPS_ERR_SHAPE,
                 "updates%s do not fit x%s and indices%s: they must be %s", upd.shape().str().c_str(),
                 x.shape().str().c_str(), idx.shape().str().c_str(), want.str().c_str());
    d.batches = 1;
    d.indices_batch_stride = 0;
    return Status::ok();
  }

  Status calculate_output_shape(Context& block, ShapeList& shapes) override {
    IndexedRows d;
    RETURN_IF_ERROR(plan(block, d));
    shapes.push_back(TensorShape{block.input(0)->dtype(), block.input(0)->shape(), 'c'});
    return Status::ok();
  }

  Status validate_and_execute(Context& block) override {
    IndexedRows d;
    RETURN_IF_ERROR(plan(block, d));
    const NDArray& x = *block.input(0);
    NDArray* z = block.output(0);
    if (z->length() == 0) return Status::ok();
    const auto mode = static_cast<ScatterMode>(def_.mode >= 0 ? def_.mode : block.i_arg(0));
    const DataType ct = scatter_compute_dtype(x.dtype());
    NDArray zc, uc, id;
    RETURN_IF_ERROR(NDArray::create(ct, x.shape(), 'c', zc));
    RETURN_IF_ERROR(assign_on_device(block, zc, x));
    RETURN_IF_ERROR(dense_on_device(block, *block.input(2), ct, uc));
    RETURN_IF_ERROR(dense_on_device(block, *block.input(1), block.input(1)->dtype(), id));
    int64_t bad = -1;
    if (d.count > 0 && d.row > 0) RETURN_IF_ERROR(run_scatter_rows(block, d, mode, id, uc, zc, bad));
    if (bad >= 0) return bad_index_error(block, id, d, bad, x, 0);
    return assign_on_device(block, *z, zc);
  }

 private:
  const ScatterDef& def_;
};

struct RegisterScatters {
  RegisterScatters() {
    for (const ScatterDef& d : kScatters) OpRegistry::instance().add(std::make_unique<ScatterOp>(d), d.aliases);
  }
} const kRegister;

}  // namespace

std::vector<std::string> scatter_op_names() {
  std::vector<std::string> v;
  for (const ScatterDef& d : kScatters) v.emplace_back(d.name);
  return v;
}

}  // namespace libops::ops
