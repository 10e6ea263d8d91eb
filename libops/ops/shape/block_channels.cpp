// block_channels and unblock_channels: NCHW to the channel-blocked NCHWc
// layout and back (Note [Channel-blocked layout] in
// libops/ops/nn/conv_utils.h; ONNX Runtime's ReorderInput / ReorderOutput).
//
//   block_channels    x [N, C, S...] (rank >= 2, S any spatial dims) ->
//                     [N, ceil(C / b), S..., b]: channel c goes to block
//                     c / b, lane c % b; lanes past C are 0
//                     i arg block_size b >= 1
//   unblock_channels  x [N, ceil(C / b), S..., b] -> [N, C, S...], the
//                     first C channels (rank >= 3; [N, Cb, b] -> [N, C],
//                     what a global pool of an NCHWc value leaves)
//                     i arg channels C >= 1
//   any dtype; CPU and devices
//
// The graph optimizer puts them where a value enters and leaves a chain of
// NCHWc convolutions (Note [Graph rewrites]). Each is a copy of permuted
// views on the call's device: the whole blocks, then the partial last
// block, then (block_channels) zeros in its free lanes.
#include "libops/ops/shape/block_channels.h"

#include <limits>

#include "libops/ops/declarable_op.h"
#include "libops/ops/device_copy.h"
#include "libops/ops/op_pattern.h"

namespace libops::ops {
namespace {

// The blocked array b [N, Cb, S..., b] viewed as [N, Cb, b, S...].
Status lanes_second(const NDArray& b, NDArray& out) {
  const int r = b.rank();
  Dims perm{0, 1, r - 1};
  for (int d = 2; d < r - 1; ++d) perm.push_back(d);
  return b.permute(perm, out);
}

// Plain p [N, C, S...] (dense) split as [N, blocks, lanes, S...] over
// channels [c0, c0 + blocks * lanes).
Status channel_blocks(const NDArray& p, int64_t c0, int64_t blocks, int64_t lanes, NDArray& out) {
  NDArray part;
  RETURN_IF_ERROR(p.slice(1, c0, c0 + blocks * lanes, 1, part));
  Dims dims{p.dim(0), blocks, lanes};
  for (int d = 2; d < p.rank(); ++d) dims.push_back(p.dim(d));
  return part.reshape(dims, out);
}

// Copies between plain [N, C, S...] (dense) and blocked [N, Cb, S..., b]
// in the direction `to_blocked`, zeroing the free lanes when blocking.
// Both are views (NDArray handles), so the copies write the callers'
// buffers.
Status convert(const Context& block, const NDArray& plain, const NDArray& blocked, bool to_blocked) {
  const int64_t c = plain.dim(1), lanes = blocked.dim(blocked.rank() - 1);
  const int64_t full = c / lanes, rest = c % lanes;
  NDArray bv;
  RETURN_IF_ERROR(lanes_second(blocked, bv));
  auto copy = [&](NDArray p, NDArray b) {
    return to_blocked ? assign_on_device(block, b, p) : assign_on_device(block, p, b);
  };
  if (full > 0) {
    NDArray p, b;
    RETURN_IF_ERROR(channel_blocks(plain, 0, full, lanes, p));
    RETURN_IF_ERROR(bv.slice(1, 0, full, 1, b));
    RETURN_IF_ERROR(copy(p, b));
  }
  if (rest > 0) {
    NDArray p, last, b;
    RETURN_IF_ERROR(channel_blocks(plain, full * lanes, 1, rest, p));
    RETURN_IF_ERROR(bv.slice(1, full, full + 1, 1, last));
    RETURN_IF_ERROR(last.slice(2, 0, rest, 1, b));
    RETURN_IF_ERROR(copy(p, b));
    if (to_blocked) {
      NDArray free_lanes, zero;
      RETURN_IF_ERROR(last.slice(2, rest, lanes, 1, free_lanes));
      RETURN_IF_ERROR(NDArray::scalar(blocked.dtype(), 0.0, zero));
      RETURN_IF_ERROR(assign_on_device(block, free_lanes, zero));
    }
  }
  return Status::ok();
}

Dims blocked_dims(const NDArray& x, int64_t lanes) {
  Dims d{x.dim(0), (x.dim(1) + lanes - 1) / lanes};
  for (int k = 2; k < x.rank(); ++k) d.push_back(x.dim(k));
  d.push_back(lanes);
  return d;
}

Dims plain_dims(const NDArray& x, int64_t channels) {
  Dims d{x.dim(0), channels};
  for (int k = 2; k < x.rank() - 1; ++k) d.push_back(x.dim(k));
  return d;
}

Status check_blocked(const Context& block, const NDArray& x, int64_t channels) {
  if (x.rank() < 3)
    return block.error(StatusCode::kInvalidArgument, "x%s has rank %d: it must be [N, C / b, ..., b], rank 3 or more",
                       x.shape().str().c_str(), x.rank());
  const int64_t lanes = x.dim(x.rank() - 1);
  if (lanes < 1 || (channels + lanes - 1) / lanes != x.dim(1))
    return block.error(StatusCode::kInvalidArgument,
                       "x%s does not hold %lld channels: blocks of %lld need %lld of them, x has %lld",
                       x.shape().str().c_str(), static_cast<long long>(channels), static_cast<long long>(lanes),
                       static_cast<long long>(lanes < 1 ? 0 : (channels + lanes - 1) / lanes),
                       static_cast<long long>(x.dim(1)));
  return Status::ok();
}

Status check_plain(const Context& block, const NDArray& x) {
  if (x.rank() < 2)
    return block.error(StatusCode::kInvalidArgument, "x%s has rank %d: it must be [N, C, ...], rank 2 or more",
                       x.shape().str().c_str(), x.rank());
  return Status::ok();
}

}  // namespace

Status block_channels_into(const Context& block, const NDArray& x, NDArray& z) {
  if (z.length() == 0) return Status::ok();
  NDArray xd;
  RETURN_IF_ERROR(dense_on_device(block, x, z.dtype(), xd));  // channel_blocks reshapes it
  return convert(block, xd, z, true);
}

Status unblock_channels_into(const Context& block, const NDArray& x, NDArray& z) {
  if (z.length() == 0) return Status::ok();
  if (z.is_c_contiguous()) return convert(block, z, x, false);
  NDArray zd;
  RETURN_IF_ERROR(NDArray::create(z.dtype(), z.shape(), 'c', zd));
  RETURN_IF_ERROR(convert(block, zd, x, false));
  return assign_on_device(block, z, zd);
}

}  // namespace libops::ops

