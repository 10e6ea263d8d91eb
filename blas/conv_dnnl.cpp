// oneDNN convolution (Note [oneDNN convolution] in conv_dnnl.h).
#include "blas/conv_dnnl.h"

#include <algorithm>
#include <atomic>
#include <cstdlib>
#include <cstring>
#include <list>
#include <memory>
#include <new>
#include <string>
#include <unordered_map>
#include <vector>

#ifdef LIBOPS_HAVE_DNNL
#include "blas/dnnl_util.h"
#include "libops/core/cpu_isa.h"
#include "libops/core/parallel.h"
#endif

namespace libops::blas {

namespace {

std::atomic<bool> g_forced_off{false};

#ifdef LIBOPS_HAVE_DNNL
bool environment_allows() {
  static const bool on = [] {
    const char* v = std::getenv("LIBOPS_DNNL");
    return v == nullptr || std::strcmp(v, "0") != 0;
  }();
  return on;
}
#endif

}  // namespace

bool dnnl_enabled() {
#ifdef LIBOPS_HAVE_DNNL
  return environment_allows() && !g_forced_off.load(std::memory_order_relaxed);
#else
  return false;
#endif
}

void set_dnnl_enabled(bool on) { g_forced_off.store(!on, std::memory_order_relaxed); }

namespace {
std::atomic<bool> g_winograd_forced_off{false};
}  // namespace

bool winograd_enabled() {
  static const bool environment_on = [] {
    const char* v = std::getenv("LIBOPS_WINOGRAD");
    return v == nullptr || std::strcmp(v, "0") != 0;
  }();
  return environment_on && !g_winograd_forced_off.load(std::memory_order_relaxed);
}

void set_winograd_enabled(bool on) { g_winograd_forced_off.store(!on, std::memory_order_relaxed); }

#ifdef LIBOPS_HAVE_DNNL

namespace {

using dnnl::memory;
using tag = dnnl::memory::format_tag;
constexpr auto kF32 = dnnl::memory::data_type::f32;

using dnnl_util::cpu_engine;
using dnnl_util::OmpThreads;

// Everything one geometry needs, made once per thread: the convolution,
// the reorders into and out of its layouts, and the blocked buffers.
struct ConvPrimitives {
  Conv2dGeometry g;
  bool has_bias = false;
  int threads = 1;  // oneDNN shapes its work for the thread count it is made under
  bool transposed = false;
  dnnl::convolution_forward conv;      // transposed: deconv instead
  dnnl::deconvolution_forward deconv;
  memory user_x, user_w, user_b, user_z, user_r;  // over the caller's pointers, set per call
  bool residual_by_sum = false;  // the residual goes in as z's prior contents (a sum post-op)
  memory conv_x, conv_w, conv_z;          // the convolution's layouts (== user_* where no reorder)
  bool reorder_x = false, reorder_w = false, reorder_z = false;
  dnnl::reorder to_conv_x, to_conv_w, from_conv_z;
  memory scratchpad;  // over the thread's buffer, set per call (Note [oneDNN scratchpads])
  std::string impl;  // oneDNN's name for the kernel, e.g. "jit:avx512_core"
};

// The memories over the caller's pointers and, where the primitive's
// layouts differ, its own buffers and the reorders between them.
void finish_primitives(ConvPrimitives& p, const memory::desc& src, const memory::desc& weights,
                       const memory::desc& dst, const memory::desc& user_x_md, const memory::desc& user_w_md,
                       const memory::desc& user_b_md, const memory::desc& user_z_md) {
  dnnl::engine& eng = cpu_engine();
  p.user_x = memory(user_x_md, eng, DNNL_MEMORY_NONE);
  p.user_w = memory(user_w_md, eng, DNNL_MEMORY_NONE);
  p.user_b = memory(user_b_md, eng, DNNL_MEMORY_NONE);
  p.user_z = memory(user_z_md, eng, DNNL_MEMORY_NONE);
  p.reorder_x = src != user_x_md;
  p.reorder_w = weights != user_w_md;
  p.reorder_z = dst != user_z_md;
  p.conv_x = p.reorder_x ? memory(src, eng) : p.user_x;
  p.conv_w = p.reorder_w ? memory(weights, eng) : p.user_w;
  p.conv_z = p.reorder_z ? memory(dst, eng) : p.user_z;
  if (p.reorder_x) p.to_conv_x = dnnl::reorder(p.user_x, p.conv_x);
  if (p.reorder_w) p.to_conv_w = dnnl::reorder(p.user_w, p.conv_w);
  if (p.reorder_z) p.from_conv_z = dnnl::reorder(p.conv_z, p.user_z);
}

std::unique_ptr<ConvPrimitives> make_primitives(const Conv2dGeometry& g, bool has_bias, int threads) {
  dnnl::engine& eng = cpu_engine();
  auto p = std::make_unique<ConvPrimitives>();
  p->g = g;
  p->has_bias = has_bias;
  p->threads = threads;
  // Grouped weights are [G, Cout/G, Cin/G, kH, kW] to oneDNN: the same
  // bytes as the caller's [Cout, Cin/G, kH, kW]. A transposed convolution's
  // [Cin, Cout, kH, kW] is oneDNN's iohw.
  const bool grouped = g.groups > 1;
  const memory::dims x_dims = {g.n, g.c, g.h, g.w}, b_dims = {g.cout}, z_dims = {g.n, g.cout, g.oh, g.ow};
  const memory::dims w_dims = grouped ? memory::dims{g.groups, g.cout / g.groups, g.c / g.groups, g.kh, g.kw}
                                      : memory::dims{g.cout, g.c, g.kh, g.kw};
  if (g.channel_block != 0 && g.channel_block != 8 && g.channel_block != 16)
    throw dnnl::error(dnnl_unimplemented, "channel blocks other than 8 and 16");
  const bool as_given = g.nhwc || g.channel_block != 0;  // no reorder of x and z
  const tag act = g.channel_block == 16 ? tag::nChw16c
                  : g.channel_block == 8 ? tag::nChw8c
                  : g.nhwc               ? tag::nhwc
                                         : tag::nchw;
  const tag w_tag = g.transposed ? tag::iohw : grouped ? tag::goihw : tag::oihw;
  const memory::desc user_x_md(x_dims, kF32, g.nchw_input ? tag::nchw : act), user_w_md(w_dims, kF32, w_tag),
      user_b_md(b_dims, kF32, tag::a), user_z_md(z_dims, kF32, act);
  // NHWC and blocked run on the caller's layout; NCHW goes through the
  // channel blocks of this ISA where a kernel takes them, else through the
  // layout oneDNN picks (Note [NCHW through channel blocks]).
  const memory::desc any_x(x_dims, kF32, tag::any), any_z(z_dims, kF32, tag::any);
  const tag blocks = cpu_isa_supported() == CpuIsa::kAvx512 ? tag::nChw16c
                     : cpu_isa_supported() == CpuIsa::kAvx2 ? tag::nChw8c
                                                             : tag::any;
  const bool try_blocks = !as_given && blocks != tag::any;
  // An image of few channels stays nchw: oneDNN's first-layer kernels read it so.
  const bool few_channels = !grouped && !g.transposed && g.c < (blocks == tag::nChw16c ? 16 : 8);
  const memory::desc blocked_x(x_dims, kF32, few_channels ? tag::nchw : blocks), blocked_z(z_dims, kF32, blocks);
  const memory::desc x_md = as_given ? user_x_md : any_x, z_md = as_given ? user_z_md : any_z;
  const memory::desc w_md(w_dims, kF32, tag::any);
  // pd_of(x, z) with the channel blocks first where they are tried and a
  // kernel of this ISA takes them (not oneDNN's reference code).
  auto blocks_first = [&](auto pd_of) {
    if (try_blocks) {
      try {
        auto pd = pd_of(blocked_x, blocked_z);
        if (std::string(pd.impl_info_str()).rfind("ref", 0) != 0) return pd;
      } catch (const dnnl::error&) {
      }
    }
    return pd_of(x_md, z_md);
  };
  // The padding after the image: what makes oneDNN's output extent oh. A
  // convolution never needs it negative (a stride's leftover rows are not
  // read); a transposed one with output padding would, which oneDNN does
  // not take: the caller's own path runs those.
  int64_t pad_bottom, pad_right;
  if (g.transposed && (g.post_op != ConvPostOp::kNone || g.residual))
    throw dnnl::error(dnnl_unimplemented, "a post-op or a residual on a transposed convolution");
  if (g.transposed) {
    pad_bottom = (g.h - 1) * g.sh + (g.kh - 1) * g.dh + 1 - g.pad_top - g.oh;
    pad_right = (g.w - 1) * g.sw + (g.kw - 1) * g.dw + 1 - g.pad_left - g.ow;
    if (pad_bottom < 0 || pad_right < 0)
      throw dnnl::error(dnnl_unimplemented, "output padding (negative padding after the image)");
  } else {
    pad_bottom = std::max<int64_t>(0, (g.oh - 1) * g.sh + (g.kh - 1) * g.dh + 1 - g.h - g.pad_top);
    pad_right = std::max<int64_t>(0, (g.ow - 1) * g.sw + (g.kw - 1) * g.dw + 1 - g.w - g.pad_left);
  }
  const memory::dims strides = {g.sh, g.sw}, dilates = {g.dh - 1, g.dw - 1}, pad_l = {g.pad_top, g.pad_left},
                     pad_r = {pad_bottom, pad_right};
  p->transposed = g.transposed;
  if (g.transposed) {
    const auto pd = blocks_first([&](const memory::desc& xm, const memory::desc& zm) {
      auto desc = has_bias ? dnnl::deconvolution_forward::desc(dnnl::prop_kind::forward_inference,
                                                               dnnl::algorithm::deconvolution_direct, xm, w_md,
                                                               user_b_md, zm, strides, dilates, pad_l, pad_r)
                           : dnnl::deconvolution_forward::desc(dnnl::prop_kind::forward_inference,
                                                               dnnl::algorithm::deconvolution_direct, xm, w_md, zm,
                                                               strides, dilates, pad_l, pad_r);
      return dnnl::deconvolution_forward::primitive_desc(desc, dnnl_util::with_user_scratchpad({}), eng);
    });
    p->deconv = dnnl::deconvolution_forward(pd);
    p->scratchpad = memory(pd.scratchpad_desc(), eng, DNNL_MEMORY_NONE);
    p->impl = pd.impl_info_str();
    finish_primitives(*p, pd.src_desc(), pd.weights_desc(), pd.dst_desc(), user_x_md, user_w_md, user_b_md,
                      user_z_md);
    return p;
  }
  if (g.residual && !as_given) throw dnnl::error(dnnl_unimplemented, "a residual with reordered x and z");
  // The residual (a binary add, or for Winograd a sum into z's prior
  // contents), then the activation.
  auto attributes = [&](bool residual_by_sum) {
    dnnl::post_ops ops;
    if (g.residual && residual_by_sum) ops.append_sum(1.f);
    else if (g.residual) ops.append_binary(dnnl::algorithm::binary_add, user_z_md);
    if (g.post_op == ConvPostOp::kRelu) ops.append_eltwise(1.f, dnnl::algorithm::eltwise_relu, 0.f, 0.f);
    else if (g.post_op == ConvPostOp::kRelu6) ops.append_eltwise(1.f, dnnl::algorithm::eltwise_clip, 0.f, 6.f);
    dnnl::primitive_attr attr;
    attr.set_post_ops(ops);
    return dnnl_util::with_user_scratchpad(attr);
  };
  dnnl::primitive_attr attr = attributes(false);
  p->user_r = memory(user_z_md, eng, DNNL_MEMORY_NONE);
  // Note [Winograd convolution]: oneDNN's Winograd kernels work on their
  // own blocked layouts (so x and z get reorders, NHWC as well); where
  // it has none for the case, the direct convolution runs.
  if (g.winograd) {
    try {
      auto desc = has_bias ? dnnl::convolution_forward::desc(dnnl::prop_kind::forward_inference,
                                                             dnnl::algorithm::convolution_winograd, any_x, w_md,
                                                             user_b_md, any_z, strides, dilates, pad_l, pad_r)
                           : dnnl::convolution_forward::desc(dnnl::prop_kind::forward_inference,
                                                             dnnl::algorithm::convolution_winograd, any_x, w_md,
                                                             any_z, strides, dilates, pad_l, pad_r);
      const dnnl::convolution_forward::primitive_desc pd(desc, attributes(true), eng);
      p->conv = dnnl::convolution_forward(pd);
      p->scratchpad = memory(pd.scratchpad_desc(), eng, DNNL_MEMORY_NONE);
      p->impl = pd.impl_info_str();
      p->residual_by_sum = g.residual;
      finish_primitives(*p, pd.src_desc(), pd.weights_desc(), pd.dst_desc(), user_x_md, user_w_md, user_b_md,
                        user_z_md);
      // A sum post-op reads z's prior contents where the kernel writes: a
      // z of another layout would need the residual reordered in.
      if (!(p->residual_by_sum && p->reorder_z)) return p;
    } catch (const dnnl::error&) {
    }
    p->residual_by_sum = false;
  }
  const auto pd = blocks_first([&](const memory::desc& xm, const memory::desc& zm) {
    auto desc = has_bias ? dnnl::convolution_forward::desc(dnnl::prop_kind::forward_inference,
                                                           dnnl::algorithm::convolution_direct, xm, w_md, user_b_md,
                                                           zm, strides, dilates, pad_l, pad_r)
                         : dnnl::convolution_forward::desc(dnnl::prop_kind::forward_inference,
                                                           dnnl::algorithm::convolution_direct, xm, w_md, zm,
                                                           strides, dilates, pad_l, pad_r);
    return dnnl::convolution_forward::primitive_desc(desc, attr, eng);
  });
  p->conv = dnnl::convolution_forward(pd);
  p->scratchpad = memory(pd.scratchpad_desc(), eng, DNNL_MEMORY_NONE);
  p->impl = pd.impl_info_str();
  finish_primitives(*p, pd.src_desc(), pd.weights_desc(), pd.dst_desc(), user_x_md, user_w_md, user_b_md, user_z_md);
  return p;
}

// The calling thread's primitives for (g, has_bias, threads), most recently
// used first.
ConvPrimitives& primitives_for(const Conv2dGeometry& g, bool has_bias, int threads) {
  constexpr size_t kMaxEntries = 64;  // a ResNet-50 has about 20 distinct geometries
  thread_local std::list<std::unique_ptr<ConvPrimitives>> cache;
  for (auto it = cache.begin(); it != cache.end(); ++it) {
    if ((*it)->g == g && (*it)->has_bias == has_bias && (*it)->threads == threads) {
      if (it != cache.begin()) cache.splice(cache.begin(), cache, it);
      return *cache.front();
    }
  }
  cache.push_front(make_primitives(g, has_bias, threads));
  if (cache.size() > kMaxEntries) cache.pop_back();
  return *cache.front();
}

}  // namespace

struct ConvWeightsCache::Impl {
  const void* source = nullptr;
  Conv2dGeometry g;
  int threads = 0;
  memory weights;  // in the primitive's layout
};

ConvWeightsCache::ConvWeightsCache() = default;
ConvWeightsCache::~ConvWeightsCache() = default;

namespace {
// The weights' layout does not depend on the post-ops: a node that switches
// between the fused and the unfused activation keeps its cached weights.
bool same_weights(Conv2dGeometry a, Conv2dGeometry b) {
  a.post_op = b.post_op = ConvPostOp::kNone;
  a.residual = b.residual = false;
  return a == b;
}
}  // namespace

bool ConvWeightsCache::holds(const void* source, const Conv2dGeometry& g, int threads) const {
  return impl_ != nullptr && dnnl_enabled() && source != nullptr && impl_->source == source &&
         same_weights(impl_->g, g) && impl_->threads == std::max(threads, 1);
}

namespace {

// Note [Padding oneDNN cannot take]
//  oneDNN's jit convolutions take padding up to about half the kernel; past
//  that (an audio model's 3x39 kernel with pads 19 and 8 channels) it runs
//  its reference code, which took 9.1 s where ONNX Runtime took 8.7 ms. So
//  where the geometry's kernel is oneDNN's reference code and the image is
//  padded, the image is padded here (zeros around H and W, in x's layout)
//  and oneDNN runs the convolution without padding, where its jit kernels
//  take it: 8.6 ms for that case. Where even that finds only the reference
//  code, the call fails and the caller's own path runs.
//  Pads past half the kernel that oneDNN does take put it on its brgconv
//  kernel, which is slow over few channels: for a 1x15 kernel over one
//  channel with pads 11, 0.62 ms where the padded image runs the direct
//  kernel in 0.1 ms (2.9x ONNX Runtime's time before; 3x3 over 1 channel
//  2.1x). So with fewer than 16 input channels per group such pads are
//  padded here too; with 64 brgconv is the faster (the direct kernel over
//  the padded image took 1.2-1.4x its time), so those stay as they are.
//  On AVX2 machines (no brgconv) oneDNN 2.6 gives pads of half the kernel
//  and more ("same" on a 3x39 or 1x15 kernel, or wider) to its im2col
//  convolution ("x64:gemm:jit"), 2.1-5.6x ONNX Runtime's time over every
//  channel count of bench/compare_conv_grid.py; its direct kernel over the
//  padded image is the fast path there too.
bool is_slow_code(const std::string& impl) {
  return impl.rfind("ref", 0) == 0 || impl.find("gemm:") != std::string::npos;
}

// Whether a pad of g is wider than half its (dilated) kernel extent, which
// no "same" padding is, over fewer channels than brgconv is made for.
bool few_channels_padded_past_half(const Conv2dGeometry& g, int64_t bottom, int64_t right) {
  constexpr int64_t kFewChannels = 16;
  if (g.c / std::max<int64_t>(g.groups, 1) >= kFewChannels) return false;
  const int64_t half_h = ((g.kh - 1) * g.dh + 1) / 2, half_w = ((g.kw - 1) * g.dw + 1) / 2;
  return std::max(g.pad_top, bottom) > half_h || std::max(g.pad_left, right) > half_w;
}

// x with zeros around H and W: [outer, h, w, inner] -> [outer, h + top +
// bottom, w + left + right, inner].
void pad_hw(const float* x, int64_t outer, int64_t h, int64_t w, int64_t inner, int64_t top, int64_t bottom,
            int64_t left, int64_t right, float* out) {
  const int64_t ph = h + top + bottom, pw = w + left + right;
  parallel_for(outer, 1, [&](int64_t begin, int64_t end) {
    for (int64_t o = begin; o < end; ++o) {
      float* dst = out + o * ph * pw * inner;
      const float* src = x + o * h * w * inner;
      std::fill(dst, dst + top * pw * inner, 0.f);
      for (int64_t y = 0; y < h; ++y) {
        float* row = dst + (top + y) * pw * inner;
        std::fill(row, row + left * inner, 0.f);
        std::memcpy(row + left * inner, src + y * w * inner, static_cast<size_t>(w * inner) * sizeof(float));
        std::fill(row + (left + w) * inner, row + pw * inner, 0.f);
      }
      std::fill(dst + (top + h) * pw * inner, dst + ph * pw * inner, 0.f);
    }
  });
}

// The geometry of g over its padded image, with no padding, when oneDNN has
// only reference or im2col code for g and a direct kernel for that; false
// otherwise.
bool padded_instead(const Conv2dGeometry& g, bool has_bias, int threads, Conv2dGeometry& padded) {
  if (g.transposed) return false;
  const int64_t bottom = std::max<int64_t>(0, (g.oh - 1) * g.sh + (g.kh - 1) * g.dh + 1 - g.h - g.pad_top);
  const int64_t right = std::max<int64_t>(0, (g.ow - 1) * g.sw + (g.kw - 1) * g.dw + 1 - g.w - g.pad_left);
  if (g.pad_top == 0 && g.pad_left == 0 && bottom == 0 && right == 0) return false;
  if (!few_channels_padded_past_half(g, bottom, right) && !is_slow_code(primitives_for(g, has_bias, threads).impl))
    return false;
  padded = g;
  padded.h = g.h + g.pad_top + bottom;
  padded.w = g.w + g.pad_left + right;
  padded.pad_top = padded.pad_left = 0;
  return !is_slow_code(primitives_for(padded, has_bias, threads).impl);
}

}  // namespace

Status dnnl_conv2d_f32(const Conv2dGeometry& g, const float* x, const float* w, const float* bias, float* z,
                       int threads, ConvWeightsCache* cache, const void* source, const float* residual) {
  if (!dnnl_enabled()) return Status::error(StatusCode::kNotImplemented, "oneDNN is turned off");
  if (g.residual && residual == nullptr) return Status::error(StatusCode::kInvalidArgument, "no residual");
  try {
    if (threads < 1) threads = 1;
    {  // Note [Padding oneDNN cannot take]
      OmpThreads scope(threads);
      Conv2dGeometry padded;
      if (padded_instead(g, bias != nullptr, threads, padded)) {
        const int64_t inner = g.channel_block != 0 && !g.nchw_input ? g.channel_block : g.nhwc ? g.c : 1;
        const int64_t outer = g.channel_block != 0 && !g.nchw_input
                                  ? g.n * ((g.c + g.channel_block - 1) / g.channel_block)
                                  : g.nhwc ? g.n : g.n * g.c;
        thread_local std::vector<float> image;
        image.resize(static_cast<size_t>(outer * padded.h * padded.w * inner));
        pad_hw(x, outer, g.h, g.w, inner, g.pad_top, padded.h - g.h - g.pad_top, g.pad_left,
               padded.w - g.w - g.pad_left, image.data());
        return dnnl_conv2d_f32(padded, image.data(), w, bias, z, threads, cache, source, residual);
      }
    }
    const bool cached = cache != nullptr && cache->holds(source, g, threads);
    if (!cached && w == nullptr) return Status::error(StatusCode::kInvalidArgument, "no weights and no cached ones");
    OmpThreads scope(threads);  // before the primitives are made, which plan for it
    ConvPrimitives& p = primitives_for(g, bias != nullptr, threads);
    p.user_x.set_data_handle(const_cast<float*>(x));
    p.user_z.set_data_handle(z);
    if (bias != nullptr) p.user_b.set_data_handle(const_cast<float*>(bias));
    thread_local dnnl::stream stream(cpu_engine());
    if (p.reorder_x) p.to_conv_x.execute(stream, p.user_x, p.conv_x);
    memory weights = p.conv_w;
    if (cached) {
      weights = cache->impl_->weights;
      // oneDNN chose another blocking for this post-op (none seen so far):
      // reorder the cached weights into it.
      if (weights.get_desc() != p.conv_w.get_desc()) {
        memory relaid(p.conv_w.get_desc(), cpu_engine());
        dnnl::reorder(weights, relaid).execute(stream, weights, relaid);
        weights = relaid;
      }
    } else {
      p.user_w.set_data_handle(const_cast<float*>(w));
      if (cache != nullptr && source != nullptr && p.reorder_w) {  // Note [Cached convolution weights]
        auto impl = std::make_unique<ConvWeightsCache::Impl>();
        impl->source = source, impl->g = g, impl->threads = threads;
        impl->weights = memory(p.conv_w.get_desc(), cpu_engine());
        dnnl::reorder(p.user_w, impl->weights).execute(stream, p.user_w, impl->weights);
        weights = impl->weights;
        cache->impl_ = std::move(impl);
      } else if (p.reorder_w) {
        p.to_conv_w.execute(stream, p.user_w, p.conv_w);
      }
    }
    std::unordered_map<int, memory> args = {{DNNL_ARG_SRC, p.conv_x}, {DNNL_ARG_WEIGHTS, weights},
                                            {DNNL_ARG_DST, p.conv_z}};
    if (bias != nullptr) args.emplace(DNNL_ARG_BIAS, p.user_b);
    args.emplace(DNNL_ARG_SCRATCHPAD, dnnl_util::scratchpad_for_this_thread(p.scratchpad));
    if (g.residual && p.residual_by_sum) {
      if (residual != z) std::memcpy(z, residual, p.user_z.get_desc().get_size());
    } else if (g.residual) {
      p.user_r.set_data_handle(const_cast<float*>(residual));
      args.emplace(DNNL_ARG_ATTR_MULTIPLE_POST_OP(0) | DNNL_ARG_SRC_1, p.user_r);
    }
    if (p.transposed) p.deconv.execute(stream, args);
    else p.conv.execute(stream, args);
    if (p.reorder_z) p.from_conv_z.execute(stream, p.conv_z, p.user_z);
    stream.wait();
    return Status::ok();
  } catch (const dnnl::error& e) {
    return Status::error(StatusCode::kNotImplemented, "oneDNN convolution: %s (status %d)", e.what(),
                         static_cast<int>(e.status));
  } catch (const std::bad_alloc&) {
    return Status::error(StatusCode::kOutOfMemory, "oneDNN convolution: out of memory");
  }
}

std::string dnnl_conv2d_kernel(const Conv2dGeometry& g, bool has_bias, int threads) {
  if (!dnnl_enabled()) return {};
  try {
    threads = std::max(threads, 1);
    OmpThreads scope(threads);
    Conv2dGeometry padded;  // Note [Padding oneDNN cannot take]
    if (padded_instead(g, has_bias, threads, padded))
      return primitives_for(padded, has_bias, threads).impl + " (over the padded image)";
    return primitives_for(g, has_bias, threads).impl;
  } catch (const dnnl::error&) {
    return {};
  } catch (const std::bad_alloc&) {
    return {};
  }
}

#else  // built without oneDNN

struct ConvWeightsCache::Impl {};
ConvWeightsCache::ConvWeightsCache() = default;
ConvWeightsCache::~ConvWeightsCache() = default;
bool ConvWeightsCache::holds(const void*, const Conv2dGeometry&, int) const { return false; }

Status dnnl_conv2d_f32(const Conv2dGeometry&, const float*, const float*, const float*, float*, int,
                       ConvWeightsCache*, const void*, const float*) {
  return Status::error(StatusCode::kNotImplemented, "libops was built without oneDNN");
}

std::string dnnl_conv2d_kernel(const Conv2dGeometry&, bool, int) { return {}; }

#endif

}  // namespace libops::blas
