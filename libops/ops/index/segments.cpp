// Segment reductions: rows of x combined by segment id (TF's segment_* and
// unsorted_segment_*, libnd4j's of the same names). ids has the shape of
// x's leading dims; z is [num_segments, x's other dims...].
//   unsorted_segment_sum/prod/max/min/mean(x, ids; num_segments)  ids in
//       any order; a negative id drops its row; an empty segment gives the
//       identity: 0, 1, the dtype's lowest (max), its highest (min), 0 (mean)
//   segment_sum/prod/max/min/mean(x, ids)  ids sorted; num_segments =
//       max(id) + 1, read from the ids (the one value the shape needs); an
//       empty segment gives 0 for every reduction
// The work is a scatter of x's rows into an identity-filled array (Note
// [Indexed rows]), plus counts for the mean and for empty segments, all on
// the call's device.
#include <limits>
#include <memory>
#include <string>
#include <vector>

#include "libops/legacy/ops/binary_bool_ops.h"
#include "libops/legacy/ops/binary_ops.h"
#include "libops/legacy/ops/reduce_ops.h"
#include "libops/ops/data_sized.h"
#include "libops/ops/index/index_call.h"
#include "libops/ops/legacy_steps.h"
#include "libops/ops/reduce/reduce_common.h"
#include "libops/ops/registry.h"
#include "libops/ops/select/where.h"
#include "libops/ops/host_reads.h"

namespace libops::ops {
namespace {

enum class SegmentKind { kSum, kProd, kMax, kMin, kMean };

struct SegmentDef {
  const char* name;
  SegmentKind kind;
  bool sorted;
  const char* summary;
};

const SegmentDef kSegments[] = {
    {"segment_sum", SegmentKind::kSum, true, "Sums of x's rows by sorted segment id."},
    {"segment_prod", SegmentKind::kProd, true, "Products of x's rows by sorted segment id."},
    {"segment_max", SegmentKind::kMax, true, "Maxima of x's rows by sorted segment id."},
    {"segment_min", SegmentKind::kMin, true, "Minima of x's rows by sorted segment id."},
    {"segment_mean", SegmentKind::kMean, true, "Means of x's rows by sorted segment id."},
    {"unsorted_segment_sum", SegmentKind::kSum, false, "Sums of x's rows by segment id."},
    {"unsorted_segment_prod", SegmentKind::kProd, false, "Products of x's rows by segment id."},
    {"unsorted_segment_max", SegmentKind::kMax, false, "Maxima of x's rows by segment id."},
    {"unsorted_segment_min", SegmentKind::kMin, false, "Minima of x's rows by segment id."},
    {"unsorted_segment_mean", SegmentKind::kMean, false, "Means of x's rows by segment id."},
};

// The largest value of an integer array, read back from the call's device
// (segment_* and bincount size their output by it). -1 for an empty array.
Status max_of(const Context& block, const NDArray& ids, int64_t& out) {
  if (ids.length() == 0) {
    out = -1;
    return Status::ok();
  }
  NDArray m;
  RETURN_IF_ERROR(NDArray::create(ids.dtype(), Dims{}, 'c', m));
  RETURN_IF_ERROR(reduce_into(block, OPS_REDUCE_SAME, static_cast<int>(legacy::ReduceSameOp::max), ids, Dims{}, m));
  if (m.buffer()->host_stale()) RETURN_IF_ERROR(m.buffer()->sync_to_host());
  out = m.get_int64(0);
  return Status::ok();
}

class SegmentOp final : public DeclarableOp {
 public:
  explicit SegmentOp(const SegmentDef& def)
      : DeclarableOp(def.name, OpKind::kCustom, -1, 1, false, 0, 0), def_(def) {}

 protected:
  void declare_types(OpDescriptor& descriptor) override {
    // On a device through the backend's row kernel (indexed_rows.cu).
    descriptor.allow_input(0, types::kNumeric).allow_input(1, types::kIndex).allow_input(2, types::kInt);
    descriptor.runs_on_any_device();
  }

  void declare_args(OpSignature& args) override {
    args.describe(def_.summary);
    reads_on_host(args, def_.sorted ? "the largest segment id (z's extent)" : "num_segments when given as input 2");
    args.input("x", "[ids' shape..., rest...]");
    args.input("ids", def_.sorted ? "segment ids, int32 or int64, sorted, >= 0" : "segment ids, int32 or int64");
    if (!def_.sorted) args.optional_input("num_segments", "integer scalar, instead of i arg 0");
    args.output("z", "[num_segments, rest...], x's dtype");
    if (!def_.sorted) args.i_arg("num_segments", -1, "the number of segments (when not given as input 2)");
  }

