// What the 3-D window ops share (conv3d, deconv3d, maxpool3d, avgpool3d):
// their window args, the geometry they resolve to, and their layouts.
//
// Note [3-D windows]
//   i args 0..12  kD, kH, kW (0 for the convolutions: from the weights),
//                 sD, sH, sW, pD, pH, pW, dD, dH, dW, same_mode (libnd4j's
//                 conv3dnew order; as Note [Window arguments] in
//                 conv_utils.h, one more spatial dim)
//   x is [N, C, D, H, W] (NCDHW) or [N, D, H, W, C] (NDHWC).
// These ops run as compositions of ops that already run on every device:
// unfold / fold over the three spatial dims (the window engine of
// window.h) and matmul for the convolutions, unfold and a reduction for
// the pooling. Their speed is im2col's; the 2-D ops have the tuned paths.
#pragma once

#include <cstdint>
#include <vector>

#include "libops/ops/declarable_op.h"

namespace libops::ops::nn3d {

struct Window3d {
  int64_t k[3] = {0, 0, 0}, s[3] = {1, 1, 1}, p[3] = {0, 0, 0}, d[3] = {1, 1, 1};
  bool same = false;
};

// A window resolved against an input: spatial extents, padding before and
// after each dim, output extents.
struct Geometry3d {
  bool ncdhw = true;
  int64_t n = 0, c = 0;
  int64_t in[3] = {0, 0, 0}, out[3] = {0, 0, 0};
  int64_t before[3] = {0, 0, 0}, after[3] = {0, 0, 0};
};

inline int64_t effective(const Window3d& w, int a) { return (w.k[a] - 1) * w.d[a] + 1; }

inline Window3d read_window3d(const Context& block) {
  Window3d w;
  for (int a = 0; a < 3; ++a) {
    w.k[a] = block.i_arg(a);
    w.s[a] = block.i_arg(3 + a);
    w.p[a] = block.i_arg(6 + a);
    w.d[a] = block.i_arg(9 + a);
  }
  w.same = block.i_arg(12) == 1;
  return w;
}

// x's batch, channels and spatial extents in its layout; an error unless rank 5.
inline Status read_input3d(const Context& block, const NDArray& x, bool ncdhw, Geometry3d& g) {
  if (x.rank() != 5)
    return block.error(StatusCode::kInvalidArgument, "x%s must be [N, C, D, H, W] (NCDHW) or [N, D, H, W, C] (NDHWC)",
                       x.shape().str().c_str());
  g.ncdhw = ncdhw;
  g.n = x.dim(0);
  g.c = x.dim(ncdhw ? 1 : 4);
  for (int a = 0; a < 3; ++a) g.in[a] = x.dim(ncdhw ? 2 + a : 1 + a);
  return Status::ok();
}

// The forward window's padding and output extents (a convolution or a pool).
// SAME: out = ceil(in / s), the padding's smaller half before. Explicit:
// out = floor((in + 2p - eff) / s) + 1, with ceil_mode rounding up (less
// one when the last window would start in the padding after the input) and
// the windows it adds reaching past the padding (`after` grows to hold them).
inline Status forward_geometry(const Context& block, const Window3d& w, bool ceil, Geometry3d& g) {
  static const char* const kAxis[3] = {"D", "H", "W"};
  for (int a = 0; a < 3; ++a) {
    const int64_t eff = effective(w, a), in = g.in[a];
    if (w.same) {
      g.out[a] = (in + w.s[a] - 1) / w.s[a];
      const int64_t total = std::max<int64_t>(0, (g.out[a] - 1) * w.s[a] + eff - in);
      g.before[a] = total / 2;
      g.after[a] = total - g.before[a];
      continue;
    }
    if (in + 2 * w.p[a] < eff)
      return block.error(StatusCode::kInvalidArgument,
                         "the dilated kernel (%lld along %s) is larger than the padded input (%lld + 2 * %lld)",
                         static_cast<long long>(eff), kAxis[a], static_cast<long long>(in),
                         static_cast<long long>(w.p[a]));
    const int64_t span = in + 2 * w.p[a] - eff;
    int64_t out = (ceil ? (span + w.s[a] - 1) / w.s[a] : span / w.s[a]) + 1;
    if (ceil && (out - 1) * w.s[a] >= in + w.p[a]) --out;
    g.out[a] = out;
    g.before[a] = w.p[a];
    g.after[a] = std::max<int64_t>(w.p[a], (out - 1) * w.s[a] + eff - in - w.p[a]);
  }
  return Status::ok();
}

inline Dims output_dims3d(const Geometry3d& g, int64_t channels) {
  return g.ncdhw ? Dims{g.n, channels, g.out[0], g.out[1], g.out[2]}
                 : Dims{g.n, g.out[0], g.out[1], g.out[2], channels};
}

// unfold's (or, after the output sizes, fold's) window list for w with the
// given padding (Note [Sliding windows] in window/window.h).
inline std::vector<int64_t> window_list3d(const Window3d& w, const int64_t before[3], const int64_t after[3]) {
  std::vector<int64_t> v;
  for (int a = 0; a < 3; ++a) v.push_back(w.k[a]);
  for (int a = 0; a < 3; ++a) v.push_back(w.s[a]);
  for (int a = 0; a < 3; ++a) v.push_back(w.d[a]);
  for (int a = 0; a < 3; ++a) {
    v.push_back(before[a]);
    v.push_back(after[a]);
  }
  return v;
}

// Declares i args 0..12 (Note [3-D windows]).
inline void window3d_signature(OpSignature& args, bool kernel_from_weights) {
  const double hi = 2147483647.0, lo_k = kernel_from_weights ? 0 : 1;
  const char* const k_doc[3] = {"kernel depth", "kernel height", "kernel width"};
  const char* const names[4][3] = {{"kD", "kH", "kW"}, {"sD", "sH", "sW"}, {"pD", "pH", "pW"}, {"dD", "dH", "dW"}};
  for (int a = 0; a < 3; ++a)
    args.i_arg(names[0][a], kernel_from_weights ? "kernel extent; 0 = from the weights" : k_doc[a]).range(lo_k, hi);
  for (int a = 0; a < 3; ++a) args.i_arg(names[1][a], "stride").range(1, hi);
  for (int a = 0; a < 3; ++a) args.i_arg(names[2][a], "padding before and after (when same_mode is 0)").range(0, hi);
  for (int a = 0; a < 3; ++a) args.i_arg(names[3][a], "dilation").range(1, hi);
  args.i_arg("same_mode", "padding mode").one_of({{0, "explicit"}, {1, "SAME"}});
}

// The layout arg of the 3-D ops (0 = NCDHW, 1 = NDHWC).
inline ArgSpec& data_format3d_arg(OpSignature& args) {
  return args.i_arg("data_format", 0, "layout of x and z").one_of({{0, "NCDHW"}, {1, "NDHWC"}});
}

// x as an NCDHW view, and z's NCDHW result back in the call's layout.
inline Status as_ncdhw(const NDArray& x, bool ncdhw, NDArray& out) {
  if (ncdhw) {
    out = x;
    return Status::ok();
  }
  return x.permute(Dims{0, 4, 1, 2, 3}, out);
}
inline Status from_ncdhw(const NDArray& z, bool ncdhw, NDArray& out) {
  if (ncdhw) {
    out = z;
    return Status::ok();
  }
  return z.permute(Dims{0, 2, 3, 4, 1}, out);
}

}  // namespace libops::ops::nn3d
