// matmul against numpy goldens (tools/gen_goldens_custom_ops.py): 2-D,
// batched, broadcast batch dims, 1-D operands, transposes, strided views,
// float64 / float16 / int32 / mixed dtypes; and its error messages.
#include <algorithm>
#include <cmath>
#include <string>

#include "golden_util.h"
#include "libops/core/parallel.h"
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

// Note [Small matrices]: batches whose matrices have every extent <= 8 run
// libops' Matrix kernels instead of BLAS; numpy's results all the same.
TEST(MatmulOp, SmallMatrixBatches) {
  expect_golden("small4");                        // [64,4,4] x [64,4,4]
  expect_golden("small3_bcast");                  // [5,1,3,3] x [1,6,3,3]
  expect_golden("small2_f64", {}, 1e-14);         // [9,2,2] float64
  expect_golden("small_points");                  // [50,4,4] x [50,4,1]
  expect_golden("small_rect_f64", {}, 1e-14);     // [7,7,5] x [7,5,8]: the padded 8x8x8 kernel
  expect_golden("small_shared");                  // [100,3,3] x [3,3]
  expect_golden("small_t", {1, 1});               // x [33,4,3] and y [33,2,4] both transposed
}

// The small-matrix path keeps the op's contract: the bias and activation
// epilogue, transpose_z, and an empty batch.
TEST(MatmulOp, SmallMatrixBatchesKeepTheEpilogueAndEmptyBatches) {
  NDArray x = golden("small4", "x"), y = golden("small4", "y"), z = golden("small4", "z");
  NDArray b = make(DataType::kFloat32, {4}, {0.5, -1, 0, 100});
  std::vector<double> want(static_cast<size_t>(z.length()));
  for (int64_t i = 0; i < z.length(); ++i) want[static_cast<size_t>(i)] = std::max(0.0, z.get_double(i) + b.get_double(i % 4));
  Context ctx;
  ASSERT_OK(run_op("matmul", {.in = {&x, &y, &b}, .i = {0, 0, 0, 1}}, ctx));
  EXPECT_TRUE(all_close(*ctx.output(0), want, 1e-5, 1e-5));

  Context zt;
  ASSERT_OK(run_op("matmul", {.in = {&x, &y}, .i = {0, 0, 1}}, zt));
  EXPECT_TRUE(all_close(*zt.output(0), values(transposed_copy(z)), 1e-5, 1e-5));

  NDArray e = make(DataType::kFloat32, {0, 4, 4}, {});
  Context ce;
  ASSERT_OK(run_op("matmul", {.in = {&e, &e}}, ce));
  EXPECT_EQ(ce.output(0)->shape(), (Dims{0, 4, 4}));
}

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
    EXPECT_EQ(s.message(), "matmul: takes 2 to 3 inputs (x, y, bias?), got 1");
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
    s = run_op("matmul", {.in = {&a, &at}, .i = {0, 0, 0, 0, 1}}, ctx2);  // i args 4..: an epilogue program
    EXPECT_EQ(s.message(), "matmul: epilogue program: 1 steps take 6 i args (the count, then 5 per step); got 1");
    Context ctx3;
    s = run_op("matmul", {.in = {&a, &at}, .i = {0, 0, 0, 3}}, ctx3);
    EXPECT_NE(s.message().find("i arg 3 (activation) is 3"), std::string::npos) << s.message();
  }
  {  // bias: [n] of the product's dtype, and y must be a matrix
    NDArray at = make(DataType::kFloat32, {3, 2}, iota(6)), v3 = make(DataType::kFloat32, {3}, iota(3));
    NDArray b3 = make(DataType::kFloat32, {3}, iota(3)), b2d = make(DataType::kFloat64, {2}, iota(2));
    Context c1, c2, c3;
    Status s = run_op("matmul", {.in = {&a, &at, &b3}}, c1);
    EXPECT_EQ(s.code(), StatusCode::kShape);
    EXPECT_EQ(s.message(),
              "matmul: bias[3] does not fit x[2,3] times y[3,2]: it must be [2], one value per column of a matrix y");
    s = run_op("matmul", {.in = {&a, &v3, &b3}}, c2);
    EXPECT_NE(s.message().find("one value per column of a matrix y"), std::string::npos) << s.message();
    s = run_op("matmul", {.in = {&a, &at, &b2d}}, c3);
    EXPECT_EQ(s.code(), StatusCode::kDtype);
    EXPECT_EQ(s.message(), "matmul: bias is float64 but the product is float32: they must match");
  }
}

