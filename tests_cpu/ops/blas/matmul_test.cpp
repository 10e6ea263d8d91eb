// matmul against numpy goldens (tools/gen_goldens_custom_ops.py): 2-D,
// batched, broadcast batch dims, 1-D operands, transposes, strided views,
// float64 / float16 / int32 / mixed dtypes; and its error messages.
#include <string>

#include "golden_util.h"
#include "op_test_util.h"

using namespace libops;
using namespace libops::test;

namespace {

NDArray golden(const std::string& name, const char* role) {
  return load_golden("custom_ops/matmul_" + name + "_" + role + ".npy");
}

// A dense copy of `a` with its last two dims swapped.
NDArray transposed_copy(const NDArray& a) {
  Dims perm;
  for (int d = 0; d < a.rank(); ++d) perm.push_back(d);
  std::swap(perm[a.rank() - 2], perm[a.rank() - 1]);
  NDArray v, out;
  EXPECT_OK(a.permute(perm, v));
  EXPECT_OK(v.dup('c', out));
  return out;
}

void expect_golden(const std::string& name, std::vector<int64_t> iargs = {}, double tol = 1e-5) {
  NDArray x = golden(name, "x"), y = golden(name, "y"), z = golden(name, "z");
  Context ctx;
  ASSERT_OK(run_op("matmul", {.in = {&x, &y}, .i = iargs}, ctx));
  EXPECT_EQ(ctx.output(0)->shape(), z.shape()) << name;
  EXPECT_EQ(ctx.output(0)->dtype(), z.dtype()) << name;
  EXPECT_TRUE(all_close(*ctx.output(0), values(z), tol, tol)) << name;
}

}  // namespace

TEST(MatmulOp, TwoDimensional) { expect_golden("2d"); }
TEST(MatmulOp, BatchedTimesMatrix) { expect_golden("batched"); }            // [2,3,4] x [4,5]
TEST(MatmulOp, BroadcastsBatchDims) { expect_golden("bcast"); }             // [1,3,4] x [2,4,5]
TEST(MatmulOp, BroadcastsBatchDimsBothWays) { expect_golden("bcast4d"); }   // [2,1,3,4] x [1,3,4,2]
TEST(MatmulOp, VectorTimesMatrix) { expect_golden("vecmat"); }              // [4] x [4,5] -> [5]
TEST(MatmulOp, MatrixTimesVector) { expect_golden("matvec"); }              // [3,4] x [4] -> [3]
TEST(MatmulOp, VectorTimesBatchedMatrix) { expect_golden("vec_batched"); }  // [4] x [2,4,3] -> [2,3]
TEST(MatmulOp, Float64) { expect_golden("f64", {}, 1e-12); }
TEST(MatmulOp, Float16WithinTolerance) { expect_golden("f16", {}, 4e-3); }
TEST(MatmulOp, Int32WrapsExactlyLikeNumpy) { expect_golden("i32", {}, 0.0); }
TEST(MatmulOp, MixedDtypesPromote) { expect_golden("mixed"); }  // int32 x float32 -> float32

TEST(MatmulOp, DotOfTwoVectorsIsScalar) {
  expect_golden("dot");
  NDArray x = make(DataType::kFloat32, {3}, {1, 2, 3});
  NDArray y = make(DataType::kFloat32, {3}, {4, -5, 6});
  Context ctx;
  ASSERT_OK(run_op("mmul", {.in = {&x, &y}}, ctx));  // the alias
  EXPECT_EQ(ctx.output(0)->rank(), 0);
  EXPECT_TRUE(all_close(*ctx.output(0), {12}));
}

TEST(MatmulOp, TransposeFlags) {
  NDArray x = golden("batched", "x"), y = golden("batched", "y"), z = golden("batched", "z");
  NDArray xt = transposed_copy(x), yt = transposed_copy(y);
  const std::vector<std::pair<std::vector<NDArray*>, std::vector<int64_t>>> cases = {
      {{&xt, &y}, {1, 0}}, {{&x, &yt}, {0, 1}}, {{&xt, &yt}, {1, 1}}, {{&x, &y}, {0}}};
  for (const auto& [in, args] : cases) {
    Context ctx;
    ASSERT_OK(run_op("matmul", {.in = in, .i = args}, ctx));
    EXPECT_EQ(ctx.output(0)->shape(), z.shape());
    EXPECT_TRUE(all_close(*ctx.output(0), values(z), 1e-5, 1e-5)) << args[0];
  }
}

