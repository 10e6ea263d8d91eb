// The vector instruction set libops' own kernels run with, chosen at run time.
//
// Note [Runtime ISA dispatch]
// libops is compiled for the x86-64 baseline (SSE2), so a library built on
// one machine runs on any x86-64 machine. The loops whose speed follows the
// vector width (the dense runs of the element-wise and reduction engines,
// the float math of gelu, softmax, layer_norm ...) are wrapped in
// isa_dispatch(f): f's body is compiled three times, for the baseline, for
// AVX2 + FMA (x86-64-v3) and for AVX-512 (x86-64-v4), and the copy for
// cpu_isa() runs. Each copy is a function with GCC's `target`
// attribute into which f and everything it calls are inlined (`flatten`),
// so an inline helper used elsewhere is never compiled for a wider ISA than
// the machine has (which per-file -mavx2 flags cannot promise: the linker
// keeps one copy of each inline function). oneDNN and OpenBLAS choose their
// kernels at run time the same way.
//
// cpu_isa() is the best level the CPU (and the OS's saved vector state)
// supports, lowered by LIBOPS_CPU_ISA=baseline|avx2|avx512 or set_cpu_isa;
// it is never raised above what the CPU has. The tests run the whole suite
// at each level the build machine has.
//
// Results may differ between levels in the last bit where a wider level
// fuses a multiply and an add (GCC contracts a * b + c into an FMA where
// the target has one), as they differ between machines in other engines.
//
// Note [Vector width]
// The AVX-512 copy keeps GCC's 256-bit vectors unless the caller asks for
// 512-bit ones (isa_dispatch<true>). Measured on this project's AVX-512
// Xeon, one thread, 16M floats: loops bound by memory run slower with
// 512-bit vectors (add 10.5 GB/s against 11.5, relu 9.7 against 11.9),
// and loops bound by arithmetic run faster (tanh 8.6 against 4.8 at
// 256-bit AVX2, sigmoid 9.2 against 6.4; gelu 1.5x). So the
// transform_strict table (exp, log, tanh, sigmoid, erf ...), gelu and the
// LSTM gates ask for the wide copy.
//
// -DLIBOPS_NATIVE_ARCH=ON compiles everything for the build machine
// instead (-march=native): faster code outside the dispatched loops, for a
// library that runs only where it was built.
#pragma once

#include <atomic>
#include <cstdint>

#include "libops/core/api.h"

namespace libops {

enum class CpuIsa : int { kBaseline = 0, kAvx2 = 1, kAvx512 = 2 };

// Exported: cpu_isa() is inline, and expressions (expr/expr.h) compiled
// outside the library call it.
LIBOPS_API_BEGIN
namespace detail {
extern std::atomic<int> g_cpu_isa;  // -1 until first asked
int init_cpu_isa();
}  // namespace detail

// The level the dispatched kernels use now.
inline CpuIsa cpu_isa() {
  const int v = detail::g_cpu_isa.load(std::memory_order_relaxed);
  return static_cast<CpuIsa>(v >= 0 ? v : detail::init_cpu_isa());
}
// The best level this CPU supports (what cpu_isa() is by default).
CpuIsa cpu_isa_supported();
// Sets the level, clamped to cpu_isa_supported(); returns the level set.
CpuIsa set_cpu_isa(CpuIsa isa);
// "baseline", "avx2", "avx512".
const char* cpu_isa_name(CpuIsa isa);
LIBOPS_API_END

// Whether the dispatch is compiled in (x86-64 with GCC or Clang, outside
// nvcc); elsewhere every level runs the one baseline copy.
#if defined(__x86_64__) && defined(__GNUC__) && !defined(__CUDACC__)
#define LIBOPS_ISA_DISPATCH 1
#define LIBOPS_TARGET_AVX2 __attribute__((target("avx2,fma,f16c,bmi,bmi2,lzcnt,popcnt,movbe")))
#if defined(__clang__)
#define LIBOPS_TARGET_AVX512 \
  __attribute__((target("avx2,fma,f16c,bmi,bmi2,lzcnt,popcnt,movbe,avx512f,avx512bw,avx512dq,avx512vl,avx512cd")))
#define LIBOPS_TARGET_AVX512_WIDE LIBOPS_TARGET_AVX512
#else
// GCC's generic tuning would use 512-bit vectors wherever AVX-512 is on;
// both widths are chosen here (Note [Vector width]).
#define LIBOPS_TARGET_AVX512                                                                                 \
  __attribute__((target("avx2,fma,f16c,bmi,bmi2,lzcnt,popcnt,movbe,avx512f,avx512bw,avx512dq,avx512vl," \
                        "avx512cd,prefer-vector-width=256")))
#define LIBOPS_TARGET_AVX512_WIDE                                                                            \
  __attribute__((target("avx2,fma,f16c,bmi,bmi2,lzcnt,popcnt,movbe,avx512f,avx512bw,avx512dq,avx512vl," \
                        "avx512cd,prefer-vector-width=512")))
#endif
#else
#define LIBOPS_ISA_DISPATCH 0
#define LIBOPS_TARGET_AVX2
#define LIBOPS_TARGET_AVX512
#define LIBOPS_TARGET_AVX512_WIDE
#endif

namespace detail {
template <typename F>
[[gnu::flatten]] LIBOPS_TARGET_AVX512_WIDE auto run_avx512_wide(const F& f) {
  return f();
}
template <typename F>
[[gnu::flatten]] LIBOPS_TARGET_AVX512 auto run_avx512(const F& f) {
  return f();
}
template <typename F>
[[gnu::flatten]] LIBOPS_TARGET_AVX2 auto run_avx2(const F& f) {
  return f();
}
template <typename F>
[[gnu::flatten]] auto run_baseline(const F& f) {
  return f();
}
}  // namespace detail

// Runs f() compiled for cpu_isa(): Note [Runtime ISA dispatch]. f should
// be a leaf loop: everything it calls is inlined into each copy. kWide
// gives the AVX-512 copy 512-bit vectors (Note [Vector width]).
template <bool kWide = false, typename F>
inline auto isa_dispatch(const F& f) {
#if LIBOPS_ISA_DISPATCH
  switch (cpu_isa()) {
    case CpuIsa::kAvx512:
      if constexpr (kWide) return detail::run_avx512_wide(f);
      else return detail::run_avx512(f);
    case CpuIsa::kAvx2: return detail::run_avx2(f);
    default: break;
  }
#endif
  return detail::run_baseline(f);
}

}  // namespace libops
