// Thread counts: the process's (set_num_threads), a thread's own for a
// while (ScopedThreads, what a session with its own count runs under), and
// a graph session's through the C API.
#include <gtest/gtest.h>

#include <thread>

#include "libops/c_graph.h"
#include "libops/core/parallel.h"

namespace {

TEST(ThreadCounts, ScopedThreadsHoldForTheirThreadAlone) {
  libops::set_num_threads(2);
  {
    libops::ScopedThreads three(3);
    EXPECT_EQ(libops::get_num_threads(), 3);
    int other = 0;
    std::thread t([&] { other = libops::get_num_threads(); });
    t.join();
    EXPECT_EQ(other, 2);  // another thread keeps the process's count
    {
      libops::ScopedThreads none(0);  // 0: no change
      EXPECT_EQ(libops::get_num_threads(), 3);
      libops::ScopedThreads five(5);
      EXPECT_EQ(libops::get_num_threads(), 5);
    }
    EXPECT_EQ(libops::get_num_threads(), 3);
  }
  EXPECT_EQ(libops::get_num_threads(), 2);
  libops::set_num_threads(0);
}

TEST(ThreadCounts, SessionThreadsAreCheckedThroughTheCApi) {
  EXPECT_EQ(ops_graph_session_set_threads(nullptr, 1), OPS_ERR_NULL_POINTER);
}

}  // namespace