TEST(MatmulOp, StridedViewsAsInputs) {
  NDArray x = golden("batched", "x"), y = golden("batched", "y"), z = golden("batched", "z");
  // x's rows every other row of a bigger buffer (BLAS layout with ld 16),
  // y a column-major view (a transpose BLAS reads directly), and a view
  // whose columns are strided (not a BLAS layout: copied first).
  NDArray big, big2, xs, xv;
  ASSERT_OK(NDArray::zeros(DataType::kFloat32, {2, 6, 8}, 'c', big));
  ASSERT_OK(NDArray::zeros(DataType::kFloat32, {2, 6, 8}, 'c', big2));
  NDArray rows, cols;
  ASSERT_OK(big.slice(1, 0, 6, 2, rows));
  ASSERT_OK(rows.slice(2, 0, 4, 1, xs));
  ASSERT_OK(xs.assign(x));
  ASSERT_OK(big2.slice(2, 0, 8, 2, cols));
  ASSERT_OK(cols.slice(1, 0, 3, 1, xv));  // [2,3,4] with column stride 2
  ASSERT_OK(xv.assign(x));
  NDArray yt = transposed_copy(y), ycol;
  ASSERT_OK(yt.permute({1, 0}, ycol));  // [4,5] view, column-major
  for (NDArray* xin : {&xs, &xv}) {
    for (NDArray* yin : {&y, &ycol}) {
      Context ctx;
      ASSERT_OK(run_op("matmul", {.in = {xin, yin}}, ctx));
      EXPECT_TRUE(all_close(*ctx.output(0), values(z), 1e-5, 1e-5));
    }
  }
  // A broadcast view (stride 0 along a batch dim) as x.
  NDArray x2 = golden("2d", "x"), y2 = golden("2d", "y"), z2 = golden("2d", "z"), xb;
  ASSERT_OK(x2.broadcast_to({3, 3, 4}, xb));
  Context ctx;
  ASSERT_OK(run_op("matmul", {.in = {&xb, &y2}}, ctx));
  EXPECT_EQ(ctx.output(0)->shape(), (Dims{3, 3, 5}));
  std::vector<double> want;
  for (int i = 0; i < 3; ++i)
    for (double v : values(z2)) want.push_back(v);
  EXPECT_TRUE(all_close(*ctx.output(0), want, 1e-5, 1e-5));
}

TEST(MatmulOp, WritesIntoSuppliedStridedOutput) {
  NDArray x = golden("2d", "x"), y = golden("2d", "y"), z = golden("2d", "z");
  NDArray buf, zt;  // z as a column-major view: not writable by BLAS row-major
  ASSERT_OK(NDArray::zeros(DataType::kFloat32, {5, 3}, 'c', buf));
  ASSERT_OK(buf.permute({1, 0}, zt));
  Context ctx;
  ASSERT_OK(run_op("matmul", {.in = {&x, &y}, .out = {&zt}}, ctx));
  EXPECT_TRUE(all_close(zt, values(z), 1e-5, 1e-5));
}

TEST(MatmulOp, EmptyInnerDimGivesZeros) {
  NDArray x = zeros(DataType::kFloat32, {2, 0}), y = zeros(DataType::kFloat32, {0, 3});
  Context ctx;
  ASSERT_OK(run_op("matmul", {.in = {&x, &y}}, ctx));
  EXPECT_EQ(ctx.output(0)->shape(), (Dims{2, 3}));
  EXPECT_TRUE(all_close(*ctx.output(0), {0, 0, 0, 0, 0, 0}));
  NDArray e = zeros(DataType::kFloat32, {0, 4}), w = make(DataType::kFloat32, {4, 2}, iota(8));
  Context ctx2;
  ASSERT_OK(run_op("matmul", {.in = {&e, &w}}, ctx2));
  EXPECT_EQ(ctx2.output(0)->shape(), (Dims{0, 2}));
}

TEST(MatmulOp, RejectsBadInputsWithMessages) {
  NDArray a = make(DataType::kFloat32, {2, 3}, iota(6));
  NDArray b = make(DataType::kFloat32, {4, 5}, iota(20));
  {
    Context ctx;
    Status s = run_op("matmul", {.in = {&a, &b}}, ctx);
    EXPECT_EQ(s.code(), StatusCode::kShape);
    EXPECT_EQ(s.message(),
              "matmul: cannot multiply x[2,3] by y[4,5] (transpose_x=0, transpose_y=0): inner dims 3 and 4 must be "
              "equal");
  }
  {
    NDArray p = make(DataType::kFloat32, {2, 2, 3}, iota(12)), q = make(DataType::kFloat32, {3, 3, 1}, iota(9));
    Context ctx;
    Status s = run_op("matmul", {.in = {&p, &q}}, ctx);
    EXPECT_EQ(s.code(), StatusCode::kShape);
    EXPECT_NE(s.message().find("batch dims [2] and [3] do not broadcast"), std::string::npos) << s.message();
  }
  {
    Context ctx;
    Status s = run_op("matmul", {.in = {&a}}, ctx);
    EXPECT_EQ(s.message(), "matmul: takes 2 inputs (x, y), got 1");
  }
  {
    NDArray sc = make(DataType::kFloat32, {}, {2});
    Context ctx;
    Status s = run_op("matmul", {.in = {&sc, &a}}, ctx);
    EXPECT_NE(s.message().find("both inputs need rank >= 1"), std::string::npos) << s.message();
  }
  {
    NDArray bb = make(DataType::kBool, {3, 2}, {1, 0, 1, 1, 0, 0});
    Context ctx;
    Status s = run_op("matmul", {.in = {&a, &bb}}, ctx);
    EXPECT_EQ(s.code(), StatusCode::kDtype);
    EXPECT_NE(s.message().find("unsupported dtype bool for input 1"), std::string::npos) << s.message();
  }
  {
    NDArray at = make(DataType::kFloat32, {3, 2}, iota(6));
    Context ctx;
    Status s = run_op("matmul", {.in = {&a, &at}, .i = {2}}, ctx);
    EXPECT_EQ(s.message(), "matmul: i arg 0 (transpose_x) is 2: it must be 0 or 1");
    Context ctx2;
    s = run_op("matmul", {.in = {&a, &at}, .i = {0, 0, 1}}, ctx2);
    EXPECT_EQ(s.message(), "matmul: takes at most 2 integer (i) args (transpose_x, transpose_y); got 3: i arg 2 = 1 is not declared");
  }
}
