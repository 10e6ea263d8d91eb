// The bad-input sweep: every registered op and every legacy op, called
// through the C API with inputs that are wrong in one respect. Each call must
// fail with a status and a message naming the op, and leave the caller's
// outputs (and the bytes around them) untouched. The calls come from the
// registry and each op's signature, so a new op is swept without anyone
// editing this file.
//
// Each custom op is first given a *template*: a valid call found by trying
// a few shape patterns with each input's first allowed dtype and the
// smallest valid value of each required arg. Calls that need to know what
// a right call looks like (a wrong output shape or dtype, non-contiguous
// inputs, empty inputs) start from it. The other sweeps (counts, nulls,
// undeclared dtypes and args, out-of-range values) need no template.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstring>
#include <limits>
#include <map>
#include <memory>
#include <string>
#include <vector>

#include "libops/c_api.h"
#include "libops/ops/declarable_op.h"
#include "libops/ops/registry.h"

namespace {

using libops::ArgKind;
using libops::ArgSpec;
using libops::DataType;
using libops::DeclarableOp;
using libops::OpSignature;
using libops::TypeSet;

constexpr unsigned char kGuard = 0xA5;
constexpr size_t kGuardBytes = 64;

struct Handle {
  ops_array_t* h = nullptr;
  Handle() = default;
  explicit Handle(ops_array_t* a) : h(a) {}
  Handle(const Handle&) = delete;
  Handle& operator=(const Handle&) = delete;
  Handle(Handle&& o) noexcept : h(o.h) { o.h = nullptr; }
  Handle& operator=(Handle&& o) noexcept {
    std::swap(h, o.h);
    return *this;
  }
  ~Handle() { ops_array_free(h); }
};

int64_t count_of(const std::vector<int64_t>& shape) {
  int64_t n = 1;
  for (int64_t d : shape) n *= d;
  return n;
}

// Element i of a test input: small values, a dominant diagonal for square
// matrices (so factorizations succeed), non-negative small ints for index
// inputs.
double input_value(DataType t, const std::vector<int64_t>& shape, int64_t i) {
  if (t == DataType::kBool) return i % 2;
  if (libops::dtype_is_integer(t)) return i % 2;
  const int64_t n = shape.empty() ? 1 : shape.back();
  return i % (n + 1) == 0 ? 4.0 : 0.25 + 0.125 * static_cast<double>(i % 5);
}

// A dense array of input_value()s: made in float64, then cast.
Handle make_input(DataType t, const std::vector<int64_t>& shape) {
  const int64_t n = count_of(shape);
  std::vector<double> v(static_cast<size_t>(n));
  for (int64_t k = 0; k < n; ++k) v[static_cast<size_t>(k)] = input_value(t, shape, k);
  ops_array_t* f = nullptr;
  EXPECT_EQ(ops_array_create_from(OPS_DTYPE_FLOAT64, static_cast<int>(shape.size()), shape.data(), v.data(),
                                  v.size() * sizeof(double), &f),
            OPS_OK)
      << ops_last_error();
  const ops_dtype_t target = static_cast<ops_dtype_t>(t);
  ops_args_t args{};
  args.d_args = &target;
  args.n_d_args = 1;
  ops_array_t** outs = nullptr;
  int k = 0;
  ops_array_t* in[1] = {f};
  EXPECT_EQ(ops_exec_alloc("cast", in, 1, &args, &outs, &k), OPS_OK) << ops_last_error();
  ops_array_free(f);
  ops_array_t* out = k == 1 ? outs[0] : nullptr;
  std::free(outs);
  return Handle(out);
}

// An output over caller memory with guard bytes on both sides.
struct GuardedOutput {
  std::vector<unsigned char> memory;
  Handle array;
  size_t bytes = 0;

