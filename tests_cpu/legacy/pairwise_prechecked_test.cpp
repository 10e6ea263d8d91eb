// legacy::exec_pairwise_prechecked: the pairwise entry for callers that have
// already checked the arrays' shapes. It must compute what exec computes and
// still refuse output layouts no shape function looks at, with exec's words.
#include "libops/legacy/legacy.h"
#include "libops/legacy/ops/binary_bool_ops.h"
#include "libops/legacy/ops/binary_ops.h"
#include "test_util.h"

using namespace libops;
using namespace libops::test;
using legacy::BinaryOp;
using legacy::LegacyCall;

namespace {

LegacyCall pairwise(BinaryOp op, const NDArray& x, const NDArray& y, NDArray& z) {
  LegacyCall c;
  c.group = OPS_PAIRWISE;
  c.num = static_cast<int>(op);
  c.x = &x;
  c.y = &y;
  c.z = &z;
  return c;
}

}  // namespace

TEST(PairwisePrechecked, ComputesWhatExecComputesOnBroadcastAndStridedViews) {
  NDArray base = make(DataType::kFloat32, {2, 6}, iota(12, 0.5, -3));
  NDArray x;  // every other column: a strided [2,3] view
  ASSERT_OK(base.slice(1, 0, 6, 2, x));
  NDArray y = make(DataType::kInt32, {3}, {4, -1, 7});
  NDArray want = zeros(DataType::kFloat32, {2, 3});
  NDArray got = zeros(DataType::kFloat32, {2, 3});
  ASSERT_OK(legacy::exec(pairwise(BinaryOp::subtract, x, y, want)));
  ASSERT_OK(legacy::exec_pairwise_prechecked(pairwise(BinaryOp::subtract, x, y, got)));
  // x = [[-3,-2,-1],[0,1,2]] (columns 0, 2, 4 of -3, -2.5, ... 2.5).
  EXPECT_TRUE(all_close(got, {-7, -1, -8, -4, 2, -5}, 0, 0));
  EXPECT_TRUE(all_close(got, values(want), 0, 0));
}

TEST(PairwisePrechecked, InPlaceOnXIsAllowed) {
  NDArray x = make(DataType::kFloat64, {3}, {1, 2, 3});
  NDArray y = make(DataType::kFloat64, {3}, {0.5, 0.25, 4});
  ASSERT_OK(legacy::exec_pairwise_prechecked(pairwise(BinaryOp::multiply, x, y, x)));
  EXPECT_EQ(values(x), (std::vector<double>{0.5, 0.5, 12}));
}

TEST(PairwisePrechecked, RefusesOutputLayoutsAsExecDoes) {
  NDArray base = make(DataType::kFloat32, {6}, iota(6));
  NDArray x, z;
  ASSERT_OK(base.slice(0, 0, 5, 1, x));
  ASSERT_OK(base.slice(0, 1, 6, 1, z));
  NDArray y = make(DataType::kFloat32, {5}, iota(5, 10));
  Status s = legacy::exec_pairwise_prechecked(pairwise(BinaryOp::add, x, y, z));
  EXPECT_EQ(s.code(), StatusCode::kInvalidArgument);
  EXPECT_EQ(s.message(),
            "add: output z partially overlaps input x; use the same view for in-place or a separate output");
  s = legacy::exec_pairwise_prechecked(pairwise(BinaryOp::add, y, x, z));
  EXPECT_NE(s.message().find("partially overlaps input y"), std::string::npos) << s.message();
  EXPECT_EQ(values(base), iota(6));  // nothing written

  NDArray one = make(DataType::kFloat32, {1}, {-1});
  NDArray repeated;
  ASSERT_OK(one.broadcast_to({5}, repeated));
  s = legacy::exec_pairwise_prechecked(pairwise(BinaryOp::add, x, y, repeated));
  EXPECT_EQ(s.code(), StatusCode::kInvalidArgument);
  EXPECT_EQ(s.message(),
            "add: output z[5] is a broadcast view (stride 0 on dim 0); outputs must not repeat elements");
  EXPECT_EQ(values(one), (std::vector<double>{-1}));
}

TEST(PairwisePrechecked, OtherGroupsGoThroughExec) {
  NDArray x = make(DataType::kFloat32, {2, 2}, {1, 2, 3, 4});
  NDArray y = make(DataType::kFloat32, {1, 1}, {10});  // the scalar group reshapes y itself
  NDArray z = zeros(DataType::kFloat32, {2, 2});
  LegacyCall c = pairwise(BinaryOp::add, x, y, z);
  c.group = OPS_SCALAR;
  ASSERT_OK(legacy::exec_pairwise_prechecked(c));
  EXPECT_EQ(values(z), (std::vector<double>{11, 12, 13, 14}));
  // pairwise_bool needs a bool z: exec's dtype rule still applies.
  c = pairwise(BinaryOp::add, x, x, z);
  c.group = OPS_PAIRWISE_BOOL;
  c.num = static_cast<int>(legacy::BinaryBoolOp::equals);
  Status s = legacy::exec_pairwise_prechecked(c);
  EXPECT_EQ(s.code(), StatusCode::kDtype);
  EXPECT_EQ(s.message(), legacy::exec(c).message());
}
