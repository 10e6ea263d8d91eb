// The activation and normalization ops of ops/nn (activations.cpp, gelu,
// prelu, log_softmax, layer_norm, rms_norm, group_norm, instance_norm,
// l2_normalize, lrn) beyond the numpy goldens that golden_ops_test.cpp runs
// from tests_cpu/golden/nn_act (tools/gen_goldens_nn_act.py): the bfloat16
// cases, values worked out by hand, in-place runs, aliases and the errors
// of bad calls.
#include <cmath>
#include <map>
#include <set>
#include <string>
#include <utility>

#include "golden_manifest.h"
#include "libops/loops/streaming_store.h"
#include "libops/ops/elementwise/elementwise.h"
#include "op_test_util.h"

using namespace libops;
using namespace libops::test;

namespace {

// `a` converted to `dt` (a new dense array).
NDArray converted(const NDArray& a, DataType dt) {
  NDArray out;
  EXPECT_OK(NDArray::create(dt, a.shape(), 'c', out));
  EXPECT_OK(out.assign(a));
  return out;
}

std::vector<ManifestCase> bf16_cases() {
  std::vector<ManifestCase> v;
  for (ManifestCase& c : load_manifest("nn_act"))
    if (c.name.size() > 5 && c.name.compare(c.name.size() - 5, 5, "_bf16") == 0) v.push_back(c);
  return v;
}

class NnActBFloat16 : public ::testing::TestWithParam<ManifestCase> {};

// The *_bf16 cases hold float32 inputs that bfloat16 represents exactly:
// converted, they must give the float64 reference within bfloat16's
// rounding of the result (the manifest's tolerance).
TEST_P(NnActBFloat16, MatchesTheReference) {
  const ManifestCase& c = GetParam();
  std::vector<NDArray> in = c.load_inputs();
  std::vector<NDArray*> ptrs;
  for (NDArray& a : in) {
    a = converted(a, DataType::kBFloat16);
    ptrs.push_back(&a);
  }
  Context ctx;
  ASSERT_OK(run_op(c.op.c_str(), c.call(ptrs), ctx));
  EXPECT_EQ(ctx.output(0)->dtype(), DataType::kBFloat16);
  EXPECT_TRUE(same_array(converted(*ctx.output(0), DataType::kFloat32), c.load_output(0), c.rtol, c.atol));
}

INSTANTIATE_TEST_SUITE_P(Cases, NnActBFloat16, ::testing::ValuesIn(bf16_cases()),
                         [](const ::testing::TestParamInfo<ManifestCase>& info) {
                           return info.param.op + "_" + info.param.name;
                         });

TEST(NnAct, EveryOpHasGoldenCasesInEveryDtype) {
  std::map<std::string, std::set<std::string>> tags;
  for (const ManifestCase& c : load_manifest("nn_act")) tags[c.op].insert(c.name.substr(c.name.rfind('_') + 1));
  int n = 0;
  const ops::ElementwiseDef* defs = ops::activation_elementwise_defs(n);
  std::vector<std::string> ops = {"gelu", "prelu", "log_softmax", "layer_norm", "rms_norm", "group_norm",
                                  "instance_norm", "l2_normalize", "lrn"};
  for (int k = 0; k < n; ++k) ops.push_back(defs[k].name);
  for (const std::string& op : ops) {
    for (const char* tag : {"f16", "bf16", "f32", "f64"})
      EXPECT_TRUE(tags[op].count(tag)) << op << " has no " << tag << " case";
    const DeclarableOp* found = OpRegistry::instance().find(op.c_str());
    ASSERT_NE(found, nullptr) << op;
    EXPECT_TRUE(found->descriptor().any_device) << op;
  }
}

TEST(NnAct, AliasesFindTheOps) {
  const std::map<std::string, std::string> aliases = {
      {"leakyrelu", "leaky_relu"},     {"thresholdedrelu", "thresholded_relu"},
      {"hardsigmoid", "hard_sigmoid"}, {"hardswish", "hard_swish"},
      {"logsoftmax", "log_softmax"},   {"layernormalization", "layer_norm"},
      {"rmsnormalization", "rms_norm"}, {"groupnormalization", "group_norm"},
      {"instancenormalization", "instance_norm"}, {"l2normalize", "l2_normalize"},
      {"swish", "silu"},               {"logsigmoid", "log_sigmoid"},
  };
  for (const auto& [alias, name] : aliases) {
    const DeclarableOp* op = OpRegistry::instance().find(alias.c_str());
    ASSERT_NE(op, nullptr) << alias;
    EXPECT_EQ(op->name(), name) << alias;
  }
}

TEST(NnAct, HandValues) {
  NDArray x = make(DataType::kFloat64, {3, 4}, {1, 2, 3, 4, -1, 1, -1, 1, 5, 5, 5, 5});
  Context ln;
  ASSERT_OK(run_op("layer_norm", {.in = {&x}, .t = {0.0}}, ln));
  // Row 0: mean 2.5, var 1.25; row 1: mean 0, var 1; row 2 is constant:
  // 0 / 0 without epsilon, as numpy gives.
  const double s = 1 / std::sqrt(1.25);
  std::vector<double> got = values(*ln.output(0));
  EXPECT_TRUE(all_close(std::vector<double>(got.begin(), got.begin() + 8),
                        {-1.5 * s, -0.5 * s, 0.5 * s, 1.5 * s, -1, 1, -1, 1}, 1e-14, 1e-15));
  for (int k = 8; k < 12; ++k) EXPECT_TRUE(std::isnan(got[k])) << k;
  Context ln_eps;
  ASSERT_OK(run_op("layer_norm", {.in = {&x}}, ln_eps));  // epsilon 1e-5: the constant row is 0
  for (int k = 8; k < 12; ++k) EXPECT_EQ(values(*ln_eps.output(0))[k], 0.0) << k;
  Context rms;
  ASSERT_OK(run_op("rms_norm", {.in = {&x}, .t = {0.0}}, rms));  // rms: sqrt(7.5), 1, 5
  const double r = 1 / std::sqrt(7.5);
  EXPECT_TRUE(all_close(*rms.output(0), {r, 2 * r, 3 * r, 4 * r, -1, 1, -1, 1, 1, 1, 1, 1}, 1e-14, 1e-15));
  Context l2;
  NDArray v = make(DataType::kFloat32, {2}, {3, 4});
  ASSERT_OK(run_op("l2_normalize", {.in = {&v}}, l2));
  EXPECT_TRUE(all_close(*l2.output(0), {0.6, 0.8}, 1e-6, 0));
  NDArray h = make(DataType::kFloat32, {5}, {-4, -1.5, 0, 1.5, 4});
  Context hs, hsig, lr, th;
  ASSERT_OK(run_op("hard_swish", {.in = {&h}}, hs));
  EXPECT_TRUE(all_close(*hs.output(0), {0, -1.5 * 0.25, 0, 1.5 * 0.75, 4}, 1e-6, 0));
  ASSERT_OK(run_op("hard_sigmoid", {.in = {&h}}, hsig));
  EXPECT_TRUE(all_close(*hsig.output(0), {0, 0.2, 0.5, 0.8, 1}, 1e-6, 0));
  ASSERT_OK(run_op("leaky_relu", {.in = {&h}, .t = {0.5}}, lr));
  EXPECT_TRUE(all_close(*lr.output(0), {-2, -0.75, 0, 1.5, 4}, 1e-6, 0));
  ASSERT_OK(run_op("thresholded_relu", {.in = {&h}}, th));  // alpha 1
  EXPECT_TRUE(all_close(*th.output(0), {0, 0, 0, 1.5, 4}, 1e-6, 0));
  // NaN stays NaN in the relu family (Note [Binary NaN policy]).
  NDArray nan = make(DataType::kFloat32, {2}, {NAN, -1});
  Context th_nan;
  ASSERT_OK(run_op("thresholded_relu", {.in = {&nan}}, th_nan));
  EXPECT_TRUE(std::isnan(values(*th_nan.output(0))[0]));
}

// Note [Row statistics]: float rows are summed in float lanes, shifted by
// the row's first value, so a large offset common to the row (1e4 here,
// whose float spacing is 1e-3 against a spread of 1) does not cost the
// mean its accuracy. Against the statistics in double of the same float
// values; rows long enough for every lane, and rows of 64 (the lanes' sum
// without a tail, many short rows across threads), each also with a
// streamed output (Note [Streaming stores]: one fence per thread's part).
TEST(NnAct, LayerNormOfOffsetRowsMatchesDoubleStatistics) {
  for (auto [rows, n] : {std::pair<int64_t, int64_t>{3, 1000}, {3000, 64}}) {
    std::vector<double> xv(static_cast<size_t>(rows * n));
    for (int64_t i = 0; i < rows * n; ++i)
      xv[static_cast<size_t>(i)] = (i / n % 2 == 1 ? -1e4 : 1e4) + std::sin(0.37 * static_cast<double>(i));
    NDArray x = make(DataType::kFloat32, {rows, n}, xv);
    const std::vector<double> held = values(x);  // the float values
    std::vector<double> want(held.size());
    for (int64_t r = 0; r < rows; ++r) {
      double mean = 0, var = 0;
      for (int64_t i = 0; i < n; ++i) mean += held[static_cast<size_t>(r * n + i)];
      mean /= static_cast<double>(n);
      for (int64_t i = 0; i < n; ++i) {
        const double d = held[static_cast<size_t>(r * n + i)] - mean;
        var += d * d;
      }
      var /= static_cast<double>(n);
      for (int64_t i = 0; i < n; ++i)
        want[static_cast<size_t>(r * n + i)] = (held[static_cast<size_t>(r * n + i)] - mean) / std::sqrt(var + 1e-5);
    }
    for (int64_t threshold : {0, 1}) {
      set_streaming_store_threshold(threshold);  // 1: stream every output; 0: the default
      Context ctx;
      ASSERT_OK(run_op("layer_norm", {.in = {&x}, .i = {-1}}, ctx));
      EXPECT_TRUE(all_close(*ctx.output(0), want, 1e-5, 1e-5)) << "rows of " << n << ", threshold " << threshold;
    }
    set_streaming_store_threshold(0);
  }
}

TEST(NnAct, InPlaceRunsGiveTheSameValues) {
  for (const char* op : {"layer_norm", "log_softmax", "gelu", "selu", "lrn", "l2_normalize", "group_norm"}) {
    SCOPED_TRACE(op);
    std::vector<int64_t> i;
    if (std::string(op) == "lrn") i = {3};
    if (std::string(op) == "group_norm") i = {2};
    NDArray x = make(DataType::kFloat32, {2, 4, 3}, iota(24, 0.37, -4));
    NDArray y = make(DataType::kFloat32, {2, 4, 3}, iota(24, 0.37, -4));
    Context a, b;
    ASSERT_OK(run_op(op, {.in = {&x}, .i = i}, a));
    ASSERT_OK(run_op(op, {.in = {&y}, .i = i, .inplace = true}, b));
    EXPECT_TRUE(all_close(y, values(*a.output(0)), 1e-6, 1e-7));
  }
}

// Dense float16 and bfloat16 gelu on the CPU widens blocks to float32 and
// runs the vectorized float32 loop; a transposed view of the same values
// takes the legacy functor element by element. Both forms, over values
// from -12 to 12 with NaN, infinities and signed zeros, in two blocks and a
// part (the block is 2,048 values): the same values, within one rounding
// of the dtype where the two float32 computations round differently.
TEST(NnAct, SixteenBitGeluDenseMatchesTheFunctor) {
  const int64_t rows = 5, cols = 1000;  // 5,000 values
  std::vector<double> v = iota(rows * cols, 24.0 / (rows * cols), -12);
  v[1] = NAN, v[2] = INFINITY, v[3] = -INFINITY, v[4] = 0.0, v[5] = -0.0;
  for (DataType dt : {DataType::kFloat16, DataType::kBFloat16})
    for (int64_t form : {0, 1}) {
      SCOPED_TRACE(std::string(dtype_name(dt)) + (form ? " tanh" : " erf"));
      NDArray x = make(dt, {rows, cols}, v);
      NDArray xt_dense = make(dt, {cols, rows}, values(x.transpose()));
      NDArray xt = xt_dense.transpose();  // x's values through strides
      Context dense, strided;
      ASSERT_OK(run_op("gelu", {.in = {&x}, .i = {form}}, dense));
      ASSERT_OK(run_op("gelu", {.in = {&xt}, .i = {form}}, strided));
      const double tol = dt == DataType::kFloat16 ? 1e-3 : 8e-3;
      EXPECT_TRUE(all_close(*dense.output(0), values(*strided.output(0)), tol, 1e-6));
    }
}

// Bad calls: "<op>: <what> with <values>: <rule>".
TEST(NnAct, BadCallsSayWhatIsWrong) {
  NDArray x = make(DataType::kFloat32, {2, 6}, iota(12));
  NDArray x4 = make(DataType::kFloat32, {2, 6, 2, 2}, iota(48));
  NDArray v5 = make(DataType::kFloat32, {5}, iota(5));
  NDArray v6 = make(DataType::kFloat32, {6}, iota(6));
  NDArray i32 = make(DataType::kInt32, {2, 6}, iota(12));
  NDArray slope = make(DataType::kFloat32, {4}, iota(4));
  NDArray slope64 = make(DataType::kFloat64, {6}, iota(6));
  const struct {
    const char* op;
    OpCall call;
    StatusCode code;
    std::string message;
  } cases[] = {
      {"layer_norm", {.in = {&x, &v5}}, StatusCode::kShape,
       "layer_norm: scale[5] does not match x[2,6] normalized from axis 1: it must be [6] (leading 1s aside)"},
      {"rms_norm", {.in = {&x, &v6}, .i = {0}}, StatusCode::kShape,
       "rms_norm: scale[6] does not match x[2,6] normalized from axis 0: it must be [2,6] (leading 1s aside)"},
      {"group_norm", {.in = {&x4}, .i = {4}}, StatusCode::kShape,
       "group_norm: x[2,6,2,2] has 6 channels and num_groups is 4: the channels must be a multiple of num_groups"},
      {"instance_norm", {.in = {&v5}}, StatusCode::kShape,
       "instance_norm: x[5] has rank 1: it must be [N, C, ...], rank >= 2"},
      {"lrn", {.in = {&v5}, .i = {3}}, StatusCode::kShape,
       "lrn: x[5] has rank 1: it must be [N, C, ...], rank >= 2"},
      {"prelu", {.in = {&x, &slope}}, StatusCode::kShape,
       "prelu: slope[4] does not broadcast to x[2,6]: slope's dims, aligned at the end, must each be 1 or x's"},
      {"prelu", {.in = {&x, &slope64}}, StatusCode::kDtype,
       "prelu: slope's dtype float64 differs from x's float32: they must be the same"},
  };
  for (const auto& c : cases) {
    SCOPED_TRACE(c.op);
    Context ctx;
    Status s = run_op(c.op, c.call, ctx);
    EXPECT_EQ(s.code(), c.code) << s.message();
    EXPECT_EQ(s.message(), c.message);
  }
  // Arg ranges and dtypes come from the declarations; the messages name the op and the arg.
  for (const auto& [op, call] : std::vector<std::pair<const char*, OpCall>>{
           {"gelu", {.in = {&x}, .i = {2}}},
           {"celu", {.in = {&x}, .t = {0.0}}},
           {"log_softmax", {.in = {&x}, .i = {2}}},
           {"layer_norm", {.in = {&x}, .i = {-3}}},
           {"group_norm", {.in = {&x4}, .i = {0}}},
           {"lrn", {.in = {&x4}, .i = {0}}},
           {"leaky_relu", {.in = {&x}, .t = {NAN}}},
           {"layer_norm", {.in = {&i32}}},
           {"hard_swish", {.in = {&i32}}},
       }) {
    Context ctx;
    Status s = run_op(op, call, ctx);
    EXPECT_FALSE(s.is_ok()) << op;
    EXPECT_EQ(s.message().rfind(std::string(op) + ": ", 0), 0u) << s.message();
  }
}

}  // namespace
