// Threading for kernels: parallel_for over an index range with a grain size,
// so small arrays run inline on the calling thread and pay no threading cost.
//
// The thread count comes from set_num_threads(), else the environment
// variable LIBOPS_NUM_THREADS, else the number of hardware threads.
#pragma once

#include <cstdint>
#include <type_traits>

namespace libops {

int get_num_threads();
void set_num_threads(int n);  // n <= 0 restores the default

namespace detail {
// Runs fn(ctx, begin, end) on `threads` threads over [0, n).
void parallel_run(int64_t n, int threads, void (*fn)(void*, int64_t, int64_t), void* ctx);
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

}  // namespace libops
