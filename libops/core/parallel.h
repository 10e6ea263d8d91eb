// Threading for kernels: parallel_for over an index range with a grain size,
// so small arrays run inline on the calling thread and pay no threading cost.
//
// The thread count comes from set_num_threads(), else the environment
// variable LIBOPS_NUM_THREADS, else the number of hardware threads.
#pragma once

#include <cstdint>
#include <type_traits>

#include "libops/core/api.h"

LIBOPS_API_BEGIN

namespace libops {

int get_num_threads();
void set_num_threads(int n);  // n <= 0 restores the default

// The calling thread's count, while it lives, in place of the process's (a
// graph session run with its own thread count, Session::set_threads).
// Kernels read the count on the thread that starts them, so their teams,
// OpenBLAS's and oneDNN's follow it.
class ScopedThreads {
 public:
  explicit ScopedThreads(int n);  // n <= 0: no change
  ~ScopedThreads();
  ScopedThreads(const ScopedThreads&) = delete;
  ScopedThreads& operator=(const ScopedThreads&) = delete;

 private:
  int saved_;
};

namespace detail {
// Runs fn(ctx, begin, end) on `threads` threads over [0, n).
void parallel_run(int64_t n, int threads, void (*fn)(void*, int64_t, int64_t), void* ctx);
// Runs fn(ctx, thread, team_size) once on each thread of a team of at most
// `threads`.
void parallel_team_run(int threads, void (*fn)(void*, int, int), void* ctx);
bool in_parallel_region();
}  // namespace detail

// Calls f(begin, end) over chunks of [0, n). Each chunk has at least `grain`
// elements; with n < 2 * grain (or one thread) f(0, n) runs inline.
template <typename F>
void parallel_for(int64_t n, int64_t grain, F&& f) {
  if (n <= 0) return;
  if (grain < 1) grain = 1;
  if (n < 2 * grain) {  // one chunk: skip asking for the thread count
    f(int64_t{0}, n);
    return;
  }
  int64_t max_chunks = n / grain;
  int threads = get_num_threads();
  if (max_chunks < threads) threads = static_cast<int>(max_chunks);
  if (threads <= 1 || detail::in_parallel_region()) {
    f(int64_t{0}, n);
    return;
  }
  using Fn = std::remove_reference_t<F>;
  detail::parallel_run(
      n, threads, [](void* ctx, int64_t b, int64_t e) { (*static_cast<Fn*>(ctx))(b, e); },
      const_cast<void*>(static_cast<const void*>(&f)));
}

// Note [Thread teams]
// A kernel that works in phases (compute, then all threads wait, then use
// what the others computed, and so on many times) pays one fork and join
// per parallel_for: some microseconds each, which adds up over hundreds of
// phases. parallel_team forks once: f(thread, team_size) runs on each
// thread of the team, and team_barrier() inside it waits until every
// thread of the team has reached it. The team may be smaller than asked
// (one thread inside another parallel region); f must split its work by
// the team_size it is given, and every thread must reach every barrier.
template <typename F>
void parallel_team(int threads, F&& f) {
  if (threads <= 1 || detail::in_parallel_region()) {
    f(0, 1);
    return;
  }
  using Fn = std::remove_reference_t<F>;
  detail::parallel_team_run(
      threads, [](void* ctx, int t, int nt) { (*static_cast<Fn*>(ctx))(t, nt); },
      const_cast<void*>(static_cast<const void*>(&f)));
}
// Waits for every thread of the enclosing parallel_team (no-op in a team of one).
void team_barrier();

}  // namespace libops

LIBOPS_API_END
