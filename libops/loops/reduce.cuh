// CUDA reductions: the device side of loops/reduce.h, for the same reduce
// functors (identity / map / merge / finish, LIBOPS_HOST_DEVICE) and the
// same compute types. Included by .cu files only.
//
// The host splits x's dims into kept and reduced ones exactly as the CPU
// does (detail::ReduceLoops, over device addresses). Two kernels:
//   * block per output: when x's innermost dim is reduced (row sums, full
//     reductions). The threads of a block stride through the output's
//     reduced positions, so a warp reads neighbouring elements; a shared-
//     memory tree merges the threads' accumulators. Long reductions with few
//     outputs are cut into `parts` blocks per output whose accumulators a
//     second kernel merges in part order.
//   * thread per output: when x's innermost dim is kept (column sums): each
//     thread folds its output's positions in order, and neighbouring
//     threads read neighbouring elements. Also for one-dim reductions
//     shorter than the CPU's lanes (the last dim of [N, 4]): the CPU folds
//     those left to right from the identity, as a thread does, so results
//     match bit for bit (unless the device fuses a product in map into the
//     merge's add), and no block leaves most of its threads idle.
//     Column reductions with too few outputs to fill the GPU this way (the
//     sum over axis 0 of [1e7, 4]) are split along the reduced positions
//     (loops/reduce_split.h): a thread per (output, chunk) folds the chunk
//     into the workspace, neighbouring threads on neighbouring columns, and
//     a second kernel merges each output's chunks in order. Every functor
//     takes this split (merge is associative for all of them, and the index
//     reductions compare the positions they carry, so ties still go to the
//     first), as the CPU's kept-inner path splits rows into chunks too.
// The split depends only on the shapes, so a given call is reproducible run
// to run; results agree with the CPU's up to rounding (the merge order
// differs). Empty reductions store finish(identity, 0), clamped into z's
// integer dtype, as on the CPU.
#pragma once

#include <cuda_runtime.h>

#include <algorithm>
#include <type_traits>

#include "libops/backends/cuda/launch_context.h"
#include "libops/loops/elementwise.cuh"
#include "libops/loops/reduce.h"
#include "libops/loops/reduce_split.h"

namespace libops::cuda {

template <typename Op, typename C>
struct DeviceReduce {
  using Acc = typename Op::Acc;
  using R = decltype(Op::finish(std::declval<Acc>(), int64_t{}, std::declval<const ExtraParams&>()));
  static constexpr int NI = reduce_traits<Op>::kArity;
  static constexpr bool kIndexed = reduce_traits<Op>::kIndexed;

  // Everything a kernel needs, by value.
  struct Args {
    NdLoop<1 + NI> outer;  // kept dims: z, x (, y)
    NdLoop<NI> inner;      // reduced dims: x (, y)
    int64_t n_out, n_red;
    int parts;             // blocks per output (block-per-output kernel)
    DataType tz, tx, ty;
    ExtraParams e;
  };

  // The accumulator of the value xv at reduced position r (one input).
  static __device__ __forceinline__ Acc map_value(const Args& a, C xv, int64_t r) {
    if constexpr (kIndexed) return Op::map(xv, r, a.e);
    else return Op::map(xv, a.e);
  }

  // The accumulator of reduced position r of the output whose operands start at `in`.
  static __device__ __forceinline__ Acc map_at(const Args& a, char* const* in, int64_t r) {
    int64_t off[NI];
    offsets_of(a.inner, r, off);
    const C xv = load_as<C>(in[0] + off[0], a.tx);
    if constexpr (NI == 2) return Op::map(xv, load_as<C>(in[1] + off[1], a.ty), a.e);
    else if constexpr (kIndexed) return Op::map(xv, r, a.e);
    else return Op::map(xv, a.e);
  }

