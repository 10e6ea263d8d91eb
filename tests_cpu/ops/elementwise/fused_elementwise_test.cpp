// The fused_elementwise op (Note [Fused element-wise programs] in
// libops/ops/elementwise/fused_program.h): programs against the same rows
// run as separate ops (equal values, bit for bit: the same functors in
// float32) and against values worked out here in double; broadcasting,
// strided inputs, one-value inputs, large arrays over the threads, an
// output that is an input, and every kind of malformed program.
#include <cmath>
#include <cstring>
#include <tuple>

#include "libops/legacy/ops/binary_ops.h"
#include "libops/legacy/ops/transform_bool_ops.h"
#include "libops/legacy/ops/transform_same_ops.h"
#include "libops/legacy/ops/transform_strict_ops.h"
#include "libops/loops/streaming_store.h"
#include "libops/ops/elementwise/fused_program.h"
#include "op_test_util.h"

using namespace libops;
using namespace libops::test;
using libops::ops::FusedProgram;
using libops::ops::FusedStep;
using libops::ops::kFusedLiteral;
using libops::ops::kFusedNone;

namespace {

using legacy::BinaryOp;
using legacy::TransformSameOp;
using legacy::TransformStrictOp;

FusedStep unary(TransformStrictOp op, int x) { return FusedStep::unary(OPS_TRANSFORM_STRICT, static_cast<int>(op), x); }
FusedStep binary(BinaryOp op, int x, int y, double literal = 0) {
  return FusedStep::binary(static_cast<int>(op), x, y, literal);
}

OpCall program_call(const FusedProgram& p, std::vector<NDArray*> in, std::vector<NDArray*> out = {}) {
  OpCall c;
  c.in = std::move(in);
  c.out = std::move(out);
  p.encode(c.i, c.t);
  return c;
}

// Equal float32 values: the same number with the same sign, or both NaN.
::testing::AssertionResult same_values(const NDArray& got, const NDArray& want) {
  if (got.shape() != want.shape())
    return ::testing::AssertionFailure() << "shape " << got.shape().str() << ", want " << want.shape().str();
  for (int64_t i = 0; i < want.length(); ++i) {
    const double g = got.get_double(i), w = want.get_double(i);
    const bool same = std::isnan(w) ? std::isnan(g) : g == w && std::signbit(g) == std::signbit(w);
    if (!same) return ::testing::AssertionFailure() << "element " << i << ": " << g << ", want " << w;
  }
  return ::testing::AssertionSuccess();
}

// z = op(x[, y]) by the op of that name, for the step-by-step reference.
NDArray run1(const char* name, std::vector<NDArray*> in, std::vector<double> t = {}) {
  Context ctx;
  Status s = run_op(name, {.in = std::move(in), .t = std::move(t)}, ctx);
  EXPECT_TRUE(s.is_ok()) << name << ": " << s.message();
  return s.is_ok() ? *ctx.output(0) : NDArray();
}

std::vector<double> wave(int64_t n, double scale) {
  std::vector<double> v(static_cast<size_t>(n));
  for (int64_t i = 0; i < n; ++i) v[static_cast<size_t>(i)] = scale * std::sin(0.37 * static_cast<double>(i) + 0.2);
  return v;
}

// HardSwish as exporters write it, x * clip(x + 3, 0, 6) / 6, then SiLU of
// that: h * sigmoid(h). x0 = x, x1 = 6 (a one-value input).
FusedProgram hard_swish_silu() {
  FusedProgram p;
  p.n_inputs = 2;
  p.steps = {binary(BinaryOp::add, 0, kFusedLiteral, 3),  binary(BinaryOp::max, 2, kFusedLiteral, 0),
             binary(BinaryOp::min, 3, kFusedLiteral, 6),  binary(BinaryOp::multiply, 0, 4),
             binary(BinaryOp::divide, 5, 1),              unary(TransformStrictOp::sigmoid, 6),
             binary(BinaryOp::multiply, 6, 7)};
  return p;
}

TEST(FusedElementwise, ComputesAChainAsItsOpsDoAndAsWorkedOutHere) {
  const int64_t n = 3 * 701;  // not a whole number of blocks
  NDArray x = make(DataType::kFloat32, {3, 701}, wave(n, 5.0));
  NDArray six = make(DataType::kFloat32, {}, {6.0});
  Context ctx;
  ASSERT_OK(run_op("fused_elementwise", program_call(hard_swish_silu(), {&x, &six}), ctx));
  const NDArray& z = *ctx.output(0);
  ASSERT_EQ(z.dtype(), DataType::kFloat32);
  ASSERT_EQ(z.shape(), (Dims{3, 701}));
  // Worked out in double.
  for (int64_t i = 0; i < n; ++i) {
    const double v = x.get_double(i);
    const double h = v * std::min(std::max(v + 3, 0.0), 6.0) / 6;
    const double want = h / (1 + std::exp(-h));
    EXPECT_NEAR(z.get_double(i), want, 4e-7 * (1 + std::abs(want))) << i;
  }
  // The ops one by one.
  NDArray a = run1("add", {&x, &six}), three = make(DataType::kFloat32, {}, {3.0});
  a = run1("add", {&x, &three});
  NDArray c = run1("clip", {&a}, {0.0, 6.0});
  NDArray m = run1("multiply", {&x, &c});
  NDArray h = run1("divide", {&m, &six});
  NDArray s = run1("sigmoid", {&h});
  EXPECT_TRUE(same_values(z, run1("multiply", {&h, &s})));
}

// float16 and bfloat16 programs: every step computes in float and is
// rounded to the dtype, as each op stores its result, so the program gives
// the ops' values bit for bit; also through a transposed (strided) input, a
// strided output and a one-value input. Inputs of two dtypes are refused.
TEST(FusedElementwise, SixteenBitProgramsRoundEachStepAsTheOpsDo) {
  for (DataType dt : {DataType::kFloat16, DataType::kBFloat16}) {
    SCOPED_TRACE(dtype_name(dt));
    NDArray x = make(dt, {3, 701}, wave(3 * 701, 5.0));
    NDArray six = make(dt, {}, {6.0}), three = make(dt, {}, {3.0});
    Context ctx;
    ASSERT_OK(run_op("fused_elementwise", program_call(hard_swish_silu(), {&x, &six}), ctx));
    const NDArray& z = *ctx.output(0);
    ASSERT_EQ(z.dtype(), dt);
    NDArray a = run1("add", {&x, &three});
    NDArray c = run1("clip", {&a}, {0.0, 6.0});
    NDArray m = run1("multiply", {&x, &c});
    NDArray h = run1("divide", {&m, &six});
    NDArray sg = run1("sigmoid", {&h});
    const NDArray want = run1("multiply", {&h, &sg});
    EXPECT_TRUE(same_values(z, want));
    // x read through a transposed view, z written through one.
    NDArray x_cols = make(dt, {701, 3}, values(x.transpose())), z_cols = zeros(dt, {701, 3});
    NDArray x_view = x_cols.transpose(), z_view = z_cols.transpose();
    Context strided;
    ASSERT_OK(run_op("fused_elementwise", program_call(hard_swish_silu(), {&x_view, &six}, {&z_view}), strided));
    EXPECT_TRUE(same_values(make(dt, {3, 701}, values(z_view)), want));
  }
  NDArray x16 = make(DataType::kFloat16, {4}, {1, 2, 3, 4}), six32 = make(DataType::kFloat32, {}, {6.0});
  Context mixed;
  EXPECT_EQ(run_op("fused_elementwise", program_call(hard_swish_silu(), {&x16, &six32}), mixed).message(),
            "fused_elementwise: input 1 is float32 and input 0 float16; a fused program's values share one dtype");
  NDArray x64 = make(DataType::kFloat64, {4}, {1, 2, 3, 4}), six64 = make(DataType::kFloat64, {}, {6.0});
  Context wide;
  EXPECT_EQ(run_op("fused_elementwise", program_call(hard_swish_silu(), {&x64, &six64}), wide).code(), StatusCode::kDtype);
}

// Inputs [5, 1] and a transposed [1, 7] view broadcast to [5, 7], with a
// one-value input; the same as the ops.
TEST(FusedElementwise, BroadcastsAndReadsStridedInputs) {
  NDArray a = make(DataType::kFloat32, {5, 1}, wave(5, 2.0));
  NDArray base = make(DataType::kFloat32, {7, 3}, wave(21, 1.5));
  NDArray column, b;
  ASSERT_OK(base.slice(1, 1, 2, 1, column));  // [7, 1], strides [3, 1]
  ASSERT_OK(column.permute({1, 0}, b));        // [1, 7], strides [1, 3]
  NDArray c = make(DataType::kFloat32, {1}, {0.25});
  FusedProgram p;
  p.n_inputs = 3;
  p.steps = {binary(BinaryOp::multiply, 0, 1), binary(BinaryOp::add, 3, 2), unary(TransformStrictOp::tanh, 4)};
  Context ctx;
  ASSERT_OK(run_op("fused_elementwise", program_call(p, {&a, &b, &c}), ctx));
  NDArray ab = run1("multiply", {&a, &b});
  NDArray abc = run1("add", {&ab, &c});
  EXPECT_TRUE(same_values(*ctx.output(0), run1("tanh", {&abc})));

  // A column of a [7, 9] array: stride 9 (gathered into a block).
  NDArray wide = make(DataType::kFloat32, {7, 9}, wave(63, 3.0));
  NDArray col, col_t;
  ASSERT_OK(wide.slice(1, 4, 5, 1, col));  // [7, 1], strides [9, 1]
  ASSERT_OK(col.reshape({7}, col_t));
  ASSERT_EQ(col_t.strides()[0], 9);
  FusedProgram q;
  q.n_inputs = 1;
  q.steps = {unary(TransformStrictOp::exp, 0), binary(BinaryOp::subtract, 1, 0)};
  Context ctx2;
  ASSERT_OK(run_op("fused_elementwise", program_call(q, {&col_t}), ctx2));
  NDArray e = run1("exp", {&col_t});
  EXPECT_TRUE(same_values(*ctx2.output(0), run1("subtract", {&e, &col_t})));
}

// A value computed from one-value inputs only stays one value; z repeats
// it where no input with more elements reaches the last step.
TEST(FusedElementwise, KeepsOneValueInputsOneValue) {
  NDArray x = make(DataType::kFloat32, {4}, {1, 2, 3, 4});
  NDArray s = make(DataType::kFloat32, {1}, {0.5});
  FusedProgram p;
  p.n_inputs = 2;
  p.steps = {unary(TransformStrictOp::exp, 1)};  // reads only x1; z still has x0's shape
  Context ctx;
  ASSERT_OK(run_op("fused_elementwise", program_call(p, {&x, &s}), ctx));
  const float e = std::exp(0.5f);
  EXPECT_TRUE(all_close(*ctx.output(0), {e, e, e, e}, 1e-7));
  p.steps.push_back(binary(BinaryOp::multiply, 2, 0));  // exp(s) * x
  Context ctx2;
  ASSERT_OK(run_op("fused_elementwise", program_call(p, {&x, &s}), ctx2));
  EXPECT_TRUE(all_close(*ctx2.output(0), {e, 2 * e, 3 * e, 4 * e}, 1e-7));
}

// Many blocks over the threads, with NaN and infinities; and z given as x
// itself (the same view: each element is read before it is written).
TEST(FusedElementwise, RunsLargeArraysAndInPlace) {
  const int64_t n = 300001;
  std::vector<double> v = wave(n, 9.0);
  v[7] = NAN;
  v[1000] = INFINITY;
  v[250000] = -INFINITY;
  NDArray x = make(DataType::kFloat32, {n}, v);
  NDArray y = make(DataType::kFloat32, {n}, wave(n, 0.5));
  FusedProgram p;
  p.n_inputs = 2;
  p.steps = {binary(BinaryOp::multiply, 0, 1), unary(TransformStrictOp::tanh, 2), binary(BinaryOp::max, 3, 0)};
  Context ctx;
  ASSERT_OK(run_op("fused_elementwise", program_call(p, {&x, &y}), ctx));
  NDArray xy = run1("multiply", {&x, &y});
  NDArray t = run1("tanh", {&xy});
  NDArray want = run1("maximum", {&t, &x});
  EXPECT_TRUE(same_values(*ctx.output(0), want));

  NDArray inplace;
  ASSERT_OK(x.dup('c', inplace));
  Context ctx2;
  ASSERT_OK(run_op("fused_elementwise", program_call(p, {&inplace, &y}, {&inplace}), ctx2));
  EXPECT_TRUE(same_values(inplace, want));
}

// With every output streamed (Note [Streaming stores]): the node's blocks
// go out as unfenced streaming copies, into an aligned output and into one
// starting 1 element past a line (unaligned heads, then aligned tiles), and
// give the values of the unstreamed node.
TEST(FusedElementwise, GivesTheSameValuesStreamed) {
  const int64_t n = 100003;  // many blocks, a partial last one, and 2 threads' parts
  NDArray x = make(DataType::kFloat32, {n}, wave(n, 3.0));
  FusedProgram p;
  p.n_inputs = 1;
  p.steps = {FusedStep::binary(static_cast<int>(BinaryOp::multiply), 0, kFusedLiteral, 2),
             FusedStep::binary(static_cast<int>(BinaryOp::add), 1, kFusedLiteral, 1),
             unary(TransformStrictOp::tanh, 2), binary(BinaryOp::multiply, 3, 0)};
  Context plain;
  ASSERT_OK(run_op("fused_elementwise", program_call(p, {&x}), plain));
  set_streaming_store_threshold(1);
  Context streamed;
  const Status s1 = run_op("fused_elementwise", program_call(p, {&x}), streamed);
  NDArray wide, shifted;
  Status s2 = NDArray::zeros(DataType::kFloat32, {n + 1}, 'c', wide);
  if (s2.is_ok()) s2 = wide.slice(0, 1, n + 1, 1, shifted);
  Context into_shifted;
  if (s2.is_ok()) s2 = run_op("fused_elementwise", program_call(p, {&x}, {&shifted}), into_shifted);
  set_streaming_store_threshold(0);
  ASSERT_OK(s1);
  ASSERT_OK(s2);
  EXPECT_TRUE(same_values(*streamed.output(0), *plain.output(0)));
  EXPECT_TRUE(same_values(shifted, *plain.output(0)));
  EXPECT_EQ(wide.data_as<float>()[0], 0.f);  // the element before the view is untouched
}

TEST(FusedElementwise, GivesEmptyOutputsForEmptyInputs) {
  NDArray x = make(DataType::kFloat32, {0, 3}, {});
  FusedProgram p;
  p.n_inputs = 1;
  p.steps = {unary(TransformStrictOp::exp, 0)};
  Context ctx;
  ASSERT_OK(run_op("fused_elementwise", program_call(p, {&x}), ctx));
  EXPECT_EQ(ctx.output(0)->shape(), (Dims{0, 3}));
}

// Malformed programs and inputs: an error that says what is wrong.
TEST(FusedElementwise, RefusesMalformedPrograms) {
  NDArray x = make(DataType::kFloat32, {3}, {1, 2, 3});
  auto fails = [&](OpCall call, const char* says) {
    Context ctx;
    Status s = run_op("fused_elementwise", call, ctx);
    EXPECT_FALSE(s.is_ok()) << says;
    EXPECT_NE(s.message().find(says), std::string::npos) << s.message();
  };
  FusedProgram p;
  p.n_inputs = 1;
  p.steps = {binary(BinaryOp::add, 0, 5)};  // value 5 is not defined
  fails(program_call(p, {&x}), "reads value 5 as y, but only values 0 to 0 are defined");
  p.steps = {binary(BinaryOp::add, 1, 0)};  // its own result
  fails(program_call(p, {&x}), "reads value 1 as x");
  FusedStep is_nan;
  is_nan.group = OPS_TRANSFORM_BOOL;  // a bool result: no float32 block kernel
  is_nan.num = static_cast<int>(legacy::TransformBoolOp::is_nan);
  p.steps = {is_nan};
  fails(program_call(p, {&x}), "has no float32 unary kernel");
  FusedStep bits = binary(BinaryOp::add, 0, 0);
  bits.group = OPS_PAIRWISE_INT;
  p.steps = {bits};
  fails(program_call(p, {&x}), "has no float32 binary kernel");
  p.steps = {};
  fails(program_call(p, {&x}), "the number of steps, 1 to 32");
  OpCall call = program_call(hard_swish_silu(), {&x, &x});
  call.i.pop_back();
  fails(call, "7 steps take 36 i args");
  call = program_call(hard_swish_silu(), {&x, &x});
  call.t.pop_back();
  fails(call, "needs t args");
  call = program_call(hard_swish_silu(), {&x, &x});
  call.t.push_back(1.0);
  fails(call, "the steps take 7 t args; got 8");
  std::vector<NDArray*> nine(9, &x);
  FusedProgram wide;
  wide.n_inputs = 9;
  wide.steps = {binary(BinaryOp::add, 0, 8)};
  fails(program_call(wide, nine), "1 to 8 inputs, not 9");
  NDArray d = make(DataType::kFloat64, {3}, {1, 2, 3});
  p.steps = {unary(TransformStrictOp::exp, 0)};
  fails(program_call(p, {&d}), "float64");
  NDArray four = make(DataType::kFloat32, {4}, {1, 2, 3, 4});
  p.n_inputs = 2;
  p.steps = {binary(BinaryOp::add, 0, 1)};
  fails(program_call(p, {&x, &four}), "broadcast");
}

TEST(FusedElementwise, PrintsItsProgram) {
  FusedProgram p = hard_swish_silu();
  EXPECT_EQ(p.str(),
            "t0 = add(x0, 3); t1 = max(t0, 0); t2 = min(t1, 6); t3 = multiply(x0, t2); t4 = divide(t3, x1); "
            "t5 = sigmoid(t4); t6 = multiply(t4, t5)");
}

// ---- epilogue programs (Note [Epilogue programs] in fused_program.h)

// tanh(2 z + 1) z, a program of z alone (literals).
FusedProgram tanh_chain_of_z() {
  FusedProgram p;
  p.n_inputs = 1;
  p.steps = {binary(BinaryOp::multiply, 0, kFusedLiteral, 2), binary(BinaryOp::add, 1, kFusedLiteral, 1),
             unary(TransformStrictOp::tanh, 2), binary(BinaryOp::multiply, 3, 0)};
  return p;
}

// `call` with the epilogue program p appended to its i and t args.
OpCall with_epilogue(OpCall call, const FusedProgram& p) {
  std::vector<int64_t> i;
  std::vector<double> t;
  p.encode(i, t);
  call.i.insert(call.i.end(), i.begin(), i.end());
  call.t.insert(call.t.end(), t.begin(), t.end());
  return call;
}

// conv2d (NCHW and NHWC, with bias and relu), depthwise_conv2d and matmul
// (with bias and relu, and a single row: the GEMV's own epilogue) given an
// epilogue program give the op's output run through fused_elementwise,
// bit for bit, in float32, float16 and bfloat16.
TEST(EpilogueProgram, ConvolutionsAndMatmulsRunItAsTheFusedOpWould) {
  const FusedProgram p = tanh_chain_of_z();
  for (DataType dt : {DataType::kFloat32, DataType::kFloat16, DataType::kBFloat16}) {
    SCOPED_TRACE(dtype_name(dt));
    NDArray x = make(dt, {2, 3, 9, 9}, wave(486, 1.5));
    NDArray xh = make(dt, {2, 9, 9, 3}, wave(486, 1.5));
    NDArray w = make(dt, {4, 3, 3, 3}, wave(108, 0.4));
    NDArray dw = make(dt, {3, 3, 3, 1}, wave(27, 0.6));
    NDArray bias = make(dt, {4}, {0.1, -0.2, 0.3, 0.0});
    NDArray a = make(dt, {5, 7}, wave(35, 1.0)), row = make(dt, {1, 7}, wave(7, 1.0));
    NDArray b = make(dt, {7, 6}, wave(42, 0.7)), mb = make(dt, {6}, wave(6, 0.5));
    struct Case {
      const char* op;
      OpCall call;
    };
    const std::vector<int64_t> conv_nchw = {3, 3, 2, 1, 1, 1, 1, 1, 0, 0, 1, 1, 1, 0};  // bias, relu
    const std::vector<int64_t> conv_nhwc = {3, 3, 1, 1, 0, 0, 1, 1, 1, 1, 1, 1, 0, 0};  // same mode
    const std::vector<Case> cases = {
        {"conv2d", {.in = {&x, &w, &bias}, .i = conv_nchw}},
        {"conv2d", {.in = {&xh, &w}, .i = conv_nhwc}},
        {"depthwise_conv2d", {.in = {&x, &dw}, .i = {3, 3, 1, 1, 1, 1, 1, 1, 0, 0, 0}}},
        {"matmul", {.in = {&a, &b, &mb}, .i = {0, 0, 0, 1}}},
        {"matmul", {.in = {&row, &b, &mb}, .i = {0, 0, 0, 1}}},
    };
    for (const Case& c : cases) {
      SCOPED_TRACE(c.op);
      Context plain, applied, fused;
      ASSERT_OK(run_op(c.op, c.call, plain));
      NDArray product = *plain.output(0);
      ASSERT_OK(run_op("fused_elementwise", program_call(p, {&product}), applied));
      ASSERT_OK(run_op(c.op, with_epilogue(c.call, p), fused));
      EXPECT_TRUE(same_values(*fused.output(0), *applied.output(0)));
      EXPECT_FALSE(same_values(*fused.output(0), product)) << "the epilogue must have run";
    }
  }
}

TEST(EpilogueProgram, RefusesWhatItCannotRun) {
  NDArray x = make(DataType::kFloat64, {1, 2, 5, 5}, wave(50, 1.0));
  NDArray w = make(DataType::kFloat64, {3, 2, 3, 3}, wave(54, 0.3));
  const std::vector<int64_t> conv = {3, 3, 1, 1, 1, 1, 1, 1, 0, 0, 1, 1, 0, 0};
  auto fails = [](const char* op, const OpCall& call, const char* says) {
    Context ctx;
    Status s = run_op(op, call, ctx);
    EXPECT_FALSE(s.is_ok()) << says;
    EXPECT_EQ(s.message(), says);
  };
  fails("conv2d", with_epilogue({.in = {&x, &w}, .i = conv}, tanh_chain_of_z()),
        "conv2d: an epilogue program runs on float32, float16 and bfloat16 outputs; z is float64");
  NDArray xf = make(DataType::kFloat32, {1, 2, 5, 5}, wave(50, 1.0));
  NDArray wf = make(DataType::kFloat32, {3, 2, 3, 3}, wave(54, 0.3));
  FusedProgram two;  // reads a second input, which an epilogue does not have
  two.n_inputs = 1;
  two.steps = {binary(BinaryOp::add, 0, 1)};
  fails("conv2d", with_epilogue({.in = {&xf, &wf}, .i = conv}, two),
        "conv2d: epilogue program: step 0 reads value 1 as y, but only values 0 to 0 are defined before it (y may "
        "also be -1, none, or -2, the literal)");
  fails("conv2d", {.in = {&xf, &wf}, .t = {1.0}, .i = conv},
        "conv2d: epilogue_values (t args 0..) are given without an epilogue program (i args 14..)");
  NDArray a = make(DataType::kFloat32, {2, 3}, wave(6, 1.0)), b = make(DataType::kFloat32, {3, 2}, wave(6, 1.0));
  OpCall short_program = with_epilogue({.in = {&a, &b}, .i = {0, 0, 0, 0}}, tanh_chain_of_z());
  short_program.t.pop_back();
  fails("matmul", short_program, "matmul: epilogue program: step 3 needs t args 3 to 3 (its literal and 0 extra "
                                 "params); there are 3");
}

// ---- fused_reduce: a reduction of a program's values in one pass

// The reduction `kind` (0 sum, 1 mean, 2 max, 3 min) of program p over
// `axes`, through fused_reduce.
Status fused_reduction(const FusedProgram& p, std::vector<NDArray*> in, int kind, bool keep,
                       const std::vector<int64_t>& axes, Context& ctx) {
  OpCall call = program_call(p, std::move(in));
  call.i.push_back(kind);
  call.i.push_back(keep ? 1 : 0);
  call.i.insert(call.i.end(), axes.begin(), axes.end());
  return run_op("fused_reduce", call, ctx);
}

// The same as the element-wise program's output reduced by the reduce op.
NDArray reduced_by_ops(const FusedProgram& p, std::vector<NDArray*> in, int kind, bool keep,
                       const std::vector<int64_t>& axes) {
  Context values;
  EXPECT_TRUE(run_op("fused_elementwise", program_call(p, std::move(in)), values).is_ok());
  static const char* const kOps[] = {"reduce_sum", "reduce_mean", "reduce_max", "reduce_min"};
  Context reduced;
  Status s = run_op(kOps[kind], {.in = {values.output(0)}, .i = axes, .b = {keep}}, reduced);
  EXPECT_TRUE(s.is_ok()) << s.message();
  return s.is_ok() ? *reduced.output(0) : NDArray();
}

// Every kind over every axis set of [3, 5, 70], kept and dropped, with a
// broadcast input: sums and means within rounding of the ops' (the fused
// sum adds in double), max and min equal.
TEST(FusedReduce, ReducesAProgramAsItsOpsDo) {
  NDArray x = make(DataType::kFloat32, {3, 5, 70}, wave(1050, 3.0));
  NDArray w = make(DataType::kFloat32, {5, 1}, wave(5, 1.0));
  FusedProgram p;  // (x - w)^2 * tanh(x)
  p.n_inputs = 2;
  p.steps = {binary(BinaryOp::subtract, 0, 1), binary(BinaryOp::multiply, 2, 2), unary(TransformStrictOp::tanh, 0),
             binary(BinaryOp::multiply, 3, 4)};
  const std::vector<std::vector<int64_t>> axis_sets = {{}, {0}, {1}, {2}, {0, 2}, {1, 2}, {-1}, {0, 1, 2}};
  for (int kind = 0; kind < 4; ++kind)
    for (const auto& axes : axis_sets)
      for (bool keep : {false, true}) {
        SCOPED_TRACE("kind " + std::to_string(kind) + " axes " + std::to_string(axes.size()) + " keep " +
                     std::to_string(keep));
        Context ctx;
        ASSERT_OK(fused_reduction(p, {&x, &w}, kind, keep, axes, ctx));
        const NDArray want = reduced_by_ops(p, {&x, &w}, kind, keep, axes);
        if (kind >= 2) EXPECT_TRUE(same_values(*ctx.output(0), want));
        else EXPECT_TRUE(all_close(*ctx.output(0), values(want), 2e-6, 1e-5));
      }
}

// float16 and bfloat16: the program rounds each step to the dtype as the
// ops store their values, so max and min equal the ops' and sums and means
// come within one rounding of the dtype (the fused sum adds in double, the
// ops' in float); the output has the inputs' dtype. Inputs of two dtypes
// are refused.
TEST(FusedReduce, SixteenBitProgramsReduceAsTheirOpsDo) {
  FusedProgram p;  // (x - w)^2 * tanh(x)
  p.n_inputs = 2;
  p.steps = {binary(BinaryOp::subtract, 0, 1), binary(BinaryOp::multiply, 2, 2), unary(TransformStrictOp::tanh, 0),
             binary(BinaryOp::multiply, 3, 4)};
  for (DataType dt : {DataType::kFloat16, DataType::kBFloat16}) {
    SCOPED_TRACE(dtype_name(dt));
    NDArray x = make(dt, {3, 5, 70}, wave(1050, 3.0));
    NDArray w = make(dt, {5, 1}, wave(5, 1.0));
    const double ulp = dt == DataType::kFloat16 ? 1.0 / 1024 : 1.0 / 128;
    for (int kind = 0; kind < 4; ++kind)
      for (const std::vector<int64_t>& axes : {std::vector<int64_t>{2}, {0, 2}, {}}) {
        SCOPED_TRACE("kind " + std::to_string(kind) + " axes " + std::to_string(axes.size()));
        Context ctx;
        ASSERT_OK(fused_reduction(p, {&x, &w}, kind, false, axes, ctx));
        const NDArray want = reduced_by_ops(p, {&x, &w}, kind, false, axes);
        EXPECT_EQ(ctx.output(0)->dtype(), dt);
        if (kind >= 2) EXPECT_TRUE(same_values(*ctx.output(0), want));
        else EXPECT_TRUE(all_close(*ctx.output(0), values(want), ulp, ulp));
      }
    // Against double sums of the rounded values: row sums of x * x.
    FusedProgram square;
    square.n_inputs = 1;
    square.steps = {binary(BinaryOp::multiply, 0, 0)};
    Context rows;
    ASSERT_OK(fused_reduction(square, {&x}, 0, false, {2}, rows));
    for (int64_t r = 0; r < 15; ++r) {
      double want = 0;
      for (int64_t c = 0; c < 70; ++c) {
        NDArray one = make(dt, {}, {x.get_double(r * 70 + c) * x.get_double(r * 70 + c)});  // the step's rounding
        want += one.get_double(0);
      }
      EXPECT_NEAR(rows.output(0)->get_double(r), want, ulp * std::abs(want)) << r;
    }
  }
  NDArray x32 = make(DataType::kFloat32, {5, 1}, wave(5, 1.0)), x16 = make(DataType::kFloat16, {5, 1}, wave(5, 1.0));
  Context mixed;
  const Status s = fused_reduction(p, {&x16, &x32}, 0, false, {}, mixed);
  EXPECT_EQ(s.code(), StatusCode::kDtype) << s.message();
}

// Sums worked out in double here; NaN kept by max and min; empty axes;
// many outputs over the threads; one-value inputs.
TEST(FusedReduce, SumsNansEmptiesAndThreads) {
  const int64_t rows = 3000, cols = 333;
  NDArray x = make(DataType::kFloat32, {rows, cols}, wave(rows * cols, 2.0));
  NDArray half = make(DataType::kFloat32, {}, {0.5});
  FusedProgram p;  // x * 0.5 + x * x
  p.n_inputs = 2;
  p.steps = {binary(BinaryOp::multiply, 0, 1), binary(BinaryOp::multiply, 0, 0), binary(BinaryOp::add, 2, 3)};
  Context rows_ctx;
  ASSERT_OK(fused_reduction(p, {&x, &half}, 0, false, {1}, rows_ctx));
  const NDArray& z = *rows_ctx.output(0);
  ASSERT_EQ(z.shape(), (Dims{rows}));
  for (int64_t r = 0; r < rows; r += 97) {
    double want = 0;
    for (int64_t c = 0; c < cols; ++c) {
      const float v = static_cast<float>(x.get_double(r * cols + c));
      want += static_cast<double>(v * 0.5f + v * v);
    }
    EXPECT_NEAR(z.get_double(r), want, 1e-6 * std::abs(want) + 1e-5) << r;
  }
  // Everything: one output.
  Context all;
  ASSERT_OK(fused_reduction(p, {&x, &half}, 1, true, {}, all));
  EXPECT_EQ(all.output(0)->shape(), (Dims{1, 1}));

  std::vector<double> with_nan = wave(40, 1.0);
  with_nan[13] = std::nan("");
  NDArray n = make(DataType::kFloat32, {4, 10}, with_nan);
  FusedProgram id;
  id.n_inputs = 1;
  id.steps = {unary(TransformStrictOp::exp, 0)};
  for (int kind : {2, 3}) {
    Context c;
    ASSERT_OK(fused_reduction(id, {&n}, kind, false, {1}, c));
    EXPECT_TRUE(std::isnan(c.output(0)->get_double(1)));
    EXPECT_FALSE(std::isnan(c.output(0)->get_double(0)));
  }

  NDArray empty = make(DataType::kFloat32, {3, 0}, {});
  Context sum, mean, max;
  ASSERT_OK(fused_reduction(id, {&empty}, 0, false, {1}, sum));
  EXPECT_TRUE(all_close(*sum.output(0), {0, 0, 0}));
  ASSERT_OK(fused_reduction(id, {&empty}, 1, false, {1}, mean));
  EXPECT_TRUE(std::isnan(mean.output(0)->get_double(0)));
  Status s = fused_reduction(id, {&empty}, 2, false, {1}, max);
  EXPECT_NE(s.message().find("the maximum of no elements"), std::string::npos) << s.message();

  // A one-value input reduced over a broadcast shape: exp(0.5) * 4 per row.
  NDArray wide = make(DataType::kFloat32, {2, 4}, {0, 0, 0, 0, 0, 0, 0, 0});
  FusedProgram from_scalar;
  from_scalar.n_inputs = 2;
  from_scalar.steps = {unary(TransformStrictOp::exp, 1)};
  Context sc;
  ASSERT_OK(fused_reduction(from_scalar, {&wide, &half}, 0, false, {1}, sc));
  EXPECT_TRUE(all_close(*sc.output(0), {4 * std::exp(0.5f), 4 * std::exp(0.5f)}, 1e-6));
}

// Note [Split reductions]: few outputs of many values are cut into pieces
// the threads share. A mean of all 600K values and the sums, maxima and
// minima of 3 rows of 200K (a NaN in row 1): sums and means against double
// sums worked out here, and every kind the same bits at 1 and at 2 threads.
TEST(FusedReduce, SplitsFewLongOutputsTheSameAtAnyThreadCount) {
  const int64_t rows = 3, cols = 200000;
  std::vector<double> v = wave(rows * cols, 2.0);
  v[static_cast<size_t>(cols + 77777)] = std::nan("");
  NDArray x = make(DataType::kFloat32, {rows, cols}, v);
  FusedProgram p;  // x * x
  p.n_inputs = 1;
  p.steps = {binary(BinaryOp::multiply, 0, 0)};
  double row0 = 0, row2 = 0;
  for (int64_t c = 0; c < cols; ++c) {
    const float a = static_cast<float>(v[static_cast<size_t>(c)]);
    const float b = static_cast<float>(v[static_cast<size_t>(2 * cols + c)]);
    row0 += static_cast<double>(a * a);
    row2 += static_cast<double>(b * b);
  }
  const int saved = get_num_threads();
  std::vector<std::vector<double>> by_threads;
  for (int threads : {1, 2}) {
    set_num_threads(threads);
    std::vector<double> got;
    for (int kind = 0; kind < 4; ++kind) {
      Context c;
      ASSERT_OK(fused_reduction(p, {&x}, kind, false, {1}, c));
      for (int64_t r = 0; r < rows; ++r) got.push_back(c.output(0)->get_double(r));
    }
    Context all;
    ASSERT_OK(fused_reduction(p, {&x}, 1, false, {}, all));
    got.push_back(all.output(0)->get_double(0));
    by_threads.push_back(got);
  }
  set_num_threads(saved);
  const std::vector<double>& got = by_threads[0];
  EXPECT_NEAR(got[0], row0, 1e-6 * row0);
  EXPECT_TRUE(std::isnan(got[1])) << "row 1 holds the NaN";
  EXPECT_NEAR(got[2], row2, 1e-6 * row2);
  EXPECT_NEAR(got[3], row0 / cols, 1e-6 * row0 / cols);
  for (int kind : {2, 3}) EXPECT_TRUE(std::isnan(got[static_cast<size_t>(kind * rows + 1)])) << kind;
  EXPECT_TRUE(std::isnan(got.back())) << "the mean of everything holds the NaN";
  ASSERT_EQ(by_threads[0].size(), by_threads[1].size());
  for (size_t k = 0; k < got.size(); ++k) {
    if (std::isnan(by_threads[0][k])) {
      EXPECT_TRUE(std::isnan(by_threads[1][k])) << k;
    } else {
      EXPECT_EQ(by_threads[0][k], by_threads[1][k]) << k;
    }
  }
}

TEST(FusedReduce, RefusesMalformedReductions) {
  NDArray x = make(DataType::kFloat32, {3}, {1, 2, 3});
  FusedProgram p;
  p.n_inputs = 1;
  p.steps = {unary(TransformStrictOp::exp, 0)};
  for (const auto& [kind, keep, says] :
       {std::tuple<int, int, const char*>{4, 0, "0 sum, 1 mean, 2 max or 3 min"}, {0, 2, "keep_dims"}}) {
    OpCall call = program_call(p, {&x});
    call.i.push_back(kind);
    call.i.push_back(keep);
    Context ctx;
    Status s = run_op("fused_reduce", call, ctx);
    EXPECT_NE(s.message().find(says), std::string::npos) << s.message();
  }
  OpCall short_call = program_call(p, {&x});
  Context ctx;
  Status s = run_op("fused_reduce", short_call, ctx);
  EXPECT_NE(s.message().find("the reduction and keep_dims"), std::string::npos) << s.message();
  Context axis;
  s = fused_reduction(p, {&x}, 0, false, {3}, axis);
  EXPECT_FALSE(s.is_ok());
}

}  // namespace
