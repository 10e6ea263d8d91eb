// Loader tests: hand-built graphs through Graph::load_*, including every
// kind of bad input the loader must refuse with a clear message.
#include <gtest/gtest.h>
#include <unistd.h>

#include <cstdio>
#include <string>
#include <random>

#include "graph/executor.h"
#include "graph_builder.h"
#include "test_util.h"

namespace libops::graph {
namespace {

using libops::test::iota;
using libops::test::make;
using test::BodyBuilder;
using test::GraphBuilder;
using test::NodeArgs;
using test::Ref;

// x[2,3] + c -> y, with a constant large enough to be used in place.
std::vector<uint8_t> add_graph() {
  GraphBuilder g;
  BodyBuilder& m = g.main();
  Ref x = m.placeholder("x", DataType::kFloat32, std::vector<int64_t>{2, 3});
  Ref c = m.constant("c", make(DataType::kFloat32, {2, 3}, iota(6, 1.0, 10.0)));
  m.output("y", m.op("add", {x, c}, {}, "sum"));
  return g.finish();
}

::testing::AssertionResult fails_with(const std::vector<uint8_t>& bytes, StatusCode code, const std::string& text) {
  std::shared_ptr<const Graph> g;
  Status s = test::load(bytes, g);
  if (s.is_ok()) return ::testing::AssertionFailure() << "loaded, expected an error containing '" << text << "'";
  if (s.code() != code)
    return ::testing::AssertionFailure() << "code " << status_code_name(s.code()) << ", expected "
                                         << status_code_name(code) << ": " << s.message();
  if (s.message().find(text) == std::string::npos)
    return ::testing::AssertionFailure() << "message '" << s.message() << "' lacks '" << text << "'";
  return ::testing::AssertionSuccess();
}

TEST(GraphLoader, LoadsAndDescribesAGraph) {
  std::shared_ptr<const Graph> g;
  ASSERT_OK(test::load(add_graph(), g));
  const Body& m = g->main();
  ASSERT_EQ(m.inputs.size(), 1u);
  EXPECT_EQ(m.inputs[0].name, "x");
  EXPECT_EQ(m.inputs[0].shape.str(), "float32[2,3]");
  ASSERT_EQ(m.outputs.size(), 1u);
  EXPECT_EQ(m.outputs[0].name, "y");
  EXPECT_EQ(m.outputs[0].shape.str(), "float32[2,3]");  // inferred at load
  EXPECT_TRUE(m.static_plan);
  ASSERT_EQ(m.nodes.size(), 1u);
  EXPECT_EQ(m.nodes[0].op_label, "add");
  EXPECT_EQ(g->find_input("x"), 0);
  EXPECT_EQ(g->find_output("nope"), -1);
  // The copy made by load_buffer is aligned, so the constant is used in place.
  EXPECT_EQ(g->constants_in_place(), 1);
  EXPECT_EQ(g->constants_copied(), 0);
}

TEST(GraphLoader, BorrowedBufferIsUsedInPlaceOnlyWhenAligned) {
  std::vector<uint8_t> bytes = add_graph();
  // An aligned block holding the file, and one off by 8 bytes.
  auto block = DataBuffer::allocate(bytes.size() + 64);
  auto* aligned = static_cast<uint8_t*>(block->host());
  std::memcpy(aligned, bytes.data(), bytes.size());
  LoadOptions borrow;
  borrow.borrow_buffer = true;
  std::shared_ptr<const Graph> g;
  ASSERT_OK(Graph::load_buffer(aligned, bytes.size(), borrow, g));
  EXPECT_EQ(g->constants_in_place(), 1);
  EXPECT_GE(static_cast<uint8_t*>(g->main().constants[0].data()), aligned);
  EXPECT_LT(static_cast<uint8_t*>(g->main().constants[0].data()), aligned + bytes.size());

  std::memmove(aligned + 8, aligned, bytes.size());
  std::shared_ptr<const Graph> g2;
  ASSERT_OK(Graph::load_buffer(aligned + 8, bytes.size(), borrow, g2));
  EXPECT_EQ(g2->constants_in_place(), 0);
  EXPECT_EQ(g2->constants_copied(), 1);
  EXPECT_EQ(reinterpret_cast<uintptr_t>(g2->main().constants[0].data()) % 64, 0u);

  // Not even 8-byte aligned: its 8-byte scalars cannot be read in place, so
  // the whole buffer is copied; the graph still loads and runs.
  std::memmove(aligned + 4, aligned + 8, bytes.size());
  std::shared_ptr<const Graph> g3;
  ASSERT_OK(Graph::load_buffer(aligned + 4, bytes.size(), borrow, g3));
  EXPECT_EQ(g3->constants_in_place(), 1);  // in place in the copy
  EXPECT_FALSE(static_cast<uint8_t*>(g3->main().constants[0].data()) >= aligned &&
               static_cast<uint8_t*>(g3->main().constants[0].data()) < aligned + bytes.size() + 64);
  Session s(g3);
  NDArray x = make(DataType::kFloat32, {2, 3}, iota(6));
  const NDArray* in[] = {&x};
  ASSERT_OK(s.run(in, 1));
  EXPECT_TRUE(libops::test::all_close(s.output(0), {10, 12, 14, 16, 18, 20}));
}

TEST(GraphLoader, LoadsFromAFile) {
  std::vector<uint8_t> bytes = add_graph();
  const std::string path = ::testing::TempDir() + std::to_string(getpid()) + "_graph_loader_test.lops";
  FILE* f = std::fopen(path.c_str(), "wb");
  ASSERT_NE(f, nullptr);
  ASSERT_EQ(std::fwrite(bytes.data(), 1, bytes.size(), f), bytes.size());
  std::fclose(f);
  std::shared_ptr<const Graph> g;
  ASSERT_OK(Graph::load_file(path, g));
  EXPECT_EQ(g->constants_in_place(), 1);
  Session s(g);
  NDArray x = make(DataType::kFloat32, {2, 3}, iota(6));
  const NDArray* in[] = {&x};
  ASSERT_OK(s.run(in, 1));
  EXPECT_TRUE(libops::test::all_close(s.output(0), {10, 12, 14, 16, 18, 20}));
  std::remove(path.c_str());

  Status missing = Graph::load_file(path + ".missing", g);
  EXPECT_EQ(missing.code(), StatusCode::kIo);
  EXPECT_NE(missing.message().find("cannot open"), std::string::npos) << missing.message();
}

// ---- bad files ----

TEST(GraphLoader, RefusesEveryTruncation) {
  std::vector<uint8_t> bytes = add_graph();
  for (size_t n = 0; n < bytes.size(); ++n) {
    std::vector<uint8_t> cut(bytes.begin(), bytes.begin() + static_cast<std::ptrdiff_t>(n));
    std::shared_ptr<const Graph> g;
    Status s = test::load(cut, g);
    ASSERT_FALSE(s.is_ok()) << "a file cut at " << n << " of " << bytes.size() << " bytes loaded";
    EXPECT_EQ(s.code(), StatusCode::kInvalidGraph) << s.message();
  }
  EXPECT_TRUE(fails_with({}, StatusCode::kInvalidGraph, "too short"));
  std::vector<uint8_t> half(bytes.begin(), bytes.begin() + static_cast<std::ptrdiff_t>(bytes.size() / 2));
  EXPECT_TRUE(fails_with(half, StatusCode::kInvalidGraph, "truncated or corrupt"));
}

TEST(GraphLoader, RefusesRandomBytes) {
  std::mt19937 rng(1234);
  const std::vector<uint8_t> good = add_graph();
  for (int trial = 0; trial < 400; ++trial) {
    std::vector<uint8_t> bytes;
    if (trial % 2 == 0) {
      bytes.resize(rng() % 512);
      for (uint8_t& b : bytes) b = static_cast<uint8_t>(rng());
      if (bytes.size() >= 8 && trial % 4 == 0) std::memcpy(bytes.data() + 4, "LOPS", 4);
    } else {
      // A valid file with a few bytes flipped: gets past the identifier.
      bytes = good;
      for (int k = 0; k < 4; ++k) bytes[rng() % bytes.size()] = static_cast<uint8_t>(rng());
    }
    std::shared_ptr<const Graph> g;
    Status s = test::load(bytes, g);
    if (s.is_ok()) {
      // A flip that kept the file valid must still give a runnable graph.
      Session session(g);
      NDArray x = make(DataType::kFloat32, {2, 3}, iota(6));
      std::vector<const NDArray*> in(g->main().inputs.size(), &x);
      (void)session.run(in.data(), static_cast<int>(in.size()));
    } else {
      EXPECT_FALSE(s.message().empty());
    }
  }
}

TEST(GraphLoader, RefusesWrongIdentifier) {
  GraphBuilder g;
  g.main().output("c", g.main().constant("c", make(DataType::kInt32, {2}, {1, 2})));
  GraphBuilder::FinishOptions o;
  o.identifier = "ONNX";
  EXPECT_TRUE(fails_with(g.finish(o), StatusCode::kInvalidGraph, "wrong file identifier 'ONNX'"));
}

TEST(GraphLoader, RefusesWrongSchemaVersion) {
  for (uint32_t version : {0u, 2u, 77u}) {
    GraphBuilder g;
    g.main().output("c", g.main().constant("c", make(DataType::kInt32, {2}, {1, 2})));
    GraphBuilder::FinishOptions o;
    o.version = version;
    EXPECT_TRUE(fails_with(g.finish(o), StatusCode::kInvalidGraph, "schema version " + std::to_string(version)));
  }
}

// ---- references ----

// Found by the loader fuzzer: extents whose product passes 2^63 made the
// planner's dense strides overflow (undefined behaviour, caught by UBSan).
// A placeholder's extents are refused at load; a shape function's output
// (here broadcast_to's, from its args) is refused for every op.
TEST(GraphLoader, RefusesExtentsWhoseProductPasses2To63) {
  {
    GraphBuilder g;
    BodyBuilder& m = g.main();
    Ref x = m.placeholder("x", DataType::kFloat32, std::vector<int64_t>{int64_t{1} << 60, 12289});
    m.output("y", m.op("add", {x, x}, {}, "sum"));
    EXPECT_TRUE(fails_with(g.finish(), StatusCode::kInvalidGraph, "are too large: their product is over 2^63"));
  }
  {
    GraphBuilder g;
    BodyBuilder& m = g.main();
    Ref x = m.placeholder("x", DataType::kFloat32, std::vector<int64_t>{1});
    NodeArgs huge;
    huge.i = {int64_t{1} << 40, int64_t{1} << 40};
    m.output("y", m.op("broadcast_to", {x}, huge, "grow"));
    EXPECT_TRUE(fails_with(g.finish(), StatusCode::kShape,
                           "broadcast_to: output 0 would have shape [1099511627776,1099511627776]: its extents "
                           "multiply past 2^63"));
  }
  {
    // Fits with its unknown dim as 1, but not as the other probes of a
    // dynamic plan (Note [Probing unknown extents]): the probes that do not
    // fit drop out, and the graph loads with y's shape left unknown; the
    // executor checks the real extents when it runs.
    GraphBuilder g;
    BodyBuilder& m = g.main();
    Ref x = m.placeholder("x", DataType::kFloat32, std::vector<int64_t>{int64_t{1} << 62, -1});
    m.output("y", m.op("add", {x, x}, {}, "sum"));
    std::shared_ptr<const Graph> loaded;
    ASSERT_OK(test::load(g.finish(), loaded));
    EXPECT_EQ(loaded->main().outputs[0].shape.str(), "?[...]") << "the probes that fit are too few to know it";
  }
  {
    GraphBuilder g;
    BodyBuilder& m = g.main();
    Ref a = m.placeholder("a", DataType::kFloat32, std::vector<int64_t>{int64_t{1} << 40, 1});
    Ref b = m.placeholder("b", DataType::kFloat32, std::vector<int64_t>{1, int64_t{1} << 40});
    m.output("y", m.legacy(OPS_PAIRWISE, 0, {a, b}, {}, "outer_sum"));
    EXPECT_TRUE(fails_with(g.finish(), StatusCode::kInvalidGraph, "its extents multiply past 2^63"));
  }
}

TEST(GraphLoader, RefusesAnInputFromAMissingNode) {
  GraphBuilder g;
  BodyBuilder& m = g.main();
  Ref x = m.placeholder("x", DataType::kFloat32, std::vector<int64_t>{2});
  m.output("y", m.op("add", {x, Ref(42, 0)}, {}, "bad"));
  EXPECT_TRUE(fails_with(g.finish(), StatusCode::kInvalidGraph,
                         "node 1 'bad' (op add): input 1 refers to id 42, which is neither a variable nor a node"));
}

TEST(GraphLoader, RefusesOutputIndexesOutOfRange) {
  {
    GraphBuilder g;
    BodyBuilder& m = g.main();
    Ref x = m.placeholder("x", DataType::kFloat32, std::vector<int64_t>{2});
    m.output("y", m.op("add", {x, Ref(x.id(), 1)}, {}, "bad"));
    EXPECT_TRUE(fails_with(g.finish(), StatusCode::kInvalidGraph, "a variable has only output 0"));
  }
  {
    GraphBuilder g;
    BodyBuilder& m = g.main();
    Ref x = m.placeholder("x", DataType::kFloat32, std::vector<int64_t>{2});
    Ref a = m.op("add", {x, x}, {}, "a");
    m.output("y", m.op("add", {x, Ref(a.id(), 3)}, {}, "b"));
    EXPECT_TRUE(fails_with(g.finish(), StatusCode::kInvalidGraph,
                           "node 2 'b' (op add): input 1 refers to output 3 of node 1 'a', which has 1 outputs"));
  }
  {
    GraphBuilder g;
    BodyBuilder& m = g.main();
    Ref x = m.placeholder("x", DataType::kFloat32, std::vector<int64_t>{2});
    m.output("y", Ref(x.id() + 10, 0));
    EXPECT_TRUE(fails_with(g.finish(), StatusCode::kInvalidGraph, "graph: output 0 'y' refers to id 10"));
  }
}

TEST(GraphLoader, RefusesCycles) {
  {
    GraphBuilder g;
    BodyBuilder& m = g.main();
    Ref x = m.placeholder("x", DataType::kFloat32, std::vector<int64_t>{2});
    // Node 1 reads node 2, node 2 reads node 1.
    m.op("add", {x, Ref(2, 0)}, {}, "a");
    Ref b = m.op("add", {x, Ref(1, 0)}, {}, "b");
    m.output("y", b);
    EXPECT_TRUE(fails_with(g.finish(), StatusCode::kInvalidGraph, "(a cycle)"));
  }
  {
    GraphBuilder g;
    BodyBuilder& m = g.main();
    Ref x = m.placeholder("x", DataType::kFloat32, std::vector<int64_t>{2});
    m.output("y", m.op("add", {x, Ref(1, 0)}, {}, "self"));
    EXPECT_TRUE(fails_with(g.finish(), StatusCode::kInvalidGraph,
                           "node 1 'self' (op add): input 1 is the node's own output (a cycle)"));
  }
}

TEST(GraphLoader, AcceptsNodesListedOutOfOrder) {
  GraphBuilder g;
  BodyBuilder& m = g.main();
  Ref x = m.placeholder("x", DataType::kFloat32, std::vector<int64_t>{3});
  // id 1 is listed first but reads id 2, listed after it.
  Ref later(2, 0);
  Ref first = m.op("multiply", {later, x}, {}, "second_step");
  m.op("add", {x, x}, {}, "first_step");
  m.output("y", first);
  std::shared_ptr<const Graph> graph;
  LoadOptions as_written;  // no rewrites: they would fuse the two nodes
  as_written.rewrites = false;
  const std::vector<uint8_t> bytes = g.finish();
  ASSERT_OK(Graph::load_buffer(bytes.data(), bytes.size(), as_written, graph));
  EXPECT_EQ(graph->main().nodes[0].name, "first_step");
  Session s(graph);
  NDArray xv = make(DataType::kFloat32, {3}, {1, 2, 3});
  const NDArray* in[] = {&xv};
  ASSERT_OK(s.run(in, 1));
  EXPECT_TRUE(libops::test::all_close(s.output(0), {2, 8, 18}));
}

TEST(GraphLoader, RefusesUnknownOps) {
  {
    GraphBuilder g;
    Ref x = g.main().placeholder("x", DataType::kFloat32, std::vector<int64_t>{2});
    g.main().output("y", g.main().op("frobnicate", {x}, {}, "f"));
    EXPECT_TRUE(fails_with(g.finish(), StatusCode::kUnknownOp,
                           "node 1 'f' (op frobnicate): unknown op 'frobnicate': not in the op registry"));
  }
  {
    GraphBuilder g;
    Ref x = g.main().placeholder("x", DataType::kFloat32, std::vector<int64_t>{2});
    g.main().output("y", g.main().custom_with_hash("add", 12345, {x, x}));
    EXPECT_TRUE(fails_with(g.finish(), StatusCode::kInvalidGraph, "does not match the name 'add'"));
  }
  {
    GraphBuilder g;
    Ref x = g.main().placeholder("x", DataType::kFloat32, std::vector<int64_t>{2});
    g.main().output("y", g.main().legacy(99, 0, {x}, {}, "lg"));
    EXPECT_TRUE(fails_with(g.finish(), StatusCode::kUnknownOp, "legacy op group 99 is not known"));
  }
  {
    GraphBuilder g;
    Ref x = g.main().placeholder("x", DataType::kFloat32, std::vector<int64_t>{2});
    g.main().output("y", g.main().legacy(OPS_PAIRWISE, 9999, {x, x}, {}, "lg"));
    EXPECT_TRUE(fails_with(g.finish(), StatusCode::kUnknownOp,
                           "node 1 'lg' (op pairwise/9999): legacy group pairwise has no op number 9999"));
  }
  {
    // A union kind this build does not know (a newer writer).
    GraphBuilder g;
    BodyBuilder& m = g.main();
    Ref x = m.placeholder("x", DataType::kFloat32, std::vector<int64_t>{2});
    auto op = fb::CreateLegacyOp(g.fbb(), fb::LegacyGroup::PAIRWISE, 0);
    m.output("y", m.raw_node(1, "future", static_cast<fb::Op>(17), op.Union(), {x}, {}));
    EXPECT_TRUE(fails_with(g.finish(), StatusCode::kInvalidGraph, "node kind 17 is not known"));
  }
}

TEST(GraphLoader, ChecksArgCountsAgainstTheDeclaration) {
  {
    GraphBuilder g;
    Ref x = g.main().placeholder("x", DataType::kFloat32, std::vector<int64_t>{2});
    g.main().output("y", g.main().op("add", {x, x, x}, {}, "three"));
    EXPECT_TRUE(fails_with(g.finish(), StatusCode::kInvalidGraph,
                           "node 1 'three' (op add): the op takes 2 inputs, the node gives 3"));
  }
  {
    GraphBuilder g;
    Ref x = g.main().placeholder("x", DataType::kFloat32, std::vector<int64_t>{2, 3});
    g.main().output("y", g.main().op("tear", {x}, {}, "t"));  // needs one or more i args
    EXPECT_TRUE(fails_with(g.finish(), StatusCode::kInvalidGraph, "tear: missing i arg 0 (dims: the dims each part spans)"));
  }
  {
    GraphBuilder g;
    Ref x = g.main().placeholder("x", DataType::kFloat32, std::vector<int64_t>{2});
    NodeArgs two;
    two.num_outputs = 2;
    g.main().output("y", g.main().op("add", {x, x}, two, "two"));
    EXPECT_TRUE(fails_with(g.finish(), StatusCode::kInvalidGraph, "the op gives 1 outputs, the node declares 2"));
  }
  {
    GraphBuilder g;
    Ref x = g.main().placeholder("x", DataType::kFloat32, std::vector<int64_t>{2});
    g.main().output("y", g.main().legacy(OPS_PAIRWISE, 0, {x}, {}, "one"));
    EXPECT_TRUE(fails_with(g.finish(), StatusCode::kInvalidGraph, "takes 2 inputs, the node gives 1"));
  }
  {
    GraphBuilder g;
    Ref x = g.main().placeholder("x", DataType::kFloat32, std::vector<int64_t>{2});
    NodeArgs many;
    many.t.assign(9, 1.0);
    g.main().output("y", g.main().legacy(OPS_TRANSFORM_SAME, 0, {x}, many, "p"));
    EXPECT_TRUE(fails_with(g.finish(), StatusCode::kInvalidGraph, "9 float params"));
  }
}

// A custom node's args are resolved against the op's signature once, at
// load (Note [Argument resolution]): values out of range fail there, and
// absent optional args are stored with their defaults.
TEST(GraphLoader, ResolvesNodeArgsAgainstTheSignature) {
  {
    GraphBuilder g;
    Ref x = g.main().placeholder("x", DataType::kFloat32, std::vector<int64_t>{1, 1, 4, 4});
    NodeArgs pool;
    pool.i = {2, 2, 2, 2, 0, 0, 1, 1, 0, 0, 5};
    g.main().output("y", g.main().op("maxpool2d", {x}, pool, "pool"));
    EXPECT_TRUE(fails_with(g.finish(), StatusCode::kInvalidGraph,
                           "node 1 'pool' (op maxpool2d): maxpool2d: i arg 10 (data_format) is 5: it must be 0 (NCHW), "
                           "1 (NHWC) or 2 (NCHWc"));
  }
  {
    GraphBuilder g;
    Ref x = g.main().placeholder("x", DataType::kFloat32, std::vector<int64_t>{2, 3});
    NodeArgs bad;
    bad.b = {true};
    g.main().output("y", g.main().op("softmax", {x}, bad, "sm"));
    EXPECT_TRUE(fails_with(g.finish(), StatusCode::kInvalidGraph,
                           "node 1 'sm' (op softmax): softmax: takes no bool (b) args; got 1 (b arg 0 = true)"));
  }
  GraphBuilder g;
  Ref x = g.main().placeholder("x", DataType::kFloat32, std::vector<int64_t>{2, 3});
  NodeArgs keep;
  keep.t = {1.0};  // libnd4j's keep_dims
  g.main().output("y", g.main().op("reduce_sum", {x}, keep, "sum"));
  std::vector<uint8_t> bytes = g.finish();
  std::shared_ptr<const Graph> graph;
  ASSERT_OK(test::load(bytes, graph));
  const Node& node = graph->main().nodes[0];
  EXPECT_TRUE(node.args.t.empty());
  EXPECT_EQ(node.args.b, (std::vector<bool>{true, false}));  // keep_dims, then noop_with_empty_axes's default
  EXPECT_EQ(graph->main().outputs[0].shape.str(), "float32[1,1]");
}

TEST(GraphLoader, ChecksConstantsAndDtypes) {
  {
    GraphBuilder g;
    // float32[2,3] needs 24 bytes.
    g.main().output("c", g.main().raw_constant(0, "c", static_cast<int32_t>(DataType::kFloat32), {2, 3},
                                               std::vector<uint8_t>(20, 0)));
    EXPECT_TRUE(fails_with(g.finish(), StatusCode::kInvalidGraph,
                           "variable 0 'c': data holds 20 bytes but float32[2,3] needs 24"));
  }
  {
    GraphBuilder g;
    g.main().output("c", g.main().raw_constant(0, "c", 77, {1}, std::vector<uint8_t>(4, 0)));
    EXPECT_TRUE(fails_with(g.finish(), StatusCode::kInvalidGraph, "constant dtype value 77 is not a dtype"));
  }
  {
    GraphBuilder g;
    g.main().output("c", g.main().raw_constant(0, "c", static_cast<int32_t>(DataType::kFloat32), {-2}, {}));
    EXPECT_TRUE(fails_with(g.finish(), StatusCode::kInvalidGraph, "extent -2 at dim 0 is invalid"));
  }
  {
    GraphBuilder g;
    g.main().output("c", g.main().raw_constant(0, "c", static_cast<int32_t>(DataType::kBool), {2}, {1, 7}));
    EXPECT_TRUE(fails_with(g.finish(), StatusCode::kInvalidGraph, "bool element 1 holds byte 7"));
  }
  {
    GraphBuilder g;
    g.main().output("c", g.main().raw_constant(0, "c", static_cast<int32_t>(DataType::kInt8), {2}, {1, 2}, 5));
    EXPECT_TRUE(fails_with(g.finish(), StatusCode::kInvalidGraph, "order value 5"));
  }
  {
    GraphBuilder g;
    g.main().output("x", g.main().raw_placeholder(0, "x", -3, std::vector<int64_t>{2}));
    EXPECT_TRUE(fails_with(g.finish(), StatusCode::kInvalidGraph, "placeholder dtype value -3 is not a dtype"));
  }
  {
    GraphBuilder g;
    Ref x = g.main().placeholder("x", DataType::kFloat32, std::vector<int64_t>{2});
    NodeArgs bad;
    bad.d = {static_cast<int32_t>(DataType::kFloat32), 200};
    g.main().output("y", g.main().legacy(OPS_TRANSFORM_ANY, 0, {x}, bad, "cast"));
    EXPECT_TRUE(fails_with(g.finish(), StatusCode::kInvalidGraph, "d_args[1] = 200 is not a dtype"));
  }
  {
    GraphBuilder g;
    g.main().output("x", g.main().raw_placeholder(0, "x", static_cast<int32_t>(DataType::kFloat32),
                                                  std::vector<int64_t>{1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11}));
    EXPECT_TRUE(fails_with(g.finish(), StatusCode::kInvalidGraph, "rank 11 is over the maximum 10"));
  }
}

TEST(GraphLoader, ChecksNamesAndIds) {
  {
    GraphBuilder g;
    g.main().output("x", g.main().placeholder("", DataType::kFloat32, std::vector<int64_t>{2}));
    EXPECT_TRUE(fails_with(g.finish(), StatusCode::kInvalidGraph, "variable 0 '': a variable needs a name"));
  }
  {
    GraphBuilder g;
    g.main().raw_placeholder(3, "a", static_cast<int32_t>(DataType::kFloat32), std::vector<int64_t>{2});
    g.main().raw_placeholder(3, "b", static_cast<int32_t>(DataType::kFloat32), std::vector<int64_t>{2});
    EXPECT_TRUE(fails_with(g.finish(), StatusCode::kInvalidGraph, "variable 3 'b': its id is used twice"));
  }
  {
    GraphBuilder g;
    g.main().placeholder("a", DataType::kFloat32, std::vector<int64_t>{2});
    g.main().placeholder("a", DataType::kFloat32, std::vector<int64_t>{2}, false);
    EXPECT_TRUE(fails_with(g.finish(), StatusCode::kInvalidGraph, "another variable has the same name"));
  }
  {
    GraphBuilder g;
    g.main().placeholder("a", DataType::kFloat32, std::vector<int64_t>{2}, false);
    g.main().list_input("b");
    EXPECT_TRUE(fails_with(g.finish(), StatusCode::kInvalidGraph, "graph: input 0 'b' names no placeholder"));
  }
  {
    GraphBuilder g;
    g.main().placeholder("a", DataType::kFloat32, std::vector<int64_t>{2});
    g.main().placeholder("b", DataType::kFloat32, std::vector<int64_t>{2}, false);
    EXPECT_TRUE(fails_with(g.finish(), StatusCode::kInvalidGraph, "placeholder 'b' is not in the input list"));
  }
  {
    GraphBuilder g;
    Ref x = g.main().placeholder("x", DataType::kFloat32, std::vector<int64_t>{2});
    g.main().output("y", x);
    g.main().output("y", x);
    EXPECT_TRUE(fails_with(g.finish(), StatusCode::kInvalidGraph, "another output has the same name"));
  }
}

TEST(GraphLoader, ChecksSubgraphReferences) {
  {
    GraphBuilder g;
    Ref c = g.main().placeholder("c", DataType::kBool, std::vector<int64_t>{});
    g.main().if_(c, 0, 1, {}, 0, "branch");
    EXPECT_TRUE(fails_with(g.finish(), StatusCode::kInvalidGraph,
                           "node 1 'branch' (op if): branches refer to subgraphs 0 and 1; the graph has 0 subgraphs"));
  }
  {
    // A branch with the wrong number of inputs.
    GraphBuilder g;
    BodyBuilder& then_b = g.subgraph("then");
    then_b.output("o", then_b.placeholder("a", DataType::kFloat32, std::nullopt));
    Ref c = g.main().placeholder("c", DataType::kBool, std::vector<int64_t>{});
    g.main().if_(c, 0, 0, {}, 1, "branch");
    EXPECT_TRUE(fails_with(g.finish(), StatusCode::kInvalidGraph,
                           "branch subgraph 0 'then' takes 1 inputs and gives 1 outputs; the node passes 0"));
  }
  {
    // A loop body that runs a loop over itself.
    GraphBuilder g;
    BodyBuilder& cond = g.subgraph("cond");
    Ref ci = cond.placeholder("i", DataType::kInt32, std::vector<int64_t>{});
    cond.output("go", cond.legacy(OPS_SCALAR_BOOL, 1, {ci, cond.constant("n", make(DataType::kInt32, {}, {3}))}));
    BodyBuilder& body = g.subgraph("body");
    Ref bi = body.placeholder("i", DataType::kInt32, std::vector<int64_t>{});
    body.output("i", body.while_(0, 1, {bi}, "inner")[0]);
    Ref i0 = g.main().constant("zero", make(DataType::kInt32, {}, {0}));
    g.main().output("i", g.main().while_(0, 1, {i0})[0]);
    EXPECT_TRUE(fails_with(g.finish(), StatusCode::kInvalidGraph,
                           "subgraph 1 'body': node 1 'inner' (op while): uses subgraph 1 'body', which is already "
                           "running around it"));
  }
}

// WhileOp.scan_outputs is checked against the body's and the node's
// output counts before any use.
TEST(GraphLoader, RefusesScanOutputCountsThatDoNotAgree) {
  // cond(i) and body(i) -> (i + 1, i * i): one loop value, one scan output.
  auto build = [](uint32_t scan_outputs, std::optional<uint32_t> num_outputs, bool body_scans) {
    GraphBuilder g;
    BodyBuilder& cond = g.subgraph("cond");
    Ref ci = cond.placeholder("i", DataType::kInt32, std::vector<int64_t>{});
    cond.output("go", cond.legacy(OPS_SCALAR_BOOL, 1, {ci, cond.constant("n", make(DataType::kInt32, {}, {3}))}));
    BodyBuilder& body = g.subgraph("body");
    Ref bi = body.placeholder("i", DataType::kInt32, std::vector<int64_t>{});
    body.output("i", body.op("add", {bi, body.constant("one", make(DataType::kInt32, {}, {1}))}));
    if (body_scans) body.output("sq", body.op("multiply", {bi, bi}));
    Ref i0 = g.main().constant("zero", make(DataType::kInt32, {}, {0}));
    std::vector<Ref> out = g.main().while_scan(0, 1, {i0}, scan_outputs, "loop", num_outputs);
    g.main().output("i", out[0]);
    return g.finish();
  };
  std::shared_ptr<const Graph> graph;
  ASSERT_OK(test::load(build(1, std::nullopt, true), graph));  // the well-formed one
  EXPECT_TRUE(fails_with(build(1, std::nullopt, false), StatusCode::kInvalidGraph,
                         "node 1 'loop' (op while): body subgraph 1 'body' takes 1 inputs and gives 1 outputs; the "
                         "node has 1 loop values and 1 scan outputs, so the body must take 1 and give 2"));
  EXPECT_TRUE(fails_with(build(0, 2u, true), StatusCode::kInvalidGraph,
                         "body subgraph 1 'body' takes 1 inputs and gives 2 outputs; the node has 1 loop values and "
                         "declares 2 outputs"));
  EXPECT_TRUE(fails_with(build(1, 1u, true), StatusCode::kInvalidGraph,
                         "the node must declare 2 outputs (it declares 1)"));
  EXPECT_TRUE(fails_with(build(2, std::nullopt, true), StatusCode::kInvalidGraph,
                         "1 loop values and 2 scan outputs, so the body must take 1 and give 3"));
  EXPECT_TRUE(fails_with(build(0xffffffffu, 2u, true), StatusCode::kInvalidGraph,
                         "node 1 'loop' (op while): 4294967295 scan outputs; a node has at most 4096 outputs"));
}

TEST(GraphLoader, ReportsShapeErrorsAtLoadWhenShapesAreKnown) {
  GraphBuilder g;
  BodyBuilder& m = g.main();
  Ref x = m.placeholder("x", DataType::kFloat32, std::vector<int64_t>{2, 3});
  Ref y = m.placeholder("y", DataType::kFloat32, std::vector<int64_t>{4, 3});
  m.output("z", m.op("add", {x, y}, {}, "sum"));
  EXPECT_TRUE(fails_with(g.finish(), StatusCode::kShape, "node 2 'sum' (op add): add: cannot broadcast"));
}

TEST(GraphLoader, InfersPartlyKnownOutputShapes) {
  GraphBuilder g;
  BodyBuilder& m = g.main();
  Ref x = m.placeholder("x", DataType::kFloat32, std::vector<int64_t>{-1, 3});
  Ref w = m.constant("w", make(DataType::kFloat32, {3, 4}, iota(12)));
  Ref any = m.placeholder("any", DataType::kInt64, std::nullopt);
  m.output("y", m.op("matmul", {x, w}, {}, "mm"));
  m.output("z", m.op("add", {any, any}, {}, "twice"));
  std::shared_ptr<const Graph> graph;
  ASSERT_OK(test::load(g.finish(), graph));
  EXPECT_FALSE(graph->main().static_plan);
  EXPECT_EQ(graph->main().outputs[0].shape.str(), "float32[?,4]");
  EXPECT_EQ(graph->main().outputs[1].shape.str(), "?[...]");
}

}  // namespace
}  // namespace libops::graph
