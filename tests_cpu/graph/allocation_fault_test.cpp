// Out of memory, on purpose (Note [Allocation faults] in data_buffer.h):
// a small model run through the C API with each of its host allocations
// failing in turn. Every failure must come back as OPS_ERR_OUT_OF_MEMORY
// (never a crash, a leak or another code), and the same session must then
// run again and give the right result. Also a shape too large for any
// heap, as an array and inside an op.
#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "graph_builder.h"
#include "libops/array/data_buffer.h"
#include "libops/c_api.h"
#include "libops/c_graph.h"
#include "test_util.h"

namespace libops::graph {
namespace {

using test::BodyBuilder;
using test::GraphBuilder;
using test::Ref;

// x [2, 8] -> relu(x W1 + b1) W2 -> softmax -> y [2, 4], with a while-free
// mix of custom, legacy and shape nodes.
std::vector<uint8_t> small_model() {
  GraphBuilder g;
  BodyBuilder& m = g.main();
  Ref x = m.placeholder("x", DataType::kFloat32, std::vector<int64_t>{2, 8});
  Ref w1 = m.constant("w1", libops::test::make(DataType::kFloat32, {8, 16}, libops::test::iota(128, 0.01, -0.5)));
  Ref b1 = m.constant("b1", libops::test::make(DataType::kFloat32, {16}, libops::test::iota(16, 0.02, -0.1)));
  Ref w2 = m.constant("w2", libops::test::make(DataType::kFloat32, {16, 4}, libops::test::iota(64, -0.01, 0.3)));
  Ref h = m.op("relu", {m.op("add", {m.op("matmul", {x, w1}), b1})});
  test::NodeArgs swap;
  swap.i = {1, 0};
  Ref t = m.op("permute", {m.op("permute", {m.op("matmul", {h, w2})}, swap)}, swap);
  m.output("y", m.op("softmax", {m.legacy(OPS_TRANSFORM_STRICT, 0, {t})}));
  return g.finish();
}

// Every output of the session's last run, as bytes.
std::vector<std::vector<uint8_t>> outputs_of(ops_graph_session_t* s, int count) {
  std::vector<std::vector<uint8_t>> v;
  for (int k = 0; k < count; ++k) {
    ops_array_t* y = nullptr;
    EXPECT_EQ(ops_graph_session_output_at(s, k, &y), OPS_OK);
    int64_t n = 0;
    ops_dtype_t dt = OPS_DTYPE_INVALID;
    EXPECT_EQ(ops_array_length(y, &n), OPS_OK);
    EXPECT_EQ(ops_array_dtype(y, &dt), OPS_OK);
    std::vector<uint8_t> bytes(static_cast<size_t>(n) * (dt == OPS_DTYPE_FLOAT64 ? 8 : 4));
    EXPECT_EQ(ops_array_copy_to(y, bytes.data(), bytes.size()), OPS_OK);
    v.push_back(std::move(bytes));
    ops_array_free(y);
  }
  return v;
}

// Runs graph `g` (float32 inputs; unknown extents taken as 2) with each host
// allocation of a fresh session and its first run failing in turn: every
// failure is OPS_ERR_OUT_OF_MEMORY, and that session then runs again and
// gives the reference outputs. Returns how many runs failed.
int walk_allocation_failures(ops_graph_t* g) {
  std::vector<ops_array_t*> arrays;
  std::vector<const char*> names;
  const int n_in = ops_graph_input_count(g);
  for (int k = 0; k < n_in; ++k) {
    ops_value_info_t info;
    EXPECT_EQ(ops_graph_input_info(g, k, &info), OPS_OK);
    int64_t shape[OPS_MAX_RANK];
    int64_t n = 1;
    for (int d = 0; d < info.rank; ++d) n *= (shape[d] = info.shape[d] < 0 ? 2 : info.shape[d]);
    std::vector<float> v(static_cast<size_t>(n));
    for (size_t i = 0; i < v.size(); ++i) v[i] = static_cast<float>(static_cast<int>((i * 7 + 3) % 17) - 8) / 8.0f;
    ops_array_t* a = nullptr;
    EXPECT_EQ(ops_array_create_from(OPS_DTYPE_FLOAT32, info.rank, shape, v.data(), v.size() * 4, &a), OPS_OK);
    arrays.push_back(a);
    names.push_back(info.name);
  }
  std::vector<const ops_array_t*> inputs(arrays.begin(), arrays.end());
  const int n_out = ops_graph_output_count(g);

  // The reference run, counting its allocations (session creation included).
  const int64_t before = fault_injection::host_allocation_count();
  ops_graph_session_t* s = nullptr;
  EXPECT_EQ(ops_graph_session_create(g, &s), OPS_OK);
  EXPECT_EQ(ops_graph_run(s, names.data(), inputs.data(), n_in), OPS_OK) << ops_last_error();
  const int64_t allocations = fault_injection::host_allocation_count() - before;
  const auto expected = outputs_of(s, n_out);
  ops_graph_session_free(s);
  EXPECT_GE(allocations, 3);  // the pool reuses buffers: a few for the whole run

  int failed_runs = 0;
  for (int64_t n = 1; n <= allocations; ++n) {
    SCOPED_TRACE(n);
    fault_injection::fail_nth_host_allocation(n);
    ops_graph_session_t* session = nullptr;
    const ops_status_t created = ops_graph_session_create(g, &session);
    if (created != OPS_OK) {
      fault_injection::fail_nth_host_allocation(0);
      EXPECT_EQ(created, OPS_ERR_OUT_OF_MEMORY) << ops_last_error();
      continue;
    }
    const ops_status_t ran = ops_graph_run(session, names.data(), inputs.data(), n_in);
    fault_injection::fail_nth_host_allocation(0);
    EXPECT_EQ(ran, OPS_ERR_OUT_OF_MEMORY) << ops_last_error();
    if (ran == OPS_ERR_OUT_OF_MEMORY) ++failed_runs;
    EXPECT_EQ(ops_graph_run(session, names.data(), inputs.data(), n_in), OPS_OK) << ops_last_error();
    EXPECT_EQ(outputs_of(session, n_out), expected);
    ops_graph_session_free(session);
  }
  for (ops_array_t* a : arrays) ops_array_free(a);
  return failed_runs;
}

TEST(AllocationFaults, EveryAllocationOfAModelRunCanFailAndTheSessionRecovers) {
  const std::vector<uint8_t> bytes = small_model();
  ops_graph_t* g = nullptr;
  ASSERT_EQ(ops_graph_load_buffer(bytes.data(), bytes.size(), 0, &g), OPS_OK) << ops_last_error();
  EXPECT_GT(walk_allocation_failures(g), 0);
  ops_graph_free(g);
}

// The shipped examples (tools/build_examples.py: an MLP and a CNN), when built.
TEST(AllocationFaults, TheShippedExamplesRecoverFromEveryAllocationFailure) {
  for (const char* name : {"mlp", "cnn"}) {
    SCOPED_TRACE(name);
    const std::string path = std::string(LIBOPS_BUILD_DIR) + "/examples/" + name + ".lops";
    ops_graph_t* g = nullptr;
    if (ops_graph_load_file(path.c_str(), &g) != OPS_OK) GTEST_SKIP() << path << " is missing: build the examples";
    EXPECT_GT(walk_allocation_failures(g), 0);
    ops_graph_free(g);
  }
}

TEST(AllocationFaults, AShapeNoHeapHoldsIsOutOfMemory) {
  const int64_t huge[] = {int64_t{1} << 20, int64_t{1} << 20};  // 4 TiB of float32
  ops_array_t* a = nullptr;
  EXPECT_EQ(ops_array_create(OPS_DTYPE_FLOAT32, 2, huge, 'c', &a), OPS_ERR_OUT_OF_MEMORY);
  EXPECT_EQ(a, nullptr);
  // Inside an op: broadcast a scalar to that shape.
  const float one = 1;
  const int64_t scalar_shape[] = {1};
  ops_array_t* x = nullptr;
  ASSERT_EQ(ops_array_create_from(OPS_DTYPE_FLOAT32, 1, scalar_shape, &one, sizeof(one), &x), OPS_OK);
  ops_array_t* in[] = {x};
  ops_args_t args = {};
  const int64_t target[] = {int64_t{1} << 20, int64_t{1} << 20};
  args.i_args = target;
  args.n_i_args = 2;
  ops_array_t** outs = nullptr;
  int n_outs = 0;
  EXPECT_EQ(ops_exec_alloc("broadcast_to", in, 1, &args, &outs, &n_outs), OPS_ERR_OUT_OF_MEMORY);
  EXPECT_NE(std::string(ops_last_error()).find("broadcast_to"), std::string::npos) << ops_last_error();
  // Nothing was lost: an ordinary call works right after.
  const int64_t small[] = {2, 2};
  args.i_args = small;
  ASSERT_EQ(ops_exec_alloc("broadcast_to", in, 1, &args, &outs, &n_outs), OPS_OK) << ops_last_error();
  ops_array_list_free(outs, n_outs);
  ops_array_free(x);
}

TEST(AllocationFaults, AllocationsOverACapFailAsOutOfMemory) {
  // The fuzzers' cap: a call whose output is larger fails cleanly, one
  // under it runs, and lifting the cap makes the large call work again.
  fault_injection::fail_host_allocations_over(size_t{1} << 20);
  const float one = 1;
  const int64_t scalar_shape[] = {1};
  ops_array_t* x = nullptr;
  ASSERT_EQ(ops_array_create_from(OPS_DTYPE_FLOAT32, 1, scalar_shape, &one, sizeof(one), &x), OPS_OK);
  ops_array_t* in[] = {x};
  ops_args_t args = {};
  const int64_t large[] = {1024, 512};  // 2 MiB of float32
  const int64_t under[] = {512, 512};   // 1 MiB: at the cap, allowed
  args.n_i_args = 2;
  ops_array_t** outs = nullptr;
  int n_outs = 0;
  args.i_args = large;
  EXPECT_EQ(ops_exec_alloc("broadcast_to", in, 1, &args, &outs, &n_outs), OPS_ERR_OUT_OF_MEMORY);
  EXPECT_NE(std::string(ops_last_error()).find("broadcast_to"), std::string::npos) << ops_last_error();
  args.i_args = under;
  EXPECT_EQ(ops_exec_alloc("broadcast_to", in, 1, &args, &outs, &n_outs), OPS_OK) << ops_last_error();
  ops_array_list_free(outs, n_outs);
  fault_injection::fail_host_allocations_over(0);
  args.i_args = large;
  ASSERT_EQ(ops_exec_alloc("broadcast_to", in, 1, &args, &outs, &n_outs), OPS_OK) << ops_last_error();
  ASSERT_EQ(n_outs, 1);
  void* data = nullptr;
  ASSERT_EQ(ops_array_data(outs[0], &data), OPS_OK);
  EXPECT_EQ(static_cast<const float*>(data)[1024 * 512 - 1], 1.0f);
  ops_array_list_free(outs, n_outs);
  ops_array_free(x);
}

}  // namespace
}  // namespace libops::graph
