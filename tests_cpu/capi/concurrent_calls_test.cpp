// Op calls through the C API from 8 threads at once, on shared read-only
// inputs, each thread with its own outputs: every result equals the one a
// single thread got, and each thread's error message stays its own. The
// ops use libops' thread pool inside (2 threads each), so pools started
// from several threads at once are exercised too. Built with TSan this is
// one of the threaded tests CI runs (buildnativeoperations.sh).
#include <gtest/gtest.h>

#include <atomic>
#include <string>
#include <thread>
#include <vector>

#include "libops/c_api.h"

namespace {

struct Call {
  const char* op;
  std::vector<int> inputs;  // indices into the shared arrays
  std::vector<int64_t> i_args;
};

std::vector<float> read(ops_array_t* a) {
  int64_t n = 0;
  if (ops_array_length(a, &n) != OPS_OK) return {};
  std::vector<float> v(static_cast<size_t>(n));
  if (ops_array_copy_to(a, v.data(), v.size() * sizeof(float)) != OPS_OK) return {};
  return v;
}

// Runs `c` on the shared arrays; its float32 output 0, or {} on error.
std::vector<float> run(const Call& c, const std::vector<ops_array_t*>& shared) {
  std::vector<ops_array_t*> in;
  for (int k : c.inputs) in.push_back(shared[static_cast<size_t>(k)]);
  ops_args_t args = {};
  args.i_args = c.i_args.data();
  args.n_i_args = static_cast<int>(c.i_args.size());
  ops_array_t** outs = nullptr;
  int n = 0;
  if (ops_exec_alloc(c.op, in.data(), static_cast<int>(in.size()), &args, &outs, &n) != OPS_OK) return {};
  std::vector<float> v = read(outs[0]);
  ops_array_list_free(outs, n);
  return v;
}

TEST(ConcurrentCalls, EightThreadsGetTheSingleThreadedResults) {
  ops_set_num_threads(2);
  // Shared inputs: a [64, 64] matrix and a [64] vector of float32.
  std::vector<float> m(64 * 64), v(64);
  for (size_t k = 0; k < m.size(); ++k) m[k] = static_cast<float>((k * 37) % 101) / 50.0f - 1.0f;
  for (size_t k = 0; k < v.size(); ++k) v[k] = static_cast<float>((k * 11) % 17) / 8.0f - 1.0f;
  const int64_t ms[] = {64, 64}, vs[] = {64};
  std::vector<ops_array_t*> shared(2, nullptr);
  ASSERT_EQ(ops_array_create_from(OPS_DTYPE_FLOAT32, 2, ms, m.data(), m.size() * 4, &shared[0]), OPS_OK);
  ASSERT_EQ(ops_array_create_from(OPS_DTYPE_FLOAT32, 1, vs, v.data(), v.size() * 4, &shared[1]), OPS_OK);
  const std::vector<Call> calls = {
      {"matmul", {0, 0}, {}},        {"softmax", {0}, {}},      {"sort", {0}, {}},
      {"reduce_sum", {0}, {1}},      {"add", {0, 1}, {}},       {"cumsum", {0}, {0, 0, 1}},
      {"exp", {0}, {}},              {"transpose", {0}, {1, 0}}};
  std::vector<std::vector<float>> expected;
  for (const Call& c : calls) {
    expected.push_back(run(c, shared));
    ASSERT_FALSE(expected.back().empty()) << c.op << ": " << ops_last_error();
  }
  constexpr int kThreads = 8, kRounds = 60;
  std::atomic<int> mismatches{0}, wrong_errors{0};
  std::vector<std::thread> threads;
  for (int t = 0; t < kThreads; ++t)
    threads.emplace_back([&, t] {
      for (int r = 0; r < kRounds; ++r) {
        const size_t k = static_cast<size_t>(t + r) % calls.size();
        if (run(calls[k], shared) != expected[k]) ++mismatches;
        // A failing call on this thread sets this thread's message only.
        ops_array_t** outs = nullptr;
        int n = 0;
        if (ops_exec_alloc("no_such_op", nullptr, 0, nullptr, &outs, &n) != OPS_ERR_UNKNOWN_OP ||
            std::string(ops_last_error()).find("no_such_op") == std::string::npos)
          ++wrong_errors;
      }
    });
  for (std::thread& th : threads) th.join();
  ops_set_num_threads(0);
  EXPECT_EQ(mismatches.load(), 0);
  EXPECT_EQ(wrong_errors.load(), 0);
  for (ops_array_t* a : shared) ops_array_free(a);
}

}  // namespace
