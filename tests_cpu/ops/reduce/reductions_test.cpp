// The reduction ops (libops/ops/reduce/) against the numpy and scipy
// goldens of tools/gen_goldens_reductions.py: every case of its MANIFEST
// (NaN, infinities, ties, negative axes, size-1 and empty dims, kept dims,
// bias correction) through the op and once through a one-node graph per op;
// every reduction of the table has cases; axes given as an input array.
#include <cmath>
#include <fstream>
#include <limits>
#include <map>
#include <sstream>

#include "golden_util.h"
#include "graph/executor.h"
#include "graph/graph_builder.h"
#include "libops/ops/reduce/reduce_common.h"
#include "op_test_util.h"

using namespace libops;
using namespace libops::test;

namespace {

struct ReduceCase {
  std::string op, name;
  double rtol = 0, atol = 0;
  bool keep = false, bias = false;
  std::vector<int64_t> axes;
};
void PrintTo(const ReduceCase& c, std::ostream* os) { *os << c.op << "_" << c.name; }

std::vector<ReduceCase> manifest() {
  std::vector<ReduceCase> v;
  std::ifstream in(std::string(LIBOPS_GOLDEN_DIR) + "/reductions/MANIFEST");
  std::string line;
  while (std::getline(in, line)) {
    if (line.empty() || line[0] == '#') continue;
    std::istringstream ss(line);
    ReduceCase c;
    int keep = 0, bias = 0;
    std::string axes;
    ss >> c.op >> c.name >> c.rtol >> c.atol >> keep >> bias >> axes;
    c.keep = keep, c.bias = bias;
    if (axes != "-") {
      std::istringstream as(axes);
      for (std::string a; std::getline(as, a, ',');) c.axes.push_back(std::stoll(a));
    }
    v.push_back(c);
  }
  return v;
}

NDArray golden(const ReduceCase& c, const char* role) {
  return load_golden("reductions/" + c.op + "_" + c.name + "_" + role + ".npy");
}

::testing::AssertionResult matches(const NDArray& got, const NDArray& want, double rtol, double atol) {
  if (got.dtype() != want.dtype())
    return ::testing::AssertionFailure() << "dtype " << dtype_name(got.dtype()) << ", want " << dtype_name(want.dtype());
  if (got.shape() != want.shape())
    return ::testing::AssertionFailure() << "shape " << got.shape().str() << ", want " << want.shape().str();
  for (int64_t i = 0; i < want.length(); ++i) {
    const double g = got.get_double(i), w = want.get_double(i);
    const bool ok = std::isnan(w) ? std::isnan(g) : std::isinf(w) ? g == w : std::fabs(g - w) <= atol + rtol * std::fabs(w);
    if (!ok) return ::testing::AssertionFailure() << "element " << i << ": got " << g << ", want " << w;
  }
  return ::testing::AssertionSuccess();
}

OpCall call_of(const ReduceCase& c, NDArray& x) {
  OpCall call{.in = {&x}, .i = c.axes};
  call.b = {c.keep};
  if (c.bias) call.b.push_back(true);
  return call;
}

class ReductionGolden : public ::testing::TestWithParam<ReduceCase> {};

TEST_P(ReductionGolden, MatchesNumpy) {
  const ReduceCase& c = GetParam();
  NDArray x = golden(c, "x");
  Context ctx;
  ASSERT_OK(run_op(c.op.c_str(), call_of(c, x), ctx));
  EXPECT_TRUE(matches(*ctx.output(0), golden(c, "z"), c.rtol, c.atol));
  if (c.op == "moments") {
    EXPECT_TRUE(matches(*ctx.output(1), golden(c, "v"), c.rtol, c.atol));
  }
}

INSTANTIATE_TEST_SUITE_P(Cases, ReductionGolden, ::testing::ValuesIn(manifest()),
                         [](const ::testing::TestParamInfo<ReduceCase>& info) {
                           return info.param.op + "_" + info.param.name;
                         });

TEST(Reductions, EveryOpHasGoldenCases) {
  std::map<std::string, int> n;
  for (const ReduceCase& c : manifest()) ++n[c.op];
  std::vector<std::string> ops = ops::reduction_op_names();
  ops.push_back("reduce_logsumexp");
  ops.push_back("moments");
  for (const std::string& op : ops) EXPECT_GT(n[op], 0) << op << " has no golden case";
}

// Axes as an input array, of either integer width, give the same values.
TEST(Reductions, AxesAsAnInputArray) {
  for (const ReduceCase& c : manifest()) {
    if (c.axes.empty() || c.op == "moments") continue;
    SCOPED_TRACE(c.op + " " + c.name);
    NDArray x = golden(c, "x");
    NDArray axes = make(DataType::kInt32, {static_cast<int64_t>(c.axes.size())},
                        std::vector<double>(c.axes.begin(), c.axes.end()));
    OpCall call{.in = {&x, &axes}};
    call.b = {c.keep};
    if (c.bias) call.b.push_back(true);
    Context ctx;
    ASSERT_OK(run_op(c.op.c_str(), call, ctx));
    EXPECT_TRUE(matches(*ctx.output(0), golden(c, "z"), c.rtol, c.atol));
  }
}

// ONNX's noop_with_empty_axes: with the flag, an empty axes input reduces no
// axis, each element alone (x for sum, |x| for the norms, x^2 for sqnorm, in
// the result's dtype), as ONNX Runtime and ONNX's reference compute it; axes
// that are not empty reduce as always; without the flag an empty input
// reduces every axis.
TEST(Reductions, NoopWithEmptyAxes) {
  NDArray x = make(DataType::kFloat32, {2, 3}, {1, 2, 3, 4, 5, 6});
  NDArray none = make(DataType::kInt64, {0}, {}), one = make(DataType::kInt64, {1}, {1});
  Context copy, rows, all, var;
  ASSERT_OK(run_op("reduce_sum", {.in = {&x, &none}, .b = {false, true}}, copy));
  EXPECT_EQ(copy.output(0)->shape(), (Dims{2, 3}));
  EXPECT_TRUE(all_close(*copy.output(0), {1, 2, 3, 4, 5, 6}, 0, 0));
  ASSERT_OK(run_op("reduce_sum", {.in = {&x, &one}, .b = {false, true}}, rows));
  EXPECT_TRUE(all_close(*rows.output(0), {6, 15}, 0, 0));
  ASSERT_OK(run_op("reduce_sum", {.in = {&x, &none}, .b = {false, false}}, all));
  EXPECT_TRUE(all_close(*all.output(0), {21}, 0, 0));
  // variance: the flag follows bias_corrected; one element varies by 0.
  ASSERT_OK(run_op("reduce_variance", {.in = {&x, &none}, .b = {false, false, true}}, var));
  EXPECT_TRUE(all_close(*var.output(0), {0, 0, 0, 0, 0, 0}, 0, 0));
  // Not a copy of x: the norms of one element are |x|, its sqnorm x^2 (a
  // float32 x^2 past the largest float is inf, and so is its norm2).
  NDArray neg = make(DataType::kFloat32, {2, 2}, {-1.5f, 2, -3, 1e30f});
  const float inf = std::numeric_limits<float>::infinity();
  for (const auto& [op, want] : std::vector<std::pair<const char*, std::vector<double>>>{
           {"reduce_norm1", {1.5, 2, 3, 1e30}},
           {"reduce_norm2", {1.5, 2, 3, inf}},
           {"reduce_sqnorm", {2.25, 4, 9, inf}},
           {"reduce_norm_max", {1.5, 2, 3, 1e30}},
           {"reduce_max", {-1.5, 2, -3, 1e30}},
           {"reduce_logsumexp", {-1.5, 2, -3, 1e30}}}) {
    SCOPED_TRACE(op);
    Context ctx;
    ASSERT_OK(run_op(op, {.in = {&neg, &none}, .b = {false, true}}, ctx));
    EXPECT_EQ(ctx.output(0)->shape(), (Dims{2, 2}));
    EXPECT_TRUE(all_close(*ctx.output(0), want, 1e-6, 0));
  }
  // An integer mean's result dtype is float32, the copy too.
  NDArray xi = make(DataType::kInt32, {3}, {1, 2, 4});
  Context mean;
  ASSERT_OK(run_op("reduce_mean", {.in = {&xi, &none}, .b = {true, true}}, mean));
  EXPECT_EQ(mean.output(0)->dtype(), DataType::kFloat32);
  EXPECT_TRUE(all_close(*mean.output(0), {1, 2, 4}, 0, 0));
}

TEST(Reductions, ArgmaxOfAnEmptyAxisIsAnError) {
  NDArray x = zeros(DataType::kFloat32, {3, 0});
  Context ctx;
  Status s = run_op("argmax", {.in = {&x}, .i = {1}}, ctx);
  EXPECT_EQ(s.message(), "argmax: x[3,0] has no elements along axes [1] to take the argmax of");
  Context c2;  // an empty output is fine: nothing to index
  NDArray y = zeros(DataType::kFloat32, {0, 4});
  ASSERT_OK(run_op("argmax", {.in = {&y}, .i = {1}}, c2));
  EXPECT_EQ(c2.output(0)->shape(), (Dims{0}));
}

// Each op once through the graph path, axes and flags as node args.
TEST(Reductions, EveryOpRunsAsAGraphNode) {
  std::map<std::string, ReduceCase> first;
  for (const ReduceCase& c : manifest()) first.emplace(c.op, c);
  for (const auto& [op, c] : first) {
    SCOPED_TRACE(op);
    NDArray x = golden(c, "x");
    graph::test::GraphBuilder g;
    graph::test::BodyBuilder& m = g.main();
    graph::test::NodeArgs args;
    args.i = c.axes;
    args.b = {c.keep};
    if (c.bias) args.b.push_back(true);
    if (op == "moments") args.num_outputs = 2;
    graph::test::Ref in = m.placeholder("x", x.dtype(), std::vector<int64_t>(x.shape().begin(), x.shape().end()));
    graph::test::Ref node = m.op(op.c_str(), {in}, args, "node");
    m.output("z", node);
    std::shared_ptr<const graph::Graph> loaded;
    ASSERT_OK(graph::test::load(g.finish(), loaded));
    graph::Session s(loaded);
    const NDArray* feeds[] = {&x};
    ASSERT_OK(s.run(feeds, 1));
    EXPECT_TRUE(matches(s.output(0), golden(c, "z"), c.rtol, c.atol));
  }
}

}  // namespace
