// One single-node graph per custom op (principle 14): built with the schema
// builders, loaded (arg counts checked against the op's declaration, shapes
// inferred at load through the op's shape function) and run through the
// executor. Input 0 is fed; the other inputs are graph constants. Expected
// values are computed by hand.
#include <gtest/gtest.h>

#include <cmath>

#include "graph/executor.h"
#include "graph_builder.h"
#include "test_util.h"

namespace libops::graph {
namespace {

using libops::test::all_close;
using libops::test::make;
using test::BodyBuilder;
using test::GraphBuilder;
using test::NodeArgs;
using test::Ref;

struct Arg {
  Arg(DataType t, Dims s, std::vector<double> v) : dtype(t), shape(s), values(std::move(v)) {}
  DataType dtype;
  Dims shape;
  std::vector<double> values;
};

struct CustomCase {
  CustomCase(const char* w, const char* o, std::vector<Arg> in, NodeArgs a, Arg out)
      : what(w), op(o), inputs(std::move(in)), args(std::move(a)), want(std::move(out)) {}
  const char* what;  // family/op
  const char* op;
  std::vector<Arg> inputs;
  NodeArgs args;
  Arg want;
};

NodeArgs i_args(std::vector<int64_t> i) {
  NodeArgs a;
  a.i = std::move(i);
  return a;
}

const DataType f32 = DataType::kFloat32, f64 = DataType::kFloat64, i32 = DataType::kInt32, i64 = DataType::kInt64;

std::vector<CustomCase> cases() {
  std::vector<CustomCase> v;
  // arith
  v.emplace_back("arith_add", "add", std::vector<Arg>{{f32, {2, 2}, {1, 2, 3, 4}}, {f32, {2}, {10, 20}}}, NodeArgs{},
                 Arg{f32, {2, 2}, {11, 22, 13, 24}});
  v.emplace_back("arith_subtract", "subtract", std::vector<Arg>{{i32, {3}, {5, 7, 9}}, {i32, {3}, {1, 2, 3}}},
                 NodeArgs{}, Arg{i32, {3}, {4, 5, 6}});
  v.emplace_back("arith_multiply", "multiply", std::vector<Arg>{{f64, {2}, {1.5, -2}}, {f64, {}, {4}}}, NodeArgs{},
                 Arg{f64, {2}, {6, -8}});
  v.emplace_back("arith_divide", "divide", std::vector<Arg>{{f32, {2}, {1, 9}}, {f32, {2}, {4, 3}}}, NodeArgs{},
                 Arg{f32, {2}, {0.25, 3}});
  v.emplace_back("arith_squared_difference", "squared_difference",
                 std::vector<Arg>{{f32, {3}, {1, 2, 3}}, {f32, {3}, {3, 2, 0}}}, NodeArgs{}, Arg{f32, {3}, {4, 0, 9}});
  // blas
  v.emplace_back("blas_matmul", "matmul",
                 std::vector<Arg>{{f32, {2, 3}, {1, 2, 3, 4, 5, 6}}, {f32, {3, 2}, {1, 0, 0, 1, 1, 1}}}, NodeArgs{},
                 Arg{f32, {2, 2}, {4, 5, 10, 11}});
  // linalg
  NodeArgs upper;
  upper.b = {true};
  v.emplace_back("linalg_cholesky", "cholesky", std::vector<Arg>{{f64, {2, 2}, {4, 2, 2, 5}}}, upper,
                 Arg{f64, {2, 2}, {2, 1, 0, 2}});
  v.emplace_back("linalg_triangular_solve", "triangular_solve",
                 std::vector<Arg>{{f64, {2, 2}, {2, 0, 1, 4}}, {f64, {2, 1}, {2, 9}}},
                 NodeArgs{}, Arg{f64, {2, 1}, {1, 2}});
  // signal: complex arrays are [..., 2] (real, imaginary)
  v.emplace_back("signal_fft", "fft", std::vector<Arg>{{f64, {2, 2}, {1, 0, 2, 0}}}, NodeArgs{},
                 Arg{f64, {2, 2}, {3, 0, -1, 0}});
  v.emplace_back("signal_ifft", "ifft", std::vector<Arg>{{f64, {2, 2}, {3, 0, -1, 0}}}, NodeArgs{},
                 Arg{f64, {2, 2}, {1, 0, 2, 0}});
  v.emplace_back("signal_rfft", "rfft", std::vector<Arg>{{f64, {4}, {1, 2, 3, 4}}}, NodeArgs{},
                 Arg{f64, {3, 2}, {10, 0, -2, 2, -2, 0}});
  v.emplace_back("signal_irfft", "irfft", std::vector<Arg>{{f64, {3, 2}, {10, 0, -2, 2, -2, 0}}}, NodeArgs{},
                 Arg{f64, {4}, {1, 2, 3, 4}});
  // nn
  v.emplace_back("nn_relu", "relu", std::vector<Arg>{{f32, {4}, {-1, 0, 2, -3.5}}}, NodeArgs{},
                 Arg{f32, {4}, {0, 0, 2, 0}});
  v.emplace_back("nn_relu6", "relu6", std::vector<Arg>{{f32, {4}, {-1, 3, 7, 6.5}}}, NodeArgs{},
                 Arg{f32, {4}, {0, 3, 6, 6}});
  v.emplace_back("nn_bias_add", "bias_add",
                 std::vector<Arg>{{f32, {2, 3}, {1, 2, 3, 4, 5, 6}}, {f32, {3}, {10, 20, 30}}}, NodeArgs{},
                 Arg{f32, {2, 3}, {11, 22, 33, 14, 25, 36}});
  v.emplace_back("nn_softmax", "softmax", std::vector<Arg>{{f64, {2}, {0, std::log(3.0)}}}, NodeArgs{},
                 Arg{f64, {2}, {0.25, 0.75}});
  NodeArgs no_eps;
  no_eps.t = {0.0};
  v.emplace_back("nn_batchnorm", "batchnorm",
                 std::vector<Arg>{{f32, {1, 2, 1, 2}, {1, 3, 2, 6}},
                                  {f32, {2}, {1, 2}},
                                  {f32, {2}, {4, 16}},
                                  {f32, {2}, {2, 1}},
                                  {f32, {2}, {0, 1}}},
                 no_eps, Arg{f32, {1, 2, 1, 2}, {0, 2, 1, 2}});
  v.emplace_back("nn_conv2d", "conv2d",
                 std::vector<Arg>{{f32, {1, 1, 3, 3}, {1, 2, 3, 4, 5, 6, 7, 8, 9}}, {f32, {1, 1, 2, 2}, {1, 0, 0, 1}}},
                 i_args({2, 2, 1, 1, 0, 0, 1, 1, 0}), Arg{f32, {1, 1, 2, 2}, {6, 8, 12, 14}});
  v.emplace_back("nn_maxpool2d", "maxpool2d", std::vector<Arg>{{f32, {1, 1, 2, 4}, {1, 5, 2, 0, 3, 4, 8, 7}}},
                 i_args({2, 2, 2, 2, 0, 0, 1, 1, 0}), Arg{f32, {1, 1, 1, 2}, {5, 8}});
  v.emplace_back("nn_avgpool2d", "avgpool2d", std::vector<Arg>{{f32, {1, 1, 2, 4}, {1, 5, 2, 0, 3, 4, 8, 7}}},
                 i_args({2, 2, 2, 2, 0, 0, 1, 1, 0}), Arg{f32, {1, 1, 1, 2}, {3.25, 4.25}});
  // reduce
  v.emplace_back("reduce_sum", "reduce_sum", std::vector<Arg>{{i32, {2, 3}, {1, 2, 3, 4, 5, 6}}}, i_args({1}),
                 Arg{i32, {2}, {6, 15}});
  v.emplace_back("reduce_mean", "reduce_mean", std::vector<Arg>{{f32, {2, 2}, {1, 2, 3, 5}}}, NodeArgs{},
                 Arg{f32, {}, {2.75}});
  NodeArgs keep;
  keep.i = {0};
  keep.b = {true};
  v.emplace_back("reduce_max", "reduce_max", std::vector<Arg>{{f32, {2, 3}, {1, 7, 3, 4, 2, 6}}}, keep,
                 Arg{f32, {1, 3}, {4, 7, 6}});
  // shape
  NodeArgs to_f64;
  to_f64.d = {static_cast<int32_t>(f64)};
  v.emplace_back("shape_cast", "cast", std::vector<Arg>{{i32, {3}, {1, -2, 3}}}, to_f64, Arg{f64, {3}, {1, -2, 3}});
  v.emplace_back("shape_concat", "concat", std::vector<Arg>{{f32, {1, 2}, {1, 2}}, {f32, {2, 2}, {3, 4, 5, 6}}},
                 NodeArgs{}, Arg{f32, {3, 2}, {1, 2, 3, 4, 5, 6}});
  v.emplace_back("shape_gather", "gather", std::vector<Arg>{{f32, {3, 2}, {1, 2, 3, 4, 5, 6}}, {i64, {2}, {2, 0}}},
                 NodeArgs{}, Arg{f32, {2, 2}, {5, 6, 1, 2}});
  v.emplace_back("shape_permute", "permute", std::vector<Arg>{{i32, {2, 3}, {1, 2, 3, 4, 5, 6}}}, i_args({1, 0}),
                 Arg{i32, {3, 2}, {1, 4, 2, 5, 3, 6}});
  v.emplace_back("shape_reshape", "reshape", std::vector<Arg>{{i32, {2, 3}, {1, 2, 3, 4, 5, 6}}}, i_args({3, -1}),
                 Arg{i32, {3, 2}, {1, 2, 3, 4, 5, 6}});
  return v;
}

class CustomGraph : public ::testing::TestWithParam<CustomCase> {};

TEST_P(CustomGraph, RunsAsASingleNodeGraph) {
  const CustomCase& c = GetParam();
  if (OpRegistry::instance().find(c.op) == nullptr) GTEST_SKIP() << "op '" << c.op << "' is not in this build";
  GraphBuilder g;
  BodyBuilder& m = g.main();
  std::vector<Ref> inputs;
  for (size_t i = 0; i < c.inputs.size(); ++i) {
    const Arg& a = c.inputs[i];
    if (i == 0)
      inputs.push_back(m.placeholder("x", a.dtype, std::vector<int64_t>(a.shape.begin(), a.shape.end())));
    else
      inputs.push_back(m.constant(str_format("c%zu", i), make(a.dtype, a.shape, a.values)));
  }
  m.output("z", m.op(c.op, inputs, c.args, "node"));
  std::shared_ptr<const Graph> graph;
  ASSERT_OK(test::load(g.finish(), graph));
  EXPECT_TRUE(graph->main().static_plan);
  EXPECT_EQ(graph->main().outputs[0].shape.str(), (TensorShape{c.want.dtype, c.want.shape, 'c'}).str());

  NDArray x = make(c.inputs[0].dtype, c.inputs[0].shape, c.inputs[0].values);
  const NDArray* feeds[] = {&x};
  Session s(graph);
  ASSERT_OK(s.run(feeds, 1));
  const NDArray& z = s.output(0);
  EXPECT_EQ(z.dtype(), c.want.dtype);
  EXPECT_EQ(z.shape(), c.want.shape);
  EXPECT_TRUE(all_close(z, c.want.values, 1e-6, 1e-6));
}

INSTANTIATE_TEST_SUITE_P(Ops, CustomGraph, ::testing::ValuesIn(cases()),
                         [](const ::testing::TestParamInfo<CustomCase>& info) { return std::string(info.param.what); });

}  // namespace
}  // namespace libops::graph
