// Every legacy op of every non-random group on cuda:0 against the same call
// on the CPU (whose results tests_cpu checks against numpy/mpmath goldens):
// dense, strided and broadcast operands, several dtypes, reductions over
// inner, outer and all axes. Floats agree within a few ulp (the device math
// library rounds differently in the last bits); integers and bools exactly.
#include <cmath>
#include <string>
#include <vector>

#include "cuda_test_util.h"
#include "libops/legacy/device_tables.h"
#include "libops/legacy/legacy.h"
#include "libops/legacy/ops/index_reduce_ops.h"
#include "libops/legacy/ops/reduce_ops.h"
#include "libops/legacy/ops/summary_stats_ops.h"

namespace libops {
namespace {

using test::make;
using test::values;

// |a - b| small relative to the magnitude, NaN == NaN, inf == inf. Below
// magnitude 1 the difference is measured absolutely: the inputs are O(1), so
// a result that cancels towards 0 (a sum of mixed signs, lgamma near its
// zero at -2.457) carries the rounding error of its O(1) terms, and the
// device math library may round those differently from the CPU's.
::testing::AssertionResult close_values(const std::vector<double>& cpu, const std::vector<double>& gpu, double rtol,
                                        const std::string& what) {
  if (cpu.size() != gpu.size()) return ::testing::AssertionFailure() << what << ": length differs";
  for (size_t i = 0; i < cpu.size(); ++i) {
    const double a = cpu[i], b = gpu[i];
    if (std::isnan(a) && std::isnan(b)) continue;
    if (a == b) continue;
    const double scale = std::max({std::fabs(a), std::fabs(b), 1.0});
    if (std::isfinite(a) && std::isfinite(b) && std::fabs(a - b) <= rtol * scale) continue;
    return ::testing::AssertionFailure() << what << ": element " << i << " cpu " << a << " cuda " << b;
  }
  return ::testing::AssertionSuccess();
}

double tolerance(DataType t) {
  switch (t) {
    case DataType::kFloat64: return 1e-12;
    case DataType::kFloat32: return 2e-5;
    case DataType::kFloat16:
    case DataType::kBFloat16: return 1e-2;
    default: return 0.0;
  }
}

// Runs `call` on the CPU into z_cpu and on cuda:0 into z_gpu (fresh arrays of
// the same dtype and shape) and compares (bit for bit when `exact`); both
// must fail alike if one does.
void compare(legacy::LegacyCall call, NDArray& z_cpu, NDArray& z_gpu, const std::string& what, bool exact = false) {
  call.z = &z_cpu;
  call.device = Device::cpu();
  const Status cpu = legacy::exec(call);
  call.z = &z_gpu;
  call.device = Device::cuda(0);
  const Status gpu = legacy::exec(call);
  ASSERT_EQ(cpu.code(), gpu.code()) << what << "\ncpu: " << cpu.message() << "\ncuda: " << gpu.message();
  if (!cpu.is_ok()) return;
  ASSERT_OK(z_gpu.buffer()->sync_to_host());
  EXPECT_TRUE(close_values(values(z_cpu), values(z_gpu), exact ? 0.0 : tolerance(z_cpu.dtype()), what));
}

// Values spread over (-2.5, 2.5) without exact zeros: inputs are not one value.
std::vector<double> spread(int64_t n, double phase) {
  std::vector<double> v(static_cast<size_t>(n));
  for (int64_t i = 0; i < n; ++i) v[static_cast<size_t>(i)] = 2.5 * std::sin(0.7 * static_cast<double>(i) + phase) + 0.01;
  return v;
}

NDArray input(DataType t, const Dims& shape, double phase) {
  int64_t n = 1;
  for (int d = 0; d < shape.size(); ++d) n *= shape[d];
  std::vector<double> v = spread(n, phase);
  if (!dtype_is_float(t))
    for (double& x : v) x = std::round(x * 3);
  return make(t, shape, v);
}

DataType transform_out(int group, DataType x) {
  switch (group) {
    case OPS_TRANSFORM_FLOAT: return dtype_is_float(x) ? x : DataType::kFloat32;
    case OPS_TRANSFORM_BOOL: return DataType::kBool;
    default: return x;
  }
}

TEST(CudaLegacy, TransformsMatchTheCpu) {
  REQUIRE_CUDA_DEVICE();
  for (int group : {OPS_TRANSFORM_FLOAT, OPS_TRANSFORM_SAME, OPS_TRANSFORM_STRICT, OPS_TRANSFORM_BOOL,
                    OPS_TRANSFORM_ANY}) {
    const legacy::LegacyOpInfo* ops = nullptr;
    const int n = legacy::list_ops(static_cast<ops_legacy_group_t>(group), &ops);
    for (DataType t : {DataType::kFloat32, DataType::kFloat64, DataType::kFloat16, DataType::kInt32}) {
      if (group == OPS_TRANSFORM_STRICT && !dtype_is_float(t)) continue;
      NDArray x = input(t, {7, 33}, 0.3);
      NDArray xt;  // a transposed (strided) view
      ASSERT_OK(x.permute({1, 0}, xt));
      for (int i = 0; i < n; ++i) {
        for (const NDArray* in : {&x, &xt}) {
          legacy::LegacyCall call;
          call.group = group;
          call.num = ops[i].num;
          call.x = in;
          const DataType zt = transform_out(group, t);
          NDArray zc = test::zeros(zt, in->shape()), zg = test::zeros(zt, in->shape());
          compare(call, zc, zg,
                  std::string(legacy::group_name(static_cast<ops_legacy_group_t>(group))) + "/" + ops[i].name + " " +
                      dtype_name(t) + (in == &xt ? " strided" : ""));
        }
      }
    }
  }
}

TEST(CudaLegacy, BinaryGroupsMatchTheCpu) {
  REQUIRE_CUDA_DEVICE();
  struct Group {
    int pairwise, scalar, broadcast;
    DataType out;  // kInvalid: the inputs' dtype
  };
  for (const Group g : {Group{OPS_PAIRWISE, OPS_SCALAR, OPS_BROADCAST, DataType::kInvalid},
                        Group{OPS_PAIRWISE_BOOL, OPS_SCALAR_BOOL, OPS_BROADCAST_BOOL, DataType::kBool},
                        Group{OPS_PAIRWISE_INT, OPS_SCALAR_INT, OPS_BROADCAST_INT, DataType::kInvalid}}) {
    const legacy::LegacyOpInfo* ops = nullptr;
    const int n = legacy::list_ops(static_cast<ops_legacy_group_t>(g.pairwise), &ops);
    const bool int_only = g.pairwise == OPS_PAIRWISE_INT;
    for (DataType t : {DataType::kFloat32, DataType::kFloat64, DataType::kBFloat16, DataType::kInt32,
                       DataType::kInt64, DataType::kUInt8}) {
      if (int_only && dtype_is_float(t)) continue;
      NDArray x = input(t, {5, 9}, 0.1), y = input(t, {5, 9}, 1.7);
      NDArray s = input(t, {}, 2.2);
      NDArray row = input(t, {9}, 0.9);
      const DataType zt = g.out == DataType::kInvalid ? t : g.out;
      for (int i = 0; i < n; ++i) {
        const std::string name = std::string(ops[i].name) + " " + dtype_name(t);
        legacy::LegacyCall call;
        call.num = ops[i].num;
        call.x = &x;
        NDArray zc = test::zeros(zt, {5, 9}), zg = test::zeros(zt, {5, 9});
        call.group = g.pairwise;
        call.y = &y;
        compare(call, zc, zg, "pairwise " + name);
        call.group = g.scalar;
        call.y = &s;
        compare(call, zc, zg, "scalar " + name);
        call.group = g.broadcast;
        call.y = &row;
        const int64_t axis = 1;
        call.axes = &axis;
        call.n_axes = 1;
        compare(call, zc, zg, "broadcast " + name);
      }
    }
  }
}

TEST(CudaLegacy, ReductionsMatchTheCpu) {
  REQUIRE_CUDA_DEVICE();
  struct Group {
    int group;
    DataType out;  // kInvalid: x's dtype
  };
  for (const Group g : {Group{OPS_REDUCE_FLOAT, DataType::kFloat32}, Group{OPS_REDUCE_SAME, DataType::kInvalid},
                        Group{OPS_REDUCE_BOOL, DataType::kBool}, Group{OPS_REDUCE_LONG, DataType::kInt64},
                        Group{OPS_REDUCE3, DataType::kFloat32}, Group{OPS_INDEX_REDUCE, DataType::kInt64},
                        Group{OPS_SUMMARY_STATS, DataType::kFloat32}}) {
    const legacy::LegacyOpInfo* ops = nullptr;
    const int n = legacy::list_ops(static_cast<ops_legacy_group_t>(g.group), &ops);
    for (DataType t : {DataType::kFloat32, DataType::kInt32}) {
      // 1000 x 37 (and 4 x 70000: long reductions split over several blocks).
      for (const Dims& shape : {Dims{1000, 37}, Dims{4, 70000}}) {
        NDArray x = input(t, shape, 0.4), y = input(t, shape, 2.9);
        const DataType zt = g.out == DataType::kInvalid ? t : g.out;
        for (int i = 0; i < n; ++i) {
          struct Axes {
            std::vector<int64_t> axes;
            Dims out;
          };
          for (const Axes& a : {Axes{{1}, Dims{shape[0]}}, Axes{{0}, Dims{shape[1]}}, Axes{{}, Dims{}}}) {
            legacy::LegacyCall call;
            call.group = g.group;
            call.num = ops[i].num;
            call.x = &x;
            if (g.group == OPS_REDUCE3) call.y = &y;
            call.axes = a.axes.data();
            call.n_axes = static_cast<int>(a.axes.size());
            NDArray zc = test::zeros(zt, a.out), zg = test::zeros(zt, a.out);
            compare(call, zc, zg,
                    std::string(legacy::group_name(static_cast<ops_legacy_group_t>(g.group))) + "/" + ops[i].name +
                        " " + dtype_name(t) + " " + shape.str() + " axes " + std::to_string(a.axes.size()));
          }
        }
      }
    }
  }
}

TEST(CudaLegacy, EmptyReductionsAndEmptyArrays) {
  REQUIRE_CUDA_DEVICE();
  NDArray x = test::zeros(DataType::kInt8, {0, 4});
  legacy::LegacyCall call;
  call.group = OPS_REDUCE_SAME;
  call.num = static_cast<int>(legacy::ReduceSameOp::max);
  call.x = &x;
  const int64_t axis = 0;
  call.axes = &axis;
  call.n_axes = 1;
  NDArray zc = test::zeros(DataType::kInt8, {4}), zg = test::zeros(DataType::kInt8, {4});
  compare(call, zc, zg, "max over an empty dim");
  EXPECT_EQ(values(zg), (std::vector<double>{-128, -128, -128, -128}));
}

// Reductions along one dim shorter than the CPU's lanes (64 floats) fold
// left to right from the identity on both devices (a thread per output in
// reduce.cuh), so they agree bit for bit, also for rows whose sum cancels to
// nearly 0: a block-wide tree merge rounds several rows of this input
// differently (by up to 7e-4 relative). Rows of 3 over 100000 outputs too.
// (Only ops without a product in map: the device may fuse acc + x * y.)
TEST(CudaLegacy, ShortRowReductionsAreBitIdentical) {
  REQUIRE_CUDA_DEVICE();
  struct Row {
    int group, num;
    DataType out;
  };
  for (const Dims& shape : {Dims{1000, 37}, Dims{100000, 3}}) {
    const NDArray x = input(DataType::kFloat32, shape, 0.4);
    for (const Row& r : {Row{OPS_REDUCE_SAME, static_cast<int>(legacy::ReduceSameOp::sum), DataType::kFloat32},
                         Row{OPS_REDUCE_SAME, static_cast<int>(legacy::ReduceSameOp::max), DataType::kFloat32},
                         Row{OPS_REDUCE_FLOAT, static_cast<int>(legacy::ReduceFloatOp::mean), DataType::kFloat32},
                         Row{OPS_REDUCE_FLOAT, static_cast<int>(legacy::ReduceFloatOp::norm1), DataType::kFloat32},
                         Row{OPS_REDUCE_LONG, static_cast<int>(legacy::ReduceLongOp::count_nonzero),
                             DataType::kInt64}}) {
      legacy::LegacyCall call;
      call.group = r.group;
      call.num = r.num;
      call.x = &x;
      const int64_t axis = 1;
      call.axes = &axis;
      call.n_axes = 1;
      NDArray zc = test::zeros(r.out, {shape[0]}), zg = test::zeros(r.out, {shape[0]});
      compare(call, zc, zg,
              std::string(legacy::op_name(static_cast<ops_legacy_group_t>(r.group), r.num)) + " " + shape.str(),
              /*exact=*/true);
    }
  }
}

// Where column q of a [rows, ...] input from tall_input holds its first
// maximum (rows >= 400).
int64_t first_max_row(int64_t q, int64_t rows) { return 5 + (q * 15013) % (rows - 200); }

// spread() with planted extremes along axis 0: column q (the C-order
// position over the other dims) holds +3 at rows r, r + 2, r + 64 + q % 64,
// r + 130 and the last row, and -3 at row r + 1, for r = first_max_row(q)
// (all inside the rows: r + 130 < rows - 64; r + 64 + q wrote past the end
// of the values for the 800 columns of [400, 2, 100, 4]).
// spread() stays within (-2.5, 2.5), so index_max must find r, index_min
// r + 1, and index_absolute_max r again (|-3| only ties later), although the
// device folds those rows in different chunks.
NDArray tall_input(DataType t, const Dims& shape, double phase) {
  const int64_t rows = shape[0];
  int64_t cols = 1;
  for (int d = 1; d < shape.size(); ++d) cols *= shape[d];
  std::vector<double> v = spread(rows * cols, phase);
  for (int64_t q = 0; q < cols; ++q) {
    const int64_t r = first_max_row(q, rows);
    for (int64_t row : {r, r + 2, r + 64 + q % 64, r + 130, rows - 1}) v[static_cast<size_t>(row * cols + q)] = 3.0;
    v[static_cast<size_t>((r + 1) * cols + q)] = -3.0;
  }
  return make(t, shape, v);
}

// Column reductions with few outputs and long columns (the sum over axis 0
// of [N, C], batch-norm statistics): the device splits the rows into chunks
// (loops/reduce_split.h), merged per output by a thread ([2000, 37]: 31
// chunks) or by a block (the others: hundreds to thousands of chunks).
// Also a column slice of a wider array, and reductions over axes {0, 2}
// that keep a middle dim ([400, 2, 100, 4] keeps x's innermost dim too).
TEST(CudaLegacy, TallSkinnyReductionsMatchTheCpu) {
  REQUIRE_CUDA_DEVICE();
  struct Row {
    int group, num;
    std::vector<double> extra;
    const char* what;
  };
  const std::vector<Row> rows = {
      {OPS_REDUCE_SAME, static_cast<int>(legacy::ReduceSameOp::sum), {}, "sum"},
      {OPS_REDUCE_SAME, static_cast<int>(legacy::ReduceSameOp::max), {}, "max"},
      {OPS_REDUCE_FLOAT, static_cast<int>(legacy::ReduceFloatOp::mean), {}, "mean"},
      {OPS_REDUCE_FLOAT, static_cast<int>(legacy::ReduceFloatOp::norm2), {}, "norm2"},
      {OPS_SUMMARY_STATS, static_cast<int>(legacy::SummaryStatsOp::variance), {1.0}, "variance (n - 1)"},
      {OPS_SUMMARY_STATS, static_cast<int>(legacy::SummaryStatsOp::variance), {0.0}, "variance (n)"},
      {OPS_SUMMARY_STATS, static_cast<int>(legacy::SummaryStatsOp::standard_deviation), {}, "standard_deviation"},
      {OPS_INDEX_REDUCE, static_cast<int>(legacy::IndexReduceOp::index_max), {}, "index_max"},
      {OPS_INDEX_REDUCE, static_cast<int>(legacy::IndexReduceOp::index_min), {}, "index_min"},
      {OPS_INDEX_REDUCE, static_cast<int>(legacy::IndexReduceOp::index_absolute_max), {}, "index_absolute_max"},
  };
  struct Case {
    Dims shape;
    std::vector<int64_t> axes;
    Dims out;
    bool slice;  // reduce columns 1..shape[1]-2 of the array instead
  };
  const std::vector<Case> cases = {
      {{200000, 4}, {0}, {4}, false},           {{2000, 37}, {0}, {37}, false},
      {{100000, 3, 5}, {0}, {3, 5}, false},     {{100000, 3, 5}, {0, 2}, {3}, false},
      {{400, 2, 100, 4}, {0, 2}, {2, 4}, false}, {{200000, 8}, {0}, {6}, true},
  };
  for (DataType t : {DataType::kFloat32, DataType::kFloat64, DataType::kFloat16}) {
    for (const Case& c : cases) {
      const NDArray full = tall_input(t, c.shape, 0.4);
      NDArray x = full;
      if (c.slice) ASSERT_OK(full.slice(1, 1, c.shape[1] - 1, 1, x));
      for (const Row& r : rows) {
        legacy::LegacyCall call;
        call.group = r.group;
        call.num = r.num;
        call.x = &x;
        call.axes = c.axes.data();
        call.n_axes = static_cast<int>(c.axes.size());
        call.extra = ExtraParams::from(r.extra.data(), static_cast<int>(r.extra.size()));
        const bool indexed = r.group == OPS_INDEX_REDUCE;
        const DataType zt = indexed ? DataType::kInt64 : t;
        NDArray zc = test::zeros(zt, c.out), zg = test::zeros(zt, c.out);
        const std::string what = std::string(r.what) + " " + dtype_name(t) + " " + x.shape().str() + " over " +
                                 std::to_string(c.axes.size()) + " axes" + (c.slice ? " (column slice)" : "");
        compare(call, zc, zg, what);
        // The first of the tied extremes, by hand, for the dense axis-0 cases.
        if (!indexed || c.axes.size() != 1 || c.slice) continue;
        const std::vector<double> got = values(zg);
        for (size_t q = 0; q < got.size(); ++q) {
          const int64_t first = first_max_row(static_cast<int64_t>(q), c.shape[0]);
          const bool is_min = r.num == static_cast<int>(legacy::IndexReduceOp::index_min);
          EXPECT_EQ(got[q], static_cast<double>(is_min ? first + 1 : first)) << what << " column " << q;
        }
      }
    }
  }
}

// One-element, rank-0 and offset views (a slice starting at element 1, so
// the data is not 16-byte aligned) through the element-wise kernels, and a
// reduction of one element.
TEST(CudaLegacy, TinyShapesAndOffsetViews) {
  REQUIRE_CUDA_DEVICE();
  const NDArray row = input(DataType::kFloat32, {19}, 0.3), rows = input(DataType::kFloat32, {2, 9}, 0.6);
  NDArray tail, tails;
  ASSERT_OK(row.slice(0, 1, 19, 1, tail));    // dense [18] starting at element 1
  ASSERT_OK(rows.slice(1, 1, 9, 1, tails));  // [2, 8] starting at element 1, rows 9 apart
  const NDArray one = input(DataType::kFloat32, {1}, 0.2), scalar = input(DataType::kFloat32, {}, 1.1);
  for (const NDArray* x : {&one, &scalar, const_cast<const NDArray*>(&tail), const_cast<const NDArray*>(&tails)}) {
    legacy::LegacyCall call;
    call.group = OPS_TRANSFORM_STRICT;
    call.num = legacy::find_op(OPS_TRANSFORM_STRICT, "exp");
    ASSERT_GE(call.num, 0);
    call.x = x;
    NDArray zc = test::zeros(DataType::kFloat32, x->shape()), zg = test::zeros(DataType::kFloat32, x->shape());
    compare(call, zc, zg, "exp " + x->shape().str());
    call.group = OPS_PAIRWISE;
    call.num = legacy::find_op(OPS_PAIRWISE, "add");
    ASSERT_GE(call.num, 0);
    call.y = x;
    compare(call, zc, zg, "add " + x->shape().str(), /*exact=*/true);
  }
  legacy::LegacyCall call;
  call.group = OPS_REDUCE_SAME;
  call.num = static_cast<int>(legacy::ReduceSameOp::sum);
  call.x = &one;
  NDArray zc = test::zeros(DataType::kFloat32, {}), zg = test::zeros(DataType::kFloat32, {});
  compare(call, zc, zg, "sum of one element", /*exact=*/true);
}

// Runs without a GPU: every legacy table and the random table have CUDA
// kernels registered in a CUDA build (a table missing here would fail every
// call of its group on a GPU with "no cuda kernels").
TEST(CudaLegacy, EveryTableHasCudaKernels) {
  for (int t = 0; t <= static_cast<int>(legacy::Table::kRandom); ++t) {
    const auto table = static_cast<legacy::Table>(t);
    if (table == legacy::Table::kRandom) EXPECT_NE(legacy::device_random(DeviceType::kCuda), nullptr);
    else EXPECT_NE(legacy::device_table(DeviceType::kCuda, table), nullptr) << "table " << t;
  }
}

}  // namespace
}  // namespace libops
