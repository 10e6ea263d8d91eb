// Helpers for tests_cuda: whether a GPU is visible, and the CPU test helpers.
#pragma once

#include <gtest/gtest.h>

#include "libops/core/device.h"
#include "op_test_util.h"  // tests_cpu/: run_op()
#include "test_util.h"     // tests_cpu/test_util.h: make(), values(), all_close()

namespace libops::test {

inline bool cuda_device_present() {
  const DeviceRuntime* rt = device_runtime(DeviceType::kCuda);
  return rt != nullptr && rt->device_count() > 0;
}

// Runs op `name` on the host inputs in `cpu` and on copies of them on cuda:0
// in `gpu` (both fresh), so the two results can be compared.
inline Status run_on_cpu_and_gpu(const char* name, std::vector<NDArray>& host, const OpCall& args, Context& cpu,
                                 Context& gpu) {
  std::vector<NDArray> dev(host.size());
  OpCall on_cpu = args, on_gpu = args;
  on_cpu.in.clear();
  on_gpu.in.clear();
  for (size_t k = 0; k < host.size(); ++k) {
    RETURN_IF_ERROR(host[k].dup('c', dev[k]));
    on_cpu.in.push_back(&host[k]);
    on_gpu.in.push_back(&dev[k]);
  }
  RETURN_IF_ERROR(run_op(name, on_cpu, cpu));
  gpu.set_device(Device::cuda(0));
  return run_op(name, on_gpu, gpu);
}

}  // namespace libops::test

// Tests that need a GPU skip themselves (with the reason) where none is visible.
#define REQUIRE_CUDA_DEVICE()                                                               \
  do {                                                                                      \
    if (!::libops::test::cuda_device_present())                                             \
      GTEST_SKIP() << "no CUDA device: " << ::libops::check_device(::libops::Device::cuda()).message(); \
  } while (0)

// In a loop over golden cases: a failing call fails the test and moves on to
// the next case, so one run on a GPU lists every case that fails rather than
// stopping at the first.
#define CASE_OK(expr)                          \
  if (::libops::Status s_ = (expr); !s_.is_ok()) { \
    ADD_FAILURE() << s_.message();             \
    continue;                                  \
  }
#define CASE_TRUE(cond)                         \
  if (!(cond)) {                                \
    ADD_FAILURE() << "expected: " #cond;        \
    continue;                                   \
  }
