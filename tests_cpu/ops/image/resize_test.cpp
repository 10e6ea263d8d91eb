// resize beyond the goldens of tests_cpu/golden/image (tools/
// gen_goldens_image.py, run by golden_ops_test.cpp): values by hand, float16,
// an empty output, and the errors.
#include <cmath>

#include "op_test_util.h"

using namespace libops;
using namespace libops::test;

namespace {

// 1 x 2 -> 1 x 4, linear, half_pixel: source x = (o + 0.5) / 2 - 0.5 =
// -0.25, 0.25, 0.75, 1.25 -> clamped taps give 10, 12.5, 17.5, 20.
TEST(Resize, LinearByHand) {
  for (DataType dt : {DataType::kFloat64, DataType::kFloat32, DataType::kFloat16}) {
    NDArray x = make(dt, {1, 1, 1, 2}, {10, 20});
    Context ctx;
    ASSERT_OK(run_op("resize", {.in = {&x}, .i = {1, 4, 1}}, ctx));
    EXPECT_EQ(ctx.output(0)->dtype(), dt);
    EXPECT_TRUE(all_close(*ctx.output(0), {10, 12.5, 17.5, 20})) << dtype_name(dt);
  }
}

// Nearest, asymmetric, floor: every source index is floor(o * in / out).
TEST(Resize, NearestNhwcByHand) {
  NDArray x = make(DataType::kFloat32, {1, 1, 3, 2}, {1, 2, 3, 4, 5, 6});  // 3 pixels of 2 channels
  Context ctx;
  ASSERT_OK(run_op("resize", {.in = {&x}, .i = {1, 2, 0, 1, 2, 1}}, ctx));  // 1 x 3 -> 1 x 2
  EXPECT_EQ(ctx.output(0)->shape(), (Dims{1, 1, 2, 2}));
  EXPECT_TRUE(all_close(*ctx.output(0), {1, 2, 3, 4}));  // pixels 0 and floor(1 * 3 / 2) = 1
}

// Rows wide enough for many 16-output blocks take the float32 path of
// Note [Resize by permutes] where every block's source pixels lie within
// 16 of each other, and the gathers elsewhere; float64 takes the plain
// loop. Both must agree on every mode and coordinate mode, up- and
// downsampling (the latter back on gathers), a width that ends in a
// partial block, the last source row (whose end is x's end), and NaN;
// antialias on the axes that shrink (4 taps: the unrolled loops; more: the
// loops whose tap count is known at run time).
TEST(Resize, WideRowsMatchTheFloat64Loop) {
  struct Case {
    int64_t h, w, oh, ow;
  };
  const Case cases[] = {{5, 112, 10, 224}, {4, 33, 7, 50}, {3, 40, 3, 37}, {6, 100, 9, 331}, {2, 20, 2, 19},
                        {3, 17, 5, 16}, {9, 60, 2, 13}};
  for (const Case& c : cases)
    for (int64_t mode : {0, 1, 2})
      for (int64_t coord : {0, 1, 2})
        for (int64_t nearest : {0, 2})
          for (int64_t antialias : {0, 1}) {
            if ((mode != 0 && nearest != 0) || (mode == 0 && antialias != 0)) continue;
            SCOPED_TRACE(testing::Message() << c.h << "x" << c.w << " -> " << c.oh << "x" << c.ow << " mode " << mode
                                            << " coordinate mode " << coord << " nearest mode " << nearest
                                            << " antialias " << antialias);
            std::vector<double> xv(static_cast<size_t>(2 * c.h * c.w));
            for (size_t i = 0; i < xv.size(); ++i) xv[i] = std::sin(0.37 * static_cast<double>(i)) * 4.0;
            xv[xv.size() - 1] = std::nan("");  // the last value of x: read only at the end of its row
            const std::vector<int64_t> iargs = {c.oh, c.ow, mode, coord, nearest, 0, 0, antialias};
            NDArray x32 = make(DataType::kFloat32, {1, 2, c.h, c.w}, xv);
            NDArray x64 = make(DataType::kFloat64, {1, 2, c.h, c.w}, values(x32));
            Context f32, f64;
            ASSERT_OK(run_op("resize", {.in = {&x32}, .i = iargs}, f32));
            ASSERT_OK(run_op("resize", {.in = {&x64}, .i = iargs}, f64));
            const std::vector<double> got = values(*f32.output(0)), want = values(*f64.output(0));
            ASSERT_EQ(got.size(), want.size());
            for (size_t i = 0; i < want.size(); ++i) {
              if (std::isnan(want[i])) {
                EXPECT_TRUE(std::isnan(got[i])) << "at " << i;
              } else if (mode == 0) {
                EXPECT_EQ(got[i], want[i]) << "at " << i;
              } else {
                EXPECT_NEAR(got[i], want[i], 2e-6 * (1 + std::fabs(want[i]))) << "at " << i;
              }
            }
          }
}

TEST(Resize, EmptyOutputAndErrors) {
  NDArray x = zeros(DataType::kFloat32, {1, 2, 3, 4});
  Context ok;
  ASSERT_OK(run_op("resize", {.in = {&x}, .i = {0, 5}}, ok));
  EXPECT_EQ(ok.output(0)->shape(), (Dims{1, 2, 0, 5}));

  NDArray rank3 = zeros(DataType::kFloat32, {2, 3, 4});
  Context c1;
  EXPECT_EQ(run_op("resize", {.in = {&rank3}, .i = {2, 2}}, c1).message(),
            "resize: x[2,3,4] must be [N, C, H, W] or [N, H, W, C] (rank 4)");
  NDArray empty = zeros(DataType::kFloat32, {1, 2, 0, 4});
  Context c2;
  EXPECT_EQ(run_op("resize", {.in = {&empty}, .i = {3, 3}}, c2).message(),
            "resize: x[1,2,0,4] has an empty spatial axis: nothing to resample from");
  Context c3;
  EXPECT_FALSE(run_op("resize", {.in = {&x}, .i = {2, 2, 3}}, c3).is_ok());  // mode 3 is not a mode
}

// antialias (i arg 7) by hand: 1 x 4 -> 1 x 2, linear, half_pixel, scale
// 1/2. Output 0's coordinate is (0 + 0.5) * 2 - 0.5 = 0.5: f = 0, the
// ratio 0.5; the kernel is a triangle of half-width 2, start floor(-2) + 1
// = -1, four taps at -1..2 of distances 0.5 (i - 0.5) = -0.75, -0.25, 0.25,
// 0.75, weights 1/4, 3/4, 3/4, 1/4 over their sum 2: 1/8, 3/8, 3/8, 1/8 on
// pixels 0 (clamped from -1), 0, 1, 2: 1.625. Output 1 (coordinate 2.5) on
// pixels 1, 2, 3, 3 (clamped): 3.375. Without antialias: 1.5 and 3.5. NHWC
// with two channels (the second times 10) alike; nearest ignores the flag;
// growing axes are the plain kernels (1 x 2 -> 1 x 4 as LinearByHand).
TEST(Resize, AntialiasByHand) {
  NDArray x = make(DataType::kFloat32, {1, 1, 1, 4}, {1, 2, 3, 4});
  Context aa, plain;
  ASSERT_OK(run_op("resize", {.in = {&x}, .i = {1, 2, 1, 0, 0, 0, 0, 1}}, aa));
  EXPECT_TRUE(all_close(*aa.output(0), {1.625, 3.375}));
  ASSERT_OK(run_op("resize", {.in = {&x}, .i = {1, 2, 1, 0, 0, 0, 0, 0}}, plain));
  EXPECT_TRUE(all_close(*plain.output(0), {1.5, 3.5}));
  NDArray xc = make(DataType::kFloat64, {1, 1, 4, 2}, {1, 10, 2, 20, 3, 30, 4, 40});
  Context nhwc;
  ASSERT_OK(run_op("resize", {.in = {&xc}, .i = {1, 2, 1, 0, 0, 1, 0, 1}}, nhwc));
  EXPECT_TRUE(all_close(*nhwc.output(0), {1.625, 16.25, 3.375, 33.75}));
  Context nearest, nearest_aa;
  ASSERT_OK(run_op("resize", {.in = {&x}, .i = {1, 2, 0, 0, 0, 0, 0, 0}}, nearest));
  ASSERT_OK(run_op("resize", {.in = {&x}, .i = {1, 2, 0, 0, 0, 0, 0, 1}}, nearest_aa));
  EXPECT_TRUE(all_close(*nearest_aa.output(0), values(*nearest.output(0))));
  NDArray up = make(DataType::kFloat32, {1, 1, 1, 2}, {10, 20});
  Context grow;
  ASSERT_OK(run_op("resize", {.in = {&up}, .i = {1, 4, 1, 0, 0, 0, 0, 1}}, grow));
  EXPECT_TRUE(all_close(*grow.output(0), {10, 12.5, 17.5, 20}));
}

}  // namespace

