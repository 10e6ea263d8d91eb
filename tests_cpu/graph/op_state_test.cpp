// Note [Op state]: a graph's matmul with a constant weight matrix packs it
// once per session (Note [Packed constant weights]) and must still give the
// plain product on every run: new inputs, a new batch size (a repack), two
// sessions of one graph, and more threads. A conv2d with constant weights
// reorders them once (Note [Cached convolution weights]) and must give what
// a direct call (no cache) gives, up to rounding. An LSTM layer with
// constant recurrent weights keeps them packed (Note [Packed recurrent
// weights]), one copy per direction, and must match a direct call too.
#include <gtest/gtest.h>

#include <cmath>
#include <utility>

#include "blas/conv_dnnl.h"
#include "graph/executor.h"
#include "graph_builder.h"
#include "libops/core/cpu_isa.h"
#include "libops/core/parallel.h"
#include "op_test_util.h"
#include "test_util.h"

namespace libops::graph {
namespace {

using libops::test::iota;
using libops::test::make;
using libops::test::values;
using test::BodyBuilder;
using test::GraphBuilder;
using test::Ref;

constexpr int64_t kK = 5, kN = 7;

std::vector<double> weights() { return iota(kK * kN, 0.1, -1.5); }

// The builder's graph, loaded (and checked) as a file would be.
std::shared_ptr<const Graph> loaded(GraphBuilder& g) {
  std::shared_ptr<const Graph> graph;
  Status s = test::load(g.finish(), graph);
  EXPECT_TRUE(s.is_ok()) << s.message();
  return graph;
}

// y = x [batch, 5] @ w [5, 7], w a constant (transposed in storage when
// `stored_transposed`: then the graph multiplies by permute(wt)).
std::shared_ptr<const Graph> matmul_graph() {
  GraphBuilder g;
  BodyBuilder& m = g.main();
  Ref x = m.placeholder("x", DataType::kFloat32, std::vector<int64_t>{-1, kK});
  Ref w = m.constant("w", make(DataType::kFloat32, {kK, kN}, weights()));
  m.output("y", m.op("matmul", {x, w}, {}, "mm"));
  return loaded(g);
}

std::vector<double> product(const std::vector<double>& x, int64_t rows) {
  const std::vector<double> w = weights();
  std::vector<double> y(static_cast<size_t>(rows * kN), 0.0);
  for (int64_t r = 0; r < rows; ++r)
    for (int64_t j = 0; j < kN; ++j)
      for (int64_t p = 0; p < kK; ++p) y[r * kN + j] += x[r * kK + p] * w[p * kN + j];
  return y;
}

void expect_runs(Session& s, const std::vector<int64_t>& batches) {
  double shift = 0;
  for (int64_t rows : batches) {
    shift += 0.25;
    const std::vector<double> xv = iota(rows * kK, 0.3, shift);
    NDArray x = make(DataType::kFloat32, {rows, kK}, xv);
    const NDArray* in[] = {&x};
    ASSERT_TRUE(s.run(in, 1).is_ok());
    const std::vector<double> got = values(s.output(0)), want = product(xv, rows);
    ASSERT_EQ(got.size(), want.size());
    for (size_t i = 0; i < want.size(); ++i) EXPECT_NEAR(got[i], want[i], 1e-4 * (1 + std::fabs(want[i]))) << i;
  }
}

TEST(OpState, PackedWeightsGiveTheProductOnEveryRun) {
  Session s(matmul_graph());
  expect_runs(s, {3, 3, 8, 1, 3});
}

TEST(OpState, EachSessionKeepsItsOwn) {
  std::shared_ptr<const Graph> g = matmul_graph();
  Session a(g), b(g);
  expect_runs(a, {4});
  expect_runs(b, {2, 6});
  expect_runs(a, {4, 1});
}

TEST(OpState, ThreadCountChangeRepacks) {
  const int saved = get_num_threads();
  Session s(matmul_graph());
  set_num_threads(1);
  expect_runs(s, {6, 1});
  set_num_threads(2);
  expect_runs(s, {6, 1});
  set_num_threads(saved);
}

std::vector<double> conv_weights() { return iota(4 * 3 * 3 * 3, 0.05, -1.0); }

// y = conv2d(x [N, 3, 8, 8], w [4, 3, 3, 3] constant), pad 1, NCHW.
std::shared_ptr<const Graph> conv_graph() {
  GraphBuilder g;
  BodyBuilder& m = g.main();
  Ref x = m.placeholder("x", DataType::kFloat32, std::vector<int64_t>{-1, 3, 8, 8});
  Ref w = m.constant("w", make(DataType::kFloat32, {4, 3, 3, 3}, conv_weights()));
  test::NodeArgs args;
  args.i = {3, 3, 1, 1, 1, 1, 1, 1, 0};
  m.output("y", m.op("conv2d", {x, w}, args, "conv"));
  return loaded(g);
}

TEST(OpState, CachedConvolutionWeightsGiveTheDirectCallsResult) {
  const int saved = get_num_threads();
  Session s(conv_graph());
  NDArray w = make(DataType::kFloat32, {4, 3, 3, 3}, conv_weights());
  int run = 0;
  for (int threads : {1, 1, 2, 2, 1}) {
    set_num_threads(threads);
    const int64_t n = run % 2 == 0 ? 1 : 2;  // a new batch size changes the geometry
    NDArray x = make(DataType::kFloat32, {n, 3, 8, 8}, iota(n * 3 * 64, 0.01 * (run + 1), -0.5));
    ++run;
    const NDArray* in[] = {&x};
    ASSERT_TRUE(s.run(in, 1).is_ok());
    Context direct;
    ASSERT_TRUE(libops::test::run_op("conv2d", {.in = {&x, &w}, .i = {3, 3, 1, 1, 1, 1, 1, 1, 0}}, direct).is_ok());
    // The session's graph runs channels-last (Note [Graph rewrites]), which
    // may sum the taps in another order than the direct NCHW call.
    const std::vector<double> got = values(s.output(0)), want = values(*direct.output(0));
    ASSERT_EQ(got.size(), want.size());
    for (size_t i = 0; i < want.size(); ++i)
      EXPECT_NEAR(got[i], want[i], 1e-5 * (1 + std::fabs(want[i]))) << "run " << run << ", " << threads << " threads";
  }
  set_num_threads(saved);
}

// x [N, 32, H, W] -> conv 3x3 (32 -> 32, bias) -> relu -> conv 3x3 (32 ->
// 40), pad 1, constant weights: two window ops, so the graph runs them in
// channel blocks, where 3x3 stride-1 layers take Winograd's algorithm
// (Note [Own Winograd convolution] on AVX2 machines, oneDNN's on AVX-512).
std::vector<double> winograd_weights(int64_t cout, int64_t cin) {
  return iota(cout * cin * 9, 0.1 / static_cast<double>(cout * cin * 9), -0.05);
}
std::shared_ptr<const Graph> winograd_graph() {
  GraphBuilder g;
  BodyBuilder& m = g.main();
  Ref x = m.placeholder("x", DataType::kFloat32, std::vector<int64_t>{-1, 32, -1, -1});
  Ref w1 = m.constant("w1", make(DataType::kFloat32, {32, 32, 3, 3}, winograd_weights(32, 32)));
  Ref b1 = m.constant("b1", make(DataType::kFloat32, {32}, iota(32, 0.01, -0.1)));
  Ref w2 = m.constant("w2", make(DataType::kFloat32, {40, 32, 3, 3}, winograd_weights(40, 32)));
  test::NodeArgs args;
  args.i = {3, 3, 1, 1, 1, 1, 1, 1, 0};
  Ref h = m.op("relu", {m.op("conv2d", {x, w1, b1}, args, "conv1")}, {}, "relu");
  m.output("y", m.op("conv2d", {h, w2}, args, "conv2"));
  return loaded(g);
}

// The session keeps each node's transformed filters: runs of two 16x16
// images (Winograd), one 8x8 image (too small: the direct kernel), then
// 16x16 again (the kept filters) give the direct NCHW calls' values within
// Winograd's rounding, and differ from a session with Winograd off (it
// ran).
TEST(OpState, KeptWinogradFiltersGiveTheDirectCallsResult) {
  NDArray w1 = make(DataType::kFloat32, {32, 32, 3, 3}, winograd_weights(32, 32));
  NDArray b1 = make(DataType::kFloat32, {32}, iota(32, 0.01, -0.1));
  NDArray w2 = make(DataType::kFloat32, {40, 32, 3, 3}, winograd_weights(40, 32));
  Session s(winograd_graph());
  int run = 0;
  bool differs_from_direct_session = false;
  for (int64_t side : {16, 8, 16, 16}) {
    const int64_t n = side == 8 ? 1 : 2;
    const int64_t size = n * 32 * side * side;
    NDArray x = make(DataType::kFloat32, {n, 32, side, side},
                     iota(size, 2.0 / static_cast<double>(size), -1.0 + 0.1 * run));
    ++run;
    const NDArray* in[] = {&x};
    ASSERT_TRUE(s.run(in, 1).is_ok());
    const std::vector<double> got = values(s.output(0));
    Context c1, c2;
    const std::vector<int64_t> args = {3, 3, 1, 1, 1, 1, 1, 1, 0, 0, 1, 1, 1};  // NCHW, relu
    ASSERT_TRUE(libops::test::run_op("conv2d", {.in = {&x, &w1, &b1}, .i = args}, c1).is_ok());
    ASSERT_TRUE(libops::test::run_op("conv2d", {.in = {c1.output(0), &w2}, .i = {3, 3, 1, 1, 1, 1, 1, 1, 0}}, c2).is_ok());
    const std::vector<double> want = values(*c2.output(0));
    ASSERT_EQ(got.size(), want.size());
    // |x| <= 1, |w| <= 0.05, 288 taps: the second layer's sums of
    // magnitudes stay below 250; Winograd's error is within 2e-6 of that.
    for (size_t i = 0; i < want.size(); ++i) EXPECT_NEAR(got[i], want[i], 1e-3) << "run " << run << ", side " << side;
    blas::set_winograd_enabled(false);
    Session plain(winograd_graph());
    const Status st = plain.run(in, 1);
    blas::set_winograd_enabled(true);
    ASSERT_TRUE(st.is_ok()) << st.message();
    differs_from_direct_session |= values(plain.output(0)) != got;
  }
  // Where libops' own kernel is the one that runs (an AVX2 machine, at its
  // level, with oneDNN's channel blocks).
  if (blas::winograd_enabled() && blas::dnnl_enabled() && cpu_isa_supported() == CpuIsa::kAvx2 &&
      cpu_isa() == CpuIsa::kAvx2) {
    EXPECT_TRUE(differs_from_direct_session);
  }
}

TEST(OpState, ContextClearDropsStateAndConstantFlags) {
  Context ctx("matmul");
  ctx.set_constant_inputs({false, true});
  ctx.set_op_state(std::make_unique<OpState>());
  EXPECT_TRUE(ctx.input_is_constant(1));
  EXPECT_FALSE(ctx.input_is_constant(0));
  EXPECT_FALSE(ctx.input_is_constant(7));
  ctx.clear();
  EXPECT_FALSE(ctx.input_is_constant(1));
  EXPECT_EQ(ctx.op_state(), nullptr);
}

// An LSTM layer, both directions concatenated, ONNX's weight layout:
// x [T, N, I] (N free), w [2, 4H, I], r [2, 4H, H], b [2, 8H] constants.
constexpr int64_t kT = 5, kI = 3, kH = 4;
const std::vector<int64_t> kLstmArgs = {0, 3, 2, 0, 0, 1};  // data_format, direction, activations, weights_format

std::vector<double> lstm_values(int64_t n, double scale) { return iota(n, scale, -0.6); }

std::shared_ptr<const Graph> lstm_graph() {
  GraphBuilder g;
  BodyBuilder& m = g.main();
  Ref x = m.placeholder("x", DataType::kFloat32, std::vector<int64_t>{kT, -1, kI});
  Ref w = m.constant("w", make(DataType::kFloat32, {2, 4 * kH, kI}, lstm_values(2 * 4 * kH * kI, 0.013)));
  Ref r = m.constant("r", make(DataType::kFloat32, {2, 4 * kH, kH}, lstm_values(2 * 4 * kH * kH, 0.011)));
  Ref b = m.constant("b", make(DataType::kFloat32, {2, 8 * kH}, lstm_values(2 * 8 * kH, 0.02)));
  test::NodeArgs args;
  args.i = kLstmArgs;
  args.b = {true};  // has_biases
  m.output("y", m.op("lstm_layer", {x, w, r, b}, args, "lstm"));
  return loaded(g);
}

TEST(OpState, PackedRecurrentWeightsGiveTheDirectCallsResult) {
  const int saved = get_num_threads();
  Session s(lstm_graph());
  NDArray w = make(DataType::kFloat32, {2, 4 * kH, kI}, lstm_values(2 * 4 * kH * kI, 0.013));
  NDArray r = make(DataType::kFloat32, {2, 4 * kH, kH}, lstm_values(2 * 4 * kH * kH, 0.011));
  NDArray b = make(DataType::kFloat32, {2, 8 * kH}, lstm_values(2 * 8 * kH, 0.02));
  int run = 0;
  // (threads, batch): a new batch size or thread count repacks, each alone.
  for (auto [threads, n] : {std::pair<int, int64_t>{1, 2}, {1, 2}, {1, 3}, {2, 3}, {2, 2}, {1, 2}}) {
    set_num_threads(threads);
    NDArray x = make(DataType::kFloat32, {kT, n, kI}, iota(kT * n * kI, 0.05 * (run + 1), -0.4));
    ++run;
    const NDArray* in[] = {&x};
    ASSERT_TRUE(s.run(in, 1).is_ok());
    Context direct;
    ASSERT_TRUE(
        libops::test::run_op("lstm_layer", {.in = {&x, &w, &r, &b}, .i = kLstmArgs, .b = {true}}, direct).is_ok());
    const std::vector<double> got = values(s.output(0)), want = values(*direct.output(0));
    ASSERT_EQ(got.size(), want.size());
    ASSERT_EQ(static_cast<int64_t>(want.size()), kT * n * 2 * kH);
    for (size_t i = 0; i < want.size(); ++i)
      EXPECT_NEAR(got[i], want[i], 1e-5 * (1 + std::fabs(want[i]))) << "run " << run << ", " << threads << " threads";
  }
  set_num_threads(saved);
}

// Note [LSTM steps in a team]: where R is a constant, the 16-lane cell
// applies and there are two or more threads, each thread multiplies and
// steps its own units. H = 52 splits as 16 + 16 + 20 units at 3 threads
// (a masked run of 4) and 16 + 36 at 2; T = 5 leaves the state in the
// second h buffer. Both directions, summed into y [N, H, T] (strided along
// the units) in libnd4j's layout, or concatenated in ONNX's; peepholes,
// initial states, a cell clip and all three outputs. The reference is the
// direct call on one thread (the plain steps, no kept packing).
TEST(OpState, LstmStepsInATeamGiveTheDirectCallsResult) {
  if (cpu_isa() < CpuIsa::kAvx2) GTEST_SKIP() << "the team runs where a vector cell does (avx2 or above)";
  const int saved = get_num_threads();
  constexpr int64_t T = 5, N = 3, I = 3, H = 52;
  struct Layout {
    const char* name;
    std::vector<int64_t> i;  // data_format, direction, activations, weights_format
    Dims w, r, b, peep;
  };
  for (const Layout& l : {Layout{"libnd4j, summed, [N, H, T]", {2, 2, 2, 0, 0, 0}, {2, I, 4 * H}, {2, H, 4 * H},
                                 {2, 4 * H}, {2, 3 * H}},
                          Layout{"ONNX, concatenated", {0, 3, 2, 0, 0, 1}, {2, 4 * H, I}, {2, 4 * H, H}, {2, 8 * H},
                                 {2, 3 * H}}}) {
    SCOPED_TRACE(l.name);
    auto values_of = [](const Dims& d, double scale) {
      int64_t n = 1;
      for (int64_t e : d) n *= e;
      return make(DataType::kFloat32, d, iota(n, scale, -0.6));
    };
    NDArray w = values_of(l.w, 0.0013), r = values_of(l.r, 0.00011), b = values_of(l.b, 0.002);
    NDArray peep = values_of(l.peep, 0.003), h0 = values_of({2, N, H}, 0.004), c0 = values_of({2, N, H}, 0.005);
    // The sequence's length is a run-time dim.
    auto x_shape_of = [&](int64_t t) { return l.i[0] == 2 ? Dims{N, I, t} : Dims{t, N, I}; };
    const Dims x_shape = x_shape_of(-1);
    test::NodeArgs args;
    args.i = l.i;
    args.t = {0.9};                                           // cell_clip
    args.b = {true, false, true, true, true, true, true, true};  // biases, h0, c0, peepholes; y, h_last, c_last
    args.num_outputs = 3;
    GraphBuilder g;
    BodyBuilder& m = g.main();
    Ref x = m.placeholder("x", DataType::kFloat32, std::vector<int64_t>(x_shape.begin(), x_shape.end()));
    Ref y = m.op("lstm_layer",
                 {x, m.constant("w", w), m.constant("r", r), m.constant("b", b), m.constant("h0", h0),
                  m.constant("c0", c0), m.constant("peep", peep)},
                 args, "lstm");
    m.output("y", y);
    m.output("h_last", Ref(y.id(), 1));
    m.output("c_last", Ref(y.id(), 2));
    Session s(loaded(g));
    // One thread: no team, but W kept packed (Note [Packed input weights]),
    // against the direct call's plain GEMM; then sequences of another
    // length, which the kept W serves too.
    for (const auto& [threads, t] : {std::pair{1, T}, {2, T}, {3, T}, {3, T - 2}, {3, T + 1}, {1, T + 1}}) {
      NDArray x = values_of(x_shape_of(t), 0.05 * threads + 0.01 * static_cast<double>(t));
      set_num_threads(threads);
      const NDArray* in[] = {&x};
      ASSERT_TRUE(s.run(in, 1).is_ok());
      set_num_threads(1);
      Context direct;
      ASSERT_TRUE(libops::test::run_op("lstm_layer",
                                       {.in = {&x, &w, &r, &b, &h0, &c0, &peep}, .t = args.t, .i = l.i, .b = args.b},
                                       direct)
                      .is_ok());
      for (int o = 0; o < 3; ++o) {
        const std::vector<double> got = values(s.output(o)), want = values(*direct.output(o));
        ASSERT_EQ(got.size(), want.size());
        for (size_t k = 0; k < want.size(); ++k)
          ASSERT_NEAR(got[k], want[k], 1e-5 * (1 + std::fabs(want[k])))
              << threads << " threads, T " << t << ", output " << o << ", element " << k;
      }
    }
  }
  set_num_threads(saved);
}

// A GRU with constant weights keeps R packed too: whole for
// linear_before_reset, else its z and r blocks and its n block apart (Note
// [Packed recurrent weights]). Two runs a thread count, against the
// direct call.
TEST(OpState, PackedGruWeightsGiveTheDirectCallsResult) {
  const int saved = get_num_threads();
  constexpr int64_t T = 4, N = 2, I = 3, H = 20;
  auto values_of = [](const Dims& d, double scale) {
    int64_t n = 1;
    for (int64_t e : d) n *= e;
    return make(DataType::kFloat32, d, iota(n, scale, -0.6));
  };
  NDArray w = values_of({1, 3 * H, I}, 0.013), r = values_of({1, 3 * H, H}, 0.0011), b = values_of({1, 6 * H}, 0.02);
  for (bool lbr : {false, true}) {
    SCOPED_TRACE(lbr ? "linear_before_reset" : "two phases");
    test::NodeArgs args;
    args.i = {0, 0, 2, 0, 1};                   // data_format, direction, gate_act, cell_act, weights_format
    args.b = {true, false, false, lbr, true};  // biases, no seq_len or h0, linear_before_reset, y
    GraphBuilder g;
    BodyBuilder& m = g.main();
    Ref x = m.placeholder("x", DataType::kFloat32, std::vector<int64_t>{T, N, I});
    m.output("y", m.op("gru_layer", {x, m.constant("w", w), m.constant("r", r), m.constant("b", b)}, args, "gru"));
    Session s(loaded(g));
    int run = 0;
    for (int threads : {1, 1, 2, 2}) {
      NDArray x_in = values_of({T, N, I}, 0.05 * ++run);
      set_num_threads(threads);
      const NDArray* in[] = {&x_in};
      ASSERT_TRUE(s.run(in, 1).is_ok());
      Context direct;
      ASSERT_TRUE(libops::test::run_op("gru_layer", {.in = {&x_in, &w, &r, &b}, .i = args.i, .b = args.b}, direct).is_ok());
      const std::vector<double> got = values(s.output(0)), want = values(*direct.output(0));
      ASSERT_EQ(got.size(), want.size());
      ASSERT_EQ(static_cast<int64_t>(want.size()), T * N * H);
      for (size_t k = 0; k < want.size(); ++k)
        ASSERT_NEAR(got[k], want[k], 1e-5 * (1 + std::fabs(want[k]))) << "run " << run << ", element " << k;
    }
  }
  set_num_threads(saved);
}

// tfidf_vectorizer builds its n-gram table once per session where the pool,
// counts, indexes and weights are constants: every run, at any batch size,
// gives what a direct call (a table of its own) gives.
TEST(OpState, KeptNgramTableGivesTheDirectCallsResult) {
  const std::vector<double> pool = {1, 2, 3, 1, 2, 2, 3, 3, 1, 1, 2, 3}, counts = {0, 3, 9}, indexes = {4, 0, 2, 5, 1, 3, 6};
  const std::vector<double> weights = {0.5, 1.5, 2, 3, 0.25, 4, 5};
  GraphBuilder g;
  BodyBuilder& m = g.main();
  Ref x = m.placeholder("x", DataType::kInt64, std::vector<int64_t>{-1, 6});
  test::NodeArgs args;
  args.i = {1, 3, 1, 2};  // 1- to 3-grams, one skip, TFIDF
  m.output("z", m.op("tfidf_vectorizer",
                     {x, m.constant("pool", make(DataType::kInt64, {12}, pool)),
                      m.constant("counts", make(DataType::kInt64, {3}, counts)),
                      m.constant("indexes", make(DataType::kInt64, {7}, indexes)),
                      m.constant("weights", make(DataType::kFloat32, {7}, weights))},
                     args, "tfidf"));
  Session s(loaded(g));
  NDArray p = make(DataType::kInt64, {12}, pool), c = make(DataType::kInt64, {3}, counts);
  NDArray ix = make(DataType::kInt64, {7}, indexes), w = make(DataType::kFloat32, {7}, weights);
  int run = 0;
  for (int64_t rows : {2, 2, 5, 1}) {
    std::vector<double> xv;
    for (int64_t k = 0; k < rows * 6; ++k) xv.push_back(static_cast<double>((k * 7 + run) % 4));
    NDArray xa = make(DataType::kInt64, {rows, 6}, xv);
    const NDArray* in[] = {&xa};
    const Status st = s.run(in, 1);
    ASSERT_TRUE(st.is_ok()) << st.message();
    Context direct;
    ASSERT_TRUE(libops::test::run_op("tfidf_vectorizer", {.in = {&xa, &p, &c, &ix, &w}, .i = args.i}, direct).is_ok());
    EXPECT_EQ(values(s.output(0)), values(*direct.output(0))) << "run " << run;
    ++run;
  }
}

}  // namespace
}  // namespace libops::graph
