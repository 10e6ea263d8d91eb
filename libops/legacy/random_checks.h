// Internal: the checks of the RANDOM table, shared by its CPU kernels
// (table_random.cpp) and its CUDA kernels (table_random.cu), so a bad call
// gets the same error, in the same order, on every device.
//
// Order, all before any element is written: the op's inputs (those it
// reads must be given), their shapes, its extra params (Params::make in
// ops/random_ops.h), z's dtype (with_compute_type), then for choice the
// weights in y (scanned where y lives, checked here).
#pragma once

#include "libops/legacy/ops/random_ops.h"

namespace libops::legacy {

// The inputs an op reads must be given. Others may be given too (a graph
// passes one to give z its shape, say): they are checked like inputs but
// never read.
inline Status random_check_inputs(const char* op, int inputs, const NDArray* x, const NDArray* y) {
  if (inputs >= 1 && !x) return Status::error(StatusCode::kInvalidArgument, "%s: input x is required", op);
  if (inputs == 2 && !y) return Status::error(StatusCode::kInvalidArgument, "%s: input y is required", op);
  return Status::ok();
}

// Per-element inputs broadcast to z and, when they share memory with z,
// are z itself (in-place), never a partial overlap.
inline Status random_check_elementwise_inputs(const char* op, const NDArray* x, const NDArray* y, const NDArray& z) {
  const NDArray* in[2] = {x, y};
  const char* role[2] = {"x", "y"};
  for (int k = 0; k < 2; ++k) {
    const NDArray* a = in[k];
    if (!a) continue;
    if (!broadcasts_to_shape(a->shape(), z.shape()))
      return Status::error(StatusCode::kShape, "%s: input %s%s does not broadcast to z%s", op, role[k],
                           a->shape().str().c_str(), z.shape().str().c_str());
    if (z.may_overlap(*a) && !z.same_view(*a))
      return Status::error(StatusCode::kInvalidArgument,
                           "%s: output z partially overlaps input %s; use the same view for in-place or a "
                           "separate output",
                           op, role[k]);
  }
  return Status::ok();
}

// Everything about a per-element op's call except z's dtype: its inputs,
// their shapes and its extra params, parsed into `params`.
template <template <typename> class F>
Status random_prepare(const char* op, const NDArray* x, const NDArray* y, const NDArray& z, const ExtraParams& e,
                      typename F<double>::Params& params) {
  // Only the class is instantiated here, for its constants and Params.
  using Info = F<double>;
  RETURN_IF_ERROR(random_check_inputs(op, Info::kInputs, x, y));
  RETURN_IF_ERROR(random_check_elementwise_inputs(op, x, y, z));
  return Info::Params::make(op, e, z, params);
}

// choice's call before its weights: x (values) and y (weights) given, 1-D
// and of one length, and no extra params.
inline Status choice_prepare(const char* op, const NDArray* x, const NDArray* y, const NDArray& z,
                             const ExtraParams& e) {
  using Info = fn::RandomChoice<double>;
  RETURN_IF_ERROR(random_check_inputs(op, Info::kInputs, x, y));
  if (x->rank() != 1 || y->rank() != 1 || x->length() != y->length())
    return Status::error(StatusCode::kShape,
                         "%s: x%s and y%s must be 1-D with the same length (values and their weights)", op,
                         x->shape().str().c_str(), y->shape().str().c_str());
  Info::Params params;
  return Info::Params::make(op, e, z, params);
}

// The result of fn::choice_cdf_in_place over `n` weights: finite, >= 0,
// not all 0, with a finite sum.
inline Status choice_check_weights(const char* op, const fn::ChoiceWeights& w, int64_t n) {
  if (w.bad >= 0)
    return Status::error(StatusCode::kInvalidArgument, "%s: weight y[%lld] = %g is invalid: must be finite and >= 0",
                         op, static_cast<long long>(w.bad), w.bad_value);
  if (w.last_positive < 0)
    return Status::error(StatusCode::kInvalidArgument, "%s: all %lld weights in y are 0: at least one must be > 0",
                         op, static_cast<long long>(n));
  if (!std::isfinite(w.total))
    return Status::error(StatusCode::kInvalidArgument, "%s: the weights in y sum to %g: the sum must be finite", op,
                         w.total);
  return Status::ok();
}

// choice is not per-element in x and y, so each table runs it on its own
// path; every other row goes through random_prepare.
template <template <typename> class F> constexpr bool kIsRandomChoice = false;
template <> constexpr bool kIsRandomChoice<fn::RandomChoice> = true;

}  // namespace libops::legacy