// ONNX's sizes and scales as inputs (values known at run time): [H, W] or
// one per dim of x. The same output as the i and t args give; a size or
// scale that would resize N or C is refused; half_pixel_symmetric by hand.
TEST(Resize, SizeAndScalesInputs) {
  NDArray x = make(DataType::kFloat32, {1, 2, 2, 3}, {1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12});
  Context by_args, by_size, by_size4, by_scales, by_scales4;
  ASSERT_OK(run_op("resize", {.in = {&x}, .i = {5, 4, 1}}, by_args));
  NDArray size = make(DataType::kInt64, {2}, {5, 4}), size4 = make(DataType::kInt32, {4}, {1, 2, 5, 4});
  ASSERT_OK(run_op("resize", {.in = {&x, &size}, .i = {-1, -1, 1}}, by_size));
  ASSERT_OK(run_op("resize", {.in = {&x, &size4}, .i = {-1, -1, 1}}, by_size4));
  EXPECT_EQ(values(*by_size.output(0)), values(*by_args.output(0)));
  EXPECT_EQ(values(*by_size4.output(0)), values(*by_args.output(0)));
  // Scales 2.5 and 1.5: floor(2 * 2.5) = 5, floor(3 * 1.5) = 4, and the
  // formulas take the scales themselves (not 5 / 2 and 4 / 3).
  NDArray none = make(DataType::kInt64, {0}, {});
  NDArray scales = make(DataType::kFloat32, {2}, {2.5, 1.5}), scales4 = make(DataType::kFloat32, {4}, {1, 1, 2.5, 1.5});
  Context by_t;
  ASSERT_OK(run_op("resize", {.in = {&x}, .t = {2.5, 1.5}, .i = {5, 4, 1}}, by_t));
  ASSERT_OK(run_op("resize", {.in = {&x, &none, &scales}, .i = {-1, -1, 1}}, by_scales));
  ASSERT_OK(run_op("resize", {.in = {&x, &none, &scales4}, .i = {-1, -1, 1}}, by_scales4));
  EXPECT_EQ(by_scales.output(0)->shape(), (Dims{1, 2, 5, 4}));
  EXPECT_EQ(values(*by_scales.output(0)), values(*by_t.output(0)));
  EXPECT_EQ(values(*by_scales4.output(0)), values(*by_t.output(0)));
  NDArray bad_size = make(DataType::kInt64, {4}, {1, 3, 5, 4}), bad_scales = make(DataType::kFloat32, {4}, {2, 1, 1, 1});
  Context e1, e2, e3;
  EXPECT_EQ(run_op("resize", {.in = {&x, &bad_size}, .i = {-1, -1}}, e1).message(),
            "resize: size[1] = 3 would resize dim 1 of x[1,2,2,3]; only the height and width resize");
  EXPECT_EQ(run_op("resize", {.in = {&x, &none, &bad_scales}, .i = {-1, -1}}, e2).message(),
            "resize: scales[0] = 2 would resize dim 0 of x[1,2,2,3]; only the height and width resize");
  EXPECT_EQ(run_op("resize", {.in = {&x}}, e3).message(),
            "resize: the output's height and width are not given (i args height and width, or a size or scales input)");
  // half_pixel_symmetric, 1 x 4 -> 1 x 2 by scale 0.6 (floor(2.4) = 2),
  // linear: adjustment 2 / 2.4, offset 2 * (1 - 2 / 2.4) = 1/3, so the
  // sources are 1/3 + (o + 0.5) / 0.6 - 0.5 = 0.6667 and 2.3333.
  NDArray row = make(DataType::kFloat64, {1, 1, 1, 4}, {10, 20, 30, 40});
  NDArray s2 = make(DataType::kFloat32, {2}, {1, 0.6f});
  Context sym;
  ASSERT_OK(run_op("resize", {.in = {&row, &none, &s2}, .i = {-1, -1, 1, 5}}, sym));
  const double s = static_cast<double>(0.6f), off = 2.0 * (1 - 2.0 / (s * 4.0));
  EXPECT_TRUE(all_close(*sym.output(0), {10 + 10 * (off + 0.5 / s - 0.5), 10 + 10 * (off + 1.5 / s - 0.5)}, 1e-12));
}