// Note [Matmul epilogue]: act(x @ y + bias), hand-computed. x [2, 3] =
// [[1, -2, 3], [-4, 5, -6]], y [3, 2] = [[1, 0], [0, 1], [1, 1]]: x @ y =
// [[4, 1], [-10, -1]]; bias [-5, 0.5].
TEST(MatmulOp, BiasAndActivationAfterTheProduct) {
  NDArray x = make(DataType::kFloat32, {2, 3}, {1, -2, 3, -4, 5, -6});
  NDArray y = make(DataType::kFloat32, {3, 2}, {1, 0, 0, 1, 1, 1});
  NDArray b = make(DataType::kFloat32, {2}, {-5, 0.5});
  struct Case {
    int64_t activation;
    std::vector<double> want;
  };
  for (const Case& c : {Case{0, {-1, 1.5, -15, -0.5}}, Case{1, {0, 1.5, 0, 0}}, Case{2, {0, 1.5, 0, 0}}}) {
    Context ctx;
    ASSERT_OK(run_op("matmul", {.in = {&x, &y, &b}, .i = {0, 0, 0, c.activation}}, ctx));
    EXPECT_EQ(ctx.output(0)->shape(), (Dims{2, 2}));
    EXPECT_TRUE(all_close(*ctx.output(0), c.want, 0, 0)) << "activation " << c.activation;
  }
  // relu6 caps at 6; relu alone keeps NaN (as the relu op does) and a
  // batched x adds the bias to every row of every matrix.
  NDArray big = make(DataType::kFloat32, {2, 1, 3}, {4, 4, 4, 1, std::nan(""), 0});
  Context c6, cn;
  ASSERT_OK(run_op("matmul", {.in = {&big, &y, &b}, .i = {0, 0, 0, 2}}, c6));
  EXPECT_TRUE(all_close(*c6.output(0), {3, 6, std::nan(""), std::nan("")}, 0, 0));
  ASSERT_OK(run_op("matmul", {.in = {&big, &y, &b}, .i = {0, 0, 0, 1}}, cn));
  EXPECT_EQ(cn.output(0)->shape(), (Dims{2, 1, 2}));
  EXPECT_TRUE(all_close(*cn.output(0), {3, 8.5, std::nan(""), std::nan("")}, 0, 0));
  // An empty inner dim: the empty sums are 0, and the bias still follows.
  NDArray x0 = make(DataType::kFloat32, {2, 0}, {}), y0 = make(DataType::kFloat32, {0, 2}, {});
  Context ce;
  ASSERT_OK(run_op("matmul", {.in = {&x0, &y0, &b}}, ce));
  EXPECT_TRUE(all_close(*ce.output(0), {-5, 0.5, -5, 0.5}, 0, 0));
}

// transpose_z (libnd4j's transZ) swaps the result's last two dims, after
// the bias and the activation; with a vector operand it does nothing.
TEST(MatmulOp, TransposeZSwapsTheResult) {
  NDArray x = make(DataType::kFloat32, {2, 3}, {1, -2, 3, -4, 5, -6});
  NDArray y = make(DataType::kFloat32, {3, 2}, {1, 0, 0, 1, 1, 1});
  NDArray b = make(DataType::kFloat32, {2}, {-5, 0.5});
  Context c1, c2, c3;
  ASSERT_OK(run_op("matmul", {.in = {&x, &y}, .i = {0, 0, 1}}, c1));
  EXPECT_EQ(c1.output(0)->shape(), (Dims{2, 2}));
  EXPECT_TRUE(all_close(*c1.output(0), {4, -10, 1, -1}, 0, 0));
  ASSERT_OK(run_op("matmul", {.in = {&x, &y, &b}, .i = {0, 0, 1, 1}}, c2));
  EXPECT_TRUE(all_close(*c2.output(0), {0, 0, 1.5, 0}, 0, 0));
  NDArray v = make(DataType::kFloat32, {3}, {1, 1, 1});
  ASSERT_OK(run_op("matmul", {.in = {&x, &v}, .i = {0, 0, 1}}, c3));
  EXPECT_EQ(c3.output(0)->shape(), (Dims{2}));
  EXPECT_TRUE(all_close(*c3.output(0), {2, -5}, 0, 0));
  // [2, 3, 4] x [4, 5] -> [2, 5, 3], against numpy's golden transposed.
  NDArray gx = golden("batched", "x"), gy = golden("batched", "y"), gz = golden("batched", "z");
  Context c4;
  ASSERT_OK(run_op("matmul", {.in = {&gx, &gy}, .i = {0, 0, 1}}, c4));
  EXPECT_EQ(c4.output(0)->shape(), (Dims{2, 5, 3}));
  EXPECT_TRUE(all_close(*c4.output(0), values(transposed_copy(gz)), 1e-5, 1e-5));
}

std::vector<double> wave(int64_t n, double phase) {
  std::vector<double> v(static_cast<size_t>(n));
  for (int64_t i = 0; i < n; ++i) v[static_cast<size_t>(i)] = std::sin(0.37 * static_cast<double>(i) + phase);
  return v;
}

// A graph constant y takes the packed path (Note [Packed constant
// weights]); the epilogue follows it there too, at one and two threads and
// for one row and several.
TEST(MatmulOp, BiasAndReluAfterPackedWeights) {
  for (int64_t rows : {1, 5}) {
    NDArray x = make(DataType::kFloat32, {rows, 7}, wave(rows * 7, 0.1));
    NDArray y = make(DataType::kFloat32, {7, 33}, wave(7 * 33, 0.7));
    NDArray b = make(DataType::kFloat32, {33}, wave(33, 1.3));
    Context plain;
    ASSERT_OK(run_op("matmul", {.in = {&x, &y}}, plain));
    std::vector<double> want = values(*plain.output(0));
    for (size_t i = 0; i < want.size(); ++i) want[i] = std::max(0.0, want[i] + b.get_double(static_cast<int64_t>(i % 33)));
    for (int threads : {1, 2}) {
      set_num_threads(threads);
      Context ctx;
      ctx.set_constant_inputs({false, true, true});
      ASSERT_OK(run_op("matmul", {.in = {&x, &y, &b}, .i = {0, 0, 0, 1}}, ctx));
      EXPECT_TRUE(all_close(*ctx.output(0), want, 1e-6, 1e-6)) << rows << " rows, " << threads << " threads";
      set_num_threads(0);
    }
  }
}
