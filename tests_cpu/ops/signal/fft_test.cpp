// fft, ifft, rfft and irfft against numpy goldens (tools/gen_goldens_fft.py):
// one axis and several, the default axis, negative axes, radix-2/3/4/5
// lengths, direct primes and Bluestein lengths, float32 and float64, and
// irfft's odd, padded and cropped output lengths with the imaginary parts of
// bins 0 and n/2 ignored. Also hand-checked small transforms, round trips,
// strided inputs and a strided supplied output, empty arrays, and every
// argument and shape error word for word.
#include <cmath>
#include <string>

#include "ops/signal/fft_golden_cases.h"
#include "op_test_util.h"

using namespace libops;
using namespace libops::test;

namespace {

class FftGolden : public ::testing::TestWithParam<FftGoldenCase> {};

TEST_P(FftGolden, MatchesNumpy) {
  const FftGoldenCase& c = GetParam();
  FftGoldenArrays g = load_fft_golden(c);
  const double tol = fft_golden_tolerance(g.x.dtype());
  Context ctx;
  ASSERT_OK(run_op(c.op, {.in = {&g.x}, .i = g.i_args}, ctx));
  EXPECT_EQ(ctx.output(0)->shape(), g.z.shape()) << c.op << " " << c.name;
  EXPECT_EQ(ctx.output(0)->dtype(), g.x.dtype()) << c.op << " " << c.name;
  EXPECT_TRUE(all_close(*ctx.output(0), values(g.z), tol, tol)) << c.op << " " << c.name;
}

INSTANTIATE_TEST_SUITE_P(Numpy, FftGolden, ::testing::ValuesIn(kFftGoldenCases),
                         [](const ::testing::TestParamInfo<FftGoldenCase>& info) {
                           return std::string(info.param.op) + "_" + info.param.name;
                         });

TEST(FftOp, HandCheckedFourPoints) {
  // An impulse at t = 1: X[k] = exp(-2 pi i k / 4) = 1, -i, -1, i.
  NDArray x = make(DataType::kFloat64, {4, 2}, {0, 0, 1, 0, 0, 0, 0, 0});
  Context ctx;
  ASSERT_OK(run_op("fft", {.in = {&x}}, ctx));
  EXPECT_TRUE(all_close(*ctx.output(0), {1, 0, 0, -1, -1, 0, 0, 1}, 0, 1e-15));
  // ifft of the same impulse: exp(+2 pi i k / 4) / 4.
  Context inv;
  ASSERT_OK(run_op("ifft", {.in = {&x}}, inv));
  EXPECT_TRUE(all_close(*inv.output(0), {0.25, 0, 0, 0.25, -0.25, 0, 0, -0.25}, 0, 1e-15));
}

TEST(FftOp, HandCheckedRealTransforms) {
  // rfft([1, 2, 3, 4]) = 10, -2 + 2i, -2; irfft gives the signal back.
  NDArray x = make(DataType::kFloat32, {4}, {1, 2, 3, 4});
  Context fwd;
  ASSERT_OK(run_op("rfft", {.in = {&x}}, fwd));
  EXPECT_EQ(fwd.output(0)->shape(), (Dims{3, 2}));
  EXPECT_TRUE(all_close(*fwd.output(0), {10, 0, -2, 2, -2, 0}, 0, 1e-6));
  Context back;
  ASSERT_OK(run_op("irfft", {.in = {fwd.output(0)}}, back));
  EXPECT_EQ(back.output(0)->shape(), (Dims{4}));
  EXPECT_TRUE(all_close(*back.output(0), {1, 2, 3, 4}, 0, 1e-6));
}

TEST(FftOp, OnePointIsTheIdentity) {
  NDArray x = make(DataType::kFloat64, {3, 1, 2}, {1, -2, 3, 4, -5, 6});
  Context fwd, inv;
  ASSERT_OK(run_op("fft", {.in = {&x}}, fwd));
  EXPECT_EQ(values(*fwd.output(0)), values(x));
  ASSERT_OK(run_op("ifft", {.in = {&x}}, inv));
  EXPECT_EQ(values(*inv.output(0)), values(x));
}

TEST(FftOp, RoundTripsOverSeveralAxesAndLengths) {
  for (int64_t n : {1, 2, 6, 17, 64, 97, 128, 300, 1031}) {
    NDArray x = make(DataType::kFloat64, {2, n, 2}, iota(4 * n, 0.37, -3.0));
    for (int64_t i = 0; i < x.length(); ++i) x.set_double(i, std::sin(x.get_double(i) * 1.3));
    Context fwd, inv;
    ASSERT_OK(run_op("fft", {.in = {&x}, .i = {0, 1}}, fwd));
    ASSERT_OK(run_op("ifft", {.in = {fwd.output(0)}, .i = {1, 0}}, inv));
    EXPECT_TRUE(all_close(*inv.output(0), values(x), 0, 1e-12)) << "n = " << n;
    NDArray real = make(DataType::kFloat32, {3, n}, iota(3 * n, 0.11, -1.0));
    for (int64_t i = 0; i < real.length(); ++i) real.set_double(i, std::cos(real.get_double(i)));
    Context rf, ri;
    ASSERT_OK(run_op("rfft", {.in = {&real}}, rf));
    ASSERT_OK(run_op("irfft", {.in = {rf.output(0)}, .i = {n}}, ri));
    EXPECT_TRUE(all_close(*ri.output(0), values(real), 0, 1e-5)) << "n = " << n;
  }
}

TEST(FftOp, StridedInputAndStridedSuppliedOutput) {
  // x: every other row of a [4, 8, 2] array, read through a view.
  NDArray golden_x = load_golden("signal/fft_last_f64_x.npy"), golden_z = load_golden("signal/fft_last_f64_z.npy");
  NDArray storage, view;
  ASSERT_OK(NDArray::create(DataType::kFloat64, {6, 8, 2}, 'c', storage));
  for (int64_t i = 0; i < storage.length(); ++i) storage.set_double(i, 100.0 + i);
  ASSERT_OK(storage.slice(0, 0, 6, 2, view));
  ASSERT_OK(view.assign(golden_x));
  // z: a [3, 8, 2] output laid out as the transpose of [8, 3, 2] storage.
  NDArray out_storage = make(DataType::kFloat64, {8, 3, 2}, iota(48)), out;
  ASSERT_OK(out_storage.permute({1, 0, 2}, out));
  Context ctx;
  ASSERT_OK(run_op("fft", {.in = {&view}, .out = {&out}}, ctx));
  EXPECT_TRUE(all_close(out, values(golden_z), 1e-12, 1e-12));
  EXPECT_EQ(storage.get_double(2 * 16 - 1), 100.0 + 31);  // the rows between stay as they were
}

TEST(FftOp, EmptyBatchesGiveEmptyOutputs) {
  NDArray x;
  ASSERT_OK(NDArray::create(DataType::kFloat32, {0, 8, 2}, 'c', x));
  Context c1, c2, c3;
  ASSERT_OK(run_op("fft", {.in = {&x}}, c1));
  EXPECT_EQ(c1.output(0)->shape(), (Dims{0, 8, 2}));
  ASSERT_OK(run_op("irfft", {.in = {&x}}, c2));
  EXPECT_EQ(c2.output(0)->shape(), (Dims{0, 14}));
  NDArray r;
  ASSERT_OK(NDArray::create(DataType::kFloat64, {3, 0, 5}, 'c', r));
  ASSERT_OK(run_op("rfft", {.in = {&r}}, c3));
  EXPECT_EQ(c3.output(0)->shape(), (Dims{3, 0, 3, 2}));
}

Status run_error(const char* op, NDArray& x, std::vector<int64_t> i_args) {
  Context ctx;
  return run_op(op, {.in = {&x}, .i = i_args}, ctx);
}

TEST(FftOp, ErrorsNameTheOpTheArrayAndTheAxis) {
  NDArray not_complex = make(DataType::kFloat32, {3, 4}, iota(12));
  Status s = run_error("fft", not_complex, {});
  EXPECT_EQ(s.code(), StatusCode::kShape);
  EXPECT_EQ(s.message(),
            "fft: x[3,4] is not a complex array: it needs a last dim of 2 (real, imaginary) after at least one "
            "signal dim");
  NDArray pair = make(DataType::kFloat32, {2}, {1, 2});
  EXPECT_EQ(run_error("ifft", pair, {}).code(), StatusCode::kShape);

  NDArray x = make(DataType::kFloat64, {3, 4, 2}, iota(24));
  s = run_error("fft", x, {2});
  EXPECT_EQ(s.code(), StatusCode::kInvalidArgument);
  EXPECT_EQ(s.message(), "fft: axis 2 (i arg 0) is out of range for x[3,4,2], which has 2 signal dims");
  EXPECT_EQ(run_error("fft", x, {-3}).message(),
            "fft: axis -3 (i arg 0) is out of range for x[3,4,2], which has 2 signal dims");
  EXPECT_EQ(run_error("ifft", x, {1, -1}).message(), "ifft: axis 1 is given twice");
  EXPECT_EQ(run_error("irfft", x, {-2}).message(),
            "irfft: i arg 0 (length) is -2: it must be >= 0");
  EXPECT_EQ(run_error("irfft", x, {0, 5}).message(),
            "irfft: axis 5 (i arg 1) is out of range for x[3,4,2], which has 2 signal dims");

  NDArray one_bin = make(DataType::kFloat64, {3, 1, 2}, iota(6));
  s = run_error("irfft", one_bin, {});
  EXPECT_EQ(s.code(), StatusCode::kShape);
  EXPECT_EQ(s.message(),
            "irfft: x[3,1,2] has 1 bin along axis 1, which gives an output length of 0; pass the length as i arg 0");
  Context ok;
  ASSERT_OK(run_op("irfft", {.in = {&one_bin}, .i = {1}}, ok));  // length 1: the DC bins' real parts
  EXPECT_EQ(values(*ok.output(0)), (std::vector<double>{0, 2, 4}));

  NDArray empty_axis;
  ASSERT_OK(NDArray::create(DataType::kFloat32, {3, 0, 2}, 'c', empty_axis));
  EXPECT_EQ(run_error("fft", empty_axis, {}).message(),
            "fft: x[3,0,2] has length 0 along axis 1; a transform needs at least one point");
  NDArray scalar = make(DataType::kFloat32, {}, {1});
  EXPECT_EQ(run_error("rfft", scalar, {}).message(), "rfft: x[] is a scalar; it needs at least one signal dim");

  NDArray ints = make(DataType::kInt32, {4, 2}, iota(8));
  EXPECT_EQ(run_error("fft", ints, {}).code(), StatusCode::kDtype);
}

}  // namespace
