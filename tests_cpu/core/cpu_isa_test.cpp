// Runtime ISA dispatch (core/cpu_isa.h): the level is clamped to what the
// CPU has, and isa_dispatch runs a copy compiled for the level set.
#include <gtest/gtest.h>

#include <cmath>

#include "libops/core/cpu_isa.h"

namespace libops {
namespace {

// Sets a level for one test and restores the one before.
class IsaLevel {
 public:
  explicit IsaLevel(CpuIsa isa) : saved_(cpu_isa()) { set_ = set_cpu_isa(isa); }
  ~IsaLevel() { set_cpu_isa(saved_); }
  CpuIsa set() const { return set_; }

 private:
  CpuIsa saved_, set_;
};

TEST(CpuIsaTest, NamesAndClamping) {
  EXPECT_STREQ(cpu_isa_name(CpuIsa::kBaseline), "baseline");
  EXPECT_STREQ(cpu_isa_name(CpuIsa::kAvx2), "avx2");
  EXPECT_STREQ(cpu_isa_name(CpuIsa::kAvx512), "avx512");
  {
    IsaLevel level(CpuIsa::kAvx512);  // never above what the CPU has
    EXPECT_EQ(level.set(), cpu_isa_supported());
    EXPECT_EQ(cpu_isa(), cpu_isa_supported());
  }
  IsaLevel level(CpuIsa::kBaseline);
  EXPECT_EQ(level.set(), CpuIsa::kBaseline);
  EXPECT_EQ(cpu_isa(), CpuIsa::kBaseline);
}

// a * a + c with a = 1 + 2^-12 and c = -(1 + 2^-11): a * a = 1 + 2^-11 +
// 2^-24 rounds to 1 + 2^-11 in float (a tie, to even), so the separate
// multiply and add give 0, and a fused multiply-add (what the avx2 and
// avx512 copies compile it to) keeps 2^-24. The copy that ran shows in the
// result.
[[gnu::noinline]] float fused_probe(float a, float c) {
  return isa_dispatch([a, c] { return a * a + c; });
}

TEST(CpuIsaTest, DispatchRunsTheCopyOfTheLevelSet) {
  // volatile: no constant folding of the probe.
  volatile float va = 1.0f + std::ldexp(1.0f, -12), vc = -(1.0f + std::ldexp(1.0f, -11));
  const float a = va, c = vc;
#if !defined(__FMA__)  // a native build's baseline copy fuses too
  {
    IsaLevel level(CpuIsa::kBaseline);
    EXPECT_EQ(fused_probe(a, c), 0.0f);
  }
#endif
#if LIBOPS_ISA_DISPATCH
  for (CpuIsa isa : {CpuIsa::kAvx2, CpuIsa::kAvx512}) {
    if (static_cast<int>(isa) > static_cast<int>(cpu_isa_supported())) continue;
    IsaLevel level(isa);
    EXPECT_EQ(fused_probe(a, c), std::ldexp(1.0f, -24)) << cpu_isa_name(isa);
  }
#endif
}

}  // namespace
}  // namespace libops