// tf_crop_and_resize (coordinate mode 6) by hand: x is one row 0, 10, 20,
// 30, 40 (W 5), the box [0.25, 1.25] of (W - 1) = 4 sampled at 3 points:
// 1, 3 and 5, the last outside the row, so it is the extrapolation value
// (t arg 3); NHWC with two channels alike, the roi as 4 values or as a
// start and an end per dim; bad roi lengths are refused.
TEST(Resize, TfCropAndResizeByHand) {
  NDArray x = make(DataType::kFloat32, {1, 1, 1, 5}, {0, 10, 20, 30, 40});
  NDArray none = make(DataType::kInt64, {0}, {}), no_scales = make(DataType::kFloat32, {0}, {});
  NDArray roi4 = make(DataType::kFloat32, {4}, {0, 0.25, 1, 1.25});
  NDArray roi8 = make(DataType::kFloat64, {8}, {0, 0, 0, 0.25, 1, 1, 1, 1.25});
  for (NDArray* roi : {&roi4, &roi8}) {
    Context ctx;
    ASSERT_OK(run_op("resize", {.in = {&x, &none, &no_scales, roi}, .t = {0, 0, -0.75, -7}, .i = {1, 3, 1, 6}}, ctx));
    EXPECT_TRUE(all_close(*ctx.output(0), {10, 30, -7})) << roi->length();
  }
  // NHWC [1, 1, 5, 2]: the same row in both channels, the second times 2;
  // height 1 out of 1: the box's centre, 0.5 * (0 + 1) * 0 = row 0.
  NDArray xc = make(DataType::kFloat32, {1, 1, 5, 2}, {0, 0, 10, 20, 20, 40, 30, 60, 40, 80});
  Context nhwc;
  ASSERT_OK(run_op("resize", {.in = {&xc, &none, &no_scales, &roi4}, .t = {0, 0, -0.75, 9}, .i = {1, 3, 1, 6, 0, 1}},
                   nhwc));
  EXPECT_TRUE(all_close(*nhwc.output(0), {10, 20, 30, 60, 9, 9}));
  NDArray roi3 = make(DataType::kFloat32, {3}, {0, 0, 1});
  Context bad;
  EXPECT_EQ(run_op("resize", {.in = {&x, &none, &no_scales, &roi3}, .i = {1, 3, 1, 6}}, bad).message(),
            "resize: roi has 3 values for x[1,1,1,5]: it needs 4 (h_start, w_start, h_end, w_end) or 8 (a start, "
            "then an end, per dim)");
}
