// How the SCALAR, PAIRWISE and BROADCAST groups (and their _BOOL and _INT
// flavours) feed the binary tables: the scalar y, numpy broadcasting,
// libnd4j broadcast along dims, strided and in-place views, empty arrays,
// and the error statuses of legacy.cpp's validation.
#include <string>
#include <vector>

#include "binary_test_util.h"
#include "libops/legacy/ops/binary_bool_ops.h"
#include "libops/legacy/ops/binary_int_ops.h"
#include "libops/legacy/ops/binary_ops.h"

using namespace libops;
using namespace libops::test;
using legacy::BinaryOp;

namespace {

constexpr int kAdd = static_cast<int>(BinaryOp::add);

// One flavour of the three groups, with a dtype every op of its table takes.
struct Flavour {
  ops_legacy_group_t scalar, pairwise, broadcast;
  DataType in, out;
};
constexpr Flavour kFlavours[] = {
    {OPS_SCALAR, OPS_PAIRWISE, OPS_BROADCAST, DataType::kFloat32, DataType::kFloat32},
    {OPS_SCALAR_BOOL, OPS_PAIRWISE_BOOL, OPS_BROADCAST_BOOL, DataType::kFloat32, DataType::kBool},
    {OPS_SCALAR_INT, OPS_PAIRWISE_INT, OPS_BROADCAST_INT, DataType::kInt32, DataType::kInt32},
};

// Positive, distinct values: valid for every op (igamma, log_x, shifts).
std::vector<double> positive(int64_t n, double scale) {
  std::vector<double> v = iota(n, scale, 1.0);
  for (size_t i = 0; i < v.size(); i += 3) v[i] += 0.5 * scale;
  return v;
}

// For every op of every table: the scalar group equals the pairwise group
// with y broadcast by hand, and the broadcast group along dims equals it too.
TEST(BinaryGroups, ScalarAndBroadcastMatchPairwiseForEveryOp) {
  for (const Flavour& f : kFlavours) {
    const bool ints = f.in == DataType::kInt32;
    NDArray x = make(f.in, {2, 3, 4}, positive(24, ints ? 1 : 0.25));
    std::vector<double> row = ints ? std::vector<double>{3, 1, 5} : std::vector<double>{1.5, 0.75, 2.25};
    NDArray s = make(f.in, {}, {ints ? 2.0 : 1.25});
    NDArray s_full = zeros(f.in, {2, 3, 4});
    ASSERT_OK(s_full.assign(s));
    NDArray y3 = make(f.in, {3}, row);
    NDArray y3_full = zeros(f.in, {2, 3, 4});
    NDArray y3_view;
    ASSERT_OK(y3.reshape({1, 3, 1}, y3_view));
    ASSERT_OK(y3_full.assign(y3_view));
    const legacy::LegacyOpInfo* ops = nullptr;
    const int n = legacy::list_ops(f.pairwise, &ops);
    for (int i = 0; i < n; ++i) {
      SCOPED_TRACE(std::string(legacy::group_name(f.pairwise)) + " " + ops[i].name);
      NDArray want = zeros(f.out, {2, 3, 4}), got = zeros(f.out, {2, 3, 4});
      ASSERT_OK(run_legacy(f.pairwise, ops[i].num, x, s_full, want));
      ASSERT_OK(run_legacy(f.scalar, ops[i].num, x, s, got));
      EXPECT_TRUE(all_close(got, values(want), 0, 0));
      ASSERT_OK(run_legacy(f.pairwise, ops[i].num, x, y3_full, want));
      ASSERT_OK(run_legacy(f.broadcast, ops[i].num, x, y3, got, {}, {1}));
      EXPECT_TRUE(all_close(got, values(want), 0, 0));
    }
  }
}

TEST(BinaryGroups, ScalarYMayHaveAnyRankWithOneElement) {
  NDArray x = make(DataType::kFloat32, {2, 3}, iota(6, 1.5, -4));  // -4 -2.5 -1 0.5 2 3.5
  for (const Dims& shape : {Dims{}, Dims{1}, Dims{1, 1}}) {
    NDArray y = make(DataType::kInt32, shape, {2});
    NDArray z = zeros(DataType::kFloat32, {2, 3});
    ASSERT_OK(run_legacy(OPS_SCALAR, static_cast<int>(BinaryOp::subtract), x, y, z));
    EXPECT_EQ(values(z), (std::vector<double>{-6, -4.5, -3, -1.5, 0, 1.5}));
  }
  // The scalar is the op's parameter: relu's threshold, leaky_relu's alpha.
  NDArray t = make(DataType::kFloat32, {}, {0.5});
  NDArray z = zeros(DataType::kFloat32, {2, 3});
  ASSERT_OK(run_legacy(OPS_SCALAR, static_cast<int>(BinaryOp::relu), x, t, z));
  EXPECT_EQ(values(z), (std::vector<double>{0, 0, 0, 0, 2, 3.5}));
  ASSERT_OK(run_legacy(OPS_SCALAR, static_cast<int>(BinaryOp::leaky_relu), x, t, z));
  EXPECT_EQ(values(z), (std::vector<double>{-2, -1.25, -0.5, 0.5, 2, 3.5}));
}

TEST(BinaryGroups, PairwiseBroadcastsLikeNumpy) {
  NDArray x = make(DataType::kFloat32, {2, 3}, iota(6));
  NDArray row = make(DataType::kFloat32, {3}, {10, 20, 30});
  NDArray z = zeros(DataType::kFloat32, {2, 3});
  ASSERT_OK(run_legacy(OPS_PAIRWISE, kAdd, x, row, z));
  EXPECT_EQ(values(z), (std::vector<double>{10, 21, 32, 13, 24, 35}));
  // [2,1] with [1,3]: an outer operation.
  NDArray col = make(DataType::kInt32, {2, 1}, {1, 2});
  NDArray r = make(DataType::kInt32, {1, 3}, {3, 4, 5});
  NDArray zi = zeros(DataType::kInt32, {2, 3});
  ASSERT_OK(run_legacy(OPS_PAIRWISE, static_cast<int>(BinaryOp::multiply), col, r, zi));
  EXPECT_EQ(values(zi), (std::vector<double>{3, 4, 5, 6, 8, 10}));
  // x may be the one that broadcasts.
  NDArray zb = zeros(DataType::kBool, {2, 3});
  ASSERT_OK(run_legacy(OPS_PAIRWISE_BOOL, static_cast<int>(legacy::BinaryBoolOp::less_than), row, x, zb));
  EXPECT_EQ(values(zb), (std::vector<double>{0, 0, 0, 0, 0, 0}));
  ASSERT_OK(run_legacy(OPS_PAIRWISE_BOOL, static_cast<int>(legacy::BinaryBoolOp::greater_than), row, x, zb));
  EXPECT_EQ(values(zb), (std::vector<double>{1, 1, 1, 1, 1, 1}));
}

TEST(BinaryGroups, BroadcastAlongDims) {
  NDArray x = make(DataType::kFloat32, {2, 3, 4}, iota(24));
  NDArray y3 = make(DataType::kFloat32, {3}, {100, 200, 300});
  NDArray z = zeros(DataType::kFloat32, {2, 3, 4});
  std::vector<double> want(24);
  for (int i = 0; i < 24; ++i) want[i] = i + 100.0 * ((i / 4) % 3 + 1);
  ASSERT_OK(run_legacy(OPS_BROADCAST, kAdd, x, y3, z, {}, {1}));
  EXPECT_EQ(values(z), want);
  ASSERT_OK(run_legacy(OPS_BROADCAST, kAdd, x, y3, z, {}, {-2}));  // negative dims count from the end
  EXPECT_EQ(values(z), want);
  // y [2,4] spans dims 0 and 2.
  NDArray y24 = make(DataType::kFloat32, {2, 4}, {1, 2, 3, 4, 5, 6, 7, 8});
  for (int i = 0; i < 24; ++i) want[i] = i * (1 + (i / 12) * 4 + i % 4);
  ASSERT_OK(run_legacy(OPS_BROADCAST, static_cast<int>(BinaryOp::multiply), x, y24, z, {}, {0, 2}));
  EXPECT_EQ(values(z), want);
  // Without dims the broadcast group broadcasts like numpy.
  NDArray y4 = make(DataType::kFloat32, {4}, {1, 2, 3, 4});
  ASSERT_OK(run_legacy(OPS_BROADCAST, kAdd, x, y4, z));
  for (int i = 0; i < 24; ++i) want[i] = i + 1 + i % 4;
  EXPECT_EQ(values(z), want);
  // The int flavour along dims.
  NDArray xi = make(DataType::kInt32, {2, 3}, {1, 2, 3, 4, 5, 6});
  NDArray yi = make(DataType::kInt32, {2}, {1, 2});
  NDArray zi = zeros(DataType::kInt32, {2, 3});
  ASSERT_OK(run_legacy(OPS_BROADCAST_INT, static_cast<int>(legacy::BinaryIntOp::shift_left), xi, yi, zi, {}, {0}));
  EXPECT_EQ(values(zi), (std::vector<double>{2, 4, 6, 16, 20, 24}));
}

TEST(BinaryGroups, StridedAndReversedViews) {
  // x: transpose of a [3,2] array; y: every other element; z: a strided slice.
  NDArray base = make(DataType::kFloat32, {3, 2}, {1, 2, 3, 4, 5, 6});
  NDArray x = base.transpose();  // [[1,3,5],[2,4,6]]
  NDArray yb = make(DataType::kFloat32, {6}, {10, -1, 20, -1, 30, -1});
  NDArray y;
  ASSERT_OK(yb.slice(0, 0, 6, 2, y));  // [10,20,30]
  NDArray zb = zeros(DataType::kFloat32, {2, 6});
  NDArray z;
  ASSERT_OK(zb.slice(1, 1, 6, 2, z));  // columns 1, 3, 5
  ASSERT_OK(run_legacy(OPS_PAIRWISE, static_cast<int>(BinaryOp::subtract), x, y, z));
  EXPECT_EQ(values(z), (std::vector<double>{-9, -17, -25, -8, -16, -24}));
  EXPECT_EQ(values(zb), (std::vector<double>{0, -9, 0, -17, 0, -25, 0, -8, 0, -16, 0, -24}));
  // Reversed y, and a converted (float16) strided input.
  NDArray yr;
  ASSERT_OK(y.flip(0, yr));  // [30,20,10]
  NDArray xh_base = make(DataType::kFloat16, {2, 6}, iota(12, 0.5));
  NDArray xh;
  ASSERT_OK(xh_base.slice(1, 0, 6, 2, xh));  // [[0,1,2],[3,4,5]]
  NDArray zf = zeros(DataType::kFloat64, {2, 3});
  ASSERT_OK(run_legacy(OPS_PAIRWISE, static_cast<int>(BinaryOp::max), xh, yr, zf));
  EXPECT_EQ(values(zf), (std::vector<double>{30, 20, 10, 30, 20, 10}));
  ASSERT_OK(run_legacy(OPS_PAIRWISE, static_cast<int>(BinaryOp::reverse_subtract), xh, yr, zf));
  EXPECT_EQ(values(zf), (std::vector<double>{30, 19, 8, 27, 16, 5}));
}

TEST(BinaryGroups, InPlaceOnXOrY) {
  NDArray x = make(DataType::kFloat32, {2, 3}, {1, 2, 3, 4, 5, 6});
  NDArray y = make(DataType::kFloat32, {3}, {2, 4, 8});
  ASSERT_OK(run_legacy(OPS_PAIRWISE, static_cast<int>(BinaryOp::multiply), x, y, x));
  EXPECT_EQ(values(x), (std::vector<double>{2, 8, 24, 8, 20, 48}));
  NDArray a = make(DataType::kInt32, {4}, {7, -7, 9, 1});
  NDArray b = make(DataType::kInt32, {4}, {2, 2, -4, 0});
  ASSERT_OK(run_legacy(OPS_PAIRWISE, static_cast<int>(BinaryOp::floor_mod), a, b, b));
  EXPECT_EQ(values(b), (std::vector<double>{1, 1, -3, 0}));
  // In place on a strided view: every other element of a row.
  NDArray base = make(DataType::kFloat32, {6}, {1, 2, 3, 4, 5, 6});
  NDArray v;
  ASSERT_OK(base.slice(0, 0, 6, 2, v));
  NDArray s = make(DataType::kFloat32, {}, {10});
  ASSERT_OK(run_legacy(OPS_SCALAR, kAdd, v, s, v));
  EXPECT_EQ(values(base), (std::vector<double>{11, 2, 13, 4, 15, 6}));
}

TEST(BinaryGroups, PartialOverlapIsRejected) {
  NDArray base = make(DataType::kFloat32, {6}, iota(6));
  NDArray x, z;
  ASSERT_OK(base.slice(0, 0, 5, 1, x));
  ASSERT_OK(base.slice(0, 1, 6, 1, z));
  Status s = run_legacy(OPS_PAIRWISE, kAdd, x, x, z);
  EXPECT_EQ(s.code(), StatusCode::kInvalidArgument);
  EXPECT_EQ(s.message(),
            "add: output z partially overlaps input x; use the same view for in-place or a separate output");
}

TEST(BinaryGroups, EmptyArraysAreANoOp) {
  NDArray x = zeros(DataType::kFloat32, {0, 3});
  NDArray y = make(DataType::kFloat32, {3}, {1, 2, 3});
  NDArray z = zeros(DataType::kFloat32, {0, 3});
  EXPECT_OK(run_legacy(OPS_PAIRWISE, static_cast<int>(BinaryOp::igamma), x, y, z));
  NDArray s = make(DataType::kInt32, {}, {1});
  NDArray xi = zeros(DataType::kInt32, {0});
  NDArray zi = zeros(DataType::kInt32, {0});
  EXPECT_OK(run_legacy(OPS_SCALAR_INT, static_cast<int>(legacy::BinaryIntOp::shift_left), xi, s, zi));
  NDArray zb = zeros(DataType::kBool, {0, 3});
  EXPECT_OK(run_legacy(OPS_BROADCAST_BOOL, 0, x, y, zb, {}, {1}));
  // Empty still checks shapes: [0,3] with [2] does not broadcast.
  NDArray y2 = make(DataType::kFloat32, {2}, {1, 2});
  EXPECT_EQ(run_legacy(OPS_PAIRWISE, kAdd, x, y2, z).code(), StatusCode::kShape);
}

// ---- errors: code and message ----

TEST(BinaryGroupErrors, ScalarGroupNeedsOneElementY) {
  NDArray x = make(DataType::kFloat32, {2, 3}, iota(6));
  NDArray y = make(DataType::kFloat32, {2}, {1, 2});
  NDArray z = zeros(DataType::kFloat32, {2, 3});
  Status s = run_legacy(OPS_SCALAR, kAdd, x, y, z);
  EXPECT_EQ(s.code(), StatusCode::kShape);
  EXPECT_EQ(s.message(), "add: scalar op needs a one-element y, got y[2]");
  NDArray zb = zeros(DataType::kBool, {2, 3});
  s = run_legacy(OPS_SCALAR_BOOL, 0, x, zeros(DataType::kFloat32, {0}), zb);
  EXPECT_EQ(s.code(), StatusCode::kShape);
  EXPECT_EQ(s.message(), "equals: scalar op needs a one-element y, got y[0]");
}

TEST(BinaryGroupErrors, ShapeMismatch) {
  NDArray x = make(DataType::kFloat32, {2, 3}, iota(6));
  NDArray y = make(DataType::kFloat32, {4, 3}, iota(12));
  NDArray z = zeros(DataType::kFloat32, {2, 3});
  Status s = run_legacy(OPS_PAIRWISE, kAdd, x, y, z);
  EXPECT_EQ(s.code(), StatusCode::kShape);
  EXPECT_EQ(s.message(), "add: cannot broadcast shapes [2,3] and [4,3]: dim 0 must be equal or 1");
  // z must have the broadcast shape exactly.
  NDArray row = make(DataType::kFloat32, {3}, {1, 2, 3});
  NDArray zt = zeros(DataType::kFloat32, {3, 2});
  s = run_legacy(OPS_PAIRWISE, static_cast<int>(BinaryOp::pow), x, row, zt);
  EXPECT_EQ(s.code(), StatusCode::kShape);
  EXPECT_EQ(s.message(), "pow: inputs x[2,3] and y[3] broadcast to [2,3] but z is [3,2]");
  // Broadcast along dims: y must match x on those dims.
  NDArray x3 = make(DataType::kFloat32, {2, 3, 4}, iota(24));
  NDArray y4 = make(DataType::kFloat32, {4}, {1, 2, 3, 4});
  NDArray z3 = zeros(DataType::kFloat32, {2, 3, 4});
  s = run_legacy(OPS_BROADCAST, kAdd, x3, y4, z3, {}, {1});
  EXPECT_EQ(s.code(), StatusCode::kShape);
  EXPECT_EQ(s.message(), "add: y[4] does not match x[2,3,4] along dims [1]");
  s = run_legacy(OPS_BROADCAST, kAdd, x3, y4, z3, {}, {0, 2});
  EXPECT_EQ(s.code(), StatusCode::kShape);
  EXPECT_EQ(s.message(), "add: y[4] has rank 1 but 2 broadcast dims were given");
}

TEST(BinaryGroupErrors, DtypeRules) {
  NDArray f = make(DataType::kFloat32, {2}, {1, 2});
  NDArray i = make(DataType::kInt32, {2}, {1, 2});
  NDArray zf = zeros(DataType::kFloat32, {2});
  NDArray zi = zeros(DataType::kInt32, {2});
  // bool group with a non-bool z.
  Status s = run_legacy(OPS_BROADCAST_BOOL, static_cast<int>(legacy::BinaryBoolOp::not_equals), f, f, zi);
  EXPECT_EQ(s.code(), StatusCode::kDtype);
  EXPECT_EQ(s.message(), "not_equals: output z has dtype int32; expected bool");
  // int group with a float y.
  s = run_legacy(OPS_SCALAR_INT, static_cast<int>(legacy::BinaryIntOp::shift_right), i, make(DataType::kFloat64, {}, {1}), zi);
  EXPECT_EQ(s.code(), StatusCode::kDtype);
  EXPECT_EQ(s.message(), "shift_right: input y has dtype float64; expected an integer or bool dtype");
  // float-only op on integers.
  s = run_legacy(OPS_SCALAR, static_cast<int>(BinaryOp::remainder), i, make(DataType::kInt64, {}, {3}), zf);
  EXPECT_EQ(s.code(), StatusCode::kDtype);
  EXPECT_EQ(s.message(),
            "remainder: unsupported dtype int64 (computes in int64); supported: float16, bfloat16, float32, float64");
}

TEST(BinaryGroupErrors, UnknownNumberAndNullInputs) {
  NDArray x = make(DataType::kInt32, {2}, {1, 2});
  NDArray z = zeros(DataType::kInt32, {2});
  Status s = run_legacy(OPS_PAIRWISE, LIBOPS_BINARY_COUNT, x, x, z);
  EXPECT_EQ(s.code(), StatusCode::kUnknownOp);
  EXPECT_EQ(s.message(), "legacy pairwise: no op number 33");
  s = run_legacy(OPS_BROADCAST_INT, -1, x, x, z);
  EXPECT_EQ(s.code(), StatusCode::kUnknownOp);
  EXPECT_EQ(s.message(), "legacy broadcast_int: no op number -1");
  s = run_legacy(OPS_SCALAR_BOOL, 999, x, x, z);
  EXPECT_EQ(s.code(), StatusCode::kUnknownOp);
  EXPECT_EQ(s.message(), "legacy scalar_bool: no op number 999");
  legacy::LegacyCall c;
  c.group = OPS_PAIRWISE;
  c.num = kAdd;
  c.x = &x;
  c.z = &z;
  s = legacy::exec(c);
  EXPECT_EQ(s.code(), StatusCode::kNullPointer);
  EXPECT_EQ(s.message(), "add: input y array is null");
}

}  // namespace