  Status plan(Context& block, IndexedRows& d, int64_t& num) {
    const NDArray& x = *block.input(0);
    const NDArray& ids = *block.input(1);
    REQUIRE_TRUE(ids.rank() <= x.rank(), OPS_ERR_SHAPE, "ids%s must be a prefix of x%s's shape", ids.shape().str().c_str(),
                 x.shape().str().c_str());
    for (int k = 0; k < ids.rank(); ++k)
      REQUIRE_TRUE(ids.dim(k) == x.dim(k), OPS_ERR_SHAPE, "ids%s must be a prefix of x%s's shape",
                   ids.shape().str().c_str(), x.shape().str().c_str());
    int64_t row = 1;
    for (int k = ids.rank(); k < x.rank(); ++k) row *= x.dim(k);
    if (def_.sorted) {
      int64_t top = 0;
      RETURN_IF_ERROR(max_of(block, ids, top));
      // Note [Outputs sized by data]; INT64_MAX is refused before + 1 overflows.
      RETURN_IF_ERROR(check_data_sized(block, "the largest segment id", top, top == INT64_MAX ? top : top + 1, row));
      num = top + 1;
    } else {
      num = block.i_arg(0);
      if (block.num_inputs() > 2) {
        std::vector<int64_t> v;
        RETURN_IF_ERROR(block.int_values(2, "num_segments", v));
        REQUIRE_TRUE(v.size() == 1, 0, "num_segments given as input 2 must hold one value, got %zu", v.size());
        num = v[0];
      }
      REQUIRE_TRUE(num >= 0, 0, "num_segments is %lld: give it (>= 0) as i arg 0 or input 2", static_cast<long long>(num));
    }
    d.k = 1;
    d.dims[0] = num;
    d.count = ids.length();
    d.row = row;
    // Sorted ids are checked to be >= 0 first (validate_and_execute), so
    // kError never sees one counting from the end.
    d.out_of_range = def_.sorted ? OutOfRange::kError : OutOfRange::kDropNegative;
    return Status::ok();
  }

  Status calculate_output_shape(Context& block, ShapeList& shapes) override {
    IndexedRows d;
    int64_t num = 0;
    RETURN_IF_ERROR(plan(block, d, num));
    const NDArray& x = *block.input(0);
    Dims out{num};
    for (int k = block.input(1)->rank(); k < x.rank(); ++k) out.push_back(x.dim(k));
    shapes.push_back(TensorShape{x.dtype(), out, 'c'});
    return Status::ok();
  }

