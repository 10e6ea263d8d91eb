// lstm_layer and gru_layer beyond the goldens of tests_cpu/golden/rnn
// (tools/gen_goldens_rnn.py, run by golden_ops_test.cpp): one cell worked
// by hand, empty sequences and batches, float16, and the errors.
#include <cmath>

#include "libops/core/parallel.h"
#include "op_test_util.h"

using namespace libops;
using namespace libops::test;

namespace {

double sigmoid(double v) { return 1 / (1 + std::exp(-v)); }

// libnd4j's layout, one unit, one step: W = [wi, wf, wg, wo], R = 0.
TEST(LstmLayer, OneCellByHand) {
  const double wi = 0.5, wf = -1.0, wg = 2.0, wo = 0.25, b = 0.1, x0 = 1.5, c0 = -0.75;
  NDArray x = make(DataType::kFloat64, {1, 1, 1}, {x0});
  NDArray w = make(DataType::kFloat64, {1, 4}, {wi, wf, wg, wo});
  NDArray r = make(DataType::kFloat64, {1, 4}, {0, 0, 0, 0});
  NDArray bias = make(DataType::kFloat64, {4}, {b, b, b, b});
  NDArray c_init = make(DataType::kFloat64, {1, 1}, {c0});
  Context ctx;
  // has_biases, has_init_c; outputs y, h_last, c_last.
  ASSERT_OK(run_op("lstm_layer", {.in = {&x, &w, &r, &bias, &c_init},
                                  .b = {true, false, false, true, false, true, true, true}}, ctx));
  const double i = sigmoid(wi * x0 + b), f = sigmoid(wf * x0 + b), g = std::tanh(wg * x0 + b);
  const double c = f * c0 + i * g, h = sigmoid(wo * x0 + b) * std::tanh(c);
  EXPECT_TRUE(all_close(*ctx.output(0), {h}, 1e-14));
  EXPECT_EQ(ctx.output(0)->shape(), (Dims{1, 1, 1}));
  EXPECT_TRUE(all_close(*ctx.output(1), {h}, 1e-14));
  EXPECT_TRUE(all_close(*ctx.output(2), {c}, 1e-14));
}

TEST(GruLayer, OneCellByHand) {
  // libnd4j's gate order r, u, c; h' = u * h + (1 - u) * n.
  const double wr = 0.3, wu = -0.6, wc = 1.2, rr = 0.5, ru = 0.25, rc = -1.0, x0 = 0.8, h0 = 0.4;
  NDArray x = make(DataType::kFloat64, {1, 1, 1}, {x0});
  NDArray w = make(DataType::kFloat64, {1, 3}, {wr, wu, wc});
  NDArray r = make(DataType::kFloat64, {1, 3}, {rr, ru, rc});
  NDArray h_init = make(DataType::kFloat64, {1, 1}, {h0});
  Context ctx;
  ASSERT_OK(run_op("gru_layer", {.in = {&x, &w, &r, &h_init}, .b = {false, false, true, false, true, true}}, ctx));
  const double rg = sigmoid(wr * x0 + rr * h0), u = sigmoid(wu * x0 + ru * h0);
  const double n = std::tanh(wc * x0 + rc * (rg * h0));
  const double h = u * h0 + (1 - u) * n;
  EXPECT_TRUE(all_close(*ctx.output(0), {h}, 1e-14));
  EXPECT_TRUE(all_close(*ctx.output(1), {h}, 1e-14));
}

// No time steps: y is empty and the final states are the initial ones.
TEST(LstmLayer, EmptySequenceKeepsTheInitialState) {
  NDArray x = zeros(DataType::kFloat32, {0, 2, 3});
  NDArray w = make(DataType::kFloat32, {3, 4}, iota(12, 0.1));
  NDArray r = make(DataType::kFloat32, {1, 4}, iota(4, 0.1));
  NDArray h_init = make(DataType::kFloat32, {2, 1}, {0.5, -2});
  NDArray c_init = make(DataType::kFloat32, {2, 1}, {3, 4});
  Context ctx;
  ASSERT_OK(run_op("lstm_layer", {.in = {&x, &w, &r, &h_init, &c_init},
                                  .b = {false, false, true, true, false, true, true, true}}, ctx));
  EXPECT_EQ(ctx.output(0)->shape(), (Dims{0, 2, 1}));
  EXPECT_TRUE(all_close(*ctx.output(1), {0.5, -2}));
  EXPECT_TRUE(all_close(*ctx.output(2), {3, 4}));
}

TEST(GruLayer, EmptyBatch) {
  NDArray x = zeros(DataType::kFloat32, {4, 0, 3});
  NDArray w = zeros(DataType::kFloat32, {3, 6});
  NDArray r = zeros(DataType::kFloat32, {2, 6});
  Context ctx;
  ASSERT_OK(run_op("gru_layer", {.in = {&x, &w, &r}, .b = {false, false, false, false, true, true}}, ctx));
  EXPECT_EQ(ctx.output(0)->shape(), (Dims{4, 0, 2}));
  EXPECT_EQ(ctx.output(1)->shape(), (Dims{0, 2}));
}

// float16 runs in float32 and rounds once: the float32 run's values, rounded.
TEST(LstmLayer, Float16MatchesFloat32) {
  const std::vector<double> xs = iota(2 * 3 * 2, 0.25, -1.0), ws = iota(2 * 8, 0.1, -0.7), rs = iota(2 * 8, -0.05, 0.3);
  Context c16, c32;
  NDArray x16 = make(DataType::kFloat16, {2, 3, 2}, xs), w16 = make(DataType::kFloat16, {2, 8}, ws),
          r16 = make(DataType::kFloat16, {2, 8}, rs);
  NDArray x32 = make(DataType::kFloat32, {2, 3, 2}, values(x16)), w32 = make(DataType::kFloat32, {2, 8}, values(w16)),
          r32 = make(DataType::kFloat32, {2, 8}, values(r16));
  ASSERT_OK(run_op("lstm_layer", {.in = {&x16, &w16, &r16}}, c16));
  ASSERT_OK(run_op("lstm_layer", {.in = {&x32, &w32, &r32}}, c32));
  EXPECT_EQ(c16.output(0)->dtype(), DataType::kFloat16);
  EXPECT_TRUE(all_close(values(*c16.output(0)), values(*c32.output(0)), 1e-3, 1e-3));
}

// Note [Directions side by side]: a bidirectional layer whose directions
// write apart runs them a thread each at two threads. An LSTM (concatenated,
// with sequence lengths), a GRU without linear_before_reset (two GEMMs a
// step; each direction on its own axis) and a simple RNN, in float32 at one
// and at two threads, against the same call in float64 (which runs the
// directions one after the other).
TEST(RecurrentLayers, BidirectionalLayersRunTheirDirectionsSideBySide) {
  const int64_t T = 7, N = 3, I = 5, H = 20;  // H > 16: the 16-lane cells and a masked tail
  struct Layer {
    const char* op;
    int gates;
    std::vector<int64_t> i;
    std::vector<bool> b;
    bool seq_len;
  };
  const Layer layers[] = {
      {"lstm_layer", 4, {0, 3, 2, 0, 0, 1}, {true, true, false, false, false, true, true, true}, true},
      {"gru_layer", 3, {3, 4, 2, 0, 1}, {true, false, false, false, true, true}, false},
      {"rnn_layer", 1, {0, 3, 0, 1}, {true, false, false, true, true}, false},
  };
  const int saved = get_num_threads();
  for (const Layer& l : layers) {
    SCOPED_TRACE(l.op);
    const int64_t gh = l.gates * H;
    auto arrays = [&](DataType dt) {
      // Weights of a trained layer's scale: pre-activations within a few units.
      std::vector<NDArray> a = {make(dt, {T, N, I}, iota(T * N * I, 0.01, -0.5)),
                                make(dt, {2, gh, I}, iota(2 * gh * I, 0.0005, -0.2)),
                                make(dt, {2, gh, H}, iota(2 * gh * H, -0.00025, 0.2)),
                                make(dt, {2, 2 * gh}, iota(4 * gh, 0.002, -0.1))};
      if (l.seq_len) a.push_back(make(DataType::kInt64, {N}, {7, 4, 1}));
      return a;
    };
    std::vector<NDArray> in64 = arrays(DataType::kFloat64), in32 = arrays(DataType::kFloat32);
    auto run = [&](std::vector<NDArray>& in, int threads, Context& ctx) {
      set_num_threads(threads);
      std::vector<NDArray*> ptrs;
      for (NDArray& a : in) ptrs.push_back(&a);
      const Status st = run_op(l.op, {.in = ptrs, .i = l.i, .b = l.b}, ctx);
      set_num_threads(saved);
      return st;
    };
    Context want, one, two;
    Status st = run(in64, 2, want);
    ASSERT_TRUE(st.is_ok()) << st.message();
    ASSERT_OK(run(in32, 1, one));
    ASSERT_OK(run(in32, 2, two));
    for (int k = 0; k < want.num_outputs(); ++k) {
      SCOPED_TRACE(k);
      EXPECT_TRUE(all_close(values(*two.output(k)), values(*want.output(k)), 1e-5, 1e-6));
      EXPECT_TRUE(all_close(values(*two.output(k)), values(*one.output(k)), 1e-6, 1e-7));
    }
  }
}

struct BadCall {
  const char* what;
  std::vector<int64_t> i;
  std::vector<bool> b;
  bool extra_input;
  bool wrong_r;
  const char* message;
};

TEST(LstmLayer, BadCallsNameTheProblem) {
  NDArray x = zeros(DataType::kFloat32, {3, 2, 4});
  NDArray w = zeros(DataType::kFloat32, {4, 20});
  NDArray r = zeros(DataType::kFloat32, {5, 20});
  NDArray r_bad = zeros(DataType::kFloat32, {5, 16});
  NDArray lens = make(DataType::kInt32, {2}, {3, 4});
  const BadCall calls[] = {
      {"R's width", {}, {}, false, true,
       "lstm_layer: weights W[4,20] and R[5,16] do not fit x[3,2,4]: want W [I, G*H] and R [H, G*H] with D = 1, "
       "G = 4, I = 4, H = 5"},
      {"direction 4 in layout 0", {0, 4}, {}, false, false,
       "lstm_layer: direction 4 (both directions on their own axis) needs data_format 3, got 0"},
      {"one input too many", {}, {}, true, false,
       "lstm_layer: takes x, W, R and the 0 optional inputs its has_* b args name, so 3 inputs; got 4"},
      {"no output", {}, {false, false, false, false, false, false, false, false}, false, false,
       "lstm_layer: asks for no output: set ret_full_seq, ret_last_h or ret_last_c"},
      {"a length past T", {}, {false, true}, true, false,
       "lstm_layer: seq_len[1] = 4 is outside [0, 3] (the time steps of x)"},
  };
  for (const BadCall& c : calls) {
    SCOPED_TRACE(c.what);
    std::vector<NDArray*> in = {&x, &w, c.wrong_r ? &r_bad : &r};
    if (c.extra_input) in.push_back(&lens);
    Context ctx;
    Status s = run_op("lstm_layer", {.in = in, .i = c.i, .b = c.b}, ctx);
    EXPECT_FALSE(s.is_ok());
    EXPECT_EQ(s.message(), c.message);
  }
}

TEST(GruLayer, BadStateShapeAndDtype) {
  NDArray x = zeros(DataType::kFloat32, {3, 2, 4});
  NDArray w = zeros(DataType::kFloat32, {4, 15});
  NDArray r = zeros(DataType::kFloat32, {5, 15});
  NDArray h_bad = zeros(DataType::kFloat32, {3, 5});
  NDArray h_int = zeros(DataType::kInt32, {2, 5});
  Context c1, c2;
  EXPECT_EQ(run_op("gru_layer", {.in = {&x, &w, &r, &h_bad}, .b = {false, false, true}}, c1).message(),
            "gru_layer: h0[3,5] must be [1, N, H] = [1, 2, 5] or [N, H]");
  EXPECT_EQ(run_op("gru_layer", {.in = {&x, &w, &r, &h_int}, .b = {false, false, true}}, c2).message(),
            "gru_layer: h0 must be float, got int32");
}

}  // namespace
