// Ops against the numpy goldens of the generators that write manifests
// (golden_manifest.h): every case through the op, with a strided input 0
// too, and each op once through a one-node graph. kManifests lists them.
#include <fstream>
#include <map>
#include <sstream>

#include "golden_util.h"
#include "graph/executor.h"
#include "graph/graph_builder.h"
#include "op_test_util.h"
#include "golden_manifest.h"

using namespace libops;
using namespace libops::test;

namespace {

// tools/gen_goldens_<dir>.py writes tests_cpu/golden/<dir>/.
const char* const kManifests[] = {"shape_ops", "scans", "sorting", "indexing", "linalg_ops", "random", "selection", "windows",
                                   "nn_act", "rnn", "image", "conv", "attention", "metrics", "layers", "conv3d",
                                   "low_precision", "loss", "libnd4j"};

std::vector<ManifestCase> all_cases() {
  std::vector<ManifestCase> v;
  for (const char* dir : kManifests)
    for (ManifestCase& c : load_manifest(dir)) v.push_back(std::move(c));
  return v;
}

// A manifest that is missing (a generator run half done when committed)
// would otherwise drop its cases without a word.
TEST(GoldenManifests, EveryManifestHasCases) {
  for (const char* dir : kManifests) EXPECT_FALSE(load_manifest(dir).empty()) << "tests_cpu/golden/" << dir << "/MANIFEST";
}

class OpGolden : public ::testing::TestWithParam<ManifestCase> {};

TEST_P(OpGolden, MatchesNumpy) {
  const ManifestCase& c = GetParam();
  std::vector<NDArray> in = c.load_inputs();
  std::vector<NDArray*> ptrs;
  for (NDArray& a : in) ptrs.push_back(&a);
  Context ctx;
  ASSERT_OK(run_op(c.op.c_str(), c.call(ptrs), ctx));
  ASSERT_EQ(ctx.num_outputs(), c.n_out);
  for (int k = 0; k < c.n_out; ++k) EXPECT_TRUE(same_array(*ctx.output(k), c.load_output(k), c.rtol, c.atol)) << "output " << k;
}

// Input 0 as a transposed view of a copy in the other order: same values.
TEST_P(OpGolden, StridedInput) {
  const ManifestCase& c = GetParam();
  std::vector<NDArray> in = c.load_inputs();
  if (in.empty() || in[0].rank() < 2) GTEST_SKIP() << "no input of rank >= 2";
  NDArray f, view;
  ASSERT_OK(in[0].dup('f', f));
  if (f.is_c_contiguous()) GTEST_SKIP() << "input 0 " << f.shape().str() << " is C-contiguous in F order too";
  in[0] = f;
  std::vector<NDArray*> ptrs;
  for (NDArray& a : in) ptrs.push_back(&a);
  Context ctx;
  ASSERT_OK(run_op(c.op.c_str(), c.call(ptrs), ctx));
  for (int k = 0; k < c.n_out; ++k) EXPECT_TRUE(same_array(*ctx.output(k), c.load_output(k), c.rtol, c.atol)) << "output " << k;
}

INSTANTIATE_TEST_SUITE_P(Cases, OpGolden, ::testing::ValuesIn(all_cases()),
                         [](const ::testing::TestParamInfo<ManifestCase>& info) {
                           return info.param.dir + "_" + info.param.op + "_" + info.param.name;
                         });

// Each op once through the graph path: input 0 fed, the rest constants.
TEST(GoldenOps, EveryOpRunsAsAGraphNode) {
  std::map<std::string, ManifestCase> first;
  for (const ManifestCase& c : all_cases()) first.emplace(c.op, c);
  for (const auto& [op, c] : first) {
    SCOPED_TRACE(op);
    std::vector<NDArray> in = c.load_inputs();
    graph::test::GraphBuilder g;
    graph::test::BodyBuilder& m = g.main();
    std::vector<graph::test::Ref> refs;
    for (size_t k = 0; k < in.size(); ++k)
      refs.push_back(k == 0 ? m.placeholder("x", in[0].dtype(), std::vector<int64_t>(in[0].shape().begin(), in[0].shape().end()))
                            : m.constant(str_format("c%zu", k), in[k]));
    graph::test::NodeArgs args;
    args.t = c.t;
    args.i = c.i;
    args.b = c.b;
    for (DataType d : c.d) args.d.push_back(static_cast<int32_t>(d));
    args.num_outputs = static_cast<uint32_t>(c.n_out);
    graph::test::Ref node = m.op(op.c_str(), refs, args, "node");
    for (int k = 0; k < c.n_out; ++k) m.output(str_format("z%d", k), graph::test::Ref(node.id(), static_cast<uint32_t>(k)));
    std::shared_ptr<const graph::Graph> loaded;
    ASSERT_OK(graph::test::load(g.finish(), loaded));
    graph::Session s(loaded);
    const NDArray* feeds[] = {in.empty() ? nullptr : &in[0]};
    ASSERT_OK(s.run(feeds, in.empty() ? 0 : 1));
    for (int k = 0; k < c.n_out; ++k) EXPECT_TRUE(same_array(s.output(k), c.load_output(k), c.rtol, c.atol)) << "output " << k;
  }
}

}  // namespace
