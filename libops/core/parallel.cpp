#include "libops/core/parallel.h"

#include <omp.h>

#include <atomic>
#include <cstdlib>
#include <exception>
#include <thread>

namespace libops {

namespace {
std::atomic<int> g_num_threads{0};

int default_threads() {
  if (const char* env = std::getenv("LIBOPS_NUM_THREADS")) {
    int n = std::atoi(env);
    if (n > 0) return n;
  }
  unsigned hw = std::thread::hardware_concurrency();
  return hw > 0 ? static_cast<int>(hw) : 1;
}
}  // namespace

thread_local int t_num_threads = 0;  // ScopedThreads; 0: the process's count

int get_num_threads() {
  if (t_num_threads > 0) return t_num_threads;
  int n = g_num_threads.load(std::memory_order_relaxed);
  if (n <= 0) {
    n = default_threads();
    g_num_threads.store(n, std::memory_order_relaxed);
  }
  return n;
}

void set_num_threads(int n) { g_num_threads.store(n > 0 ? n : default_threads()); }

ScopedThreads::ScopedThreads(int n) : saved_(t_num_threads) {
  if (n > 0) t_num_threads = n;
}
ScopedThreads::~ScopedThreads() { t_num_threads = saved_; }

namespace detail {

bool in_parallel_region() { return omp_in_parallel() != 0; }

// Note [Exceptions in parallel regions]
//  An exception that leaves an OpenMP region calls std::terminate: a
//  std::bad_alloc in one chunk of a softmax would end the process instead
//  of becoming the op's out-of-memory error. Each thread's body therefore
//  runs in a try block; the first exception is kept and rethrown on the
//  calling thread once the region has joined, where the op's own handler
//  (DeclarableOp::execute, the C API) turns it into a Status. A team body
//  (parallel_team) must still not throw before a team_barrier: the other
//  threads would wait there for it forever; none of them allocates.
class FirstException {
 public:
  template <typename F>
  void run(F&& f) noexcept {
    try {
      f();
    } catch (...) {
      if (!failed_.exchange(true)) first_ = std::current_exception();
    }
  }
  void rethrow() const {
    if (first_) std::rethrow_exception(first_);
  }

 private:
  std::atomic<bool> failed_{false};
  std::exception_ptr first_;  // written by the one thread that set failed_
};

void parallel_run(int64_t n, int threads, void (*fn)(void*, int64_t, int64_t), void* ctx) {
  FirstException error;
#pragma omp parallel num_threads(threads)
  {
    int64_t t = omp_get_thread_num(), nt = omp_get_num_threads();
    // Even split; the first n % nt chunks get one extra element.
    int64_t base = n / nt, extra = n % nt;
    int64_t begin = t * base + (t < extra ? t : extra);
    int64_t end = begin + base + (t < extra ? 1 : 0);
    if (begin < end) error.run([&] { fn(ctx, begin, end); });
  }
  error.rethrow();
}

void parallel_team_run(int threads, void (*fn)(void*, int, int), void* ctx) {
  FirstException error;
#pragma omp parallel num_threads(threads)
  error.run([&] { fn(ctx, omp_get_thread_num(), omp_get_num_threads()); });
  error.rethrow();
}

}  // namespace detail

void team_barrier() {
  // An orphaned barrier binds to the innermost enclosing parallel region;
  // outside any (a team of one) it returns at once.
#pragma omp barrier
}

}  // namespace libops