  static __device__ __forceinline__ void output_bases(const Args& a, int64_t o, char** zp, char** in) {
    int64_t off[1 + NI];
    offsets_of(a.outer, o, off);
    *zp = a.outer.base[0] + off[0];
    for (int k = 0; k < NI; ++k) in[k] = a.outer.base[1 + k] + off[1 + k];
  }
};

// Block per (output, part); partial == nullptr when parts == 1.
template <typename Op, typename C>
__global__ void reduce_block_kernel(typename DeviceReduce<Op, C>::Args a, typename Op::Acc* partial) {
  using D = DeviceReduce<Op, C>;
  using Acc = typename Op::Acc;
  extern __shared__ __align__(16) unsigned char shared_bytes[];
  Acc* shared = reinterpret_cast<Acc*>(shared_bytes);
  const int64_t o = blockIdx.x / a.parts;
  const int part = static_cast<int>(blockIdx.x % a.parts);
  char* zp;
  char* in[D::NI];
  D::output_bases(a, o, &zp, in);
  const int64_t per_part = (a.n_red + a.parts - 1) / a.parts;
  const int64_t begin = part * per_part;
  const int64_t end = begin + per_part < a.n_red ? begin + per_part : a.n_red;
  Acc acc = Op::identity(a.e);
  int64_t r = begin + threadIdx.x;
  if constexpr (D::NI == 1) {
    // One strided run of x in C's own dtype: kBlockUnroll loads in flight a
    // thread, merged in the order of r as below. A load at a time reached
    // 0.27 of a device copy's bytes/s on an H200 (sum of 256M float32).
    if (a.inner.rank == 1 && a.tx == dtype_of_v<C>) {
      constexpr int kBlockUnroll = 8;
      const int64_t step = blockDim.x, stride = a.inner.strides[0][0];
      for (; r + (kBlockUnroll - 1) * step < end; r += kBlockUnroll * step) {
        C v[kBlockUnroll];
#pragma unroll
        for (int u = 0; u < kBlockUnroll; ++u) v[u] = *reinterpret_cast<const C*>(in[0] + (r + u * step) * stride);
#pragma unroll
        for (int u = 0; u < kBlockUnroll; ++u) acc = Op::merge(acc, D::map_value(a, v[u], r + u * step));
      }
    }
  }
  for (; r < end; r += blockDim.x) acc = Op::merge(acc, D::map_at(a, in, r));
  shared[threadIdx.x] = acc;
  __syncthreads();
  for (unsigned w = blockDim.x / 2; w > 0; w /= 2) {
    if (threadIdx.x < w) shared[threadIdx.x] = Op::merge(shared[threadIdx.x], shared[threadIdx.x + w]);
    __syncthreads();
  }
  if (threadIdx.x != 0) return;
  if (partial != nullptr) partial[blockIdx.x] = shared[0];
  else store_as(zp, a.tz, Op::finish(shared[0], a.n_red, a.e));
}

// Merges each output's `count` partial results in order and stores the
// result: those of output o at partial[o * out_stride + p * part_stride].
template <typename Op, typename C>
__global__ void reduce_merge_partials_kernel(typename DeviceReduce<Op, C>::Args a, const typename Op::Acc* partial,
                                             int64_t count, int64_t out_stride, int64_t part_stride) {
  using D = DeviceReduce<Op, C>;
  for (int64_t o = first_index(); o < a.n_out; o += grid_step()) {
    char* zp;
    char* in[D::NI];
    D::output_bases(a, o, &zp, in);
    typename Op::Acc acc = Op::identity(a.e);
    for (int64_t p = 0; p < count; ++p) acc = Op::merge(acc, partial[o * out_stride + p * part_stride]);
    store_as(zp, a.tz, Op::finish(acc, a.n_red, a.e));
  }
}

// Thread per output.
template <typename Op, typename C>
__global__ void reduce_thread_kernel(typename DeviceReduce<Op, C>::Args a) {
  using D = DeviceReduce<Op, C>;
  for (int64_t o = first_index(); o < a.n_out; o += grid_step()) {
    char* zp;
    char* in[D::NI];
    D::output_bases(a, o, &zp, in);
    typename Op::Acc acc = Op::identity(a.e);
    for (int64_t r = 0; r < a.n_red; ++r) acc = Op::merge(acc, D::map_at(a, in, r));
    store_as(zp, a.tz, Op::finish(acc, a.n_red, a.e));
  }
}

// Split column reductions, pass 1: item t = c * n_out + o folds chunk c of
// output o into partial[t], so a warp's threads take neighbouring columns.
template <typename Op, typename C>
__global__ void reduce_chunks_kernel(typename DeviceReduce<Op, C>::Args a, ReduceSplit s, typename Op::Acc* partial) {
  using D = DeviceReduce<Op, C>;
  const int64_t items = a.n_out * s.chunks;
  for (int64_t t = first_index(); t < items; t += grid_step()) {
    const int64_t o = t % a.n_out;
    const ReduceChunkRange rows = reduce_chunk_range(s, a.n_red, t / a.n_out);
    char* zp;
    char* in[D::NI];
    D::output_bases(a, o, &zp, in);
    typename Op::Acc acc = Op::identity(a.e);
    for (int64_t r = rows.begin; r < rows.end; ++r) acc = Op::merge(acc, D::map_at(a, in, r));
    partial[t] = acc;
  }
}

// Merging many partial results (split column reductions' chunks, or the
// block kernel's parts; few take reduce_merge_partials_kernel, a thread per
// output): a block per output (blockIdx.x), those of output o at
// partial[o * out_stride + p * part_stride]; thread j merges the j-th run of
// consecutive ones in order, then neighbouring runs are merged pairwise,
// left with right (blockDim.x is a power of 2).
template <typename Op, typename C>
__global__ void reduce_merge_chunks_block_kernel(typename DeviceReduce<Op, C>::Args a, int64_t chunks,
                                                 const typename Op::Acc* partial, int64_t out_stride,
                                                 int64_t part_stride) {
  using D = DeviceReduce<Op, C>;
  using Acc = typename Op::Acc;
  extern __shared__ __align__(16) unsigned char shared_bytes[];
  Acc* shared = reinterpret_cast<Acc*>(shared_bytes);
  const int64_t o = blockIdx.x;
  const int64_t per_thread = (chunks + blockDim.x - 1) / blockDim.x;
  const int64_t begin = threadIdx.x * per_thread;
  const int64_t end = begin + per_thread < chunks ? begin + per_thread : chunks;
  Acc acc = Op::identity(a.e);
  for (int64_t c = begin; c < end; ++c) acc = Op::merge(acc, partial[o * out_stride + c * part_stride]);
  shared[threadIdx.x] = acc;
  __syncthreads();
  for (unsigned w = 1; w < blockDim.x; w *= 2) {
    if (threadIdx.x % (2 * w) == 0) shared[threadIdx.x] = Op::merge(shared[threadIdx.x], shared[threadIdx.x + w]);
    __syncthreads();
  }
  if (threadIdx.x != 0) return;
  char* zp;
  char* in[D::NI];
  D::output_bases(a, o, &zp, in);
  store_as(zp, a.tz, Op::finish(shared[0], a.n_red, a.e));
}

template <typename R>
__global__ void fill_kernel(NdLoop<1> loop, int64_t n, DataType tz, R value) {
  for (int64_t i = first_index(); i < n; i += grid_step()) {
    int64_t off[1];
    offsets_of(loop, i, off);
    store_as(loop.base[0] + off[0], tz, value);
  }
}

// Reduces x (and y for reduce3) over the normalized, sorted `axes` into z on
// the device of the launch context (shapes and extra params checked by the
// caller, as on the CPU).
template <typename Op, typename C>
Status cuda_reduce_run(const NDArray& x, const NDArray* y, NDArray& z, const Dims& axes, const ExtraParams& e,
                       LaunchContext& ctx) {
  using D = DeviceReduce<Op, C>;
  using Acc = typename Op::Acc;
  using R = typename D::R;
  constexpr int NI = D::NI;
  libops::detail::ReduceLoops<NI> loops(x, y, z, axes);
  if (loops.n_out == 0) return Status::ok();
  // The same loops, over the device copies.
  loops.outer.base[0] = static_cast<char*>(z.device_data());
  loops.outer.base[1] = static_cast<char*>(x.device_data());
  if constexpr (NI == 2) loops.outer.base[2] = static_cast<char*>(y->device_data());
  const cudaStream_t stream = ctx.stream();

  if (loops.n_red == 0) {
    R r = Op::finish(Op::identity(e), 0, e);
    if constexpr (std::is_integral_v<R> && !std::is_same_v<R, bool>) r = libops::detail::clamp_to_dtype(r, z.dtype());
    NdLoop<1> zl;
    zl.init(z.shape());
    zl.set_operand(0, z.device_data(), z.strides(), static_cast<int64_t>(z.element_size()));
    zl.coalesce();
    fill_kernel<R><<<blocks_for(loops.n_out), kThreads, 0, stream>>>(zl, loops.n_out, z.dtype(), r);
    LIBOPS_CUDA_CHECK_LAUNCH("reduction fill kernel launch");
    return Status::ok();
  }

  typename D::Args a{loops.outer, loops.inner, loops.n_out, loops.n_red, 1, z.dtype(), x.dtype(),
                     NI == 2 ? y->dtype() : x.dtype(), e};
  // Short runs: the CPU's reduce_short_outputs condition (Note [Reduction order]).
  const bool short_run = loops.inner.rank == 1 && loops.n_red < libops::detail::Reducer<Op, C>::kLanes;
  if (loops.kept_inner() || short_run) {
    // Short runs keep the CPU's order (they are never long enough to split).
    const ReduceSplit split = short_run ? ReduceSplit{} : reduce_split_plan(a.n_out, a.n_red);
    if (split.chunks == 1) {
      reduce_thread_kernel<Op, C><<<blocks_for(a.n_out), kThreads, 0, stream>>>(a);
      LIBOPS_CUDA_CHECK_LAUNCH("reduction kernel launch");
      return Status::ok();
    }
    // n_out * chunks <= kSplitTargetThreads, so the sizes below fit.
    const int64_t items = a.n_out * split.chunks;
    void* w = nullptr;
    RETURN_IF_ERROR(ctx.workspace(sizeof(Acc) * static_cast<size_t>(items), &w));
    Acc* partial = static_cast<Acc*>(w);
    reduce_chunks_kernel<Op, C><<<blocks_for(items), kThreads, 0, stream>>>(a, split, partial);
    LIBOPS_CUDA_CHECK_LAUNCH("column reduction kernel launch");
    if (split.merge_by_block) {
      static_assert((kThreads & (kThreads - 1)) == 0, "reduce_merge_chunks_block_kernel: blocks of 2^k threads");
      reduce_merge_chunks_block_kernel<Op, C>
          <<<static_cast<unsigned>(a.n_out), kThreads, sizeof(Acc) * kThreads, stream>>>(a, split.chunks, partial, 1,
                                                                                         a.n_out);
    } else {
      reduce_merge_partials_kernel<Op, C><<<blocks_for(a.n_out), kThreads, 0, stream>>>(a, partial, split.chunks,
                                                                                        1, a.n_out);
    }
    LIBOPS_CUDA_CHECK_LAUNCH("column reduction merge kernel launch");
    return Status::ok();
  }
  // Enough blocks to fill the GPU: split long reductions of few outputs.
  constexpr int64_t kTargetBlocks = 2048;
  constexpr int64_t kMinPerPart = 16 * kThreads;
  if (a.n_out < kTargetBlocks && a.n_red >= 2 * kMinPerPart)
    a.parts = static_cast<int>(std::clamp<int64_t>(std::min(kTargetBlocks / a.n_out, a.n_red / kMinPerPart), 1, 4096));
  const int64_t blocks = a.n_out * a.parts;
  if (blocks > INT32_MAX) return Status::error(StatusCode::kShape, "reduction has too many outputs for one launch");
  const size_t shared = sizeof(Acc) * kThreads;
  Acc* partial = nullptr;
  if (a.parts > 1) {
    void* w = nullptr;
    RETURN_IF_ERROR(ctx.workspace(sizeof(Acc) * static_cast<size_t>(blocks), &w));
    partial = static_cast<Acc*>(w);
  }
  reduce_block_kernel<Op, C><<<static_cast<unsigned>(blocks), kThreads, shared, stream>>>(a, partial);
  LIBOPS_CUDA_CHECK_LAUNCH("reduction kernel launch");
  if (partial != nullptr) {
    // Up to 4096 parts an output: one thread each merged them in a chain of
    // dependent L2 loads, a sizeable share of a 256M-element sum on an H200.
    if (a.parts > kSplitThreadMergeMax)
      reduce_merge_chunks_block_kernel<Op, C>
          <<<static_cast<unsigned>(a.n_out), kThreads, sizeof(Acc) * kThreads, stream>>>(a, a.parts, partial,
                                                                                         a.parts, 1);
    else
      reduce_merge_partials_kernel<Op, C><<<blocks_for(a.n_out), kThreads, 0, stream>>>(a, partial, a.parts, a.parts,
                                                                                        1);
    LIBOPS_CUDA_CHECK_LAUNCH("reduction merge kernel launch");
  }
  return Status::ok();
}

}  // namespace libops::cuda
