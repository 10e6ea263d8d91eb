// Validation of legacy calls; the kernels trust what is checked here.
#include "libops/legacy/legacy.h"

#include <algorithm>
#include <cmath>
#include <cstring>

#include "libops/legacy/device_tables.h"
#include "libops/legacy/ops/binary_int_ops.h"
#include "libops/legacy/ops/binary_ops.h"
#include "libops/legacy/ops/transform_same_ops.h"
#include "libops/legacy/tables.h"
#include "libops/loops/nd_loop.h"

namespace libops::legacy {

namespace {

// The axes of a non-reducing table call, built once (a Dims{} per call
// zero-fills its whole inline storage).
const Dims kNoAxes;

constexpr const char* kGroupNames[OPS_LEGACY_GROUP_COUNT] = {
    "transform_float", "transform_same", "transform_strict", "transform_bool", "transform_any",
    "scalar",          "scalar_bool",    "scalar_int",       "pairwise",       "pairwise_bool",
    "pairwise_int",    "broadcast",      "broadcast_bool",   "broadcast_int",  "reduce_float",
    "reduce_same",     "reduce_bool",    "reduce_long",      "reduce3",        "index_reduce",
    "summary_stats",   "random"};

Status check_array(const char* op, const char* role, const NDArray* a) {
  if (a == nullptr) return Status::error(StatusCode::kNullPointer, "%s: %s array is null", op, role);
  if (a->is_null() || !a->has_data())
    return Status::error(StatusCode::kInvalidArgument, "%s: %s array has no data", op, role);
  return Status::ok();
}

bool partially_overlaps(const NDArray& z, const NDArray& in) { return z.may_overlap(in) && !z.same_view(in); }

Status check_no_partial_overlap(const char* op, const NDArray& z, const NDArray& in, const char* role) {
  if (partially_overlaps(z, in))
    return Status::error(StatusCode::kInvalidArgument,
                         "%s: output z partially overlaps input %s; use the same view for in-place or a "
                         "separate output",
                         op, role);
  return Status::ok();
}

Status require_dtype(const char* op, const char* role, DataType got, bool ok, const char* expected) {
  if (ok) return Status::ok();
  return Status::error(StatusCode::kDtype, "%s: %s has dtype %s; expected %s", op, role, dtype_name(got), expected);
}

bool is_transform(ops_legacy_group_t g) { return g <= OPS_TRANSFORM_ANY; }
bool is_binary(ops_legacy_group_t g) { return g >= OPS_SCALAR && g <= OPS_BROADCAST_INT; }

Status exec_transform(const LegacyCall& c, const char* op) {
  const NDArray& x = *c.x;
  NDArray& z = *c.z;
  if (!broadcasts_to_shape(x.shape(), z.shape()))
    return Status::error(StatusCode::kShape, "%s: input x%s does not match output z%s", op, x.shape().str().c_str(),
                         z.shape().str().c_str());
  RETURN_IF_ERROR(check_no_partial_overlap(op, z, x, "x"));
  ComputeType ct = compute_type_of(x.dtype());
  ExtraParams extra = c.extra;
  if (c.group == OPS_TRANSFORM_SAME && (c.num == static_cast<int>(TransformSameOp::bitwise_not) ||
                                        c.num == static_cast<int>(TransformSameOp::population_count))) {
    // They work on the bits of x's own dtype (transform_same_ops.h).
    extra.v[0] = x.dtype() == DataType::kBool ? 1.0 : 8.0 * static_cast<double>(dtype_size(x.dtype()));
    extra.n = std::max(extra.n, 1);
  }
  switch (c.group) {
    case OPS_TRANSFORM_FLOAT:
      RETURN_IF_ERROR(require_dtype(op, "output z", z.dtype(), dtype_is_float(z.dtype()), "a float dtype"));
      ct = compute_type_of(dtype_is_float(x.dtype()) ? x.dtype() : z.dtype());
      break;
    case OPS_TRANSFORM_SAME:
      RETURN_IF_ERROR(require_dtype(op, "output z", z.dtype(), z.dtype() == x.dtype(), dtype_name(x.dtype())));
      break;
    case OPS_TRANSFORM_STRICT:
      RETURN_IF_ERROR(require_dtype(op, "input x", x.dtype(), dtype_is_float(x.dtype()), "a float dtype"));
      RETURN_IF_ERROR(require_dtype(op, "output z", z.dtype(), z.dtype() == x.dtype(), dtype_name(x.dtype())));
      break;
    case OPS_TRANSFORM_BOOL:
      RETURN_IF_ERROR(require_dtype(op, "output z", z.dtype(), z.dtype() == DataType::kBool, "bool"));
      break;
    default:  // OPS_TRANSFORM_ANY
      ct = compute_type_of(promote_types(x.dtype(), z.dtype()));
      break;
  }
  return run_table(table_of(static_cast<ops_legacy_group_t>(c.group)), c.device, c.num, ct, x, nullptr, z, kNoAxes,
                   extra);
}

// Note [Rotation width] in ops/binary_int_ops.h: the rotation width is
// extra[0], by default the bit width of x's dtype; a given width must be a
// whole number from 1 to the width of the compute type.
Status rotation_width(const char* op, DataType x, DataType common, ExtraParams& extra) {
  const ComputeType ct = compute_type_of(common);
  const int max_bits = ct == ComputeType::kI32 || ct == ComputeType::kF32 ? 32 : 64;
  if (extra.n == 0) {
    extra.v[0] = static_cast<double>(8 * dtype_size(x));
    extra.n = 1;
    return Status::ok();
  }
  const double w = extra.v[0];
  if (!(w >= 1 && w <= max_bits && w == std::floor(w)))
    return Status::error(StatusCode::kInvalidArgument,
                         "%s: rotation width (extra param 0) must be a whole number from 1 to %d, got %g", op, max_bits,
                         w);
  return Status::ok();
}

// Note [pow of 2]
// pow(x, 2) with a float x and one exponent for all of it (a variance, as
// exporters write LayerNorm) is x * x: libm's pow took 5 ns an element
// (0.16-0.27 ms for each of a 2-layer BERT's four [128, 256] pows), the
// vectorized multiply 3 us. The results are the same: x * x is the
// correctly rounded square, which pow(x, 2) is too (in float's case
// computed exactly in double first), with the same NaN, infinities and
// zeros.
Status pow_is_square(const LegacyCall& c, const NDArray& x, const NDArray& y, ComputeType ct, bool& squares) {
  squares = false;
  if (table_of(static_cast<ops_legacy_group_t>(c.group)) != Table::kBinary ||
      c.num != static_cast<int>(BinaryOp::pow) || (ct != ComputeType::kF32 && ct != ComputeType::kF64) ||
      !c.device.is_cpu() || y.length() != 1 || c.z->shape() != x.shape())
    return Status::ok();
  RETURN_IF_ERROR(y.buffer()->sync_to_host());
  squares = y.get_double(0) == 2.0;
  return Status::ok();
}

Status exec_binary(const LegacyCall& c, const char* op) {
  RETURN_IF_ERROR(check_array(op, "input y", c.y));
  const NDArray& x = *c.x;
  NDArray& z = *c.z;
  NDArray y = *c.y;
  const auto g = static_cast<ops_legacy_group_t>(c.group);
  const bool scalar_group = g == OPS_SCALAR || g == OPS_SCALAR_BOOL || g == OPS_SCALAR_INT;
  const bool broadcast_group = g == OPS_BROADCAST || g == OPS_BROADCAST_BOOL || g == OPS_BROADCAST_INT;
  if (scalar_group && y.length() != 1)
    return Status::error(StatusCode::kShape, "%s: scalar op needs a one-element y, got y%s", op,
                         y.shape().str().c_str());
  if (scalar_group) RETURN_IF_ERROR(y.reshape(Dims{}, y));
  if (broadcast_group && c.n_axes > 0) {
    // libnd4j broadcast: y spans the given dims of x; view it with x's rank.
    Dims axes;
    RETURN_IF_ERROR(normalize_axes(op, c.axes, c.n_axes, x.rank(), false, axes));
    if (axes.size() != y.rank())
      return Status::error(StatusCode::kShape, "%s: y%s has rank %d but %d broadcast dims were given", op,
                           y.shape().str().c_str(), y.rank(), axes.size());
    Dims shape, strides;
    shape.resize(x.rank(), 1);
    strides.resize(x.rank(), 0);
    for (int i = 0; i < axes.size(); ++i) {
      if (y.dim(i) != x.dim(static_cast<int>(axes[i])))
        return Status::error(StatusCode::kShape, "%s: y%s does not match x%s along dims %s", op,
                             y.shape().str().c_str(), x.shape().str().c_str(), axes.str().c_str());
      shape[static_cast<int>(axes[i])] = y.dim(i);
    }
    RETURN_IF_ERROR(y.buffer()->sync_to_host());  // the copy below reads the host side
    RETURN_IF_ERROR(y.reshape_copy(shape, y));
  }
  Dims out;
  RETURN_IF_ERROR(broadcast_shapes(op, x.shape(), y.shape(), out));
  if (out != z.shape())
    return Status::error(StatusCode::kShape, "%s: inputs x%s and y%s broadcast to %s but z is %s", op,
                         x.shape().str().c_str(), y.shape().str().c_str(), out.str().c_str(),
                         z.shape().str().c_str());
  RETURN_IF_ERROR(check_no_partial_overlap(op, z, x, "x"));
  RETURN_IF_ERROR(check_no_partial_overlap(op, z, y, "y"));
  const DataType common = promote_types(x.dtype(), y.dtype());
  Table t = table_of(g);
  if (t == Table::kBinaryBool)
    RETURN_IF_ERROR(require_dtype(op, "output z", z.dtype(), z.dtype() == DataType::kBool, "bool"));
  if (t == Table::kBinaryInt) {
    RETURN_IF_ERROR(require_dtype(op, "input x", x.dtype(), !dtype_is_float(x.dtype()), "an integer or bool dtype"));
    RETURN_IF_ERROR(require_dtype(op, "input y", y.dtype(), !dtype_is_float(y.dtype()), "an integer or bool dtype"));
    RETURN_IF_ERROR(require_dtype(op, "output z", z.dtype(), !dtype_is_float(z.dtype()), "an integer or bool dtype"));
  }
  ExtraParams extra = c.extra;
  if (t == Table::kBinaryInt && (c.num == static_cast<int>(BinaryIntOp::cyclic_shift_left) ||
                                 c.num == static_cast<int>(BinaryIntOp::cyclic_shift_right)))
    RETURN_IF_ERROR(rotation_width(op, x.dtype(), common, extra));
  const ComputeType ct = compute_type_of(common);
  bool squares = false;
  RETURN_IF_ERROR(pow_is_square(c, x, y, ct, squares));
  if (squares) return run_table(t, c.device, static_cast<int>(BinaryOp::multiply), ct, x, &x, z, kNoAxes, extra);
  return run_table(t, c.device, c.num, ct, x, &y, z, kNoAxes, extra);
}

Status exec_reduce(const LegacyCall& c, const char* op) {
  NDArray& z = *c.z;
  // REDUCE3 pairs x and y broadcast together (libnd4j's reduce3 along
  // dims compares a vector x with every row of y).
  NDArray xb = *c.x, yb;
  const NDArray* y = nullptr;
  if (c.group == OPS_REDUCE3) {
    RETURN_IF_ERROR(check_array(op, "input y", c.y));
    yb = *c.y;
    if (yb.shape() != xb.shape()) {
      Dims common;
      RETURN_IF_ERROR(broadcast_shapes(op, xb.shape(), yb.shape(), common));
      RETURN_IF_ERROR(c.x->broadcast_to(common, xb));
      RETURN_IF_ERROR(c.y->broadcast_to(common, yb));
    }
    y = &yb;
  }
  const NDArray& x = xb;
  Dims axes;
  RETURN_IF_ERROR(normalize_axes(op, c.axes, c.n_axes, x.rank(), true, axes));
  Dims keep = reduced_shape(x.shape(), axes, true), drop = reduced_shape(x.shape(), axes, false);
  if (z.shape() != keep && z.shape() != drop)
    return Status::error(StatusCode::kShape, "%s: reducing x%s over axes %s gives %s (or %s with kept dims), but z is %s",
                         op, x.shape().str().c_str(), axes.str().c_str(), drop.str().c_str(), keep.str().c_str(),
                         z.shape().str().c_str());
  if (z.may_overlap(*c.x) || (y && z.may_overlap(*c.y)))
    return Status::error(StatusCode::kInvalidArgument, "%s: output z overlaps an input", op);
  DataType in = y ? promote_types(x.dtype(), y->dtype()) : x.dtype();
  ComputeType ct = compute_type_of(in);
  switch (c.group) {
    case OPS_REDUCE_SAME:
      RETURN_IF_ERROR(require_dtype(op, "output z", z.dtype(), z.dtype() == x.dtype(), dtype_name(x.dtype())));
      break;
    case OPS_REDUCE_BOOL:
      RETURN_IF_ERROR(require_dtype(op, "output z", z.dtype(), z.dtype() == DataType::kBool, "bool"));
      break;
    case OPS_REDUCE_LONG:
    case OPS_INDEX_REDUCE:
      RETURN_IF_ERROR(require_dtype(op, "output z", z.dtype(), z.dtype() == DataType::kInt64, "int64"));
      break;
    case OPS_SUMMARY_STATS:
      RETURN_IF_ERROR(require_dtype(op, "output z", z.dtype(), dtype_is_float(z.dtype()), "a float dtype"));
      break;
    default:  // REDUCE_FLOAT, REDUCE3: float results, integers computed in float
      RETURN_IF_ERROR(require_dtype(op, "output z", z.dtype(), dtype_is_float(z.dtype()), "a float dtype"));
      ct = compute_type_of(float_result_type(in));
      break;
  }
  if (z.length() == 0) return Status::ok();
  return run_table(table_of(static_cast<ops_legacy_group_t>(c.group)), c.device, c.num, ct, x, y, z, axes, c.extra);
}

}  // namespace

bool group_is_valid(int group) { return group >= 0 && group < OPS_LEGACY_GROUP_COUNT; }

const char* group_name(ops_legacy_group_t group) {
  return group_is_valid(group) ? kGroupNames[group] : "invalid";
}

int list_ops(ops_legacy_group_t group, const LegacyOpInfo** ops) {
  if (!group_is_valid(group)) {
    if (ops) *ops = nullptr;
    return 0;
  }
  OpTable t = op_table(table_of(group));
  if (ops) *ops = t.ops;
  return t.count;
}

const char* op_name(ops_legacy_group_t group, int num) {
  const LegacyOpInfo* ops = nullptr;
  int n = list_ops(group, &ops);
  for (int i = 0; i < n; ++i)
    if (ops[i].num == num) return ops[i].name;
  return nullptr;
}

int find_op(ops_legacy_group_t group, const char* name) {
  if (name == nullptr) return -1;
  const LegacyOpInfo* ops = nullptr;
  int n = list_ops(group, &ops);
  for (int i = 0; i < n; ++i)
    if (std::strcmp(ops[i].name, name) == 0) return ops[i].num;
  return -1;
}

Status exec(const LegacyCall& c) {
  if (!group_is_valid(c.group))
    return Status::error(StatusCode::kInvalidArgument, "legacy: invalid op group %d (valid 0..%d)",
                         static_cast<int>(c.group), OPS_LEGACY_GROUP_COUNT - 1);
  const char* op = op_name(static_cast<ops_legacy_group_t>(c.group), c.num);
  if (op == nullptr)
    return Status::error(StatusCode::kUnknownOp, "legacy %s: no op number %d", group_name(static_cast<ops_legacy_group_t>(c.group)), c.num);
  RETURN_IF_ERROR(check_array(op, "output z", c.z));
  if (const int d = c.z->repeated_dim(); d >= 0)
    return Status::error(StatusCode::kInvalidArgument,
                         "%s: output z%s is a broadcast view (stride 0 on dim %d); outputs must not repeat elements",
                         op, c.z->shape().str().c_str(), d);
  if (c.group == OPS_RANDOM) {
    if (c.x) RETURN_IF_ERROR(check_array(op, "input x", c.x));
    if (c.y) RETURN_IF_ERROR(check_array(op, "input y", c.y));
    return run_random_on(c.device, c.num, c.seed, c.x, c.y, *c.z, c.extra);
  }
  RETURN_IF_ERROR(check_array(op, "input x", c.x));
  if (is_transform(static_cast<ops_legacy_group_t>(c.group))) return exec_transform(c, op);
  if (is_binary(static_cast<ops_legacy_group_t>(c.group))) return exec_binary(c, op);
  return exec_reduce(c, op);
}

Status exec_pairwise_prechecked(const LegacyCall& c) {
  if (c.group != OPS_PAIRWISE) return exec(c);
  const NDArray& x = *c.x;
  const NDArray& y = *c.y;
  NDArray& z = *c.z;
  // The checks of exec that the caller's do not cover; exec reports a failure.
  if (z.repeated_dim() >= 0 || partially_overlaps(z, x) || partially_overlaps(z, y)) return exec(c);
  // As exec_binary: the plain pairwise table has no dtype rules of its own.
  return run_table(Table::kBinary, c.device, c.num, compute_type_of(promote_types(x.dtype(), y.dtype())), x, &y, z,
                   kNoAxes, c.extra);
}

// ---- table plumbing ----

Table table_of(ops_legacy_group_t g) {
  switch (g) {
    case OPS_TRANSFORM_FLOAT: return Table::kTransformFloat;
    case OPS_TRANSFORM_SAME: return Table::kTransformSame;
    case OPS_TRANSFORM_STRICT: return Table::kTransformStrict;
    case OPS_TRANSFORM_BOOL: return Table::kTransformBool;
    case OPS_TRANSFORM_ANY: return Table::kTransformAny;
    case OPS_SCALAR: case OPS_PAIRWISE: case OPS_BROADCAST: return Table::kBinary;
    case OPS_SCALAR_BOOL: case OPS_PAIRWISE_BOOL: case OPS_BROADCAST_BOOL: return Table::kBinaryBool;
    case OPS_SCALAR_INT: case OPS_PAIRWISE_INT: case OPS_BROADCAST_INT: return Table::kBinaryInt;
    case OPS_REDUCE_FLOAT: return Table::kReduceFloat;
    case OPS_REDUCE_SAME: return Table::kReduceSame;
    case OPS_REDUCE_BOOL: return Table::kReduceBool;
    case OPS_REDUCE_LONG: return Table::kReduceLong;
    case OPS_REDUCE3: return Table::kReduce3;
    case OPS_INDEX_REDUCE: return Table::kIndexReduce;
    case OPS_SUMMARY_STATS: return Table::kSummaryStats;
    case OPS_RANDOM: break;
    case OPS_LEGACY_GROUP_MIN_ENUM_: case OPS_LEGACY_GROUP_MAX_ENUM_: break;  // not groups; callers check first
  }
  return Table::kRandom;
}

OpTable op_table(Table t) {
  switch (t) {
    case Table::kTransformFloat: return transform_float_table();
    case Table::kTransformSame: return transform_same_table();
    case Table::kTransformStrict: return transform_strict_table();
    case Table::kTransformBool: return transform_bool_table();
    case Table::kTransformAny: return transform_any_table();
    case Table::kBinary: return binary_table();
    case Table::kBinaryBool: return binary_bool_table();
    case Table::kBinaryInt: return binary_int_table();
    case Table::kReduceFloat: return reduce_float_table();
    case Table::kReduceSame: return reduce_same_table();
    case Table::kReduceBool: return reduce_bool_table();
    case Table::kReduceLong: return reduce_long_table();
    case Table::kReduce3: return reduce3_table();
    case Table::kIndexReduce: return index_reduce_table();
    case Table::kSummaryStats: return summary_stats_table();
    case Table::kRandom: break;
  }
  return random_table();
}

using RunFn = Status (*)(int, ComputeType, const NDArray&, const NDArray*, NDArray&, const Dims&,
                         const ExtraParams&);

static RunFn run_fn(Table t) {
  switch (t) {
    case Table::kTransformFloat: return transform_float_run;
    case Table::kTransformSame: return transform_same_run;
    case Table::kTransformStrict: return transform_strict_run;
    case Table::kTransformBool: return transform_bool_run;
    case Table::kTransformAny: return transform_any_run;
    case Table::kBinary: return binary_run;
    case Table::kBinaryBool: return binary_bool_run;
    case Table::kBinaryInt: return binary_int_run;
    case Table::kReduceFloat: return reduce_float_run;
    case Table::kReduceSame: return reduce_same_run;
    case Table::kReduceBool: return reduce_bool_run;
    case Table::kReduceLong: return reduce_long_run;
    case Table::kReduce3: return reduce3_run;
    case Table::kIndexReduce: return index_reduce_run;
    case Table::kSummaryStats: return summary_stats_run;
    case Table::kRandom: break;
  }
  return nullptr;
}

namespace {

void mark_written(Device d, NDArray& z) {
  if (d.is_cpu()) z.buffer()->mark_host_written();
  else z.buffer()->mark_device_written();
}

const char* table_op_name(Table t, int num) {
  const OpTable ops = op_table(t);
  for (int i = 0; i < ops.count; ++i)
    if (ops.ops[i].num == num) return ops.ops[i].name;
  return "?";
}

}  // namespace

Status run_table(Table t, Device device, int num, ComputeType ct, const NDArray& x, const NDArray* y, NDArray& z,
                 const Dims& axes, const ExtraParams& e) {
  RunFn fn = run_fn(t);
  if (!device.is_cpu()) {
    RETURN_IF_ERROR(check_device(device).with_prefix(std::string(table_op_name(t, num)) + ": "));
    fn = device_table(device.type, t);
    if (fn == nullptr)
      return Status::error(StatusCode::kNotImplemented, "%s: this legacy op has no %s kernels (device %s)",
                           table_op_name(t, num), device_type_name(device.type), device.str().c_str());
  }
  RETURN_IF_ERROR(sync_for_kernel(device, {&x, y}, z));
  RETURN_IF_ERROR(fn(num, ct, x, y, z, axes, e));
  mark_written(device, z);
  return Status::ok();
}

Status run_random_on(Device device, int num, uint64_t seed, const NDArray* x, const NDArray* y, NDArray& z,
                     const ExtraParams& e) {
  RandomRunFn fn = run_random;
  if (!device.is_cpu()) {
    RETURN_IF_ERROR(check_device(device).with_prefix(std::string(table_op_name(Table::kRandom, num)) + ": "));
    fn = device_random(device.type);
    if (fn == nullptr)
      return Status::error(StatusCode::kNotImplemented, "%s: random ops have no %s kernels (device %s)",
                           table_op_name(Table::kRandom, num), device_type_name(device.type), device.str().c_str());
  }
  RETURN_IF_ERROR(sync_for_kernel(device, {x, y}, z));
  RETURN_IF_ERROR(fn(num, seed, x, y, z, e));
  mark_written(device, z);
  return Status::ok();
}

}  // namespace libops::legacy