  GuardedOutput(DataType t, const std::vector<int64_t>& shape, const int64_t* strides = nullptr,
                size_t data_bytes = 0) {
    bytes = data_bytes ? data_bytes : static_cast<size_t>(count_of(shape)) * dtype_size(t);
    memory.assign(bytes + 2 * kGuardBytes, kGuard);
    ops_array_t* h = nullptr;
    EXPECT_EQ(ops_array_wrap(memory.data() + kGuardBytes, bytes, static_cast<ops_dtype_t>(t),
                             static_cast<int>(shape.size()), shape.data(), strides, &h),
              OPS_OK)
        << ops_last_error();
    array = Handle(h);
  }
  // True when neither guard nor (when `untouched`) the data changed.
  bool intact(bool untouched) const {
    for (size_t k = 0; k < memory.size(); ++k) {
      const bool in_data = k >= kGuardBytes && k < kGuardBytes + bytes;
      if ((!in_data || untouched) && memory[k] != kGuard) return false;
    }
    return true;
  }
};

// ---- the calls ----

struct Call {
  std::vector<Handle> inputs;
  std::vector<double> t;
  std::vector<int64_t> i;
  std::vector<bool> b;
  std::vector<int32_t> d;  // raw, so that values outside the enum can be passed
};

ops_args_t args_of(const Call& c, std::vector<char>& bools) {
  bools.assign(c.b.begin(), c.b.end());
  ops_args_t a{};
  a.t_args = c.t.data();
  a.n_t_args = static_cast<int>(c.t.size());
  a.i_args = c.i.data();
  a.n_i_args = static_cast<int>(c.i.size());
  a.b_args = reinterpret_cast<const bool*>(bools.data());
  a.n_b_args = static_cast<int>(bools.size());
  a.d_args = reinterpret_cast<const ops_dtype_t*>(c.d.data());
  a.n_d_args = static_cast<int>(c.d.size());
  return a;
}

std::vector<ops_array_t*> raw(const std::vector<Handle>& hs) {
  std::vector<ops_array_t*> v;
  for (const Handle& h : hs) v.push_back(h.h);
  return v;
}

// Runs `c` with the op allocating its outputs; returns the status and keeps
// the outputs (freed by the caller through `out`).
ops_status_t run_alloc(const char* op, const Call& c, std::vector<Handle>* out = nullptr) {
  std::vector<char> bools;
  ops_args_t a = args_of(c, bools);
  std::vector<ops_array_t*> in = raw(c.inputs);
  ops_array_t** outs = nullptr;
  int n = 0;
  ops_status_t s = ops_exec_alloc(op, in.data(), static_cast<int>(in.size()), &a, &outs, &n);
  if (s == OPS_OK) {
    for (int k = 0; k < n; ++k) {
      if (out) out->emplace_back(outs[k]);
      else ops_array_free(outs[k]);
    }
    std::free(outs);
  } else {
    EXPECT_EQ(outs, nullptr);
    EXPECT_EQ(n, 0);
  }
  return s;
}

// ---- what a signature allows ----

std::vector<DataType> all_dtypes() {
  std::vector<DataType> v;
  for (int k = 1; k < libops::kNumDataTypes; ++k) v.push_back(static_cast<DataType>(k));
  return v;
}

DataType first_allowed(TypeSet s, DataType prefer) {
  if (s.contains(prefer)) return prefer;
  for (DataType t : {DataType::kFloat32, DataType::kInt64, DataType::kFloat64})
    if (s.contains(t)) return t;
  for (DataType t : all_dtypes())
    if (s.contains(t)) return t;
  return DataType::kFloat32;
}

// The smallest valid value of a required arg (Note [Window arguments]: a
// conv kernel of 0 is taken from the weights).
void push_required(const ArgSpec& a, Call& c) {
  switch (a.kind) {
    case ArgKind::kInt: {
      int64_t v = 1;
      if (!a.choices.empty()) v = a.choices[0].value;
      else if (a.axis_of >= 0) v = 0;
      else if (a.min_int != std::numeric_limits<int64_t>::min()) v = a.min_int;
      const int n = a.list ? std::max(1, a.min_count) : 1;
      for (int k = 0; k < n; ++k) c.i.push_back(a.axis_of >= 0 ? k : v);
      break;
    }
    case ArgKind::kFloat: c.t.push_back(std::clamp(0.5, a.min_float, a.max_float)); break;
    case ArgKind::kBool: c.b.push_back(false); break;
    case ArgKind::kDtype: c.d.push_back(static_cast<int32_t>(DataType::kFloat32)); break;
  }
}

// Required args of every kind, in position order; and a d arg whose
// default is "none" (cast's target), which a call must usually give.
void required_args(const OpSignature& sig, Call& c) {
  for (ArgKind kind : {ArgKind::kFloat, ArgKind::kInt, ArgKind::kBool, ArgKind::kDtype}) {
    int n = sig.required_count(kind);
    if (kind == ArgKind::kDtype)
      while (n < sig.declared_count(kind) && sig.at(kind, n)->default_dtype == DataType::kInvalid) ++n;
    for (int p = 0; p < n;) {
      const ArgSpec* a = sig.at(kind, p);
      if (a == nullptr) break;
      push_required(*a, c);
      p = a->list ? n : p + 1;
    }
  }
}

// Shape patterns tried for a template: input 0's shape, then the others'.
struct ShapePattern {
  std::vector<int64_t> first, rest;
};
const ShapePattern kPatterns[] = {
    {{2, 3}, {2, 3}},       {{3, 3}, {3, 3}},       {{1, 3, 5, 5}, {1, 3, 5, 5}}, {{1, 3, 5, 5}, {3}},
    {{2, 3}, {3}},          {{2, 3}, {2}},          {{3}, {3}},                   {{2, 3, 4}, {2, 3, 4}},
    {{2, 3, 2}, {2, 3, 2}}, {{4, 2}, {4, 2}},       {{1}, {1}},
    {{2, 1, 3}, {2, 1, 3}},  // fold's windows: 1 tap, 3 windows (the smallest arg values, padding 1)
};

Call call_with(const DeclarableOp& op, int n_inputs, const ShapePattern& p) {
  const libops::OpDescriptor& d = op.descriptor();
  Call c;
  const DataType first = first_allowed(d.input_type(0), DataType::kFloat32);
  for (int k = 0; k < n_inputs; ++k) {
    const DataType t = first_allowed(d.input_type(k), first);
    c.inputs.push_back(make_input(t, k == 0 ? p.first : p.rest));
  }
  required_args(d.signature, c);
  return c;
}

// A valid call of `op`, if one of the patterns gives one.
bool find_template(const DeclarableOp& op, Call& out) {
  const OpSignature& sig = op.descriptor().signature;
  std::vector<int> counts = {sig.min_inputs()};
  const int hi = std::min(sig.max_inputs(), sig.min_inputs() + 2);
  for (int n = sig.min_inputs() + 1; n <= hi; ++n) counts.push_back(n);
  for (int n : counts)
    for (const ShapePattern& p : kPatterns) {
      Call c = call_with(op, n, p);
      if (run_alloc(op.name(), c) == OPS_OK) {
        out = std::move(c);
        return true;
      }
    }
  // An int list whose length follows input 0's rank (pad's paddings, tile's
  // reps, slice's begins and sizes): rank or 2 * rank ones or zeros.
  const ArgSpec* list = nullptr;
  for (const ArgSpec& a : sig.args)
    if (a.kind == ArgKind::kInt && a.list) list = &a;
  if (list == nullptr) return false;
  for (const ShapePattern& p : kPatterns)
    for (int per_dim : {1, 2})
      for (int64_t v : {1, 0}) {
        Call c = call_with(op, sig.min_inputs(), p);
        c.i.resize(static_cast<size_t>(list->position));
        c.i.insert(c.i.end(), p.first.size() * static_cast<size_t>(per_dim), v);
        if (run_alloc(op.name(), c) == OPS_OK) {
          out = std::move(c);
          return true;
        }
      }
  return false;
}

Call copy_call(const Call& c) {
  Call out;
  for (const Handle& h : c.inputs) {
    ops_array_t* a = nullptr;
    if (h.h != nullptr) {
      int rank = 0;
      ops_array_rank(h.h, &rank);
      std::vector<int64_t> shape(static_cast<size_t>(rank));
      ops_array_shape(h.h, shape.data());
      ops_array_reshape(h.h, rank, shape.data(), &a);  // a view: same data
    }
    out.inputs.emplace_back(a);
  }
  out.t = c.t;
  out.i = c.i;
  out.b = c.b;
  out.d = c.d;
  return out;
}

// Expects `s` to be a failure whose message names `op`.
void expect_named_failure(ops_status_t s, const char* op, const std::string& what) {
  EXPECT_NE(s, OPS_OK) << op << ": " << what << " was accepted";
  if (s == OPS_OK) return;
  const std::string msg = ops_last_error();
  EXPECT_NE(msg.find(op), std::string::npos) << op << ": " << what << ": the message does not name the op: " << msg;
}

// ---- the sweeps ----

void sweep_counts_and_nulls(const DeclarableOp& op, const Call& base) {
  const char* name = op.name();
  const OpSignature& sig = op.descriptor().signature;
  if (sig.min_inputs() > 0) {
    Call c = copy_call(base);
    c.inputs.resize(static_cast<size_t>(sig.min_inputs() - 1));
    expect_named_failure(run_alloc(name, c), name, "too few inputs");
  }
  if (sig.max_inputs() < 64) {
    Call c = copy_call(base);
    while (static_cast<int>(c.inputs.size()) <= sig.max_inputs()) c.inputs.push_back(make_input(DataType::kFloat32, {2}));
    expect_named_failure(run_alloc(name, c), name, "too many inputs");
  }
  if (!base.inputs.empty()) {
    Call c = copy_call(base);
    ops_array_free(c.inputs[0].h);
    c.inputs[0].h = nullptr;
    expect_named_failure(run_alloc(name, c), name, "a null input");
  }
  std::vector<char> bools;
  Call c = copy_call(base);
  ops_args_t a = args_of(c, bools);
  ops_array_t** outs = nullptr;
  int n = 0;
  if (!c.inputs.empty())
    expect_named_failure(ops_exec_alloc(name, nullptr, static_cast<int>(c.inputs.size()), &a, &outs, &n), name,
                         "a null input list");
  std::vector<ops_array_t*> in = raw(c.inputs);
  expect_named_failure(ops_exec_alloc(name, in.data(), -1, &a, &outs, &n), name, "a negative input count");
  // Where the outputs go: null pointers to the list or the count.
  expect_named_failure(ops_exec_alloc(name, in.data(), static_cast<int>(in.size()), &a, nullptr, &n), name,
                       "a null outputs pointer");
  expect_named_failure(ops_exec_alloc(name, in.data(), static_cast<int>(in.size()), &a, &outs, nullptr), name,
                       "a null n_outputs pointer");
  ops_args_t bad = a;
  bad.n_i_args = -1;
  expect_named_failure(ops_exec_alloc(name, in.data(), static_cast<int>(in.size()), &bad, &outs, &n), name,
                       "a negative i arg count");
  bad = a;
  bad.t_args = nullptr;
  bad.n_t_args = 2;
  expect_named_failure(ops_exec_alloc(name, in.data(), static_cast<int>(in.size()), &bad, &outs, &n), name,
                       "null t args with a count");
  for (int32_t d : {99, -1, 0x7fffffff}) {
    Call cd = copy_call(base);
    cd.d.insert(cd.d.begin(), d);
    expect_named_failure(run_alloc(name, cd), name, "d arg " + std::to_string(d));
  }
}

void sweep_dtypes(const DeclarableOp& op, const Call& base) {
  const libops::OpDescriptor& d = op.descriptor();
  for (size_t k = 0; k < base.inputs.size(); ++k) {
    int rank = 0;
    ops_array_rank(base.inputs[k].h, &rank);
    std::vector<int64_t> shape(static_cast<size_t>(rank));
    ops_array_shape(base.inputs[k].h, shape.data());
    for (DataType t : all_dtypes()) {
      if (d.input_type(static_cast<int>(k)).contains(t)) continue;
      Call c = copy_call(base);
      c.inputs[k] = make_input(t, shape);
      expect_named_failure(run_alloc(op.name(), c), op.name(),
                           "input " + std::to_string(k) + " of undeclared dtype " + libops::dtype_name(t));
    }
  }
}

void sweep_args(const DeclarableOp& op, const Call& base) {
  const char* name = op.name();
  const OpSignature& sig = op.descriptor().signature;
  // One more arg of each kind than declared.
  for (ArgKind kind : {ArgKind::kFloat, ArgKind::kInt, ArgKind::kBool, ArgKind::kDtype}) {
    if (sig.declared_count(kind) == std::numeric_limits<int>::max()) continue;
    Call c = copy_call(base);
    auto fill = [&](auto& list, auto value) {
      while (static_cast<int>(list.size()) <= sig.declared_count(kind)) {
        const ArgSpec* a = sig.at(kind, static_cast<int>(list.size()));
        list.push_back(a ? value(*a) : value(ArgSpec{}));
      }
    };
    switch (kind) {
      case ArgKind::kFloat: fill(c.t, [](const ArgSpec& a) { return a.required ? 0.5 : a.default_float; }); break;
      case ArgKind::kInt: fill(c.i, [](const ArgSpec& a) { return a.required ? int64_t{0} : a.default_int; }); break;
      case ArgKind::kBool: fill(c.b, [](const ArgSpec&) { return false; }); break;
      case ArgKind::kDtype: fill(c.d, [](const ArgSpec&) { return static_cast<int32_t>(DataType::kFloat32); }); break;
    }
    expect_named_failure(run_alloc(name, c), name, std::string("an undeclared ") + libops::arg_kind_label(kind) + " arg");
  }
  // Each bounded arg just outside its range, at its position, with the args
  // before it at their defaults (or the template's values).
  for (const ArgSpec& a : sig.args) {
    std::vector<double> bad;
    if (a.kind == ArgKind::kInt && !a.list) {
      if (!a.choices.empty()) {
        int64_t hi = a.choices[0].value;
        for (const auto& ch : a.choices) hi = std::max(hi, ch.value);
        bad.push_back(static_cast<double>(hi + 1));
      } else if (a.axis_of < 0) {
        if (a.min_int != std::numeric_limits<int64_t>::min()) bad.push_back(static_cast<double>(a.min_int) - 1);
        if (a.max_int != std::numeric_limits<int64_t>::max()) bad.push_back(static_cast<double>(a.max_int) + 1);
      } else {
        bad.push_back(64);  // an axis no input has
      }
    } else if (a.kind == ArgKind::kFloat && !a.list) {
      if (!a.allow_nan) bad.push_back(std::nan(""));
      if (!std::isinf(a.min_float)) bad.push_back(a.min_exclusive ? a.min_float : a.min_float - 1);
      if (!std::isinf(a.max_float)) bad.push_back(a.max_float + 1);
    }
    for (double v : bad) {
      Call c = copy_call(base);
      if (a.kind == ArgKind::kInt) {
        while (static_cast<int>(c.i.size()) < a.position) {
          const ArgSpec* before = sig.at(ArgKind::kInt, static_cast<int>(c.i.size()));
          c.i.push_back(before->default_int);
        }
        c.i.resize(static_cast<size_t>(a.position));
        c.i.push_back(static_cast<int64_t>(v));
      } else {
        while (static_cast<int>(c.t.size()) < a.position) {
          const ArgSpec* before = sig.at(ArgKind::kFloat, static_cast<int>(c.t.size()));
          c.t.push_back(before->default_float);
        }
        c.t.resize(static_cast<size_t>(a.position));
        c.t.push_back(v);
      }
      expect_named_failure(run_alloc(name, c), name, a.name + " = " + std::to_string(v));
    }
  }
}

// The shapes and dtypes of the template's outputs.
struct OutSpec {
  DataType dtype;
  std::vector<int64_t> shape;
};

std::vector<OutSpec> out_specs(const std::vector<Handle>& outs) {
  std::vector<OutSpec> v;
  for (const Handle& h : outs) {
    ops_dtype_t t;
    int rank = 0;
    ops_array_dtype(h.h, &t);
    ops_array_rank(h.h, &rank);
    std::vector<int64_t> shape(static_cast<size_t>(rank));
    ops_array_shape(h.h, shape.data());
    v.push_back(OutSpec{static_cast<DataType>(t), shape});
  }
  return v;
}

ops_status_t run_into(const char* op, const Call& c, std::vector<GuardedOutput>& outs, bool inplace = false) {
  std::vector<char> bools;
  ops_args_t a = args_of(c, bools);
  a.inplace = inplace;
  std::vector<ops_array_t*> in = raw(c.inputs);
  std::vector<ops_array_t*> o;
  for (GuardedOutput& g : outs) o.push_back(g.array.h);
  return ops_exec(op, in.data(), static_cast<int>(in.size()), o.data(), static_cast<int>(o.size()), &a);
}

std::vector<double> values_of(const ops_array_t* a) {
  ops_dtype_t t;
  int64_t n = 0;
  ops_array_dtype(a, &t);
  ops_array_length(a, &n);
  std::vector<double> v(static_cast<size_t>(n));
  // Through a float64 cast: every dtype reads back as numbers.
  ops_array_t* d = nullptr;
  int rank = 0;
  ops_array_rank(a, &rank);
  std::vector<int64_t> shape(static_cast<size_t>(rank));
  ops_array_shape(a, shape.data());
  if (ops_array_create(OPS_DTYPE_FLOAT64, rank, shape.data(), 'c', &d) != OPS_OK) return v;
  const ops_array_t* in[1] = {a};
  ops_array_t* out[1] = {d};
  const ops_dtype_t f64 = OPS_DTYPE_FLOAT64;
  ops_args_t args{};
  args.d_args = &f64;
  args.n_d_args = 1;
  if (ops_exec("cast", const_cast<ops_array_t* const*>(in), 1, out, 1, &args) == OPS_OK)
    ops_array_copy_to(d, v.data(), v.size() * sizeof(double));
  ops_array_free(d);
  return v;
}

bool same_values(const std::vector<double>& a, const std::vector<double>& b) {
  if (a.size() != b.size()) return false;
  for (size_t k = 0; k < a.size(); ++k) {
    if (std::isnan(a[k]) && std::isnan(b[k])) continue;
    if (std::fabs(a[k] - b[k]) > 1e-5 * std::max(1.0, std::fabs(b[k]))) return false;
  }
  return true;
}

ops_array_t* exec1(const char* op, std::vector<ops_array_t*> in, const ops_args_t* args = nullptr) {
  ops_array_t** outs = nullptr;
  int n = 0;
  if (ops_exec_alloc(op, in.data(), static_cast<int>(in.size()), args, &outs, &n) != OPS_OK || n != 1) return nullptr;
  ops_array_t* a = outs[0];
  std::free(outs);
  return a;
}

// A view of `h` with the same values and other strides: a permuted dense
// copy, permuted back (rank >= 2), or one column of [x, x] side by side
// (rank 1, stride 2). Arrays the view reads are kept in `keep`.
Handle strided_view(const ops_array_t* h, std::vector<Handle>& keep) {
  int rank = 0;
  ops_array_rank(h, &rank);
  std::vector<int64_t> shape(static_cast<size_t>(rank));
  ops_array_shape(h, shape.data());
  ops_array_t* view = nullptr;
  if (rank >= 2) {
    std::vector<int64_t> rev(static_cast<size_t>(rank));
    for (int d = 0; d < rank; ++d) rev[static_cast<size_t>(d)] = rank - 1 - d;
    ops_array_t* p = nullptr;
    ops_array_permute(h, rev.data(), rank, &p);
    std::vector<int64_t> same(static_cast<size_t>(rank));
    for (int d = 0; d < rank; ++d) same[static_cast<size_t>(d)] = d;
    ops_args_t args{};
    args.i_args = same.data();
    args.n_i_args = rank;
    keep.emplace_back(exec1("permute", {p}, &args));  // a dense copy of p, dims reversed
    ops_array_free(p);
    ops_array_permute(keep.back().h, rev.data(), rank, &view);
  } else if (rank == 1) {
    const int64_t col[2] = {shape[0], 1};
    ops_array_t* c = nullptr;
    ops_array_reshape(h, 2, col, &c);
    const int64_t axis = 1;
    ops_args_t args{};
    args.i_args = &axis;
    args.n_i_args = 1;
    keep.emplace_back(exec1("concat", {c, c}, &args));  // [n, 2]
    ops_array_free(c);
    ops_array_t* first = nullptr;
    ops_array_slice(keep.back().h, 1, 0, 1, 1, &first);  // [n, 1], strides [2, 1]
    ops_array_reshape(first, 1, shape.data(), &view);
    ops_array_free(first);
  } else {
    ops_array_reshape(h, 0, nullptr, &view);
  }
  return Handle(view);
}

void sweep_with_template(const DeclarableOp& op, const Call& tmpl) {
  const char* name = op.name();
  std::vector<Handle> want_outs;
  ASSERT_EQ(run_alloc(name, tmpl, &want_outs), OPS_OK) << name << ": " << ops_last_error();
  const std::vector<OutSpec> specs = out_specs(want_outs);
  std::vector<std::vector<double>> want;
  for (const Handle& h : want_outs) want.push_back(values_of(h.h));

  // The template into guarded outputs: right values, nothing written around them.
  {
    std::vector<GuardedOutput> outs;
    for (const OutSpec& s : specs) outs.emplace_back(s.dtype, s.shape);
    ASSERT_EQ(run_into(name, tmpl, outs), OPS_OK) << name << ": " << ops_last_error();
    for (size_t k = 0; k < outs.size(); ++k) {
      EXPECT_TRUE(outs[k].intact(false)) << name << ": wrote outside output " << k;
      EXPECT_TRUE(same_values(values_of(outs[k].array.h), want[k])) << name << ": output " << k;
    }
  }
  // Wrong output shapes and dtypes, a broadcast output, in place with
  // outputs, no outputs at all.
  for (size_t k = 0; k < specs.size(); ++k) {
    std::vector<std::vector<GuardedOutput>> cases;
    auto with = [&](size_t j, DataType t, std::vector<int64_t> shape, const int64_t* strides = nullptr,
                    size_t bytes = 0) {
      std::vector<GuardedOutput> outs;
      for (size_t m = 0; m < specs.size(); ++m)
        if (m == j) outs.emplace_back(t, shape, strides, bytes);
        else outs.emplace_back(specs[m].dtype, specs[m].shape);
      return outs;
    };
    std::vector<int64_t> bigger = specs[k].shape;
    bigger.push_back(2);
    cases.push_back(with(k, specs[k].dtype, bigger));
    for (DataType t : {DataType::kFloat64, DataType::kInt8})
      if (t != specs[k].dtype) {
        cases.push_back(with(k, t, specs[k].shape));
        break;
      }
    if (count_of(specs[k].shape) > 1) {
      std::vector<int64_t> strides(specs[k].shape.size(), 0);
      for (size_t d = 0; d + 1 < strides.size(); ++d) {
        int64_t s = 1;
        for (size_t e = d + 1; e < strides.size(); ++e) s *= specs[k].shape[e];
        strides[d] = s;
      }
      // Stride 0 on the first dim of extent > 1: a broadcast.
      size_t zero = 0;
      while (specs[k].shape[zero] <= 1) ++zero;
      strides[zero] = 0;
      cases.push_back(with(k, specs[k].dtype, specs[k].shape, strides.data(),
                           static_cast<size_t>(count_of(specs[k].shape)) * dtype_size(specs[k].dtype)));
    }
    for (auto& outs : cases) {
      expect_named_failure(run_into(name, tmpl, outs), name, "a wrong output " + std::to_string(k));
      for (const GuardedOutput& g : outs) EXPECT_TRUE(g.intact(true)) << name << ": a failed call wrote its output";
    }
  }
  {
    std::vector<GuardedOutput> outs;
    for (const OutSpec& s : specs) outs.emplace_back(s.dtype, s.shape);
    expect_named_failure(run_into(name, tmpl, outs, true), name, "in place with outputs");
    for (const GuardedOutput& g : outs) EXPECT_TRUE(g.intact(true)) << name;
    std::vector<GuardedOutput> none;
    expect_named_failure(run_into(name, tmpl, none), name, "no outputs");
  }
  // Non-contiguous inputs give the same values.
  {
    Call c = copy_call(tmpl);
    std::vector<Handle> keep;
    for (Handle& h : c.inputs) h = strided_view(h.h, keep);
    std::vector<Handle> got;
    ASSERT_EQ(run_alloc(name, c, &got), OPS_OK) << name << " on strided inputs: " << ops_last_error();
    for (size_t k = 0; k < got.size() && k < want.size(); ++k)
      EXPECT_TRUE(same_values(values_of(got[k].h), want[k])) << name << ": output " << k << " on strided inputs";
  }
  // Empty inputs: extent 0 in dim 0 of every input shaped like input 0.
  if (!tmpl.inputs.empty()) {
    int rank = 0;
    ops_array_rank(tmpl.inputs[0].h, &rank);
    std::vector<int64_t> shape0(static_cast<size_t>(rank));
    ops_array_shape(tmpl.inputs[0].h, shape0.data());
    if (rank > 0) {
      Call c = copy_call(tmpl);
      for (Handle& h : c.inputs) {
        int r = 0;
        ops_array_rank(h.h, &r);
        std::vector<int64_t> s(static_cast<size_t>(r));
        ops_array_shape(h.h, s.data());
        ops_dtype_t t;
        ops_array_dtype(h.h, &t);
        if (s != shape0) continue;
        s[0] = 0;
        h = make_input(static_cast<DataType>(t), s);
      }
      ops_status_t s = run_alloc(name, c);
      if (s != OPS_OK) {
        EXPECT_NE(std::string(ops_last_error()).find(name), std::string::npos)
            << name << " on empty inputs: " << ops_last_error();
      }
    }
  }
}

TEST(BadInputSweep, EveryCustomOp) {
  int with_template = 0;
  std::vector<std::string> without;
  for (const DeclarableOp* op : libops::OpRegistry::instance().list()) {
    SCOPED_TRACE(op->name());
    Call tmpl;
    const bool found = find_template(*op, tmpl);
    if (found) ++with_template;
    else without.push_back(op->name());
    // Without a template, a best guess serves as the base of calls that are
    // wrong in a way no shape can right.
    Call base = found ? copy_call(tmpl) : call_with(*op, op->descriptor().signature.min_inputs(), kPatterns[0]);
    sweep_counts_and_nulls(*op, base);
    sweep_dtypes(*op, base);
    sweep_args(*op, base);
    if (found) sweep_with_template(*op, tmpl);
  }
  const int total = libops::OpRegistry::instance().size();
  std::string list;
  for (const std::string& n : without) list += " " + n;
  // Ops whose inputs need a shape no pattern gives are still swept for
  // counts, nulls, dtypes and args; most must get the full sweep.
  EXPECT_GE(with_template * 10, total * 9) << "ops without a template:" << list;
  std::printf("[ sweep    ] %d of %d custom ops had a template; without one:%s\n", with_template, total,
              list.empty() ? " none" : list.c_str());
}

// Legacy ops: wrong or missing arrays, counts and params, for every op of
// every group.
TEST(BadInputSweep, EveryLegacyOp) {
  Handle x = make_input(DataType::kFloat32, {2, 3});
  for (int g = 0; g < OPS_LEGACY_GROUP_COUNT; ++g) {
    const auto group = static_cast<ops_legacy_group_t>(g);
    const int n = ops_legacy_op_count(group);
    for (int k = 0; k < n; ++k) {
      int num = 0;
      const char* name = nullptr;
      ASSERT_EQ(ops_legacy_op_info(group, k, &num, &name), OPS_OK);
      SCOPED_TRACE(std::string(ops_legacy_group_name(group)) + "/" + name);
      const double extra[9] = {0.5, 0.5, 0.5, 0.5, 0.5, 0.5, 0.5, 0.5, 0.5};
      const bool random = group == OPS_RANDOM;
      auto call = [&](const ops_array_t* xa, const ops_array_t* ya, ops_array_t* z, const int64_t* axes, int n_axes,
                      const double* e, int n_e) {
        return random ? ops_exec_random(num, 7, xa, ya, z, e, n_e)
                      : ops_exec_legacy(group, num, xa, ya, z, axes, n_axes, e, n_e);
      };
      GuardedOutput z(DataType::kFloat32, {2, 3});
      expect_named_failure(call(x.h, x.h, nullptr, nullptr, 0, nullptr, 0), name, "a null z");
      if (!random) expect_named_failure(call(nullptr, x.h, z.array.h, nullptr, 0, nullptr, 0), name, "a null x");
      expect_named_failure(call(x.h, x.h, z.array.h, nullptr, 0, extra, 9), name, "9 extra params");
      expect_named_failure(call(x.h, x.h, z.array.h, nullptr, 0, extra, -1), name, "a negative extra count");
      expect_named_failure(call(x.h, x.h, z.array.h, nullptr, 0, nullptr, 2), name, "null extra with a count");
      if (!random) {
        expect_named_failure(call(x.h, x.h, z.array.h, nullptr, -1, nullptr, 0), name, "a negative axes count");
        expect_named_failure(call(x.h, x.h, z.array.h, nullptr, 1, nullptr, 0), name, "null axes with a count");
      }
      EXPECT_TRUE(z.intact(true));
      // z of no shape the op could give.
      GuardedOutput odd(DataType::kFloat32, {7});
      expect_named_failure(call(x.h, x.h, odd.array.h, nullptr, 0, nullptr, 0), name, "z of shape [7]");
      EXPECT_TRUE(odd.intact(true));
      // A broadcast z.
      const int64_t zero_strides[2] = {0, 1};
      GuardedOutput bz(DataType::kFloat32, {2, 3}, zero_strides, 3 * sizeof(float));
      expect_named_failure(call(x.h, x.h, bz.array.h, nullptr, 0, nullptr, 0), name, "a broadcast z");
      EXPECT_TRUE(bz.intact(true));
    }
    int num = 0;
    const char* last = nullptr;
    if (n > 0) ops_legacy_op_info(group, n - 1, &num, &last);
    GuardedOutput z(DataType::kFloat32, {2, 3});
    const ops_status_t s = group == OPS_RANDOM ? ops_exec_random(num + 1000, 1, nullptr, nullptr, z.array.h, nullptr, 0)
                                               : ops_exec_legacy(group, num + 1000, x.h, x.h, z.array.h, nullptr, 0,
                                                                 nullptr, 0);
    EXPECT_EQ(s, OPS_ERR_UNKNOWN_OP);
    EXPECT_NE(std::string(ops_last_error()).find(ops_legacy_group_name(group)), std::string::npos) << ops_last_error();
  }
}

}  // namespace
