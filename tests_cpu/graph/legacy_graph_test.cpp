// One single-node graph per legacy group: built with the schema builders,
// loaded, shape-inferred at load (legacy rules in graph/planner.h) and run
// through the executor. Expected values are computed by hand.
#include <gtest/gtest.h>

#include <cmath>
#include <limits>

#include "graph/executor.h"
#include "graph_builder.h"
#include "test_util.h"

namespace libops::graph {
namespace {

using libops::test::all_close;
using libops::test::make;
using libops::test::values;
using test::BodyBuilder;
using test::GraphBuilder;
using test::NodeArgs;
using test::Ref;

struct Input {
  Input() = default;
  // A constructor rather than an aggregate: GCC 12 warns (falsely) about
  // braced aggregates holding vectors at -O3.
  Input(DataType t, Dims s, std::vector<double> v) : dtype(t), shape(s), values(std::move(v)) {}
  DataType dtype = DataType::kInvalid;
  Dims shape;
  std::vector<double> values;
};

struct LegacyCase {
  const char* what;
  ops_legacy_group_t group;
  int num;
  Input x;
  Input y;  // dtype kInvalid: no y
  NodeArgs args;
  DataType out_dtype;
  Dims out_shape;
  std::vector<double> want;
};

NodeArgs with_axes(std::vector<int64_t> axes, bool keep = false) {
  NodeArgs a;
  a.axes = std::move(axes);
  if (keep) a.b = {true};
  return a;
}

NodeArgs with_t(std::vector<double> t) {
  NodeArgs a;
  a.t = std::move(t);
  return a;
}

NodeArgs with_d(DataType d) {
  NodeArgs a;
  a.d = {static_cast<int32_t>(d)};
  return a;
}

const double kNaN = std::numeric_limits<double>::quiet_NaN();
const DataType f32 = DataType::kFloat32, f64 = DataType::kFloat64, i32 = DataType::kInt32, i64 = DataType::kInt64,
               i16 = DataType::kInt16, b8 = DataType::kBool;

std::vector<LegacyCase> cases() {
  std::vector<LegacyCase> v;
  v.push_back(
      {"transform_float sqrt", OPS_TRANSFORM_FLOAT, 0, {i32, {4}, {0, 1, 4, 9}}, {}, {}, f32, {4}, {0, 1, 2, 3}});
  v.push_back(
      {"transform_same abs", OPS_TRANSFORM_SAME, 0, {i32, {4}, {-2, 3, -4, 0}}, {}, {}, i32, {4}, {2, 3, 4, 0}});
  v.push_back({"transform_same neg", OPS_TRANSFORM_SAME, 1, {f32, {2}, {1.5, -2}}, {}, {}, f32, {2}, {-1.5, 2}});
  v.push_back({"transform_strict exp",
               OPS_TRANSFORM_STRICT,
               0,
               {f64, {3}, {0, 1, -1}},
               {},
               {},
               f64,
               {3},
               {1, std::exp(1.0), std::exp(-1.0)}});
  v.push_back({"transform_bool is_nan", OPS_TRANSFORM_BOOL, 0, {f32, {3}, {1, kNaN, 2}}, {}, {}, b8, {3}, {0, 1, 0}});
  v.push_back({"transform_any assign to float64",
               OPS_TRANSFORM_ANY,
               0,
               {i16, {3}, {1, -2, 3}},
               {},
               with_d(f64),
               f64,
               {3},
               {1, -2, 3}});
  v.push_back({"scalar add",
               OPS_SCALAR,
               0,
               {f32, {2, 2}, {1, 2, 3, 4}},
               Input{f32, {}, {10}},
               {},
               f32,
               {2, 2},
               {11, 12, 13, 14}});
  v.push_back({"scalar_bool less_than",
               OPS_SCALAR_BOOL,
               1,
               {i32, {3}, {1, 5, 3}},
               Input{i32, {}, {3}},
               {},
               b8,
               {3},
               {1, 0, 0}});
  v.push_back({"scalar_int bitwise_and",
               OPS_SCALAR_INT,
               0,
               {i32, {3}, {6, 5, 12}},
               Input{i32, {1}, {4}},
               {},
               i32,
               {3},
               {4, 4, 4}});
  v.push_back({"pairwise subtract",
               OPS_PAIRWISE,
               1,
               {i64, {2, 2}, {9, 8, 7, 6}},
               Input{i64, {2, 2}, {1, 2, 3, 4}},
               {},
               i64,
               {2, 2},
               {8, 6, 4, 2}});
  v.push_back({"pairwise_bool equals",
               OPS_PAIRWISE_BOOL,
               0,
               {f32, {3}, {1, 2, 3}},
               Input{f32, {3}, {1, 0, 3}},
               {},
               b8,
               {3},
               {1, 0, 1}});
  v.push_back({"pairwise_int bitwise_and",
               OPS_PAIRWISE_INT,
               0,
               {i32, {3}, {12, 7, 5}},
               Input{i32, {3}, {10, 3, 4}},
               {},
               i32,
               {3},
               {8, 3, 4}});
  v.push_back({"broadcast add along dim 0",
               OPS_BROADCAST,
               0,
               {f32, {2, 3}, {1, 2, 3, 4, 5, 6}},
               Input{f32, {2}, {10, 20}},
               with_axes({0}),
               f32,
               {2, 3},
               {11, 12, 13, 24, 25, 26}});
  v.push_back({"broadcast_bool less_than along dim 1",
               OPS_BROADCAST_BOOL,
               1,
               {i32, {2, 3}, {1, 2, 3, 4, 5, 6}},
               Input{i32, {3}, {2, 5, 7}},
               with_axes({1}),
               b8,
               {2, 3},
               {1, 1, 1, 0, 0, 1}});
  v.push_back({"broadcast_int bitwise_and, numpy broadcasting",
               OPS_BROADCAST_INT,
               0,
               {i32, {2, 2}, {1, 2, 3, 4}},
               Input{i32, {2}, {1, 6}},
               {},
               i32,
               {2, 2},
               {1, 2, 1, 4}});
  v.push_back({"reduce_float mean, keep dims",
               OPS_REDUCE_FLOAT,
               0,
               {f32, {2, 3}, {1, 2, 3, 4, 5, 9}},
               {},
               with_axes({1}, true),
               f32,
               {2, 1},
               {2, 6}});
  v.push_back({"reduce_same sum of all", OPS_REDUCE_SAME, 0, {i32, {2, 3}, {1, 2, 3, 4, 5, 6}}, {}, {}, i32, {}, {21}});
  v.push_back({"reduce_bool any along dim 0",
               OPS_REDUCE_BOOL,
               0,
               {i32, {2, 3}, {0, 1, 0, 0, 2, 0}},
               {},
               with_axes({0}),
               b8,
               {3},
               {0, 1, 0}});
  v.push_back({"reduce_long count_nonzero", OPS_REDUCE_LONG, 0, {f32, {2, 2}, {0, 1.5, 0, -2}}, {}, {}, i64, {}, {2}});
  v.push_back({"reduce3 dot", OPS_REDUCE3, 0, {f32, {3}, {1, 2, 3}}, Input{f32, {3}, {4, -5, 6}}, {}, f32, {}, {12}});
  v.push_back({"index_reduce index_max along dim 1",
               OPS_INDEX_REDUCE,
               0,
               {f32, {2, 3}, {1, 9, 3, 7, 5, 6}},
               {},
               with_axes({-1}),
               i64,
               {2},
               {1, 0}});
  v.push_back(
      {"summary_stats variance (n - 1)", OPS_SUMMARY_STATS, 0, {f64, {4}, {1, 2, 3, 4}}, {}, {}, f64, {}, {5.0 / 3.0}});
  v.push_back({"summary_stats standard_deviation (n)",
               OPS_SUMMARY_STATS,
               1,
               {f64, {4}, {1, 2, 3, 4}},
               {},
               with_t({0}),
               f64,
               {},
               {std::sqrt(1.25)}});
  return v;
}

class LegacyGraph : public ::testing::TestWithParam<LegacyCase> {};

TEST_P(LegacyGraph, RunsAsASingleNodeGraph) {
  const LegacyCase& c = GetParam();
  GraphBuilder g;
  BodyBuilder& m = g.main();
  std::vector<int64_t> xs(c.x.shape.begin(), c.x.shape.end());
  std::vector<Ref> inputs{m.placeholder("x", c.x.dtype, xs)};
  const bool has_y = c.y.dtype != DataType::kInvalid;
  if (has_y) {
    std::vector<int64_t> ys(c.y.shape.begin(), c.y.shape.end());
    inputs.push_back(m.placeholder("y", c.y.dtype, ys));
  }
  m.output("z", m.legacy(c.group, c.num, inputs, c.args, "node"));
  std::shared_ptr<const Graph> graph;
  ASSERT_OK(test::load(g.finish(), graph));
  // Shapes are inferred at load from the declared inputs.
  EXPECT_EQ(graph->main().outputs[0].shape.str(), (TensorShape{c.out_dtype, c.out_shape, 'c'}).str());

  NDArray x = make(c.x.dtype, c.x.shape, c.x.values);
  NDArray y = has_y ? make(c.y.dtype, c.y.shape, c.y.values) : NDArray();
  std::vector<const NDArray*> feeds{&x};
  if (has_y) feeds.push_back(&y);
  Session s(graph);
  ASSERT_OK(s.run(feeds.data(), static_cast<int>(feeds.size())));
  const NDArray& z = s.output(0);
  EXPECT_EQ(z.dtype(), c.out_dtype);
  EXPECT_EQ(z.shape(), c.out_shape);
  EXPECT_TRUE(all_close(z, c.want, 1e-6, 1e-6));
}

INSTANTIATE_TEST_SUITE_P(Groups, LegacyGraph, ::testing::ValuesIn(cases()),
                         [](const ::testing::TestParamInfo<LegacyCase>& info) {
                           std::string name = info.param.what;
                           for (char& ch : name)
                             if (!std::isalnum(static_cast<unsigned char>(ch))) ch = '_';
                           return name;
                         });

TEST(LegacyGraphRandom, UniformIsSeededAndInRange) {
  // Without x: the shape comes from i_args and the dtype from d_args.
  auto build = [](std::optional<uint64_t> seed) {
    GraphBuilder g;
    NodeArgs a;
    a.i = {3, 4};
    a.d = {static_cast<int32_t>(DataType::kFloat64)};
    a.t = {-2.0, 3.0};
    a.seed = seed;
    g.main().output("r", g.main().legacy(OPS_RANDOM, 0, {}, a, "draw"));
    std::shared_ptr<const Graph> graph;
    EXPECT_TRUE(test::load(g.finish(), graph).is_ok());
    return graph;
  };
  auto run = [](const std::shared_ptr<const Graph>& graph, uint64_t session_seed) {
    Session s(graph);
    s.set_seed(session_seed);
    EXPECT_TRUE(s.run(nullptr, 0).is_ok());
    EXPECT_EQ(s.output(0).dtype(), DataType::kFloat64);
    EXPECT_EQ(s.output(0).shape(), (Dims{3, 4}));
    return values(s.output(0));
  };
  std::vector<double> a = run(build(7), 0), b = run(build(7), 99);
  EXPECT_EQ(a, b);  // the node's own seed wins
  for (double v : a) {
    EXPECT_GE(v, -2.0);
    EXPECT_LT(v, 3.0);
  }
  EXPECT_NE(a, run(build(8), 0));
  std::shared_ptr<const Graph> unseeded = build(std::nullopt);
  EXPECT_EQ(run(unseeded, 5), run(unseeded, 5));  // the session's seed
  EXPECT_NE(run(unseeded, 5), run(unseeded, 6));
}

}  // namespace
}  // namespace libops::graph