  Status validate_and_execute(Context& block) override {
    IndexedRows d;
    int64_t num = 0;
    RETURN_IF_ERROR(plan(block, d, num));
    NDArray* z = block.output(0);
    if (z->length() == 0) return Status::ok();
    const NDArray& x = *block.input(0);
    const DataType ct = scatter_compute_dtype(x.dtype());
    NDArray zc, xc, id, init;
    RETURN_IF_ERROR(NDArray::create(ct, z->shape(), 'c', zc));
    RETURN_IF_ERROR(NDArray::scalar(ct, identity(x.dtype()), init));
    RETURN_IF_ERROR(assign_on_device(block, zc, init));
    RETURN_IF_ERROR(dense_on_device(block, x, ct, xc));
    RETURN_IF_ERROR(dense_on_device(block, *block.input(1), block.input(1)->dtype(), id));
    if (def_.sorted && id.length() > 0) {  // sorted ids are >= 0
      NDArray lo;
      RETURN_IF_ERROR(NDArray::create(id.dtype(), Dims{}, 'c', lo));
      RETURN_IF_ERROR(reduce_into(block, OPS_REDUCE_SAME, static_cast<int>(legacy::ReduceSameOp::min), id, Dims{}, lo));
      if (lo.buffer()->host_stale()) RETURN_IF_ERROR(lo.buffer()->sync_to_host());
      REQUIRE_TRUE(lo.get_int64(0) >= 0, 0, "ids hold %lld: sorted segment ids must be >= 0",
                   static_cast<long long>(lo.get_int64(0)));
    }
    int64_t bad = -1;
    if (d.count > 0 && d.row > 0) RETURN_IF_ERROR(run_scatter_rows(block, d, mode(), id, xc, zc, bad));
    if (bad >= 0) return bad_index_error(block, id, d, bad, zc, 0);
    if (def_.kind == SegmentKind::kMean || def_.sorted) {
      // Rows per segment, for the mean and for the sorted ops' empty segments.
      NDArray ones, counts, zero;
      RETURN_IF_ERROR(NDArray::create(ct, Dims{d.count, 1}, 'c', ones));
      RETURN_IF_ERROR(NDArray::scalar(ct, 1.0, init));
      RETURN_IF_ERROR(assign_on_device(block, ones, init));
      RETURN_IF_ERROR(NDArray::create(ct, Dims{num, 1}, 'c', counts));
      RETURN_IF_ERROR(NDArray::scalar(ct, 0.0, zero));
      RETURN_IF_ERROR(assign_on_device(block, counts, zero));
      IndexedRows dc = d;
      dc.row = 1;
      if (d.count > 0) RETURN_IF_ERROR(run_scatter_rows(block, dc, ScatterMode::kAdd, id, ones, counts, bad));
      NDArray zv, cv;
      RETURN_IF_ERROR(zc.reshape(Dims{num, d.row}, zv));
      if (def_.kind == SegmentKind::kMean)
        RETURN_IF_ERROR(legacy_step(block, OPS_PAIRWISE, static_cast<int>(legacy::BinaryOp::divide_no_nan), zv, &counts, zv));
      if (def_.sorted && def_.kind != SegmentKind::kSum && def_.kind != SegmentKind::kMean) {
        NDArray any;
        RETURN_IF_ERROR(NDArray::create(DataType::kBool, Dims{num, 1}, 'c', any));
        RETURN_IF_ERROR(legacy_step(block, OPS_PAIRWISE_BOOL, static_cast<int>(legacy::BinaryBoolOp::greater_than),
                                    counts, &zero, any));
        RETURN_IF_ERROR(select_into(block, any, zv, zero, zv));
      }
    }
    return assign_on_device(block, *z, zc);
  }

 private:
  ScatterMode mode() const {
    switch (def_.kind) {
      case SegmentKind::kProd: return ScatterMode::kMultiply;
      case SegmentKind::kMax: return ScatterMode::kMax;
      case SegmentKind::kMin: return ScatterMode::kMin;
      default: return ScatterMode::kAdd;
    }
  }
  // The value an empty segment starts from, in x's dtype's range.
  double identity(DataType t) const {
    const bool is_float = dtype_is_float(t);
    switch (def_.kind) {
      case SegmentKind::kProd: return 1.0;
      case SegmentKind::kMax: return is_float ? -std::numeric_limits<double>::infinity() : dtype_lowest(t);
      case SegmentKind::kMin: return is_float ? std::numeric_limits<double>::infinity() : dtype_highest(t);
      default: return 0.0;
    }
  }
  static double dtype_lowest(DataType t) {
    switch (t) {
      case DataType::kInt8: return -128;
      case DataType::kInt16: return -32768;
      case DataType::kInt32: return -2147483648.0;
      case DataType::kInt64: return -9223372036854775808.0;
      default: return 0;  // unsigned
    }
  }
  static double dtype_highest(DataType t) {
    switch (t) {
      case DataType::kInt8: return 127;
      case DataType::kInt16: return 32767;
      case DataType::kInt32: return 2147483647.0;
      case DataType::kUInt8: return 255;
      case DataType::kUInt16: return 65535;
      case DataType::kUInt32: return 4294967295.0;
      case DataType::kUInt64: return 18446744073709551615.0;  // saturates to UINT64_MAX on store
      default: return 9223372036854775807.0;                  // int64: saturates to INT64_MAX
    }
  }
  const SegmentDef& def_;
};

struct RegisterSegments {
  RegisterSegments() {
    for (const SegmentDef& d : kSegments) OpRegistry::instance().add(std::make_unique<SegmentOp>(d));
  }
} const kRegister;

}  // namespace

std::vector<std::string> segment_op_names() {
  std::vector<std::string> v;
  for (const SegmentDef& d : kSegments) v.emplace_back(d.name);
  return v;
}

}  // namespace libops::ops
