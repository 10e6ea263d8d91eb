// Note [Fused element-wise programs] (fused_program.h).
#include "libops/ops/elementwise/fused_program.h"

#include "libops/core/status.h"
#include "libops/legacy/block_kernels.h"
#include "libops/legacy/legacy.h"

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
    const bool known = s.binary() ? s.group == OPS_PAIRWISE && legacy::block_binary_f32(s.num) != nullptr
                                  : legacy::block_unary_f32(s.group, s.num) != nullptr;
    if (!known) {
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

}  // namespace libops::ops
