// Thread counts: the process's (set_num_threads), a thread's own for a
// while (ScopedThreads, what a session with its own count runs under), and
// a graph session's through the C API.
#include <gtest/gtest.h>

#include <atomic>
#include <new>
#include <thread>
#include <vector>

#include "libops/c_graph.h"
#include "libops/core/parallel.h"

namespace {

// Note [Exceptions in parallel regions]: a chunk that throws (a kernel's
// scratch vector out of memory) reaches the caller as that exception once
// the other chunks have run; it once called std::terminate.
TEST(ParallelFor, AnExceptionInAChunkReachesTheCaller) {
  libops::ScopedThreads four(4);
  std::atomic<int64_t> done{0}, thrown_at{-1};
  EXPECT_THROW(libops::parallel_for(4000, 1,
                                    [&](int64_t begin, int64_t end) {
                                      if (begin == 0) {
                                        thrown_at = end;
                                        throw std::bad_alloc();
                                      }
                                      done += end - begin;
                                    }),
               std::bad_alloc);
  ASSERT_GT(thrown_at.load(), 0);
  EXPECT_EQ(done.load(), 4000 - thrown_at.load()) << "the chunks that did not throw still ran";
  // The pool works afterwards.
  done = 0;
  libops::parallel_for(4000, 1, [&](int64_t begin, int64_t end) { done += end - begin; });
  EXPECT_EQ(done.load(), 4000);
}

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

// Note [Thread teams]: every thread of a team of four (more than this
// machine's cores) runs the body once with its own number, and a barrier
// orders the phases: each thread reads what every other wrote before it.
TEST(ParallelTeam, BarriersOrderThePhasesOfEveryThread) {
  constexpr int kTeam = 4;
  std::vector<int> wrote(kTeam, 0), sums(kTeam, -1);
  int team_size = 0;
  libops::parallel_team(kTeam, [&](int id, int team) {
    if (id == 0) team_size = team;
    wrote[static_cast<size_t>(id)] = id + 1;
    libops::team_barrier();
    int s = 0;
    for (int t = 0; t < team; ++t) s += wrote[static_cast<size_t>(t)];
    sums[static_cast<size_t>(id)] = s;
  });
  ASSERT_GE(team_size, 1);
  for (int id = 0; id < team_size; ++id) EXPECT_EQ(sums[static_cast<size_t>(id)], team_size * (team_size + 1) / 2) << id;
}