CUSTOM_OP_IMPL(block_channels, 1, 1, false, 0, 1) {
  using namespace libops::ops;
  RETURN_IF_ERROR(check_plain(block, *INPUT_VARIABLE(0)));
  return block_channels_into(block, *INPUT_VARIABLE(0), *OUTPUT_VARIABLE(0));
}

DECLARE_SHAPE_FN(block_channels) {
  using namespace libops;
  using namespace libops::ops;
  const NDArray& x = *INPUT_VARIABLE(0);
  RETURN_IF_ERROR(check_plain(block, x));
  shapes.push_back(TensorShape{x.dtype(), blocked_dims(x, INT_ARG(0)), 'c'});
  return Status::ok();
}

DECLARE_TYPES(block_channels) {
  // Copies of views on the call's device.
  descriptor.allow_inputs(libops::types::kAny).runs_on_any_device();
}

DECLARE_PATTERN(block_channels, kInjective)

DECLARE_ARGS(block_channels) {
  args.describe("NCHW to the channel-blocked NCHWc layout: [N, C, S...] -> [N, ceil(C / b), S..., b], zeros past C.");
  args.input("x", "[N, C, S...], rank 2 or more, any dtype");
  args.output("z", "[N, ceil(C / b), S..., b], x's dtype; channel c at block c / b, lane c % b");
  args.i_arg("block_size", "the lanes b of a block (16 for oneDNN's nChw16c)").range(1, 1 << 20);
}

CUSTOM_OP_IMPL(unblock_channels, 1, 1, false, 0, 1) {
  using namespace libops::ops;
  RETURN_IF_ERROR(check_blocked(block, *INPUT_VARIABLE(0), INT_ARG(0)));
  return unblock_channels_into(block, *INPUT_VARIABLE(0), *OUTPUT_VARIABLE(0));
}

DECLARE_SHAPE_FN(unblock_channels) {
  using namespace libops;
  using namespace libops::ops;
  const NDArray& x = *INPUT_VARIABLE(0);
  RETURN_IF_ERROR(check_blocked(block, x, INT_ARG(0)));
  shapes.push_back(TensorShape{x.dtype(), plain_dims(x, INT_ARG(0)), 'c'});
  return Status::ok();
}

DECLARE_TYPES(unblock_channels) {
  // Copies of views on the call's device.
  descriptor.allow_inputs(libops::types::kAny).runs_on_any_device();
}

DECLARE_PATTERN(unblock_channels, kInjective)

DECLARE_ARGS(unblock_channels) {
  args.describe("The channel-blocked NCHWc layout back to NCHW: [N, ceil(C / b), S..., b] -> [N, C, S...].");
  args.input("x", "[N, ceil(C / b), S..., b], rank 3 or more, any dtype");
  args.output("z", "[N, C, S...], x's dtype");
  args.i_arg("channels", "C, the channels x holds").range(1, std::numeric_limits<int32_t>::max());
}
