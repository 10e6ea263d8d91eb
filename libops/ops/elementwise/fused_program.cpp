// Note [Fused element-wise programs] (fused_program.h).
#include "libops/ops/elementwise/fused_program.h"

#include "libops/core/cpu_isa.h"
#include "libops/core/half.h"
#include "libops/core/status.h"
#include "libops/legacy/block_kernels.h"
#include "libops/legacy/legacy.h"
#include "libops/ops/context.h"
#include "libops/ops/device_copy.h"
#include "libops/ops/legacy_steps.h"

#if LIBOPS_ISA_DISPATCH
#include <immintrin.h>
#endif

namespace libops::ops {

namespace {
constexpr int kIntsPerStep = 5;
}

void FusedProgram::encode(std::vector<int64_t>& i_args, std::vector<double>& t_args) const {
  i_args.clear();
  t_args.clear();
  i_args.push_back(static_cast<int64_t>(steps.size()));
  for (const FusedStep& s : steps) {
    i_args.insert(i_args.end(), {s.group, s.num, s.x, s.y, s.extra.n});
    t_args.push_back(s.literal);
    t_args.insert(t_args.end(), s.extra.v, s.extra.v + s.extra.n);
  }
}

Status FusedProgram::decode(int n_inputs, const std::vector<int64_t>& i_args, const std::vector<double>& t_args,
                            FusedProgram& out) {
  if (n_inputs < 1 || n_inputs > kMaxFusedInputs)
    return Status::error(StatusCode::kInvalidArgument, "a fused program reads 1 to %d inputs, not %d", kMaxFusedInputs,
                         n_inputs);
  if (i_args.empty() || i_args[0] < 1 || i_args[0] > kMaxFusedSteps)
    return Status::error(StatusCode::kInvalidArgument, "i arg 0 is the number of steps, 1 to %d; got %s", kMaxFusedSteps,
                         i_args.empty() ? "none" : std::to_string(i_args[0]).c_str());
  const int64_t n_steps = i_args[0];
  if (static_cast<int64_t>(i_args.size()) != 1 + kIntsPerStep * n_steps)
    return Status::error(StatusCode::kInvalidArgument, "%lld steps take %lld i args (the count, then 5 per step); got %zu",
                         static_cast<long long>(n_steps), static_cast<long long>(1 + kIntsPerStep * n_steps),
                         i_args.size());
  FusedProgram p;
  p.n_inputs = n_inputs;
  size_t t = 0;
  for (int64_t k = 0; k < n_steps; ++k) {
    const int64_t* a = &i_args[static_cast<size_t>(1 + kIntsPerStep * k)];
    FusedStep s;
    const int64_t defined = n_inputs + k;  // values this step may read
    if (a[2] < 0 || a[2] >= defined || (a[3] != kFusedNone && a[3] != kFusedLiteral && (a[3] < 0 || a[3] >= defined)))
      return Status::error(StatusCode::kInvalidArgument,
                           "step %lld reads value %lld%s, but only values 0 to %lld are defined before it "
                           "(y may also be -1, none, or -2, the literal)",
                           static_cast<long long>(k), static_cast<long long>(a[2] < 0 || a[2] >= defined ? a[2] : a[3]),
                           a[2] < 0 || a[2] >= defined ? " as x" : " as y", static_cast<long long>(defined - 1));
    if (a[4] < 0 || a[4] > ExtraParams::kMax)
      return Status::error(StatusCode::kInvalidArgument, "step %lld has %lld extra params; at most %d",
                           static_cast<long long>(k), static_cast<long long>(a[4]), ExtraParams::kMax);
    s.group = static_cast<int>(a[0]);
    s.num = static_cast<int>(a[1]);
    s.x = static_cast<int>(a[2]);
    s.y = static_cast<int>(a[3]);
    if (!s.has_kernel()) {
      const char* name = legacy::group_is_valid(s.group)
                             ? legacy::op_name(static_cast<ops_legacy_group_t>(s.group), s.num)
                             : nullptr;
      return Status::error(StatusCode::kInvalidArgument,
                           "step %lld: %s %d%s%s has no float32 %s kernel (unary steps take a transform row, binary "
                           "steps a pairwise row)",
                           static_cast<long long>(k),
                           legacy::group_is_valid(s.group) ? legacy::group_name(static_cast<ops_legacy_group_t>(s.group))
                                                           : "group",
                           s.num, name ? " " : "", name ? name : "", s.binary() ? "binary" : "unary");
    }
    if (t + 1 + static_cast<size_t>(a[4]) > t_args.size())
      return Status::error(StatusCode::kInvalidArgument,
                           "step %lld needs t args %zu to %zu (its literal and %lld extra params); there are %zu",
                           static_cast<long long>(k), t, t + static_cast<size_t>(a[4]), static_cast<long long>(a[4]),
                           t_args.size());
    s.literal = t_args[t++];
    s.extra = ExtraParams::from(&t_args[t], static_cast<int>(a[4]));
    t += static_cast<size_t>(a[4]);
    p.steps.push_back(s);
  }
  if (t != t_args.size())
    return Status::error(StatusCode::kInvalidArgument, "the steps take %zu t args; got %zu", t, t_args.size());
  out = std::move(p);
  return Status::ok();
}

std::string FusedProgram::str() const {
  auto value = [&](int v) { return v < n_inputs ? str_format("x%d", v) : str_format("t%d", v - n_inputs); };
  std::string s;
  for (size_t k = 0; k < steps.size(); ++k) {
    const FusedStep& st = steps[k];
    const char* name = legacy::op_name(static_cast<ops_legacy_group_t>(st.group), st.num);
    s += str_format("%st%zu = %s(", k ? "; " : "", k, name ? name : "?") + value(st.x);
    if (st.y == kFusedLiteral) s += ", " + str_format("%g", st.literal);
    else if (st.y != kFusedNone) s += ", " + value(st.y);
    for (int e = 0; e < st.extra.n; ++e) s += str_format(e ? ", %g" : "; %g", st.extra.v[e]);
    s += ")";
  }
  return s;
}

namespace {

#if LIBOPS_ISA_DISPATCH
// v[i] rounded to float16 and back, in registers: F16C's conversions, the
// same bits as half.h's (16 lanes a step with AVX-512, 8 with AVX2). Return
// the values done.
LIBOPS_TARGET_AVX512 int64_t round_through_half_x16(float* v, int64_t n) {
  // Masked forms, where GCC 12 misreports the unmasked ones' undefined
  // sources as uninitialised.
  constexpr __mmask16 kAll = 0xffff;
  int64_t i = 0;
  for (; i + 16 <= n; i += 16) {
    const __m512 x = _mm512_loadu_ps(v + i);
    const __m256i h = _mm512_mask_cvtps_ph(_mm256_setzero_si256(), kAll, x, _MM_FROUND_TO_NEAREST_INT);
    _mm512_storeu_ps(v + i, _mm512_mask_cvtph_ps(x, kAll, h));
  }
  return i;
}
LIBOPS_TARGET_AVX2 int64_t round_through_half_x8(float* v, int64_t n) {
  int64_t i = 0;
  for (; i + 8 <= n; i += 8)
    _mm256_storeu_ps(v + i, _mm256_cvtph_ps(_mm256_cvtps_ph(_mm256_loadu_ps(v + i), _MM_FROUND_TO_NEAREST_INT)));
  return i;
}
#endif

}  // namespace

void BlockProgram::round_to_dtype(float* v, int64_t n, FusedBlocks& b) const {
  int64_t i = 0;
#if LIBOPS_ISA_DISPATCH
  if (dtype_ == DataType::kFloat16 && cpu_isa() == CpuIsa::kAvx512) i = round_through_half_x16(v, n);
  else if (dtype_ == DataType::kFloat16 && cpu_isa() == CpuIsa::kAvx2) i = round_through_half_x8(v, n);
#endif
  if (i == n) return;
  to_narrow_(v + i, b.narrow, n - i);
  from_narrow_(b.narrow, v + i, n - i);
}

BlockProgram::BlockProgram(const FusedProgram& program, DataType dtype) : n_inputs_(program.n_inputs), dtype_(dtype) {
  load_ = load_fn<float>(dtype);
  store_ = store_fn<float>(dtype);
  if (dtype == DataType::kFloat16) from_narrow_ = half_to_float_n, to_narrow_ = float_to_half_n;
  if (dtype == DataType::kBFloat16) from_narrow_ = bf16_to_float_n, to_narrow_ = float_to_bf16_n;
  for (const FusedStep& s : program.steps) {
    Step r;
    if (s.binary()) r.binary = legacy::block_binary_f32(s.num);
    else r.unary = legacy::block_unary_f32(s.group, s.num);
    r.x = s.x;
    r.y = s.y;
    r.literal = static_cast<float>(s.literal);
    r.extra = s.extra;
    steps_.push_back(r);
  }
}

const float* BlockProgram::evaluate(const char* const* in, const int64_t* s, int64_t off, int64_t m, FusedBlocks& b,
                                    float* last_into, bool& one_value) const {
  const bool narrow = from_narrow_ != nullptr;  // a 16-bit program
  for (int k = 0; k < n_inputs_; ++k) {
    const int64_t st = s[k];
    b.unit[k] = st == 0 ? 0 : 1;
    if (!narrow && (st == 0 || st == static_cast<int64_t>(sizeof(float)))) {
      b.v[k] = reinterpret_cast<const float*>(in[k] + off * st);
    } else {
      if (narrow && st == 2) from_narrow_(reinterpret_cast<const uint16_t*>(in[k] + off * st), b.buf[k], m);
      else load_(in[k] + off * st, st, st == 0 ? 1 : m, b.buf[k]);
      b.v[k] = b.buf[k];
    }
  }
  const int last = n_inputs_ + static_cast<int>(steps_.size()) - 1;
  for (size_t t = 0; t < steps_.size(); ++t) {
    const Step& r = steps_[t];
    const int out = n_inputs_ + static_cast<int>(t);
    float* dst = out == last && last_into != nullptr ? last_into : b.buf[out];
    if (r.unary != nullptr) {
      b.unit[out] = b.unit[r.x];
      r.unary(b.v[r.x], dst, b.unit[out] ? m : 1, r.extra);
    } else {
      const bool literal = r.y == kFusedLiteral;
      const float* y = literal ? &r.literal : b.v[r.y];
      const int64_t sy = literal ? 0 : b.unit[r.y];
      b.unit[out] = b.unit[r.x] | sy;
      r.binary(b.v[r.x], b.unit[r.x], y, sy, dst, b.unit[out] ? m : 1, r.extra);
    }
    if (narrow) {  // rounded to the dtype, as the node it replaces stored it
      round_to_dtype(dst, b.unit[out] ? m : 1, b);
    }
    b.v[out] = dst;
  }
  one_value = b.unit[last] == 0;
  return b.v[last];
}

Status fused_inputs_shape(Context& block, const TypeSet& allowed, Dims& out, DataType& dtype) {
  out = block.input(0)->shape();
  dtype = block.input(0)->dtype();
  if (!allowed.contains(dtype))
    return block.error(StatusCode::kDtype, "input 0 is %s; a fused program takes %s", dtype_name(dtype),
                       allowed.str().c_str());
  for (int k = 0; k < block.num_inputs(); ++k) {
    const NDArray* x = block.input(k);
    if (x->dtype() != dtype)
      return block.error(StatusCode::kDtype, "input %d is %s and input 0 %s; a fused program's values share one dtype",
                         k, dtype_name(x->dtype()), dtype_name(dtype));
    Dims joined;
    RETURN_IF_ERROR(broadcast_shapes(block.op_name(), out, x->shape(), joined));
    out = joined;
  }
  return Status::ok();
}

Status fused_inputs(Context& block, const NDArray& z, bool same_view_ok, std::vector<NDArray>& inputs) {
  for (int k = 0; k < block.num_inputs(); ++k) {
    NDArray x = *block.input(k);
    if (z.may_overlap(x) && !(same_view_ok && z.same_view(x))) RETURN_IF_ERROR(dense_on_device(block, x, x.dtype(), x));
    inputs.push_back(std::move(x));
  }
  return Status::ok();
}

Status run_program_by_steps(const Context& block, const FusedProgram& program, const std::vector<NDArray>& inputs,
                            NDArray& z) {
  std::vector<NDArray> values(inputs);
  for (size_t t = 0; t < program.steps.size(); ++t) {
    const FusedStep& s = program.steps[t];
    NDArray result;
    if (t + 1 == program.steps.size()) result = z;
    else RETURN_IF_ERROR(step_array(block, z.dtype(), z.shape(), result));
    NDArray y;
    if (s.y == kFusedLiteral) RETURN_IF_ERROR(NDArray::scalar(z.dtype(), s.literal, y));
    else if (s.binary()) y = values[static_cast<size_t>(s.y)];
    const auto group = static_cast<ops_legacy_group_t>(s.binary() ? OPS_PAIRWISE : s.group);
    RETURN_IF_ERROR(legacy_step(block, group, s.num, values[static_cast<size_t>(s.x)], s.binary() ? &y : nullptr,
                                result, s.extra));
    values.push_back(result);
  }
  return Status::ok();
}

bool epilogue_positions(const OpSignature& sig, int& i_first, int& t_first) {
  const ArgSpec* i = sig.find("epilogue");
  const ArgSpec* t = sig.find("epilogue_values");
  if (i == nullptr || t == nullptr || !i->list || !t->list) return false;
  i_first = i->position;
  t_first = t->position;
  return true;
}

Status read_epilogue(const Context& block, DataType z_dtype, FusedProgram& out, bool& present) {
  present = false;
  int i_first = 0, t_first = 0;
  if (block.signature() == nullptr || !epilogue_positions(*block.signature(), i_first, t_first))
    return block.error(StatusCode::kInternal, "declares no epilogue program");
  const std::vector<int64_t>& i = block.i_args();
  const std::vector<double>& t = block.t_args();
  if (static_cast<int>(i.size()) <= i_first) {
    if (static_cast<int>(t.size()) > t_first)
      return block.error(StatusCode::kInvalidArgument, "epilogue_values (t args %d..) are given without an epilogue "
                         "program (i args %d..)", t_first, i_first);
    return Status::ok();
  }
  if (!kFusedDtypes.contains(z_dtype))
    return block.error(StatusCode::kDtype, "an epilogue program runs on float32, float16 and bfloat16 outputs; z is %s",
                       dtype_name(z_dtype));
  const std::vector<int64_t> program_i(i.begin() + i_first, i.end());
  const std::vector<double> program_t(t.begin() + std::min<size_t>(t.size(), static_cast<size_t>(t_first)), t.end());
  const Status s = FusedProgram::decode(1, program_i, program_t, out);
  if (!s.is_ok()) return block.error(s.code(), "epilogue program: %s", s.message().c_str());
  present = true;
  return Status::ok();
}

void declare_epilogue_args(OpSignature& args) {
  args.i_list("epilogue", "an element-wise program of z run in place last (Note [Epilogue programs]): the number of "
                          "steps, then per step group, num, x, y, extra count; value 0 is z");
  args.t_list("epilogue_values", "the epilogue's per-step literal, then its extra params").nan_allowed();
}

}  // namespace libops::ops
