// LIBOPS_LOG_LEVEL=trace shows what a user debugging a model needs: the
// load (inputs, outputs, rewrites), then one line per node run with its
// input and output shapes, and one per op called through the C API. Off
// (the default), nothing is printed.
#include <gtest/gtest.h>

#include <string>

#include "graph/executor.h"
#include "graph_builder.h"
#include "libops/c_api.h"
#include "libops/core/log.h"
#include "test_util.h"

namespace libops::graph {
namespace {

using libops::test::make;
using test::GraphBuilder;
using test::Ref;

std::string load_and_run_logged(LogLevel level) {
  GraphBuilder g;
  auto& m = g.main();
  Ref x = m.placeholder("x", DataType::kFloat32, std::vector<int64_t>{2, 3});
  m.output("y", m.op("relu", {m.op("neg", {x}, {}, "neg1")}, {}, "relu1"));
  const std::vector<uint8_t> bytes = g.finish();
  NDArray xv = make(DataType::kFloat32, {2, 3}, {1, -2, 3, -4, 5, -6});
  set_log_level(level);
  testing::internal::CaptureStderr();
  std::shared_ptr<const Graph> graph;
  Status loaded = test::load(bytes, graph);
  if (loaded.is_ok()) {
    Session s(graph);
    const NDArray* in[] = {&xv};
    EXPECT_TRUE(s.run(in, 1).is_ok());
  }
  ops_array_t *a = nullptr, *out = nullptr;
  const int64_t shape[] = {3};
  const float v[] = {1, -1, 2};
  EXPECT_EQ(ops_array_create_from(OPS_DTYPE_FLOAT32, 1, shape, v, sizeof v, &a), OPS_OK);
  EXPECT_EQ(ops_array_create(OPS_DTYPE_FLOAT32, 1, shape, 'c', &out), OPS_OK);
  EXPECT_EQ(ops_exec("abs", &a, 1, &out, 1, nullptr), OPS_OK);
  ops_array_free(a);
  ops_array_free(out);
  const std::string text = testing::internal::GetCapturedStderr();
  set_log_level(LogLevel::kOff);
  EXPECT_TRUE(loaded.is_ok()) << loaded.message();
  return text;
}

TEST(TraceLog, NamesTheLoadEachNodeAndEachOpCall) {
  const std::string text = load_and_run_logged(LogLevel::kTrace);
  EXPECT_NE(text.find("graph: loaded"), std::string::npos) << text;
  EXPECT_NE(text.find("inputs x float32[2,3]; outputs y float32[2,3]"), std::string::npos) << text;
  // neg and relu run as one node that names both (Note [Element-wise fusion]).
  EXPECT_NE(text.find("graph rewrite: nodes 1 'neg1' fused into node 2 'relu1'"), std::string::npos) << text;
  EXPECT_NE(text.find("'relu1' (fused_elementwise(neg, relu)) float32[2,3] -> float32[2,3] in"), std::string::npos)
      << text;
  EXPECT_NE(text.find("op call: abs(float32[3]) -> float32[3]"), std::string::npos) << text;
}

TEST(TraceLog, SaysNothingWhenOff) { EXPECT_EQ(load_and_run_logged(LogLevel::kOff), ""); }

}  // namespace
}  // namespace libops::graph
