#include "libops/core/cpu_isa.h"

#include <cstdlib>
#include <cstring>

#include "libops/core/log.h"

namespace libops {

namespace detail {
std::atomic<int> g_cpu_isa{-1};
}  // namespace detail

namespace {

CpuIsa detect() {
#if LIBOPS_ISA_DISPATCH
  // libgcc's checks include the OS's support for the wider registers
  // (XGETBV), so a CPU whose AVX-512 state the kernel does not save reads
  // as not having it.
  __builtin_cpu_init();
  const bool avx2 = __builtin_cpu_supports("avx2") && __builtin_cpu_supports("fma") &&
                    __builtin_cpu_supports("bmi") && __builtin_cpu_supports("bmi2") &&
                    __builtin_cpu_supports("popcnt");
  const bool avx512 = avx2 && __builtin_cpu_supports("avx512f") && __builtin_cpu_supports("avx512bw") &&
                      __builtin_cpu_supports("avx512dq") && __builtin_cpu_supports("avx512vl") &&
                      __builtin_cpu_supports("avx512cd");
  if (avx512) return CpuIsa::kAvx512;
  if (avx2) return CpuIsa::kAvx2;
#endif
  return CpuIsa::kBaseline;
}

bool parse(const char* s, CpuIsa* out) {
  for (CpuIsa isa : {CpuIsa::kBaseline, CpuIsa::kAvx2, CpuIsa::kAvx512}) {
    if (std::strcmp(s, cpu_isa_name(isa)) == 0) {
      *out = isa;
      return true;
    }
  }
  return false;
}

}  // namespace

CpuIsa cpu_isa_supported() {
  static const CpuIsa supported = detect();
  return supported;
}

const char* cpu_isa_name(CpuIsa isa) {
  switch (isa) {
    case CpuIsa::kAvx512: return "avx512";
    case CpuIsa::kAvx2: return "avx2";
    default: return "baseline";
  }
}

CpuIsa set_cpu_isa(CpuIsa isa) {
  const CpuIsa best = cpu_isa_supported();
  if (static_cast<int>(isa) > static_cast<int>(best)) isa = best;
  detail::g_cpu_isa.store(static_cast<int>(isa), std::memory_order_relaxed);
  return isa;
}

int detail::init_cpu_isa() {
  CpuIsa isa = cpu_isa_supported();
  if (const char* env = std::getenv("LIBOPS_CPU_ISA"); env != nullptr && *env != '\0') {
    CpuIsa asked;
    if (!parse(env, &asked)) {
      log_warn("LIBOPS_CPU_ISA=%s is not one of baseline, avx2, avx512; using %s", env, cpu_isa_name(isa));
    } else if (static_cast<int>(asked) > static_cast<int>(isa)) {
      log_warn("LIBOPS_CPU_ISA=%s: this CPU supports %s at most; using it", env, cpu_isa_name(isa));
    } else {
      isa = asked;
    }
  }
  // Concurrent first calls compute the same value; the first store wins.
  int expected = -1;
  detail::g_cpu_isa.compare_exchange_strong(expected, static_cast<int>(isa), std::memory_order_relaxed);
  return detail::g_cpu_isa.load(std::memory_order_relaxed);
}

}  // namespace libops
