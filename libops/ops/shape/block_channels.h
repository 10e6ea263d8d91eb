// Conversions between NCHW and the channel-blocked NCHWc layout (Note
// [Channel-blocked layout] in libops/ops/nn/conv_utils.h), for the
// block_channels and unblock_channels ops and for the window ops' own
// fallbacks. Both copy on the call's device.
#pragma once

#include "libops/ops/context.h"

namespace libops::ops {

// z [N, ceil(C / b), S..., b] = x [N, C, S...] blocked by z's last dim b,
// with zeros in the lanes past C. z is allocated by the caller.
Status block_channels_into(const Context& block, const NDArray& x, NDArray& z);

// z [N, C, S...] = the first C channels of x [N, ceil(C / b), S..., b].
Status unblock_channels_into(const Context& block, const NDArray& x, NDArray& z);

}  // namespace libops::ops
