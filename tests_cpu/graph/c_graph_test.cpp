// The graph C API: loading, describing, running, outputs, profile and the
// status + thread-local message rules.
#include "libops/c_graph.h"

#include <gtest/gtest.h>
#include <unistd.h>

#include <cstdio>
#include <string>

#include "graph_builder.h"
#include "test_util.h"

namespace libops::graph {
namespace {

using test::BodyBuilder;
using test::GraphBuilder;
using test::Ref;

// y = x * w + b with x [-1, 2] (batch unknown), w [2, 2], b [2].
std::vector<uint8_t> affine_graph() {
  GraphBuilder g;
  BodyBuilder& m = g.main();
  Ref x = m.placeholder("x", DataType::kFloat32, std::vector<int64_t>{-1, 2});
  Ref w = m.constant("w", libops::test::make(DataType::kFloat32, {2, 2}, {1, 2, 3, 4}));
  Ref b = m.constant("b", libops::test::make(DataType::kFloat32, {2}, {0.5, -1}));
  m.output("y", m.op("add", {m.op("matmul", {x, w}, {}, "mm"), b}, {}, "bias"));
  return g.finish();
}

std::vector<float> read(ops_array_t* a) {
  int64_t n = 0;
  EXPECT_EQ(ops_array_length(a, &n), OPS_OK);
  std::vector<float> v(static_cast<size_t>(n));
  EXPECT_EQ(ops_array_copy_to(a, v.data(), v.size() * sizeof(float)), OPS_OK);
  return v;
}

ops_array_t* float_array(std::vector<float> v) {
  const int64_t n = static_cast<int64_t>(v.size());
  ops_array_t* a = nullptr;
  EXPECT_EQ(ops_array_create_from(OPS_DTYPE_FLOAT32, 1, &n, v.data(), v.size() * sizeof(float), &a), OPS_OK);
  return a;
}

// Sequences and optionals through the C API (Note [Sequence values] in
// graph/executor.h): s, a sequence of float vectors, and t, a vector; out =
// s with t appended, n = its length; o, an optional tensor, and has = whether
// it holds one.
TEST(GraphCApi, SequencesAndOptionals) {
  GraphBuilder gb;
  BodyBuilder& m = gb.main();
  Ref s = m.placeholder_of(fb::ValueKind::SEQUENCE, "s", DataType::kFloat32, std::vector<int64_t>{-1});
  Ref t = m.placeholder("t", DataType::kFloat32, std::vector<int64_t>{-1});
  Ref o = m.placeholder_of(fb::ValueKind::OPTIONAL_TENSOR, "o", DataType::kFloat32);
  Ref out = m.seq(fb::SequenceOpKind::INSERT, {s, t});
  m.output("out", out);
  m.output("n", m.seq(fb::SequenceOpKind::LENGTH, {out}));
  m.output("has", m.seq(fb::SequenceOpKind::HAS_ELEMENT, {o}));
  m.output("o", o);
  std::vector<uint8_t> bytes = gb.finish();
  ops_graph_t* g = nullptr;
  ASSERT_EQ(ops_graph_load_buffer(bytes.data(), bytes.size(), 0, &g), OPS_OK) << ops_last_error();
  ops_value_kind_t kind = OPS_VALUE_TENSOR;
  ASSERT_EQ(ops_graph_input_kind(g, 0, &kind), OPS_OK);
  EXPECT_EQ(kind, OPS_VALUE_SEQUENCE);
  ASSERT_EQ(ops_graph_input_kind(g, 2, &kind), OPS_OK);
  EXPECT_EQ(kind, OPS_VALUE_OPTIONAL_TENSOR);
  ASSERT_EQ(ops_graph_output_kind(g, 0, &kind), OPS_OK);
  EXPECT_EQ(kind, OPS_VALUE_SEQUENCE);
  EXPECT_EQ(ops_graph_output_kind(g, 9, &kind), OPS_ERR_INVALID_ARGUMENT);
  ops_graph_session_t* session = nullptr;
  ASSERT_EQ(ops_graph_session_create(g, &session), OPS_OK);

  ops_array_t* e0 = float_array({1, 2});
  ops_array_t* e1 = float_array({3});
  ops_array_t* tv = float_array({4, 5, 6});
  const ops_array_t* elements[] = {e0, e1};
  const char* names[] = {"t"};
  const ops_array_t* inputs[] = {tv};
  ASSERT_EQ(ops_graph_session_set_input_list(session, "s", elements, 2, true), OPS_OK) << ops_last_error();
  ASSERT_EQ(ops_graph_session_set_input_list(session, "o", nullptr, 0, false), OPS_OK) << ops_last_error();
  ASSERT_EQ(ops_graph_run(session, names, inputs, 1), OPS_OK) << ops_last_error();
  int64_t size = 0;
  ASSERT_EQ(ops_graph_session_output_list_size(session, 0, &size), OPS_OK);
  ASSERT_EQ(size, 3);
  ops_array_t* item = nullptr;
  ASSERT_EQ(ops_graph_session_output_list_item(session, 0, 2, &item), OPS_OK);
  EXPECT_EQ(read(item), (std::vector<float>{4, 5, 6}));
  ops_array_free(item);
  EXPECT_EQ(ops_graph_session_output_list_item(session, 0, 3, &item), OPS_ERR_INVALID_ARGUMENT);
  EXPECT_NE(std::string(ops_last_error()).find("item 3 is out of range (the sequence holds 3)"), std::string::npos);
  ops_array_t* n = nullptr;
  ASSERT_EQ(ops_graph_session_output_at(session, 1, &n), OPS_OK);
  int64_t nv = 0;
  ASSERT_EQ(ops_array_copy_to(n, &nv, sizeof(nv)), OPS_OK);
  EXPECT_EQ(nv, 3);
  ops_array_free(n);
  bool present = true;
  ASSERT_EQ(ops_graph_session_output_present(session, 3, &present), OPS_OK);
  EXPECT_FALSE(present);  // o was fed none
  EXPECT_EQ(ops_graph_session_output_at(session, 3, &n), OPS_ERR_INVALID_ARGUMENT);
  EXPECT_NE(std::string(ops_last_error()).find("output 'o' is an empty optional"), std::string::npos);
  EXPECT_EQ(ops_graph_session_output_at(session, 0, &n), OPS_ERR_INVALID_ARGUMENT);
  EXPECT_NE(std::string(ops_last_error()).find("output 'out' is a sequence"), std::string::npos);

  // The list feeds lasted one run: the next must set them again.
  EXPECT_EQ(ops_graph_run(session, names, inputs, 1), OPS_ERR_INVALID_ARGUMENT);
  EXPECT_NE(std::string(ops_last_error()).find("placeholder 's'"), std::string::npos) << ops_last_error();
  // An optional fed present; a sequence cannot be none; a tensor is not a list.
  const ops_array_t* one[] = {e1};
  ASSERT_EQ(ops_graph_session_set_input_list(session, "s", nullptr, 0, true), OPS_OK);
  ASSERT_EQ(ops_graph_session_set_input_list(session, "o", one, 1, true), OPS_OK);
  ASSERT_EQ(ops_graph_run(session, names, inputs, 1), OPS_OK) << ops_last_error();
  ASSERT_EQ(ops_graph_session_output_list_size(session, 0, &size), OPS_OK);
  EXPECT_EQ(size, 1);
  ASSERT_EQ(ops_graph_session_output_at(session, 3, &n), OPS_OK);
  EXPECT_EQ(read(n), (std::vector<float>{3}));
  ops_array_free(n);
  EXPECT_EQ(ops_graph_session_set_input_list(session, "s", nullptr, 0, false), OPS_ERR_INVALID_ARGUMENT);
  EXPECT_EQ(ops_graph_session_set_input_list(session, "t", elements, 2, true), OPS_ERR_INVALID_ARGUMENT);
  EXPECT_EQ(ops_graph_session_set_input_list(session, "o", elements, 2, true), OPS_ERR_INVALID_ARGUMENT);
  EXPECT_EQ(ops_graph_session_set_input_list(session, "nope", elements, 2, true), OPS_ERR_INVALID_ARGUMENT);
  EXPECT_EQ(ops_graph_session_set_input_list(session, "s", nullptr, 2, true), OPS_ERR_NULL_POINTER);
  EXPECT_EQ(ops_graph_session_set_input_list(nullptr, "s", elements, 2, true), OPS_ERR_NULL_POINTER);
  ops_array_free(e0);
  ops_array_free(e1);
  ops_array_free(tv);
  ops_graph_session_free(session);
  ops_graph_free(g);
}

TEST(GraphCApi, LoadDescribeRun) {
  std::vector<uint8_t> bytes = affine_graph();
  ops_graph_t* g = nullptr;
  ASSERT_EQ(ops_graph_load_buffer(bytes.data(), bytes.size(), 0, &g), OPS_OK) << ops_last_error();
  bytes.assign(bytes.size(), 0);  // copied: the caller's buffer may go

  ASSERT_EQ(ops_graph_input_count(g), 1);
  ops_value_info_t info;
  ASSERT_EQ(ops_graph_input_info(g, 0, &info), OPS_OK);
  EXPECT_STREQ(info.name, "x");
  EXPECT_EQ(info.dtype, OPS_DTYPE_FLOAT32);
  ASSERT_EQ(info.rank, 2);
  EXPECT_EQ(info.shape[0], -1);
  EXPECT_EQ(info.shape[1], 2);
  ASSERT_EQ(ops_graph_output_count(g), 1);
  ASSERT_EQ(ops_graph_output_info(g, 0, &info), OPS_OK);
  EXPECT_STREQ(info.name, "y");
  EXPECT_EQ(info.dtype, OPS_DTYPE_FLOAT32);
  ASSERT_EQ(info.rank, 2);
  EXPECT_EQ(info.shape[0], -1);
  EXPECT_EQ(info.shape[1], 2);
  EXPECT_EQ(ops_graph_input_info(g, 1, &info), OPS_ERR_INVALID_ARGUMENT);
  EXPECT_NE(std::string(ops_last_error()).find("out of range"), std::string::npos);
  // The loader's one rewrite: the bias add folded into the matmul.
  ASSERT_EQ(ops_graph_rewrite_count(g), 1);
  const char* line = nullptr;
  ASSERT_EQ(ops_graph_rewrite(g, 0, &line), OPS_OK);
  EXPECT_NE(std::string(line).find("(matmul) as its bias"), std::string::npos) << line;
  EXPECT_EQ(ops_graph_rewrite(g, 1, &line), OPS_ERR_INVALID_ARGUMENT);
  EXPECT_STREQ(ops_last_error(), "ops_graph_rewrite: index 1 is out of range 0..1");
  EXPECT_EQ(ops_graph_rewrite(g, 0, nullptr), OPS_ERR_NULL_POINTER);
  EXPECT_STREQ(ops_last_error(), "ops_graph_rewrite: out is null");
  EXPECT_EQ(ops_graph_rewrite(nullptr, 0, &line), OPS_ERR_NULL_POINTER);
  EXPECT_EQ(ops_graph_rewrite_count(nullptr), 0);

  ops_graph_session_t* s = nullptr;
  ASSERT_EQ(ops_graph_session_create(g, &s), OPS_OK);
  ops_graph_free(g);  // the session keeps the graph alive
  ASSERT_EQ(ops_graph_session_set_profiling(s, true), OPS_OK);
  EXPECT_EQ(ops_graph_session_set_threads(s, -1), OPS_ERR_INVALID_ARGUMENT);
  EXPECT_STREQ(ops_last_error(), "ops_graph_session_set_threads: threads is -1; 0 or more");
  ASSERT_EQ(ops_graph_session_set_threads(s, 1), OPS_OK);  // the run below on one thread, same values

  const float xv[] = {1, 1, 2, -1, 0, 3};
  const int64_t shape[] = {3, 2};
  ops_array_t* x = nullptr;
  ASSERT_EQ(ops_array_create_from(OPS_DTYPE_FLOAT32, 2, shape, xv, sizeof(xv), &x), OPS_OK);
  const char* names[] = {"x"};
  const ops_array_t* inputs[] = {x};
  ASSERT_EQ(ops_graph_run(s, names, inputs, 1), OPS_OK) << ops_last_error();
  EXPECT_STREQ(ops_last_error(), "");

  ops_array_t* y = nullptr;
  ASSERT_EQ(ops_graph_session_output(s, "y", &y), OPS_OK);
  // [1,1]w = [4,6]; [2,-1]w = [-1,0]; [0,3]w = [9,12]; plus b.
  EXPECT_EQ(read(y), (std::vector<float>{4.5f, 5, -0.5f, -1, 9.5f, 11}));
  ops_array_t* y0 = nullptr;
  ASSERT_EQ(ops_graph_session_output_at(s, 0, &y0), OPS_OK);
  EXPECT_EQ(read(y0), read(y));
  ops_array_free(y0);

  int64_t run_ns = 0, peak = 0;
  ASSERT_EQ(ops_graph_session_last_run(s, &run_ns, &peak), OPS_OK);
  EXPECT_GT(run_ns, 0);
  // One node: the loader folds the bias add into mm (Note [Matmul
  // epilogue]), so the peak is that node's output alone.
  EXPECT_EQ(peak, 3 * 2 * 4);
  ASSERT_EQ(ops_graph_session_profile_count(s), 1);
  ops_node_profile_t np;
  ASSERT_EQ(ops_graph_session_profile_node(s, 0, &np), OPS_OK);
  EXPECT_EQ(np.calls, 1);
  EXPECT_STREQ(np.graph_name, "main");
  EXPECT_STREQ(np.output_shapes, "float32[3,2]");
  const char* table = nullptr;
  ASSERT_EQ(ops_graph_session_profile_table(s, &table), OPS_OK);
  EXPECT_NE(std::string(table).find("matmul"), std::string::npos) << table;
  const std::string trace = ::testing::TempDir() + std::to_string(getpid()) + "_c_graph_trace.json";
  ASSERT_EQ(ops_graph_session_write_trace(s, trace.c_str()), OPS_OK);
  std::remove(trace.c_str());

  // A second run with another batch; the first output handle is untouched.
  ops_array_t* x1 = nullptr;
  const int64_t shape1[] = {1, 2};
  ASSERT_EQ(ops_array_create_from(OPS_DTYPE_FLOAT32, 2, shape1, xv, 2 * sizeof(float), &x1), OPS_OK);
  const ops_array_t* inputs1[] = {x1};
  ASSERT_EQ(ops_graph_run(s, names, inputs1, 1), OPS_OK);
  ops_array_t* y1 = nullptr;
  ASSERT_EQ(ops_graph_session_output(s, "y", &y1), OPS_OK);
  EXPECT_EQ(read(y1), (std::vector<float>{4.5f, 5}));
  EXPECT_EQ(read(y), (std::vector<float>{4.5f, 5, -0.5f, -1, 9.5f, 11}));

  ops_array_free(y);
  ops_array_free(y1);
  ops_array_free(x);
  ops_array_free(x1);
  ops_graph_session_free(s);
}

TEST(GraphCApi, ErrorsSetTheThreadMessage) {
  ops_graph_t* g = nullptr;
  const uint8_t junk[16] = {1, 2, 3, 4, 'N', 'O', 'P', 'E'};
  EXPECT_EQ(ops_graph_load_buffer(junk, sizeof(junk), 0, &g), OPS_ERR_INVALID_GRAPH);
  EXPECT_EQ(g, nullptr);
  EXPECT_NE(std::string(ops_last_error()).find("wrong file identifier 'NOPE'"), std::string::npos) << ops_last_error();
  EXPECT_EQ(ops_graph_load_file("/nonexistent/model.lops", &g), OPS_ERR_IO);
  EXPECT_EQ(ops_graph_load_buffer(nullptr, 4, 0, &g), OPS_ERR_NULL_POINTER);
  EXPECT_EQ(ops_graph_load_buffer(junk, sizeof(junk), 0x80, &g), OPS_ERR_INVALID_ARGUMENT);
  EXPECT_EQ(ops_graph_session_create(nullptr, nullptr), OPS_ERR_NULL_POINTER);

  std::vector<uint8_t> bytes = affine_graph();
  ASSERT_EQ(ops_graph_load_buffer(bytes.data(), bytes.size(), OPS_GRAPH_BORROW_BUFFER, &g), OPS_OK);
  ops_graph_session_t* s = nullptr;
  ASSERT_EQ(ops_graph_session_create(g, &s), OPS_OK);
  ops_array_t* out = nullptr;
  EXPECT_EQ(ops_graph_session_output(s, "y", &out), OPS_ERR_INVALID_ARGUMENT);  // no run yet
  EXPECT_EQ(ops_graph_run(s, nullptr, nullptr, 0), OPS_ERR_INVALID_ARGUMENT);
  EXPECT_NE(std::string(ops_last_error()).find("placeholder 'x' (float32[?,2]) was not fed"), std::string::npos)
      << ops_last_error();

  ops_array_t* xi = nullptr;
  const int64_t shape[] = {1, 2};
  ASSERT_EQ(ops_array_create(OPS_DTYPE_INT32, 2, shape, 'c', &xi), OPS_OK);
  const char* names[] = {"x"};
  const ops_array_t* inputs[] = {xi};
  EXPECT_EQ(ops_graph_run(s, names, inputs, 1), OPS_ERR_DTYPE);
  EXPECT_NE(std::string(ops_last_error()).find("input 'x' was given int32[1,2]"), std::string::npos);
  const char* bad_names[] = {"z"};
  EXPECT_EQ(ops_graph_run(s, bad_names, inputs, 1), OPS_ERR_INVALID_ARGUMENT);
  EXPECT_NE(std::string(ops_last_error()).find("no input 'z' (inputs: x)"), std::string::npos);
  ops_array_free(xi);

  ops_array_t* x3 = nullptr;
  const int64_t shape3[] = {1, 3};
  ASSERT_EQ(ops_array_create(OPS_DTYPE_FLOAT32, 2, shape3, 'c', &x3), OPS_OK);
  const ops_array_t* inputs3[] = {x3};
  EXPECT_EQ(ops_graph_run(s, names, inputs3, 1), OPS_ERR_SHAPE);
  ops_array_free(x3);

  ops_graph_session_free(s);
  ops_graph_free(g);
}

// ops_graph_session_cancel and ops_graph_session_set_loop_limit: their
// status codes, the session usable after each, and bad arguments.
TEST(GraphCApi, CancelAndLoopLimit) {
  std::vector<uint8_t> bytes = affine_graph();
  ops_graph_t* g = nullptr;
  ASSERT_EQ(ops_graph_load_buffer(bytes.data(), bytes.size(), 0, &g), OPS_OK) << ops_last_error();
  ops_graph_session_t* s = nullptr;
  ASSERT_EQ(ops_graph_session_create(g, &s), OPS_OK);
  const float xv[] = {1, 1};
  const int64_t shape[] = {1, 2};
  ops_array_t* x = nullptr;
  ASSERT_EQ(ops_array_create_from(OPS_DTYPE_FLOAT32, 2, shape, xv, sizeof(xv), &x), OPS_OK);
  const char* names[] = {"x"};
  const ops_array_t* inputs[] = {x};

  ASSERT_EQ(ops_graph_session_cancel(s), OPS_OK);  // no run in progress: the next one stops
  EXPECT_EQ(ops_graph_run(s, names, inputs, 1), OPS_ERR_CANCELLED);
  EXPECT_NE(std::string(ops_last_error()).find("the run was cancelled"), std::string::npos) << ops_last_error();
  ASSERT_EQ(ops_graph_run(s, names, inputs, 1), OPS_OK) << ops_last_error();

  EXPECT_EQ(ops_graph_session_set_loop_limit(s, 5), OPS_OK);  // no loops here: no effect
  ASSERT_EQ(ops_graph_run(s, names, inputs, 1), OPS_OK);
  EXPECT_EQ(ops_graph_session_set_loop_limit(s, -1), OPS_ERR_INVALID_ARGUMENT);
  EXPECT_STREQ(ops_last_error(), "ops_graph_session_set_loop_limit: max_iterations -1 is negative (0: no limit)");
  EXPECT_EQ(ops_graph_session_set_loop_limit(nullptr, 1), OPS_ERR_NULL_POINTER);
  EXPECT_EQ(ops_graph_session_cancel(nullptr), OPS_ERR_NULL_POINTER);

  ops_array_free(x);
  ops_graph_session_free(s);
  ops_graph_free(g);
}

}  // namespace
}  // namespace libops::graph
