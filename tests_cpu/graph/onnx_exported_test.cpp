// ONNX models as exporters write them (tools/gen_goldens_onnx_exported.py):
// symbolic dims, shapes computed at run time, shape logic wrapped in If,
// opsets 11 to 27. Each golden case is loaded once and run through one
// session on each of its input sets in order (a model with symbolic dims
// sees several shapes), every output compared with ONNX Runtime's; then the
// refusals, and the operator-version table (Note [Operator versions]).
#include <gtest/gtest.h>

#include <cmath>
#include <fstream>
#include <map>
#include <memory>
#include <set>
#include <sstream>
#include <string>
#include <vector>

#include "golden_util.h"
#include "onnx_golden_manifest.h"
#include "graph/executor.h"
#include "graph/onnx/onnx_convert.h"
#include "graph/onnx/onnx_import.h"
#include "graph/onnx/onnx_versions.h"
#include "libops/c_graph.h"
#include "test_util.h"

namespace libops::graph {
namespace {

const std::string kSub = "onnx_exported/";
const std::string kDir = std::string(LIBOPS_GOLDEN_DIR) + "/" + kSub;

using ExportedCase = test::OnnxGoldenCase;

std::vector<ExportedCase> load_cases() { return test::load_onnx_manifest(kDir); }

class OnnxExported : public ::testing::TestWithParam<ExportedCase> {};

TEST_P(OnnxExported, MatchesOnnxRuntimeAtEveryShape) {
  const ExportedCase& c = GetParam();
  std::shared_ptr<const Graph> g;
  ASSERT_OK(Graph::load_file(kDir + c.name + ".onnx", g));
  ASSERT_EQ(static_cast<int>(g->main().inputs.size()), c.n_in);
  ASSERT_EQ(static_cast<int>(g->main().outputs.size()), c.n_out);
  Session s(g);
  for (int j = 0; j < c.sets; ++j) {
    const std::string set = c.name + ".s" + std::to_string(j);
    std::vector<NDArray> inputs;
    for (int k = 0; k < c.n_in; ++k) inputs.push_back(test::load_golden(kSub + set + ".in" + std::to_string(k) + ".npy"));
    std::vector<const NDArray*> ptrs;
    for (const NDArray& a : inputs) ptrs.push_back(&a);
    SCOPED_TRACE("input set " + std::to_string(j));
    ASSERT_OK(s.run(ptrs.data(), static_cast<int>(ptrs.size())));
    for (int k = 0; k < c.n_out; ++k) {
      NDArray want = test::load_golden(kSub + set + ".out" + std::to_string(k) + ".npy");
      EXPECT_TRUE(test::matches_golden(s.output(k), want, c.rtol, c.atol))
          << "input set " << j << ", output " << k << " ('" << g->main().outputs[k].name << "')";
    }
  }
}

INSTANTIATE_TEST_SUITE_P(Exported, OnnxExported, ::testing::ValuesIn(load_cases()),
                         [](const ::testing::TestParamInfo<ExportedCase>& info) { return info.param.name; });

TEST(OnnxExportedGoldens, ManifestIsThere) { EXPECT_GE(load_cases().size(), 4u); }

std::string convert_error(const std::string& file) {
  onnx::ConvertResult r;
  Status s = onnx::convert_file(kDir + file, r);
  EXPECT_FALSE(s.is_ok()) << file << " converted";
  return s.message();
}

bool has(const std::string& text, const std::string& part) { return text.find(part) != std::string::npos; }

TEST(OnnxOperatorVersions, NodesResolveToTheVersionAtTheirOpset) {
  using onnx::operator_version;
  EXPECT_EQ(operator_version("Add", 25).version, 14);
  EXPECT_EQ(operator_version("Add", 13).version, 13);
  EXPECT_EQ(operator_version("Add", 7).version, 7);
  EXPECT_EQ(operator_version("Reshape", 27).version, 25);
  EXPECT_EQ(operator_version("Attention", 27).version, 24);
  // Not yet there, removed, and not an ONNX operator.
  onnx::OperatorVersion gelu = operator_version("Gelu", 18);
  EXPECT_EQ(gelu.version, 0);
  EXPECT_EQ(gelu.first, 20);
  onnx::OperatorVersion up = operator_version("Upsample", 12);
  EXPECT_EQ(up.version, 0);
  EXPECT_EQ(up.removed, 10);
  EXPECT_EQ(operator_version("Upsample", 9).version, 9);
  EXPECT_EQ(operator_version("Upsample", 9).removed, 0);
  EXPECT_EQ(operator_version("FusedConv", 13).first, 0);
  EXPECT_EQ(onnx::newest_opset(), onnx::kMaxOpset);
}

// A row is written for the operator versions it names; it must start at one
// of the operator's versions and end at the newest or just before another,
// or a model whose opset falls between would be mapped by the wrong row.
TEST(OnnxOperatorVersions, EveryRowSpansWholeVersions) {
  std::map<std::string, std::set<int>> since;
  for (const auto& [name, versions] : onnx::default_domain_operators())
    for (int v : versions) since[name].insert(v);
  for (const onnx::OpMapping& m : onnx::mapping_table()) {
    SCOPED_TRACE(std::string(m.op_type) + " " + std::to_string(m.first_version) + "-" +
                 std::to_string(m.last_version));
    ASSERT_TRUE(since.count(m.op_type)) << "not an operator of the version table";
    EXPECT_TRUE(since[m.op_type].count(m.first_version)) << "the first version is not one of the operator's";
    EXPECT_TRUE(m.last_version == onnx::kMaxOpset || since[m.op_type].count(m.last_version + 1) ||
                since[m.op_type].count(-(m.last_version + 1)))
        << "the row ends inside a version";
  }
}

TEST(OnnxOperatorVersions, RefusalsSayWhy) {
  std::string m = convert_error("err_upsample_opset10.onnx");
  EXPECT_TRUE(has(m, "(Upsample, opset 10): op Upsample was removed from ONNX at opset 10")) << m;
  m = convert_error("err_gelu_opset18.onnx");
  EXPECT_TRUE(has(m, "(Gelu, opset 18): op Gelu exists from opset 20 on; the model imports opset 18")) << m;
}

// Note [Low-precision values]: a loop's results carry no format, so a body
// that makes float8 is refused, naming the value and its type.
TEST(OnnxQuantization, BlockedScaleOfAnotherRankIsRefused) {
  const std::string m = convert_error("err_quantize_blocked_rank.onnx");
  EXPECT_TRUE(has(m, "node 0 'qb' (QuantizeLinear, opset 21): input 1 has rank 1; blocked quantization (block_size 2) "
                     "needs x's rank, 2"))
      << m;
}

// Note [Custom domains]: what a custom-domain node may not do is named.
TEST(OnnxCustomDomains, UndeclaredAttributesAndUnknownOpsAreRefused) {
  const std::string m = convert_error("err_custom_domain.onnx");
  EXPECT_TRUE(has(m, "node 0 'sm' (softmax, domain com.example): attribute 'temperature' is not an arg of op 'softmax' "
                     "(it declares: axis)"))
      << m;
  onnx::ConvertResult r;
  (void)onnx::convert_file(kDir + "err_custom_domain.onnx", r);
  ASSERT_EQ(r.problems.size(), 2u);
  EXPECT_TRUE(has(r.problems[1], "node 1 'fr' (frobnicate, domain com.example): op type 'frobnicate' of domain "
                                 "'com.example' names no registered op"))
      << r.problems[1];
}

// Note [Run-time sequences]: the list grown in the loop is a graph output
// here, so it is a run-time list, not a stacked one (loop_appended_sequence
// in the manifest stacks it): its elements come back one by one. The body:
// acc = acc * 0.5 + i; seq += [tanh(acc)].
TEST(OnnxSequences, LoopGrownSequenceAsAGraphOutput) {
  std::shared_ptr<const Graph> g;
  ASSERT_OK(Graph::load_file(kDir + "loop_sequence_output.onnx", g));
  ASSERT_EQ(g->main().outputs.size(), 1u);
  EXPECT_EQ(g->main().outputs[0].kind, ValueKind::kSequence);
  Session s(g);
  const std::vector<double> x0 = {0.5, -1, 2, 0, 1.5, -0.25, 3, -2};
  NDArray x = test::make(DataType::kFloat32, {2, 4}, x0);
  for (int64_t trips : {3, 0}) {
    NDArray t = test::make(DataType::kInt64, {}, {static_cast<double>(trips)});
    ASSERT_OK(s.run({{"x", &x}, {"trips", &t}}));
    const TensorList* seq = s.output_list(0);
    ASSERT_NE(seq, nullptr);
    ASSERT_EQ(seq->items.size(), static_cast<size_t>(trips));
    std::vector<double> acc = x0;
    for (int64_t i = 0; i < trips; ++i) {
      std::vector<double> want;
      for (double& a : acc) {
        a = a * 0.5 + static_cast<double>(i);
        want.push_back(std::tanh(a));
      }
      EXPECT_EQ(seq->items[static_cast<size_t>(i)].shape(), Dims({2, 4}));
      EXPECT_TRUE(test::all_close(seq->items[static_cast<size_t>(i)], want, 1e-5)) << "element " << i;
    }
  }
}

TEST(OnnxLowPrecision, LoopBodyMakingFloat8IsRefused) {
  const std::string m = convert_error("err_loop_fp8_body.onnx");
  EXPECT_TRUE(has(m, "(Loop, opset 19): body output 'v_out' is FLOAT8E4M3FN; loops over float8")) << m;
}

// Note [Plans per input shapes] and Note [Shape values]: a model with a
// symbolic batch, fed two batch sizes in turn, plans each once; its shape
// arithmetic (Shape -> Gather -> Unsqueeze -> Concat) is computed when
// planned and not run again, so a run executes the reshape and the matmul
// alone, as the same model with fixed dims does, with the golden outputs.
TEST(OnnxExportedPlans, ShapeArithmeticRunsOncePerSignature) {
  std::shared_ptr<const Graph> g;
  ASSERT_OK(Graph::load_file(kDir + "view_batch_flatten.onnx", g));
  Session s(g);
  s.set_profiling(true);
  for (int round = 0; round < 2; ++round)
    for (int j = 0; j < 2; ++j) {
      SCOPED_TRACE(testing::Message() << "round " << round << ", set " << j);
      const std::string set = "view_batch_flatten.s" + std::to_string(j);
      NDArray x = test::load_golden(kSub + set + ".in0.npy");
      const NDArray* in[] = {&x};
      ASSERT_OK(s.run(in, 1));
      EXPECT_TRUE(test::matches_golden(s.output(0), test::load_golden(kSub + set + ".out0.npy"), 1e-5, 1e-6));
      std::set<std::string> ran;
      for (const NodeProfile& n : s.profile().nodes)
        if (n.calls > 0) ran.insert(n.op);
      EXPECT_EQ(ran, (std::set<std::string>{"reshape", "matmul"}));
    }
}

// Symbolic dims keep their names from the ONNX file to the loaded graph
// (ops_graph_input_dim_name), and ops_onnx_describe lists the model's own
// declarations without converting it.
TEST(OnnxExportedInfo, SymbolicDimsKeepTheirNames) {
  const std::string path = kDir + "decoder_step_gqa_cache.onnx";
  ops_graph_t* g = nullptr;
  ASSERT_EQ(ops_graph_load_file(path.c_str(), &g), OPS_OK) << ops_last_error();
  const char* name = nullptr;
  ASSERT_EQ(ops_graph_input_dim_name(g, 2, 0, &name), OPS_OK);
  EXPECT_STREQ(name, "batch");
  ASSERT_EQ(ops_graph_input_dim_name(g, 2, 2, &name), OPS_OK);
  EXPECT_STREQ(name, "past");
  ASSERT_EQ(ops_graph_input_dim_name(g, 2, 1, &name), OPS_OK);
  EXPECT_STREQ(name, "") << "a known extent has no name";
  EXPECT_EQ(ops_graph_input_dim_name(g, 2, 4, &name), OPS_ERR_INVALID_ARGUMENT);
  EXPECT_TRUE(has(ops_last_error(), "dim 4 is out of range for input 'past_k' of rank 4")) << ops_last_error();
  EXPECT_EQ(ops_graph_input_dim_name(g, 9, 0, &name), OPS_ERR_INVALID_ARGUMENT);
  EXPECT_EQ(ops_graph_input_dim_name(nullptr, 0, 0, &name), OPS_ERR_NULL_POINTER);
  EXPECT_EQ(ops_graph_input_dim_name(g, 0, 0, nullptr), OPS_ERR_NULL_POINTER);
  ops_graph_free(g);

  const char* text = nullptr;
  ASSERT_EQ(ops_onnx_describe(path.c_str(), &text), OPS_OK) << ops_last_error();
  const std::string t = text;
  EXPECT_TRUE(has(t, "opset 24 (default domain")) << t;
  EXPECT_TRUE(has(t, "input past_k: float32[batch,2,past,4]\n")) << t;
  EXPECT_TRUE(has(t, "input pos_ids: int64[batch,seq]\n")) << t;
  EXPECT_EQ(ops_onnx_describe((kDir + "missing.onnx").c_str(), &text), OPS_ERR_IO);
  EXPECT_EQ(ops_onnx_describe(nullptr, &text), OPS_ERR_NULL_POINTER);
}

}  // namespace
}  // namespace libops::graph
