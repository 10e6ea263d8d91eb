// Running a declarable op on the fake "cuda" device of fake_device.h and
// checking that it stayed there.
#pragma once

#include "fake_device.h"
#include "op_test_util.h"

namespace libops::test {

// Runs `op` on cuda:0; checks that nothing came back to the host and that
// every output is newest on the device, then syncs the outputs to the host
// so the test can read them.
inline void run_on_fake_cuda(const char* op, const OpCall& call, Context& ctx) {
  ctx.set_device(Device::cuda(0));
  const int to_host = FakeDevice::to_host;
  ASSERT_OK(run_op(op, call, ctx));
  EXPECT_EQ(FakeDevice::to_host, to_host) << op;
  for (int i = 0; i < ctx.num_outputs(); ++i) {
    EXPECT_EQ(ctx.output(i)->buffer()->sync(), DataBuffer::Sync::kDeviceNewer) << op << " output " << i;
    ASSERT_OK(ctx.output(i)->buffer()->sync_to_host());
  }
}

}  // namespace libops::test
