// unfold and fold beyond the goldens (tests_cpu/golden/windows, from
// tools/gen_goldens_windows.py): fold(unfold(x)) against a coverage count
// worked out here by brute force, every numeric dtype against float64,
// sliced and permuted inputs, supplied outputs in another layout, and each
// error word for word.
#include <gtest/gtest.h>

#include <vector>

#include "op_test_util.h"

namespace libops {
namespace {

using test::iota;
using test::make;
using test::values;

struct Window {
  std::vector<int64_t> kernel, stride, dilation, padding;
  std::vector<int64_t> args() const {
    std::vector<int64_t> v = kernel;
    for (const auto* part : {&stride, &dilation, &padding}) v.insert(v.end(), part->begin(), part->end());
    return v;
  }
  std::vector<int64_t> fold_args(const std::vector<int64_t>& output_size) const {
    std::vector<int64_t> v = output_size, w = args();
    v.insert(v.end(), w.begin(), w.end());
    return v;
  }
};

NDArray run1(const char* op, NDArray& x, const std::vector<int64_t>& i) {
  Context ctx;
  EXPECT_OK(test::run_op(op, {.in = {&x}, .i = i}, ctx));
  return ctx.num_outputs() == 1 ? *ctx.output(0) : NDArray();
}

Status run_error(const char* op, NDArray& x, const std::vector<int64_t>& i) {
  Context ctx;
  return test::run_op(op, {.in = {&x}, .i = i}, ctx);
}

// How many windows cover each position of an image of extents `spatial`,
// counted by trying every window and tap along each dim (the count of a
// position is the product of its per-dim counts).
std::vector<double> coverage(const std::vector<int64_t>& spatial, const Window& w) {
  const size_t k = spatial.size();
  std::vector<std::vector<double>> per_dim(k);
  for (size_t d = 0; d < k; ++d) {
    per_dim[d].assign(static_cast<size_t>(spatial[d]), 0);
    const int64_t before = w.padding[2 * d], after = w.padding[2 * d + 1];
    for (int64_t start = -before; start + w.dilation[d] * (w.kernel[d] - 1) < spatial[d] + after; start += w.stride[d])
      for (int64_t j = 0; j < w.kernel[d]; ++j) {
        const int64_t p = start + j * w.dilation[d];
        if (p >= 0 && p < spatial[d]) per_dim[d][static_cast<size_t>(p)] += 1;
      }
  }
  std::vector<double> out = {1};
  for (size_t d = 0; d < k; ++d) {
    std::vector<double> next;
    for (double a : out)
      for (double b : per_dim[d]) next.push_back(a * b);
    out = next;
  }
  return out;
}

TEST(WindowOps, FoldOfUnfoldScalesEachElementByItsCoverage) {
  struct Case {
    Dims shape;  // leading..., spatial...
    Window w;
  };
  const Case cases[] = {
      {{3, 11}, {{4}, {3}, {2}, {2, 3}}},
      {{2, 2, 6, 7}, {{3, 2}, {2, 3}, {1, 2}, {1, 2, 0, 1}}},
      {{5, 4, 3}, {{2, 2, 1}, {1, 2, 1}, {2, 1, 1}, {1, 0, 0, 1, 2, 2}}},
      {{2, 3, 4}, {{1, 1}, {2, 3}, {1, 1}, {0, 0, 0, 0}}},  // stride past the kernel: some elements in no window
  };
  for (const Case& c : cases) {
    const int k = static_cast<int>(c.w.kernel.size());
    SCOPED_TRACE(c.shape.str());
    NDArray x = make(DataType::kFloat64, c.shape, iota(c.shape.product(), 1, -7));
    NDArray cols = run1("unfold", x, c.w.args());
    std::vector<int64_t> spatial(c.shape.end() - k, c.shape.end());
    NDArray back = run1("fold", cols, c.w.fold_args(spatial));
    ASSERT_EQ(back.shape(), c.shape);
    const std::vector<double> cover = coverage(spatial, c.w), xv = values(x), got = values(back);
    for (size_t e = 0; e < xv.size(); ++e) EXPECT_EQ(got[e], xv[e] * cover[e % cover.size()]) << "element " << e;
  }
}

// Every numeric dtype gives float64's values: unfold moves 1-, 2-, 4- and
// 8-byte elements, fold sums in each compute type (the sums stay small).
TEST(WindowOps, EveryNumericDtypeMatchesFloat64) {
  const Window w{{2, 3}, {1, 2}, {2, 1}, {1, 0, 2, 1}};
  // In [-5, 5] (unsigned: [0, 10]): no element lies in more than 6 windows,
  // so int8's sums stay in range.
  std::vector<double> small(60), small_unsigned(60);
  for (size_t e = 0; e < small.size(); ++e) {
    small_unsigned[e] = static_cast<double>((e * 7) % 11);
    small[e] = small_unsigned[e] - 5;
  }
  for (DataType dt : {DataType::kInt8, DataType::kInt16, DataType::kInt32, DataType::kInt64, DataType::kUInt8,
                      DataType::kUInt16, DataType::kUInt32, DataType::kUInt64, DataType::kFloat16, DataType::kBFloat16,
                      DataType::kFloat32}) {
    SCOPED_TRACE(dtype_name(dt));
    const bool is_unsigned = dtype_is_integer(dt) && !dtype_is_signed_int(dt);
    const std::vector<double>& v = is_unsigned ? small_unsigned : small;
    NDArray x = make(dt, {2, 5, 6}, v), x_ref = make(DataType::kFloat64, {2, 5, 6}, v);
    NDArray cols = run1("unfold", x, w.args()), cols_ref = run1("unfold", x_ref, w.args());
    EXPECT_EQ(cols.dtype(), dt);
    EXPECT_EQ(values(cols), values(cols_ref));
    NDArray back = run1("fold", cols, w.fold_args({5, 6})), back_ref = run1("fold", cols_ref, w.fold_args({5, 6}));
    EXPECT_EQ(back.dtype(), dt);
    EXPECT_EQ(values(back), values(back_ref));
  }
}

// A stepped slice of a permuted array: the same values as its dense copy.
TEST(WindowOps, StridedViewsGiveTheDenseValues) {
  NDArray base = make(DataType::kFloat32, {8, 3, 7}, iota(168, 0.5, -40)), perm, view, dense;
  ASSERT_OK(base.permute({1, 2, 0}, perm));  // [3, 7, 8]
  ASSERT_OK(perm.slice(2, 1, 8, 2, view));   // [3, 7, 4], every other element of the last dim
  ASSERT_FALSE(view.is_c_contiguous());
  ASSERT_OK(view.dup('c', dense));
  const Window w{{3, 2}, {2, 1}, {1, 2}, {1, 1, 0, 1}};
  EXPECT_EQ(values(run1("unfold", view, w.args())), values(run1("unfold", dense, w.args())));
  NDArray cols_base = make(DataType::kFloat32, {2, 6, 6, 3}, iota(216, 0.25, -9)), cols_perm, cols_dense;
  ASSERT_OK(cols_base.permute({0, 3, 1, 2}, cols_perm));  // [2, 3, 6, 6]: taps 6 = 3 x 2, windows 6 = 3 x 2
  ASSERT_OK(cols_perm.dup('c', cols_dense));
  EXPECT_EQ(values(run1("fold", cols_perm, w.fold_args({4, 4}))),
            values(run1("fold", cols_dense, w.fold_args({4, 4}))));
}

// Outputs the caller supplies in F order are written through the staging copy.
TEST(WindowOps, SuppliedOutputsInAnotherLayout) {
  const Window w{{2}, {1}, {1}, {0, 1}};
  NDArray x = make(DataType::kInt32, {2, 3}, {1, 2, 3, 4, 5, 6});
  NDArray z = test::zeros(DataType::kInt32, {2, 2, 3});
  NDArray zf;
  ASSERT_OK(z.dup('f', zf));
  Context u;
  ASSERT_OK(test::run_op("unfold", {.in = {&x}, .out = {&zf}, .i = w.args()}, u));
  // Row 0 [1 2 3 | 0]: windows (1,2) (2,3) (3,0).
  EXPECT_EQ(values(zf), (std::vector<double>{1, 2, 3, 2, 3, 0, 4, 5, 6, 5, 6, 0}));
  NDArray back = test::zeros(DataType::kInt32, {2, 3}), backf;
  ASSERT_OK(back.dup('f', backf));
  Context f;
  ASSERT_OK(test::run_op("fold", {.in = {&zf}, .out = {&backf}, .i = w.fold_args({3})}, f));
  EXPECT_EQ(values(backf), (std::vector<double>{1, 4, 6, 4, 10, 12}));  // the middle two lie in two windows
}

TEST(WindowOps, UnfoldErrorsWordForWord) {
  NDArray x = make(DataType::kFloat32, {2, 3, 4}, iota(24));
  EXPECT_EQ(run_error("unfold", x, {2, 2, 1, 1, 1, 1, 0}).message(),
            "unfold: window with 7 values: it needs 5 per spatial dim (K kernel sizes, K strides, K dilations, then a "
            "(before, after) padding pair per dim)");
  EXPECT_EQ(run_error("unfold", x, {2, 1, 1, 0}).message(),
            "unfold: missing i arg 4 (window: K kernel sizes, K strides, K dilations (each >= 1), then (before, after) "
            "zero padding per spatial dim (>= 0); K = values / 5); unfold needs 5 integer (i) args (window...), got 4");
  EXPECT_EQ(run_error("unfold", x, std::vector<int64_t>(55, 1)).message(),
            "unfold: window (i args 0..) has 55 values: 5 to 50 values");
  EXPECT_EQ(run_error("unfold", x, {2, 0, 1, 1, 1, 1, 0, 0, 0, 0}).message(),
            "unfold: kernel_size with [2,0]: every entry must be in [1, 2147483647]");
  EXPECT_EQ(run_error("unfold", x, {2, 2, 1, -1, 1, 1, 0, 0, 0, 0}).message(),
            "unfold: stride with [1,-1]: every entry must be in [1, 2147483647]");
  EXPECT_EQ(run_error("unfold", x, {2, 2, 1, 1, 0, 1, 0, 0, 0, 0}).message(),
            "unfold: dilation with [0,1]: every entry must be in [1, 2147483647]");
  EXPECT_EQ(run_error("unfold", x, {2, 2, 1, 1, 1, 1, 0, 0, -1, 0}).message(),
            "unfold: padding with [0,0,-1,0]: every entry must be in [0, 2147483647]");
  EXPECT_EQ(run_error("unfold", x, {2, 2, 2, 2, 1, 1, 1, 1, 1, 1, 1, 1, 0, 0, 0, 0, 0, 0, 0, 0}).message(),
            "unfold: x[2,3,4] with kernel_size [2,2,2,2]: x needs at least 4 dims, one per kernel dim");
  // The last dim: 4 + 1 + 0 padded, a kernel of 3 dilated by 2 spans 5; one more does not fit.
  EXPECT_OK(run_error("unfold", x, {3, 1, 2, 1, 0}));
  Status s = run_error("unfold", x, {3, 1, 3, 0, 0});
  EXPECT_EQ(s.code(), StatusCode::kShape);
  EXPECT_EQ(s.message(),
            "unfold: spatial dim 0 (dim 2 of x[2,3,4]) with padding (0, 0), kernel_size 3 and dilation 3: the dilated "
            "kernel spans 7, more than the padded extent 4");
  NDArray rank10 = test::zeros(DataType::kFloat32, {1, 1, 1, 1, 1, 1, 1, 1, 1, 2});
  EXPECT_EQ(run_error("unfold", rank10, {1, 1, 1, 0, 0}).message(),
            "unfold: x[1,1,1,1,1,1,1,1,1,2] with kernel_size [1]: the result would have 11 dims: at most 10");
  NDArray b = test::zeros(DataType::kBool, {2, 3});
  s = run_error("unfold", b, {1, 1, 1, 0, 0});
  EXPECT_EQ(s.code(), StatusCode::kDtype);
  EXPECT_EQ(s.message(),
            "unfold: unsupported dtype bool for input 0 [2,3]; supported: int8, int16, int32, int64, uint8, uint16, "
            "uint32, uint64, float16, bfloat16, float32, float64");
}

TEST(WindowOps, FoldErrorsWordForWord) {
  NDArray x = make(DataType::kFloat32, {2, 4, 9}, iota(72));  // taps 4 = 2 x 2, windows 9 = 3 x 3
  const std::vector<int64_t> good = {4, 4, 2, 2, 1, 1, 1, 1, 0, 0, 0, 0};
  EXPECT_OK(run_error("fold", x, good));
  EXPECT_EQ(run_error("fold", x, {4, 4, 2, 2, 1, 1, 1}).message(),
            "fold: output_size_and_window with 7 values: it needs 6 per spatial dim (K output sizes, K kernel sizes, K "
            "strides, K dilations, then a (before, after) padding pair per dim)");
  EXPECT_EQ(run_error("fold", x, {-4, 4, 2, 2, 1, 1, 1, 1, 0, 0, 0, 0}).message(),
            "fold: output_size with [-4,4]: every entry must be in [0, 2147483647]");
  EXPECT_EQ(run_error("fold", x, {4, 4, 2, 0, 1, 1, 1, 1, 0, 0, 0, 0}).message(),
            "fold: kernel_size with [2,0]: every entry must be in [1, 2147483647]");
  NDArray flat = make(DataType::kFloat32, {9}, iota(9));
  Status s = run_error("fold", flat, {3, 1, 1, 1, 0, 0});
  EXPECT_EQ(s.code(), StatusCode::kShape);
  EXPECT_EQ(s.message(), "fold: x[9] with kernel_size [1]: x needs at least 2 dims (taps, windows)");
  EXPECT_EQ(run_error("fold", x, {4, 4, 3, 2, 1, 1, 1, 1, 0, 0, 0, 0}).message(),
            "fold: x[2,4,9] with kernel_size [3,2]: dim 1 (taps) is 4: it must be prod(kernel_size) = 6");
  EXPECT_EQ(run_error("fold", x, {4, 5, 2, 2, 1, 1, 1, 1, 0, 0, 0, 1}).message(),
            "fold: x[2,4,9] with output_size [4,5], kernel_size [2,2], stride [1,1], dilation [1,1] and padding "
            "[0,0,0,1]: dim 2 (windows) is 9: it must be the 15 windows those give ([3,5] per dim)");
  EXPECT_EQ(run_error("fold", x, {1, 4, 2, 2, 1, 1, 1, 1, 0, 0, 0, 0}).message(),
            "fold: spatial dim 0 with output_size 1, padding (0, 0), kernel_size 2 and dilation 1: the dilated kernel "
            "spans 2, more than the padded extent 1");
  NDArray many = test::zeros(DataType::kFloat32, {1, 1, 1, 1, 1, 1, 1, 1, 1, 1});
  EXPECT_EQ(run_error("fold", many, {1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 0, 0, 0, 0, 0, 0}).message(),
            "fold: x[1,1,1,1,1,1,1,1,1,1] with kernel_size [1,1,1]: the result would have 11 dims: at most 10");
}

TEST(Im2colOp, RejectsAKernelLargerThanThePaddedImageAndMismatchedPatches) {
  NDArray x = make(DataType::kFloat32, {1, 1, 2, 2}, {1, 2, 3, 4});
  Context c1;
  EXPECT_EQ(test::run_op("im2col", {.in = {&x}, .i = {3, 2}}, c1).message(),
            "im2col: the dilated kernel (3 along H) is larger than the padded input (2 + 2 * 0)");
  Context c2;
  EXPECT_EQ(test::run_op("im2col", {.in = {&x}, .i = {2}}, c2).message().find("im2col: "), 0u);  // kW is required
  NDArray cols;
  ASSERT_OK(NDArray::create(DataType::kFloat32, Dims{1, 1, 2, 2, 1, 2}, 'c', cols));
  Context c3;  // a 2x2 image has 1x1 patches of 2x2 at stride 1
  EXPECT_EQ(test::run_op("col2im", {.in = {&cols}, .i = {1, 1, 0, 0, 2, 2}}, c3).message(),
            "col2im: x[1,1,2,2,1,2] holds 1x2 patches, but an image of 2x2 with these args has 1x1");
  Context c4;  // im2col then col2im: each pixel times the patches that hold it (here 1 each)
  ASSERT_OK(test::run_op("im2col", {.in = {&x}, .i = {1, 1}}, c4));
  Context c5;
  ASSERT_OK(test::run_op("col2im", {.in = {c4.output(0)}, .i = {1, 1, 0, 0, 2, 2}}, c5));
  EXPECT_EQ(values(*c5.output(0)), (std::vector<double>{1, 2, 3, 4}));
}

}  // namespace
}  // namespace libops
