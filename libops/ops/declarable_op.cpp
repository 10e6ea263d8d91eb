#include "libops/ops/declarable_op.h"

#include <exception>
#include <limits>
#include <new>

#include "libops/ops/device_copy.h"

namespace libops {

const char* op_kind_name(OpKind k) {
  switch (k) {
    case OpKind::kOp: return "op";
    case OpKind::kConfigurable: return "configurable";
    case OpKind::kReduction: return "reduction";
    case OpKind::kCustom: return "custom";
    case OpKind::kBoolean: return "boolean";
  }
  return "?";
}

uint64_t op_name_hash(std::string_view name) {
  uint64_t h = 0xcbf29ce484222325ull;
  for (unsigned char c : name) {
    h ^= c;
    h *= 0x100000001b3ull;
  }
  return h;
}

OpDescriptor& OpDescriptor::allow_input(int index, TypeSet t) {
  if (index < 0) return *this;
  if (static_cast<int>(input_types.size()) <= index)
    input_types.resize(static_cast<size_t>(index) + 1, input_types.empty() ? types::kAny : input_types.back());
  input_types[static_cast<size_t>(index)] = t;
  return *this;
}

TypeSet OpDescriptor::input_type(int index) const {
  if (input_types.empty()) return types::kAny;
  if (index < static_cast<int>(input_types.size())) return input_types[static_cast<size_t>(index)];
  return input_types.back();
}

DeclarableOp::DeclarableOp(const char* name, OpKind kind, int n_in, int n_out, bool inplaceable, int n_t, int n_i) {
  descriptor_.name = name;
  descriptor_.hash = op_name_hash(name);
  descriptor_.kind = kind;
  descriptor_.num_inputs = n_in;
  descriptor_.num_outputs = n_out;
  descriptor_.inplaceable = inplaceable;
  descriptor_.num_t_args = n_t;
  descriptor_.num_i_args = n_i;
}

namespace {

// Note [Arity numbers] in declarable_op.h.
bool count_ok(int declared, int got, bool exact) {
  if (declared == -2) return true;
  if (declared == -1) return got >= 1;
  return exact ? got == declared : got >= declared;
}

std::string arity_text(int declared, bool exact) {
  if (declared == -2) return "any number";
  if (declared == -1) return "at least 1";
  return exact ? std::to_string(declared) : "at least " + std::to_string(declared);
}

// [lo, hi] of a macro arity number (Note [Arity numbers]).
void arity_range(int declared, bool exact, int& lo, int& hi) {
  constexpr int kMany = std::numeric_limits<int>::max();
  if (declared == -2) lo = 0, hi = kMany;
  else if (declared == -1) lo = 1, hi = kMany;
  else lo = declared, hi = exact ? declared : kMany;
}

}  // namespace

std::string DeclarableOp::finish_declaration() {
  declare_types(descriptor_);
  OpSignature& sig = descriptor_.signature;
  declare_args(sig);
  sig.declared = !sig.inputs.empty() || !sig.outputs.empty() || !sig.args.empty();
  if (!sig.declared) return "";  // an op made outside the macros, checked by its macro numbers alone
  sig.fix_texts();
  for (size_t k = 0; k < sig.inputs.size(); ++k)
    sig.inputs[k].dtypes_shown = descriptor_.input_type(static_cast<int>(k)).str();
  for (size_t k = 0; k < sig.outputs.size(); ++k)
    if (!descriptor_.output_types.empty())
      sig.outputs[k].dtypes_shown =
          descriptor_.output_types[std::min(k, descriptor_.output_types.size() - 1)].str();
  std::string p = sig.problems();
  auto add = [&](const std::string& s) { p += (p.empty() ? "" : "; ") + s; };
  int lo = 0, hi = 0;
  arity_range(descriptor_.num_inputs, true, lo, hi);
  if (sig.min_inputs() < lo || sig.max_inputs() > hi)
    add(str_format("the signature takes %d to %d inputs, outside the macro's nIn = %d", sig.min_inputs(),
                   sig.max_inputs(), descriptor_.num_inputs));
  if (sig.outputs.empty()) add("the signature declares no output");
  const bool variadic_out = !sig.outputs.empty() && sig.outputs.back().variadic;
  arity_range(descriptor_.num_outputs, true, lo, hi);
  if (!variadic_out && !count_ok(descriptor_.num_outputs, static_cast<int>(sig.outputs.size()), true))
    add(str_format("the signature declares %zu outputs, the macro's nOut = %d", sig.outputs.size(),
                   descriptor_.num_outputs));
  if (variadic_out && hi == lo) add("the signature's outputs are variadic, the macro's nOut is fixed");
  const struct { ArgKind kind; int macro; } kinds[] = {{ArgKind::kFloat, descriptor_.num_t_args},
                                                       {ArgKind::kInt, descriptor_.num_i_args}};
  for (const auto& k : kinds) {
    arity_range(k.macro, false, lo, hi);
    if (sig.required_count(k.kind) < lo)
      add(str_format("the macro requires %d %s args, the signature %d", lo, arg_kind_label(k.kind),
                     sig.required_count(k.kind)));
  }
  return p.empty() ? "" : str_format("op '%s' has a bad declaration: %s", descriptor_.name, p.c_str());
}

Status DeclarableOp::check_call(Context& block) const {
  const OpDescriptor& d = descriptor_;
  const OpSignature& sig = d.signature;
  if (sig.declared) {
    RETURN_IF_ERROR(resolve_args(sig, d.name, block.args()));
  } else {
    if (!count_ok(d.num_inputs, block.num_inputs(), true))
      return block.error(StatusCode::kInvalidArgument, "expected %s inputs, got %d",
                         arity_text(d.num_inputs, true).c_str(), block.num_inputs());
    if (!count_ok(d.num_t_args, block.num_t_args(), false))
      return block.error(StatusCode::kInvalidArgument, "expected %s float (t) args, got %d",
                         arity_text(d.num_t_args, false).c_str(), block.num_t_args());
    if (!count_ok(d.num_i_args, block.num_i_args(), false))
      return block.error(StatusCode::kInvalidArgument, "expected %s integer (i) args, got %d",
                         arity_text(d.num_i_args, false).c_str(), block.num_i_args());
  }
  for (int i = 0; i < block.num_inputs(); ++i) {
    const NDArray* a = block.input(i);
    if (a == nullptr) return block.error(StatusCode::kNullPointer, "input %d is null", i);
    if (a->is_null()) return block.error(StatusCode::kInvalidArgument, "input %d is an empty handle", i);
  }
  if (sig.declared)
    RETURN_IF_ERROR(check_args_against_inputs(sig, d.name, block.args(), block.inputs_data(), block.num_inputs()));
  DataType first = DataType::kInvalid;
  for (int i = 0; i < block.num_inputs(); ++i) {
    const NDArray* a = block.input(i);
    TypeSet allowed = d.input_type(i);
    if (!allowed.contains(a->dtype()))
      return block.error(StatusCode::kDtype, "unsupported dtype %s for input %d %s; supported: %s",
                         dtype_name(a->dtype()), i, a->shape().str().c_str(), allowed.str().c_str());
    if (d.same_type) {
      if (i == 0) first = a->dtype();
      else if (a->dtype() != first)
        return block.error(StatusCode::kDtype, "inputs must share one dtype: input 0 is %s, input %d is %s",
                           dtype_name(first), i, dtype_name(a->dtype()));
    }
  }
  return Status::ok();
}

Status DeclarableOp::calculate_output_shape(Context& block, ShapeList& shapes) {
  const OpDescriptor& d = descriptor_;
  switch (d.kind) {
    case OpKind::kBoolean:
      shapes.push_back(TensorShape{DataType::kBool, Dims{}, 'c'});
      return Status::ok();
    case OpKind::kReduction: {
      // Axes from the signature's "axes" list (i args or an input array),
      // keep_dims from b arg 0, as reduction ops declare them.
      const NDArray* x = block.input(0);
      thread_local std::vector<int64_t> given;
      RETURN_IF_ERROR(block.int_list("axes", given));
      Dims axes;
      RETURN_IF_ERROR(normalize_axes(block.op_name(), given.data(), static_cast<int>(given.size()), x->rank(), true, axes));
      bool keep = block.num_b_args() > 0 && block.b_arg(0);
      shapes.push_back(TensorShape{x->dtype(), reduced_shape(x->shape(), axes, keep), 'c'});
      return Status::ok();
    }
    default: {
      // Same shape as the input: output i follows input i (or input 0).
      if (block.num_inputs() == 0)
        return block.error(StatusCode::kInvalidArgument, "needs an input to take its output shape from");
      int n_out = d.num_outputs >= 0 ? d.num_outputs : block.num_inputs();
      for (int i = 0; i < n_out; ++i) {
        const NDArray* src = block.input(i < block.num_inputs() ? i : 0);
        shapes.push_back(TensorShape{src->dtype(), src->shape(), 'c'});
      }
      return Status::ok();
    }
  }
}

Status DeclarableOp::infer_shapes(Context& block, ShapeList& shapes) {
  block.set_op_name(descriptor_.name);
  block.set_signature(&descriptor_.signature);
  RETURN_IF_ERROR(check_call(block));
  shapes.clear();
  try {
    RETURN_IF_ERROR(calculate_output_shape(block, shapes));
  } catch (const std::bad_alloc&) {
    return block.error(StatusCode::kOutOfMemory, "out of memory in shape function");
  } catch (const std::exception& ex) {
    return block.error(StatusCode::kInternal, "shape function failed: %s", ex.what());
  }
  if (!count_ok(descriptor_.num_outputs, static_cast<int>(shapes.size()), true))
    return block.error(StatusCode::kInternal, "shape function gave %zu outputs; declared %s", shapes.size(),
                       arity_text(descriptor_.num_outputs, true).c_str());
  // An output no memory could index (its extents multiply past 2^63, as
  // args taken from a file may ask) is refused here, once for every op.
  for (size_t k = 0; k < shapes.size(); ++k)
    if (!strides_fit(shapes[k].dims))
      return block.error(StatusCode::kShape, "output %zu would have shape %s: its extents multiply past 2^63", k,
                         shapes[k].dims.str().c_str());
  return Status::ok();
}

Status DeclarableOp::prepare_outputs(Context& block, const ShapeList& shapes) {
  const int n = static_cast<int>(shapes.size());
  if (block.num_outputs() > 0) {
    if (block.inplace())
      return block.error(StatusCode::kInvalidArgument,
                         "in place was asked for and %d outputs were given: in place, output 0 is input 0", block.num_outputs());
    // Supplied outputs must match the shape function exactly.
    if (block.num_outputs() != n)
      return block.error(StatusCode::kInvalidArgument, "expected %d outputs, got %d", n, block.num_outputs());
    for (int i = 0; i < n; ++i) {
      NDArray* o = block.output(i);
      if (o == nullptr) return block.error(StatusCode::kNullPointer, "output %d is null", i);
      if (!o->has_data()) return block.error(StatusCode::kInvalidArgument, "output %d has no data", i);
      const TensorShape& s = shapes[static_cast<size_t>(i)];
      if (o->shape() != s.dims || o->dtype() != s.dtype)
        return block.error(StatusCode::kShape, "output %d is %s%s but the op produces %s", i, dtype_name(o->dtype()),
                           o->shape().str().c_str(), s.str().c_str());
      if (const int d = o->repeated_dim(); d >= 0)
        return block.error(StatusCode::kInvalidArgument,
                           "output %d %s is a broadcast view (stride 0 on dim %d); outputs must not repeat elements", i,
                           o->shape().str().c_str(), d);
    }
    return Status::ok();
  }
  if (block.inplace()) {
    if (!descriptor_.inplaceable) return block.error(StatusCode::kInvalidArgument, "cannot run in place");
    const NDArray* in = block.input(0);
    if (n != 1 || in->shape() != shapes[0].dims || in->dtype() != shapes[0].dtype)
      return block.error(StatusCode::kInvalidArgument, "cannot run in place: output %s differs from input 0 %s",
                         shapes.empty() ? "?" : shapes[0].str().c_str(), in->desc().str().c_str());
    block.add_output(block.input(0));
    return Status::ok();
  }
  auto& owned = block.owned_outputs();
  owned.clear();
  owned.resize(static_cast<size_t>(n));  // sized once: the slots below point into it
  for (int i = 0; i < n; ++i) {
    const TensorShape& s = shapes[static_cast<size_t>(i)];
    Status st = NDArray::create(s.dtype, s.dims, 'c', owned[static_cast<size_t>(i)]);
    if (!st.is_ok()) return block.error(st.code(), "output %d: %s", i, st.message().c_str());
    block.add_output(&owned[static_cast<size_t>(i)]);
  }
  return Status::ok();
}

Status DeclarableOp::execute(Context& block) {
  // The thread's list is reused (no allocation per call after the first),
  // except by a call made while it is in use: a shape function may run ops
  // itself (non_max_suppression's counts the boxes it keeps).
  thread_local ShapeList reused;
  thread_local bool reused_busy = false;
  ShapeList local;
  const bool mine = !reused_busy;
  ShapeList& shapes = mine ? reused : local;
  reused_busy = true;
  Status s = infer_shapes(block, shapes);
  if (s.is_ok()) s = prepare_outputs(block, shapes);
  if (mine) reused_busy = false;  // the body's own nested calls may take it
  RETURN_IF_ERROR(s);
  for (int i = 0; i < block.num_inputs(); ++i)
    if (!block.input(i)->has_data())
      return block.error(StatusCode::kInvalidArgument, "input %d has no data", i);
  return compute(block);
}

Status DeclarableOp::execute_prepared(Context& block) {
  block.set_op_name(descriptor_.name);
  block.set_signature(&descriptor_.signature);
  LIBOPS_DCHECK(check_call(block).is_ok());
  return compute(block);
}

Status DeclarableOp::compute(Context& block) {
  const Device d = block.device();
  const bool on_cpu = d.is_cpu();
  if (on_cpu) {
    // CPU bodies read and write host memory directly.
    for (int i = 0; i < block.num_inputs(); ++i) {
      DataBuffer& b = *block.input(i)->buffer();
      if (b.host_stale()) RETURN_IF_ERROR(b.sync_to_host());
    }
    for (int i = 0; i < block.num_outputs(); ++i) {
      DataBuffer& b = *block.output(i)->buffer();
      if (b.host_stale()) RETURN_IF_ERROR(b.sync_to_host());
    }
  } else {
    if (!descriptor_.any_device) return ops::no_device_implementation(block);
    Status s = check_device(d);
    if (!s.is_ok()) return block.error(s.code(), "%s", s.message().c_str());
  }
  Status s;
  try {
    s = validate_and_execute(block);
  } catch (const std::bad_alloc&) {
    return block.error(StatusCode::kOutOfMemory, "out of memory");
  } catch (const std::exception& ex) {
    return block.error(StatusCode::kInternal, "unexpected error: %s", ex.what());
  }
  if (s.is_ok() && on_cpu)
    for (int i = 0; i < block.num_outputs(); ++i) block.output(i)->buffer()->mark_host_written();
  return s;
}

}  // namespace libops
