// ONNX import (graph/onnx/): every golden model of tests_cpu/golden/onnx
// (tools/gen_goldens_onnx.py: built with onnx.helper, expected outputs from
// ONNX Runtime) is loaded with Graph::load_file, run, and compared with
// ONNX Runtime's outputs; then the refusals: unsupported ops, attributes and
// inputs, list mode, corrupt files, external data outside the model's folder.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstring>
#include <fstream>
#include <numeric>
#include <sstream>
#include <string>
#include <vector>

#include "golden_util.h"
#include "onnx_golden_manifest.h"
#include "graph/executor.h"
#include "graph/onnx/onnx_import.h"
#include "libops/c_graph.h"
#include "test_util.h"

namespace libops::graph {
namespace {

const std::string kDir = std::string(LIBOPS_GOLDEN_DIR) + "/onnx/";

using OnnxCase = test::OnnxGoldenCase;

std::vector<OnnxCase> load_cases() { return test::load_onnx_manifest(kDir); }

std::vector<uint8_t> read_bytes(const std::string& path) {
  std::ifstream f(path, std::ios::binary);
  return std::vector<uint8_t>((std::istreambuf_iterator<char>(f)), std::istreambuf_iterator<char>());
}

class OnnxGolden : public ::testing::TestWithParam<OnnxCase> {};

TEST_P(OnnxGolden, MatchesOnnxRuntime) {
  const OnnxCase& c = GetParam();
  std::shared_ptr<const Graph> g;
  ASSERT_OK(Graph::load_file(kDir + c.name + ".onnx", g));
  ASSERT_EQ(static_cast<int>(g->main().inputs.size()), c.n_in);
  ASSERT_EQ(static_cast<int>(g->main().outputs.size()), c.n_out);
  std::vector<NDArray> inputs;
  for (int k = 0; k < c.n_in; ++k) inputs.push_back(test::load_golden("onnx/" + c.name + ".in" + std::to_string(k) + ".npy"));
  std::vector<const NDArray*> ptrs;
  for (const NDArray& a : inputs) ptrs.push_back(&a);
  Session s(g);
  ASSERT_OK(s.run(ptrs.data(), static_cast<int>(ptrs.size())));
  for (int k = 0; k < c.n_out; ++k) {
    NDArray want = test::load_golden("onnx/" + c.name + ".out" + std::to_string(k) + ".npy");
    EXPECT_TRUE(test::matches_golden(s.output(k), want, c.rtol, c.atol)) << "output " << k << " ('" << g->main().outputs[k].name
                                                             << "')";
  }
}

INSTANTIATE_TEST_SUITE_P(Onnx, OnnxGolden, ::testing::ValuesIn(load_cases()),
                         [](const ::testing::TestParamInfo<OnnxCase>& info) { return info.param.name; });

TEST(OnnxImport, GoldenManifestIsThere) { EXPECT_GT(load_cases().size(), 150u); }

// ONNX Gelu becomes the gelu op (its vectorized float32 path), not the
// legacy kernel: a [128, 3072] node took 7.0 ms that way and takes 0.37 ms
// (ops-run --repeat, one thread). The values: the golden cases above.
// HardSigmoid and HardSwish are one node each (their ops' functors), not
// multiply, add, clip (and multiply): a [1, 96, 112, 112] HardSwish took
// 1.71 ms that way and takes 0.35 ms (ops-run --repeat 100, one thread).
TEST(OnnxImport, HardSigmoidAndHardSwishAreOneNodeEach) {
  for (const char* name : {"hardsigmoid", "hardsigmoid_f16", "hardswish"}) {
    std::shared_ptr<const Graph> g;
    ASSERT_OK(Graph::load_file(kDir + name + ".onnx", g));
    const auto& nodes = g->main().nodes;
    ASSERT_EQ(nodes.size(), 1u) << name;
    EXPECT_EQ(nodes[0].op_label, std::string(name) == "hardswish" ? "hard_swish" : "hard_sigmoid") << name;
  }
}

TEST(OnnxImport, GeluIsTheGeluOp) {
  for (const char* name : {"gelu", "gelu_tanh"}) {
    std::shared_ptr<const Graph> g;
    ASSERT_OK(Graph::load_file(kDir + name + ".onnx", g));
    const auto& nodes = g->main().nodes;
    ASSERT_EQ(nodes.size(), 1u) << name;
    EXPECT_EQ(nodes[0].op_label, "gelu") << name;
    EXPECT_EQ(nodes[0].args.i.empty() ? -1 : nodes[0].args.i[0], std::string(name) == "gelu" ? 0 : 1) << name;
  }
}

// Graph input and output names survive; a dim_param becomes -1.
TEST(OnnxImport, KeepsNamesAndDynamicDims) {
  std::shared_ptr<const Graph> g;
  ASSERT_OK(Graph::load_file(kDir + "model_mlp.onnx", g));
  ASSERT_EQ(g->main().inputs.size(), 1u);
  EXPECT_EQ(g->main().inputs[0].name, "x");
  EXPECT_EQ(g->main().inputs[0].shape.str(), "float32[?,48]");
  ASSERT_EQ(g->main().outputs.size(), 2u);
  EXPECT_EQ(g->main().outputs[0].name, "probs");
  EXPECT_EQ(g->main().outputs[1].name, "logits");
  // Another batch size than the golden's runs too.
  NDArray x = test::make(DataType::kFloat32, {1, 48}, std::vector<double>(48, 0.25));
  const NDArray* in[] = {&x};
  Session s(g);
  ASSERT_OK(s.run(in, 1));
  EXPECT_EQ(s.output("probs")->shape().str(), "[1,10]");
}

// A file without the .onnx name is still read as ONNX when it lacks the
// libops identifier and starts as ONNX files do; other bytes keep the
// graph loader's own message.
TEST(OnnxImport, DetectsOnnxByContent) {
  const std::vector<uint8_t> bytes = read_bytes(kDir + "gemm.onnx");
  const std::string path = std::string(LIBOPS_BUILD_DIR) + "/onnx_import_test_model.bin";
  {
    std::ofstream f(path, std::ios::binary);
    f.write(reinterpret_cast<const char*>(bytes.data()), static_cast<std::streamsize>(bytes.size()));
  }
  std::shared_ptr<const Graph> g;
  ASSERT_OK(Graph::load_file(path, g));
  EXPECT_EQ(g->main().inputs[0].name, "a");
  EXPECT_TRUE(onnx::looks_like_onnx("m.bin", bytes.data(), bytes.size()));
  const char lops[8] = {0x08, 0, 0, 0, 'L', 'O', 'P', 'S'};
  EXPECT_FALSE(onnx::looks_like_onnx("m.lops", lops, sizeof lops));
  EXPECT_TRUE(onnx::looks_like_onnx("m.onnx", lops, 0));
  const char other[8] = {'x', 0, 0, 0, 'A', 'B', 'C', 'D'};
  EXPECT_FALSE(onnx::looks_like_onnx("m.bin", other, sizeof other));
  std::remove(path.c_str());
}

// The converted bytes are a graph file that loads like any other.
TEST(OnnxImport, ConvertsToLopsBytes) {
  onnx::ConvertResult r;
  ASSERT_OK(onnx::convert_file(kDir + "model_cnn.onnx", r));
  EXPECT_TRUE(r.problems.empty());
  ASSERT_GT(r.lops.size(), 8u);
  EXPECT_EQ(std::memcmp(r.lops.data() + 4, "LOPS", 4), 0);
  EXPECT_EQ(reinterpret_cast<uintptr_t>(r.lops.data()) % 64, 0u);  // aligned, so its constants can be viewed
  std::shared_ptr<const Graph> g;
  LoadOptions as_converted;  // the nodes the importer wrote, before the loader's fusions
  as_converted.rewrites = false;
  ASSERT_OK(Graph::load_buffer(r.lops.data(), r.lops.size(), as_converted, g));
  EXPECT_GT(g->num_nodes(), 10);
  // Loaded from the .onnx file, the weights are used where the converted
  // bytes hold them, not copied.
  std::shared_ptr<const Graph> direct;
  ASSERT_OK(Graph::load_file(kDir + "model_cnn.onnx", direct));
  EXPECT_GT(direct->constants_in_place(), 0);
  EXPECT_EQ(direct->constants_copied(), 0);
}

// Note [Constant folding] in onnx_convert.cpp: a shape computed from a
// static shape is folded, so the Reshape that reads it is the only node left.
TEST(OnnxImport, FoldsConstantSubgraphs) {
  std::shared_ptr<const Graph> g;
  ASSERT_OK(Graph::load_file(kDir + "shape_chain_reshape.onnx", g));
  ASSERT_EQ(g->main().nodes.size(), 1u);
  EXPECT_EQ(g->main().nodes[0].op_label, "reshape");
  ASSERT_OK(Graph::load_file(kDir + "range_folded.onnx", g));
  ASSERT_EQ(g->main().nodes.size(), 1u);
  EXPECT_EQ(g->main().nodes[0].op_label, "add");
}

// Whole blocks imported from ONNX go through the loader's rewrites (Note
// [Graph rewrites]); the goldens check their outputs against ONNX Runtime.
TEST(OnnxImport, ModelsImportedFromOnnxAreRewritten) {
  auto rewrites_of = [](const std::string& file, GraphLayout layout = GraphLayout::kNhwc) {
    std::shared_ptr<const Graph> g;
    LoadOptions o;
    o.layout = layout;
    EXPECT_OK(Graph::load_file(kDir + file, o, g));
    std::string all;
    if (g)
      for (const std::string& r : g->rewrites()) all += r + "\n";
    return all;
  };
  const std::string mobilenet = rewrites_of("model_mobilenet_block.onnx");
  EXPECT_NE(mobilenet.find("3 convolution and pooling nodes run channels-last"), std::string::npos) << mobilenet;
  EXPECT_NE(mobilenet.find("(batchnorm) folded into"), std::string::npos) << mobilenet;
  EXPECT_NE(mobilenet.find("(clip) fused into"), std::string::npos) << mobilenet;
  const std::string bert = rewrites_of("model_bert_mini.onnx");
  EXPECT_NE(bert.find("(a decomposed layer norm) became layer_norm"), std::string::npos) << bert;
  EXPECT_NE(bert.find("(a decomposed gelu) became gelu"), std::string::npos) << bert;
  EXPECT_NE(bert.find("and 5 nodes before it (softmax(q k^T) v) became dot_product_attention"), std::string::npos)
      << bert;
  const std::string unet = rewrites_of("model_unet_mini.onnx");
  EXPECT_NE(unet.find("5 convolution and pooling nodes run channels-last"), std::string::npos) << unet;
  const std::string blocked = rewrites_of("model_mobilenet_block.onnx", GraphLayout::kNchwc);
  EXPECT_NE(blocked.find("3 convolution and pooling nodes run channel-blocked (NCHWc"), std::string::npos) << blocked;
}

std::string convert_error(const std::string& file, std::vector<std::string>* problems = nullptr) {
  onnx::ConvertResult r;
  Status s = onnx::convert_file(kDir + file, r);
  EXPECT_FALSE(s.is_ok()) << file << " converted";
  if (problems) *problems = r.problems;
  return s.message();
}

::testing::AssertionResult has(const std::string& text, const std::string& part) {
  if (text.find(part) != std::string::npos) return ::testing::AssertionSuccess();
  return ::testing::AssertionFailure() << "'" << part << "' not in: " << text;
}

TEST(OnnxImportErrors, UnsupportedOpNamesNodeOpTypeAndOpset) {
  const std::string m = convert_error("err_unsupported_op.onnx");
  EXPECT_TRUE(has(m, "node 1 'my_normalizer' (StringNormalizer, opset 13): op type 'StringNormalizer' is not supported"))
      << m;
  std::shared_ptr<const Graph> g;
  Status s = Graph::load_file(kDir + "err_unsupported_op.onnx", g);
  EXPECT_EQ(s.code(), StatusCode::kNotImplemented);
  EXPECT_TRUE(has(s.message(), "my_normalizer"));
}

TEST(OnnxImportErrors, UnsupportedAttributeValue) {
  const std::string m = convert_error("err_bad_attribute.onnx");
  EXPECT_TRUE(has(m, "node 0 'pool1' (MaxPool, opset 13): attribute 'ceil_mode' = 1 with different pads before and after "
                     "is not supported"))
      << m;
}

TEST(OnnxImportErrors, ResizeCropOfAThreeDInputIsRefused) {
  const std::string m = convert_error("err_resize_crop.onnx");
  EXPECT_TRUE(has(m, "node 0 'up' (Resize, opset 13): attribute 'coordinate_transformation_mode' = "
                     "'tf_crop_and_resize' is supported for 4-D inputs only")) << m;
}

TEST(OnnxImportErrors, UniqueAxisNeedsKnownSmallSlices) {
  std::string m = convert_error("err_unique_axis_dynamic.onnx");
  EXPECT_TRUE(has(m, "node 0 'u' (Unique, opset 11): attribute 'axis' needs the input's dims to be known when the "
                     "graph is imported")) << m;
  m = convert_error("err_unique_axis_wide.onnx");
  EXPECT_TRUE(has(m, "node 0 'u' (Unique, opset 11): attribute 'axis' slices of 300 elements: at most 256 are "
                     "supported (one sort each)")) << m;
}

TEST(OnnxImportErrors, FlexAttentionNeedsOpset15) {
  const std::string m = convert_error("err_flex_attention_opset.onnx");
  EXPECT_TRUE(has(m, "node 0 'fa' (FlexAttention, domain ai.onnx.preview): needs the default domain's opset 15 or "
                     "newer (the model's is 13)")) << m;
}

TEST(OnnxImportErrors, AttributeTheMappingDoesNotReadIsRefused) {
  const std::string m = convert_error("err_unknown_attribute.onnx");
  EXPECT_TRUE(has(m, "node 0 'r' (Relu, opset 13): attribute 'not_an_onnx_attribute' is not supported")) << m;
}

// A shape known only at run time (Note [Import-time shapes] cannot fold
// it) becomes shape_of and a reshape fed its shape; the goldens
// shape_chain_dynamic and reshape_runtime_shape check the values.
TEST(OnnxImport, ShapeOfADynamicInputRunsAtRunTime) {
  std::shared_ptr<const Graph> g;
  ASSERT_OK(Graph::load_file(kDir + "shape_chain_dynamic.onnx", g));
  int shape_ofs = 0;
  for (const Node& n : g->main().nodes) shape_ofs += n.op_label == "shape_of" ? 1 : 0;
  EXPECT_EQ(shape_ofs, 1);
  // Another batch than the golden's.
  NDArray x = test::make(DataType::kFloat32, {5, 3, 4}, std::vector<double>(60, 1.5));
  const NDArray* in[] = {&x};
  Session s(g);
  ASSERT_OK(s.run(in, 1));
  EXPECT_EQ(s.output(0).shape().str(), "[5,12]");
}

// err_loop_scan.onnx was refused while Loop's scan outputs were not
// imported; its body doubles v three times and stacks v as it was:
// z = 8x, zs = [x, 2x, 4x].
TEST(OnnxImport, LoopScanOutputsStackEachIteration) {
  std::shared_ptr<const Graph> g;
  ASSERT_OK(Graph::load_file(kDir + "err_loop_scan.onnx", g));
  NDArray x = test::make(DataType::kFloat32, {2}, {1.5, -2});
  const NDArray* in[] = {&x};
  Session s(g);
  ASSERT_OK(s.run(in, 1));
  EXPECT_TRUE(test::all_close(*s.output("z"), {12, -16}));
  EXPECT_EQ(s.output("zs")->shape().str(), "[3,2]");
  EXPECT_TRUE(test::all_close(*s.output("zs"), {1.5, -2, 3, -4, 6, -8}));
}

TEST(OnnxImportErrors, ScanConstructsLeftOutAreRefusedClearly) {
  std::string m = convert_error("err_scan_sequence_lens.onnx");
  EXPECT_TRUE(has(m, "node 0 'seq' (Scan, opset 8): input 0 (sequence_lens) holds length 2, but the scan inputs' "
                     "sequence length is 4; only full-length sequences are supported"))
      << m;
  m = convert_error("err_scan_output_axis.onnx");
  EXPECT_TRUE(has(m, "node 0 'unranked' (Scan, opset 11): attribute 'scan_output_axes' entry 0 is 1, but the rank of "
                     "scan output 0 is not known at import"))
      << m;
}

// A node inside a branch is named with the If node around it.
TEST(OnnxImportErrors, ProblemInsideAnIfBranch) {
  const std::string m = convert_error("err_if_branch.onnx");
  EXPECT_TRUE(has(m, "node 0 'inner' (Einsum, opset 13) in else_branch of node 0 'branch': attribute 'equation'"))
      << m;
}

// If branches and Loop bodies become libops subgraphs; outer values they read
// are passed in.
TEST(OnnxImport, IfAndLoopBecomeSubgraphs) {
  std::shared_ptr<const Graph> g;
  ASSERT_OK(Graph::load_file(kDir + "if_true.onnx", g));
  EXPECT_EQ(g->num_bodies(), 5);  // main, then, else, and else's own then and else
  ASSERT_OK(Graph::load_file(kDir + "loop_trip_count.onnx", g));
  EXPECT_EQ(g->num_bodies(), 3);  // main, the While condition and its body
  // Scan: a While too; opset 8's is a scan over the batch around the scan over the sequence.
  ASSERT_OK(Graph::load_file(kDir + "scan_two_inputs_state.onnx", g));
  EXPECT_EQ(g->num_bodies(), 3);
  ASSERT_OK(Graph::load_file(kDir + "scan_opset8.onnx", g));
  EXPECT_EQ(g->num_bodies(), 5);
}

TEST(OnnxImportErrors, OpsetOutOfRange) {
  const std::string m = convert_error("err_opset_too_new.onnx");
  EXPECT_TRUE(has(m, "opset 30 of the default ONNX domain is newer than the importer knows (it reads opsets 1 to 27")) << m;
}

TEST(OnnxImportErrors, ListModeCollectsEveryProblem) {
  std::vector<std::string> problems;
  const std::string m = convert_error("err_many.onnx", &problems);
  ASSERT_EQ(problems.size(), 4u) << m;
  EXPECT_TRUE(has(problems[0], "'e1' (Einsum"));
  EXPECT_TRUE(has(problems[1], "'p' (MaxPool, opset 13): attribute 'ceil_mode'"));
  EXPECT_TRUE(has(problems[2], "'u' (StringNormalizer"));
  EXPECT_TRUE(has(problems[3], "domain 'com.microsoft'"));
  EXPECT_TRUE(has(m, "and 3 more problems"));

  const char* text = nullptr;
  ASSERT_EQ(ops_onnx_list_unsupported((kDir + "err_many.onnx").c_str(), &text), OPS_OK) << ops_last_error();
  std::string t = text;
  EXPECT_EQ(std::count(t.begin(), t.end(), '\n'), 4);
  ASSERT_EQ(ops_onnx_list_unsupported((kDir + "relu.onnx").c_str(), &text), OPS_OK);
  EXPECT_STREQ(text, "");
}

TEST(OnnxImportErrors, TruncatedAndCorruptFilesFailCleanly) {
  const std::vector<uint8_t> good = read_bytes(kDir + "model_cnn.onnx");
  ASSERT_GT(good.size(), 100u);
  onnx::ConvertOptions opt;
  onnx::ConvertResult r;
  // Every truncation point in the first bytes, and some later ones.
  for (size_t n = 0; n < good.size(); n += (n < 64 ? 1 : 97)) {
    Status s = onnx::convert_buffer(good.data(), n, opt, r);
    if (n == 0) {
      EXPECT_FALSE(s.is_ok());
    }
    if (!s.is_ok()) {
      EXPECT_FALSE(s.message().empty());
    }
  }
  std::vector<uint8_t> garbage(300);
  for (size_t i = 0; i < garbage.size(); ++i) garbage[i] = static_cast<uint8_t>(i * 37 + 11);
  Status s = onnx::convert_buffer(garbage.data(), garbage.size(), opt, r);
  EXPECT_FALSE(s.is_ok());
  // Flipped bytes: an error or a graph, never a crash.
  for (size_t i = 0; i < good.size(); i += 53) {
    std::vector<uint8_t> bad = good;
    bad[i] ^= 0xff;
    (void)onnx::convert_buffer(bad.data(), bad.size(), opt, r);
  }
  void* data = nullptr;
  size_t size = 0;
  EXPECT_EQ(ops_onnx_convert_buffer(garbage.data(), garbage.size(), nullptr, &data, &size), OPS_ERR_INVALID_GRAPH);
  EXPECT_EQ(data, nullptr);
  EXPECT_TRUE(has(ops_last_error(), "not a valid ONNX model"));
}

TEST(OnnxImportErrors, ExternalDataStaysInsideTheModelFolder) {
  std::string m = convert_error("err_external_escape.onnx");
  EXPECT_TRUE(has(m, "must be a relative path inside the model's folder")) << m;
  m = convert_error("err_external_offset.onnx");
  EXPECT_TRUE(has(m, "runs past its end")) << m;
  // A buffer has no folder to find external data in.
  const std::vector<uint8_t> bytes = read_bytes(kDir + "external_data.onnx");
  onnx::ConvertResult r;
  Status s = onnx::convert_buffer(bytes.data(), bytes.size(), onnx::ConvertOptions{}, r);
  EXPECT_TRUE(has(s.message(), "no model folder was given")) << s.message();
}

TEST(OnnxImport, CApiConvertsFilesAndBuffers) {
  void* data = nullptr;
  size_t size = 0;
  ASSERT_EQ(ops_onnx_convert_file((kDir + "gemm.onnx").c_str(), &data, &size), OPS_OK) << ops_last_error();
  ops_graph_t* g = nullptr;
  EXPECT_EQ(ops_graph_load_buffer(data, size, 0, &g), OPS_OK) << ops_last_error();
  ops_graph_free(g);
  ops_onnx_free(data);
  const std::vector<uint8_t> bytes = read_bytes(kDir + "external_data.onnx");
  ASSERT_EQ(ops_onnx_convert_buffer(bytes.data(), bytes.size(), kDir.c_str(), &data, &size), OPS_OK)
      << ops_last_error();
  ops_onnx_free(data);
  EXPECT_EQ(ops_onnx_convert_file(nullptr, &data, &size), OPS_ERR_NULL_POINTER);
  EXPECT_EQ(ops_onnx_convert_file((kDir + "missing.onnx").c_str(), &data, &size), OPS_ERR_IO);
  // ops_graph_load_file takes .onnx directly.
  ASSERT_EQ(ops_graph_load_file((kDir + "model_mlp.onnx").c_str(), &g), OPS_OK) << ops_last_error();
  EXPECT_EQ(ops_graph_input_count(g), 1);
  ops_graph_free(g);
}

// docs/onnx.md is generated from the mapping table; a change to the table
// must regenerate it.
// ---- Random ops (Note [ONNX random ops] in onnx_ops.cpp): libops' draws
// are not ONNX Runtime's, so the models carry no reference outputs; the
// tests check ranges, moments and that the same model draws the same numbers.

// Runs `file` once on `inputs`; output k's values as doubles.
std::vector<double> run_values(const std::string& file, const std::vector<const NDArray*>& inputs, int k,
                               NDArray* out = nullptr) {
  std::shared_ptr<const Graph> g;
  Status st = Graph::load_file(kDir + file, g);
  EXPECT_TRUE(st.is_ok()) << st.message();
  if (!st.is_ok()) return {};
  Session s(g);
  st = s.run(inputs.data(), static_cast<int>(inputs.size()));
  EXPECT_TRUE(st.is_ok()) << st.message();
  if (!st.is_ok()) return {};
  const NDArray& z = s.output(k);
  if (out != nullptr) *out = z;  // shares the buffer, which outlives the session
  std::vector<double> v(static_cast<size_t>(z.length()));
  for (int64_t i = 0; i < z.length(); ++i) v[static_cast<size_t>(i)] = z.get_double(i);
  return v;
}

// U(2, 5) over 4000 draws: mean 3.5 and variance 0.75, within about four
// standard errors (0.014 and 0.013).
TEST(OnnxImport, RandomUniformDrawsInRangeWithTheMoments) {
  NDArray z;
  const std::vector<double> v = run_values("random_uniform.onnx", {}, 0, &z);
  ASSERT_EQ(v.size(), 4000u);
  EXPECT_EQ(z.dtype(), DataType::kFloat32);
  for (double x : v) ASSERT_TRUE(x >= 2.0 && x < 5.0) << x;
  EXPECT_NEAR(test::mean_of(v), 3.5, 0.06);
  EXPECT_NEAR(test::variance_of(v), 0.75, 0.06);
  EXPECT_EQ(run_values("random_uniform.onnx", {}, 0), v) << "a node draws the same numbers on every run";
}

// Different seeds draw different numbers; so do unseeded nodes (their seeds
// come from their output names), the same on every load.
TEST(OnnxImport, RandomNodesDrawApartAndRepeat) {
  std::vector<std::vector<double>> outs;
  for (int k = 0; k < 4; ++k) outs.push_back(run_values("random_uniform_two.onnx", {}, k));
  for (const auto& v : outs) {
    ASSERT_EQ(v.size(), 64u);
    for (double x : v) ASSERT_TRUE(x >= 0.0 && x < 1.0) << x;
  }
  EXPECT_NE(outs[0], outs[1]);
  EXPECT_NE(outs[2], outs[3]);
  EXPECT_NE(outs[0], outs[2]);
  EXPECT_EQ(run_values("random_uniform_two.onnx", {}, 2), outs[2]);
}

// N(1, 2^2) in float64 over 4000 draws: mean within 4 standard errors (0.032).
TEST(OnnxImport, RandomNormalHasTheMeanAndScale) {
  NDArray z;
  const std::vector<double> v = run_values("random_normal.onnx", {}, 0, &z);
  EXPECT_EQ(z.dtype(), DataType::kFloat64);
  EXPECT_EQ(z.shape().str(), "[50,80]");
  EXPECT_NEAR(test::mean_of(v), 1.0, 0.13);
  EXPECT_NEAR(std::sqrt(test::variance_of(v)), 2.0, 0.1);
}

// The Like ops take the input's shape at run time where it has a
// symbolic dim, and its dtype unless the dtype attribute says otherwise.
TEST(OnnxImport, RandomLikeTakesTheShapeAtRunTime) {
  for (int64_t n : {5, 2}) {
    NDArray x = test::make(DataType::kFloat32, {n, 3}, std::vector<double>(static_cast<size_t>(n) * 3, 9.0));
    NDArray z;
    const std::vector<double> v = run_values("random_uniform_like.onnx", {&x}, 0, &z);
    EXPECT_EQ(z.dtype(), DataType::kFloat64);
    EXPECT_EQ(z.shape(), x.shape());
    for (double e : v) EXPECT_TRUE(e >= -1.0 && e < 1.0) << e;
  }
  NDArray x = test::make(DataType::kFloat32, {2, 3}, std::vector<double>(6, 0.0));
  NDArray z;
  run_values("random_normal_like.onnx", {&x}, 0, &z);
  EXPECT_EQ(z.dtype(), DataType::kFloat32);
  EXPECT_EQ(z.shape().str(), "[2,3]");
}

// p = 0 never gives a 1, p = 1 always; p = 0.3 over 3000 draws within four
// standard errors (0.0084).
TEST(OnnxImport, BernoulliFollowsTheProbabilities) {
  std::vector<double> p(100, 0.0);
  p.resize(200, 1.0);
  p.resize(3200, 0.3);
  NDArray pa = test::make(DataType::kFloat32, {3200}, p);
  NDArray z;
  const std::vector<double> v = run_values("bernoulli.onnx", {&pa}, 0, &z);
  ASSERT_EQ(v.size(), 3200u);
  EXPECT_EQ(z.dtype(), DataType::kFloat32);
  for (size_t i = 0; i < 200; ++i) ASSERT_EQ(v[i], i < 100 ? 0.0 : 1.0) << i;
  const std::vector<double> rest(v.begin() + 200, v.end());
  for (double e : rest) ASSERT_TRUE(e == 0.0 || e == 1.0) << e;
  EXPECT_NEAR(test::mean_of(rest), 0.3, 0.034);

  NDArray ones = test::make(DataType::kFloat32, {3, 4}, std::vector<double>(12, 1.0));
  const std::vector<double> w = run_values("bernoulli_int32.onnx", {&ones}, 0, &z);
  EXPECT_EQ(z.dtype(), DataType::kInt32);
  EXPECT_EQ(w, std::vector<double>(12, 1.0));
}

// Row 0: class frequencies 0.2, 0.3, 0.5 over 4000 draws, each within four
// standard errors (at most 0.032); row 1 puts all its weight on class 0.
TEST(OnnxImport, MultinomialFollowsTheLogits) {
  NDArray logits = test::make(DataType::kFloat32, {2, 3},
                              {std::log(0.2), std::log(0.3), std::log(0.5), 0.0, -100.0, -100.0});
  NDArray z;
  const std::vector<double> v = run_values("multinomial.onnx", {&logits}, 0, &z);
  EXPECT_EQ(z.dtype(), DataType::kInt32);  // ONNX's default
  ASSERT_EQ(z.shape().str(), "[2,4000]");
  double count[3] = {0, 0, 0};
  for (size_t i = 0; i < 4000; ++i) count[static_cast<int>(v[i])] += 1;
  EXPECT_NEAR(count[0] / 4000, 0.2, 0.026);
  EXPECT_NEAR(count[1] / 4000, 0.3, 0.03);
  EXPECT_NEAR(count[2] / 4000, 0.5, 0.032);
  for (size_t i = 4000; i < 8000; ++i) ASSERT_EQ(v[i], 0.0) << i;
}

TEST(OnnxImportErrors, RandomOpWithAnIntegerDtypeIsRefused) {
  const std::string m = convert_error("err_random_int_dtype.onnx");
  EXPECT_TRUE(has(m, "node 0 'ru' (RandomUniform, opset 13): attribute 'dtype' = INT32 is not supported")) << m;
}

// Note [Run-time sequences]: a sequence that leaves the graph is a graph
// output of the sequence kind; a split of an input whose rank is not known
// at import is made when the graph runs (a fuzzer once found a read past
// the unknown dims in the import-time split).
TEST(OnnxImport, SequencesLeaveTheGraphAsLists) {
  std::shared_ptr<const Graph> g;
  ASSERT_OK(Graph::load_file(kDir + "sequence_output.onnx", g));
  Session s(g);
  NDArray x = test::make(DataType::kFloat32, {2}, {3, -4});
  ASSERT_OK(s.run({{"x", &x}}));
  ASSERT_EQ(s.output_kind(0), ValueKind::kSequence);
  const TensorList* seq = s.output_list(0);
  ASSERT_NE(seq, nullptr);
  ASSERT_EQ(seq->items.size(), 2u);
  EXPECT_TRUE(test::all_close(seq->items[0], {3, -4}));
  EXPECT_TRUE(test::all_close(seq->items[1], {3, -4}));

  // Pieces of one along axis 1, kept as [2, 1, 2], concatenated along 0.
  ASSERT_OK(Graph::load_file(kDir + "split_to_sequence_unknown_rank.onnx", g));
  Session split(g);
  NDArray y = test::make(DataType::kFloat32, {2, 3, 2}, {0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11});
  ASSERT_OK(split.run({{"x", &y}}));
  EXPECT_EQ(split.output(0).shape(), Dims({6, 1, 2}));
  EXPECT_TRUE(test::all_close(split.output(0), {0, 1, 6, 7, 2, 3, 8, 9, 4, 5, 10, 11}));
  // A rank-1 input has no axis 1: the run fails naming the node.
  NDArray v = test::make(DataType::kFloat32, {3}, {1, 2, 3});
  Status st = split.run({{"x", &v}});
  EXPECT_EQ(st.code(), StatusCode::kShape);
  EXPECT_NE(st.message().find("split_to_sequence): axis 1 is not an axis of input 0, float32[3]"), std::string::npos)
      << st.message();
}

// Note [Axes given at run time]: DFT's axis as a graph input. Axis 1 against
// ONNX Runtime (dft_runtime_axis in the manifest checks it too); a negative
// axis names the same one; the last axis (the real / imaginary pair) and
// one past the rank fail the run, naming the check.
TEST(OnnxImport, DftAxisGivenAtRunTime) {
  std::shared_ptr<const Graph> g;
  ASSERT_OK(Graph::load_file(kDir + "dft_runtime_axis.onnx", g));
  Session s(g);
  NDArray x = test::load_golden("onnx/dft_runtime_axis.in0.npy");
  NDArray want = test::load_golden("onnx/dft_runtime_axis.out0.npy");
  auto run = [&](int64_t axis) {
    NDArray a = test::make(DataType::kInt64, {}, {static_cast<double>(axis)});
    return s.run({{"x", &x}, {"axis", &a}});
  };
  ASSERT_OK(run(1));
  EXPECT_TRUE(test::matches_golden(s.output(0), want, 1e-4, 1e-5));
  ASSERT_OK(run(-3));
  EXPECT_TRUE(test::matches_golden(s.output(0), want, 1e-4, 1e-5));
  ASSERT_OK(run(2));
  EXPECT_EQ(s.output(0).shape(), Dims({2, 5, 4, 2}));
  ASSERT_OK(run(0));
  const std::vector<double> along0 = test::values(s.output(0));
  ASSERT_OK(run(-4));
  EXPECT_EQ(test::values(s.output(0)), along0);
  for (int64_t bad : {3, -1, 4, -5}) {
    Status st = run(bad);
    EXPECT_EQ(st.code(), StatusCode::kInvalidArgument) << bad;
    EXPECT_NE(st.message().find("must be a signal axis, -4 .. -2 or 0 .. 2' (op assert_true)"), std::string::npos)
        << st.message();
  }
}

// STFT's frame_step and frame_length at run time (stft_runtime_frames in
// the manifest checks step 6, length 16 against ONNX Runtime): a step of 0
// and a frame longer than the signal fail the run naming the check.
TEST(OnnxImport, StftFramesGivenAtRunTime) {
  std::shared_ptr<const Graph> g;
  ASSERT_OK(Graph::load_file(kDir + "stft_runtime_frames.onnx", g));
  Session s(g);
  NDArray signal = test::load_golden("onnx/stft_runtime_frames.in0.npy");
  auto run = [&](int64_t step, int64_t length) {
    NDArray a = test::make(DataType::kInt64, {}, {static_cast<double>(step)});
    NDArray b = test::make(DataType::kInt64, {}, {static_cast<double>(length)});
    return s.run({{"signal", &signal}, {"step", &a}, {"length", &b}});
  };
  ASSERT_OK(run(6, 16));
  EXPECT_TRUE(test::matches_golden(s.output(0), test::load_golden("onnx/stft_runtime_frames.out0.npy"), 1e-4, 1e-5));
  ASSERT_OK(run(16, 32));  // (64 - 32) / 16 + 1 frames of 17 bins
  EXPECT_EQ(s.output(0).shape(), Dims({2, 3, 17, 2}));
  Status st = run(0, 16);
  EXPECT_NE(st.message().find("frame_step must be at least 1' (op assert_true)"), std::string::npos) << st.message();
  st = run(4, 65);
  EXPECT_NE(st.message().find("frame_length must be 1 .. 64 (the signal's length)' (op assert_true)"),
            std::string::npos)
      << st.message();
}

TEST(OnnxImport, CoverageDocMatchesTheTable) {
  const std::vector<uint8_t> doc = read_bytes(std::string(LIBOPS_SOURCE_DIR) + "/docs/onnx.md");
  const std::string want = onnx::coverage_markdown();
  EXPECT_TRUE(std::string(doc.begin(), doc.end()) == want)
      << "docs/onnx.md is out of date; regenerate it: " << LIBOPS_BUILD_DIR << "/ops-run --list-onnx > docs/onnx.md";
  const char* text = nullptr;
  ASSERT_EQ(ops_onnx_coverage(&text), OPS_OK);
  EXPECT_EQ(std::string(text), want);
  EXPECT_TRUE(has(want, "| Conv | 1, 11, 22 | 1+ |"));
  EXPECT_TRUE(has(want, "| LSTM | 1, 7, 14, 22 | 7+ |"));
  EXPECT_TRUE(has(want, "| Scan | 8, 9, 11, 16, 19, 21, 23, 24, 25 | 8-8, 9+ |"));
  EXPECT_TRUE(has(want, "| Upsample | 1, 7, 9, removed at 10 | 7-9 |"));
}

}  // namespace
}  // namespace libops::graph
