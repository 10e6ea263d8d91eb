#include "libops/ops/op_signature.h"

#include <algorithm>
#include <cmath>
#include <cstring>

#include "libops/array/ndarray.h"

namespace libops {

const char* arg_kind_name(ArgKind k) {
  switch (k) {
    case ArgKind::kFloat: return "t";
    case ArgKind::kInt: return "i";
    case ArgKind::kBool: return "b";
    case ArgKind::kDtype: return "d";
  }
  return "?";
}

const char* arg_kind_label(ArgKind k) {
  switch (k) {
    case ArgKind::kFloat: return "float (t)";
    case ArgKind::kInt: return "integer (i)";
    case ArgKind::kBool: return "bool (b)";
    case ArgKind::kDtype: return "dtype (d)";
  }
  return "?";
}

int OpArgs::count(ArgKind k) const {
  switch (k) {
    case ArgKind::kFloat: return static_cast<int>(t.size());
    case ArgKind::kInt: return static_cast<int>(i.size());
    case ArgKind::kBool: return static_cast<int>(b.size());
    case ArgKind::kDtype: return static_cast<int>(d.size());
  }
  return 0;
}

namespace {

constexpr int kNoLimit = std::numeric_limits<int>::max();

int64_t clamp_to_int64(double v) {
  if (std::isnan(v)) return 0;
  if (v <= -9.2233720368547758e18) return std::numeric_limits<int64_t>::min();
  if (v >= 9.2233720368547758e18) return std::numeric_limits<int64_t>::max();
  return static_cast<int64_t>(v);
}

std::string number_text(double v) {
  if (std::isinf(v)) return v > 0 ? "inf" : "-inf";
  std::string s = str_format("%.9g", v);
  return s;
}

// "0 or 1", "0 (NCHW) or 1 (NHWC)", "-1 (auto), 0 (no) or 1 (yes)".
std::string choices_text(const std::vector<ArgChoice>& choices) {
  const bool plain_flag = choices.size() == 2 && choices[0].name == "false" && choices[1].name == "true";
  std::string c;
  for (size_t k = 0; k < choices.size(); ++k) {
    c += k == 0 ? "" : (k + 1 == choices.size() ? " or " : ", ");
    c += std::to_string(choices[k].value);
    if (!plain_flag) c += " (" + choices[k].name + ")";
  }
  return c;
}

// "in [1, 2147483647]", ">= 0", "<= 5", "" (unbounded).
std::string int_range_text(int64_t lo, int64_t hi) {
  const bool has_lo = lo != std::numeric_limits<int64_t>::min(), has_hi = hi != std::numeric_limits<int64_t>::max();
  if (has_lo && has_hi) return str_format("in [%lld, %lld]", static_cast<long long>(lo), static_cast<long long>(hi));
  if (has_lo) return str_format(">= %lld", static_cast<long long>(lo));
  if (has_hi) return str_format("<= %lld", static_cast<long long>(hi));
  return "";
}

// "in [0, 1]", "> 0", ">= 0 and finite", "finite", "" (anything but NaN).
std::string float_range_text(const ArgSpec& a) {
  const bool lo = !std::isinf(a.min_float), hi = !std::isinf(a.max_float);
  std::string s;
  if (lo && hi) s = str_format("in %s%s, %s]", a.min_exclusive ? "(" : "[", number_text(a.min_float).c_str(),
                               number_text(a.max_float).c_str());
  else if (lo) s = str_format("%s %s", a.min_exclusive ? ">" : ">=", number_text(a.min_float).c_str());
  else if (hi) s = str_format("<= %s", number_text(a.max_float).c_str());
  if (a.must_be_finite) s += s.empty() ? "finite" : " and finite";
  return s;
}

}  // namespace

// ---------------------------------------------------------------- ArgSpec

ArgSpec& ArgSpec::range(double lo, double hi) {
  min_int = clamp_to_int64(std::ceil(lo));
  max_int = clamp_to_int64(std::floor(hi));
  min_float = lo;
  max_float = hi;
  return *this;
}

ArgSpec& ArgSpec::at_least(double lo) { return range(lo, std::numeric_limits<double>::infinity()); }

ArgSpec& ArgSpec::positive() {
  if (kind == ArgKind::kFloat) {
    min_float = 0.0;
    min_exclusive = true;
    return *this;
  }
  return at_least(1);
}

ArgSpec& ArgSpec::flag() { return one_of({{0, "false"}, {1, "true"}}); }

ArgSpec& ArgSpec::one_of(std::initializer_list<ArgChoice> values) {
  choices.assign(values.begin(), values.end());
  return *this;
}

ArgSpec& ArgSpec::axis(int input) {
  axis_of = input;
  return *this;
}

std::string ArgSpec::where() const {
  return str_format("%s %d%s", arg_kind_name(kind), position, list ? ".." : "");
}

std::string ArgSpec::default_text() const {
  if (list) return "[]";
  if (required) return "";
  switch (kind) {
    case ArgKind::kFloat: return number_text(default_float);
    case ArgKind::kInt:
      for (const ArgChoice& c : choices)
        if (c.value == default_int && kind == ArgKind::kInt && choices.size() > 2)
          return str_format("%lld (%s)", static_cast<long long>(default_int), c.name.c_str());
      return std::to_string(default_int);
    case ArgKind::kBool: return default_int ? "true" : "false";
    case ArgKind::kDtype: return default_dtype == DataType::kInvalid ? "none" : dtype_name(default_dtype);
  }
  return "";
}

std::string ArgSpec::allowed_text(const OpSignature& sig) const {
  std::string s;
  auto add = [&](const std::string& part) {
    if (!part.empty()) s += (s.empty() ? "" : "; ") + part;
  };
  if (!choices.empty()) {
    add(choices_text(choices));
  } else if (kind == ArgKind::kInt && axis_of < 0) {
    add(int_range_text(min_int, max_int));
  } else if (kind == ArgKind::kFloat) {
    add(float_range_text(*this));
    if (!allow_nan) add("not NaN");
  }
  if (axis_of >= 0) {
    const char* in = sig.input_name(axis_of);
    add(str_format("%s of input %d%s%s%s", list ? "axes" : "an axis", axis_of, *in ? " (" : "", in, *in ? ")" : ""));
  }
  if (list && distinct) add("no repeats");
  if (list && (min_count > 0 || max_count != kNoLimit)) {
    if (max_count == kNoLimit) add(str_format("at least %d values", min_count));
    else if (min_count == max_count) add(str_format("exactly %d values", min_count));
    else add(str_format("%d to %d values", min_count, max_count));
  }
  if (from_input >= 0) add(str_format("or as input %d", from_input));
  if (from_t_arg >= 0) add(str_format("or as t arg %d (1.0 = true)", from_t_arg));
  return s;
}

Status ArgSpec::check_int(int64_t v) const {
  if (!choices.empty()) {
    for (const ArgChoice& c : choices)
      if (c.value == v) return Status::ok();
    return Status::error(StatusCode::kInvalidArgument, "must be %s", choices_text(choices).c_str());
  }
  if (v < min_int || v > max_int)
    return Status::error(StatusCode::kInvalidArgument, "must be %s", int_range_text(min_int, max_int).c_str());
  return Status::ok();
}

Status ArgSpec::check_float(double v) const {
  if (std::isnan(v)) {
    if (allow_nan) return Status::ok();
    return Status::error(StatusCode::kInvalidArgument, "must not be NaN");
  }
  const bool below = min_exclusive ? v <= min_float : v < min_float;
  if (below || v > max_float || (must_be_finite && std::isinf(v)))
    return Status::error(StatusCode::kInvalidArgument, "must be %s", float_range_text(*this).c_str());
  return Status::ok();
}

// ---------------------------------------------------------------- OpSignature

OpSignature& OpSignature::input(const char* name, const char* doc) {
  inputs.push_back(InputSpec{name, doc, false, false, 1, ""});
  return *this;
}

OpSignature& OpSignature::optional_input(const char* name, const char* doc) {
  inputs.push_back(InputSpec{name, doc, true, false, 0, ""});
  return *this;
}

OpSignature& OpSignature::inputs_variadic(const char* name, const char* doc, int min_count) {
  inputs.push_back(InputSpec{name, doc, min_count == 0, true, min_count, ""});
  return *this;
}

OpSignature& OpSignature::output(const char* name, const char* doc) {
  outputs.push_back(OutputSpec{name, doc, false, ""});
  return *this;
}

OpSignature& OpSignature::outputs_variadic(const char* name, const char* doc) {
  outputs.push_back(OutputSpec{name, doc, true, ""});
  return *this;
}

ArgSpec& OpSignature::add_arg(const char* name, ArgKind kind, const char* doc) {
  int position = 0;
  for (const ArgSpec& a : args)
    if (a.kind == kind) position = std::max(position, a.position + 1);
  ArgSpec spec;
  spec.name = name;
  spec.doc = doc;
  spec.kind = kind;
  spec.position = position;
  args.push_back(std::move(spec));
  return args.back();
}

ArgSpec& OpSignature::i_arg(const char* name, const char* doc) { return add_arg(name, ArgKind::kInt, doc); }

ArgSpec& OpSignature::i_arg(const char* name, int64_t default_value, const char* doc) {
  ArgSpec& a = add_arg(name, ArgKind::kInt, doc);
  a.required = false;
  a.default_int = default_value;
  return a;
}

ArgSpec& OpSignature::i_list(const char* name, const char* doc) {
  ArgSpec& a = add_arg(name, ArgKind::kInt, doc);
  a.list = true;
  a.required = false;
  return a;
}

ArgSpec& OpSignature::t_arg(const char* name, const char* doc) { return add_arg(name, ArgKind::kFloat, doc); }

ArgSpec& OpSignature::t_arg(const char* name, double default_value, const char* doc) {
  ArgSpec& a = add_arg(name, ArgKind::kFloat, doc);
  a.required = false;
  a.default_float = default_value;
  return a;
}

ArgSpec& OpSignature::t_list(const char* name, const char* doc) {
  ArgSpec& a = add_arg(name, ArgKind::kFloat, doc);
  a.list = true;
  a.required = false;
  a.allow_nan = true;
  return a;
}

ArgSpec& OpSignature::b_arg(const char* name, bool default_value, const char* doc) {
  ArgSpec& a = add_arg(name, ArgKind::kBool, doc);
  a.required = false;
  a.default_int = default_value ? 1 : 0;
  return a;
}

ArgSpec& OpSignature::d_arg(const char* name, const char* doc) { return add_arg(name, ArgKind::kDtype, doc); }

ArgSpec& OpSignature::d_arg(const char* name, DataType default_value, const char* doc) {
  ArgSpec& a = add_arg(name, ArgKind::kDtype, doc);
  a.required = false;
  a.default_dtype = default_value;
  return a;
}

int OpSignature::min_inputs() const {
  int n = 0;
  for (const InputSpec& in : inputs) {
    if (in.variadic) return n + in.min_count;
    if (in.optional) return n;
    ++n;
  }
  return n;
}

int OpSignature::max_inputs() const {
  for (const InputSpec& in : inputs)
    if (in.variadic) return kNoLimit;
  return static_cast<int>(inputs.size());
}

const ArgSpec* OpSignature::find(const char* name) const {
  for (const ArgSpec& a : args)
    if (a.name == name) return &a;
  return nullptr;
}

const ArgSpec* OpSignature::at(ArgKind kind, int position) const {
  for (const ArgSpec& a : args)
    if (a.kind == kind && (a.position == position || (a.list && position >= a.position))) return &a;
  return nullptr;
}

int OpSignature::declared_count(ArgKind kind) const {
  int n = 0;
  for (const ArgSpec& a : args) {
    if (a.kind != kind) continue;
    if (a.list) return kNoLimit;
    n = std::max(n, a.position + 1);
  }
  return n;
}

int OpSignature::required_count(ArgKind kind) const {
  int n = 0;
  for (const ArgSpec& a : args) {
    if (a.kind != kind) continue;
    if (a.required) n = std::max(n, a.position + 1);
    // A list that may come as an input instead is checked by its op.
    if (a.list && a.min_count > 0 && a.from_input < 0) n = std::max(n, a.position + a.min_count);
  }
  return n;
}

const char* OpSignature::input_name(int index) const {
  if (index < 0 || inputs.empty()) return "";
  if (index < static_cast<int>(inputs.size())) return inputs[static_cast<size_t>(index)].name.c_str();
  return inputs.back().variadic ? inputs.back().name.c_str() : "";
}

std::string OpSignature::problems() const {
  std::string p;
  auto add = [&](const std::string& s) { p += (p.empty() ? "" : "; ") + s; };
  if (summary.empty()) add("no summary (args.describe)");
  for (size_t k = 0; k < inputs.size(); ++k) {
    if (inputs[k].variadic && k + 1 != inputs.size()) add("variadic input '" + inputs[k].name + "' is not the last");
    if (k > 0 && !inputs[k].optional && inputs[k - 1].optional && !inputs[k].variadic)
      add("required input '" + inputs[k].name + "' follows an optional one");
  }
  for (size_t k = 0; k < outputs.size(); ++k)
    if (outputs[k].variadic && k + 1 != outputs.size()) add("variadic output '" + outputs[k].name + "' is not the last");
  for (const ArgSpec& a : args) {
    for (const ArgSpec& b : args)
      if (&a != &b && a.name == b.name && &a < &b) add("arg '" + a.name + "' is declared twice");
    if (a.list) {
      for (const ArgSpec& b : args)
        if (b.kind == a.kind && b.position > a.position) {
          add("list arg '" + a.name + "' is not the last of its kind");
          break;
        }
    }
    if (a.required) {
      for (const ArgSpec& b : args)
        if (b.kind == a.kind && b.position < a.position && !b.required && !b.list) {
          add("required arg '" + a.name + "' follows optional arg '" + b.name + "'");
          break;
        }
    }
    if (a.doc.empty()) add("arg '" + a.name + "' has no doc");
    if (a.from_t_arg >= 0 && a.kind != ArgKind::kBool) add("arg '" + a.name + "': or_t_arg is for b args");
    if (a.from_input >= 0 && a.from_input >= static_cast<int>(inputs.size()))
      add("arg '" + a.name + "' comes from an undeclared input");
    if (a.axis_of >= 0 && a.axis_of >= static_cast<int>(inputs.size()))
      add("arg '" + a.name + "' is an axis of an undeclared input");
    if (!a.required && !a.list) {
      Status s = a.kind == ArgKind::kInt ? a.check_int(a.default_int)
                 : a.kind == ArgKind::kFloat ? a.check_float(a.default_float)
                                             : Status::ok();
      if (!s.is_ok() && a.axis_of < 0) add("the default of arg '" + a.name + "' " + s.message());
    }
  }
  return p;
}

void OpSignature::fix_texts() {
  for (ArgSpec& a : args) {
    a.default_shown = a.default_text();
    a.allowed_shown = a.allowed_text(*this);
  }
}

// ---------------------------------------------------------------- resolution

namespace {

std::string names_of_kind(const OpSignature& sig, ArgKind kind) {
  std::string s;
  for (const ArgSpec& a : sig.args)
    if (a.kind == kind) s += (s.empty() ? "" : ", ") + a.name + (a.list ? "..." : "");
  return s;
}

std::string value_text(const OpArgs& args, ArgKind kind, int k) {
  switch (kind) {
    case ArgKind::kFloat: return number_text(args.t[static_cast<size_t>(k)]);
    case ArgKind::kInt: return std::to_string(args.i[static_cast<size_t>(k)]);
    case ArgKind::kBool: return args.b[static_cast<size_t>(k)] ? "true" : "false";
    case ArgKind::kDtype: return std::to_string(static_cast<int>(args.d[static_cast<size_t>(k)]));
  }
  return "?";
}

Status too_many(const OpSignature& sig, const char* op, const OpArgs& args, ArgKind kind) {
  const int declared = sig.declared_count(kind);
  const int given = args.count(kind);
  if (declared == 0)
    return Status::error(StatusCode::kInvalidArgument, "%s: takes no %s args; got %d (%s arg 0 = %s)", op,
                         arg_kind_label(kind), given, arg_kind_name(kind), value_text(args, kind, 0).c_str());
  return Status::error(StatusCode::kInvalidArgument,
                       "%s: takes at most %d %s args (%s); got %d: %s arg %d = %s is not declared", op, declared,
                       arg_kind_label(kind), names_of_kind(sig, kind).c_str(), given, arg_kind_name(kind), declared,
                       value_text(args, kind, declared).c_str());
}

Status bad_value(const char* op, const ArgSpec& a, const std::string& value, const Status& why) {
  return Status::error(StatusCode::kInvalidArgument, "%s: %s arg %d (%s) is %s: it %s", op, arg_kind_name(a.kind),
                       a.position, a.name.c_str(), value.c_str(), why.message().c_str());
}

}  // namespace

Status resolve_args(const OpSignature& sig, const char* op, OpArgs& args) {
  // 1. libnd4j's t-arg spelling of b args.
  for (const ArgSpec& a : sig.args) {
    if (a.kind != ArgKind::kBool || a.from_t_arg < 0) continue;
    const size_t tp = static_cast<size_t>(a.from_t_arg);
    if (args.b.size() <= static_cast<size_t>(a.position) && args.t.size() == tp + 1 &&
        static_cast<int>(tp) >= sig.declared_count(ArgKind::kFloat)) {
      const double v = args.t[tp];
      if (v != 0.0 && v != 1.0)
        return Status::error(StatusCode::kInvalidArgument,
                             "%s: t arg %d = %s stands for b arg %d (%s) and must be 0 or 1", op, a.from_t_arg,
                             number_text(v).c_str(), a.position, a.name.c_str());
      while (args.b.size() < static_cast<size_t>(a.position)) {
        const ArgSpec* before = sig.at(ArgKind::kBool, static_cast<int>(args.b.size()));
        args.b.push_back(before != nullptr && before->default_int != 0);
      }
      args.b.push_back(v != 0.0);
      args.t.pop_back();
    }
  }
  // 2. counts.
  for (ArgKind kind : {ArgKind::kFloat, ArgKind::kInt, ArgKind::kBool, ArgKind::kDtype}) {
    const int given = args.count(kind);
    if (given > sig.declared_count(kind)) return too_many(sig, op, args, kind);
    const int required = sig.required_count(kind);
    if (given < required) {
      const ArgSpec* missing = sig.at(kind, given);
      return Status::error(StatusCode::kInvalidArgument, "%s: missing %s arg %d (%s: %s); %s needs %d %s args (%s), got %d",
                           op, arg_kind_name(kind), given, missing->name.c_str(), missing->doc.c_str(), op, required,
                           arg_kind_label(kind), names_of_kind(sig, kind).c_str(), given);
    }
  }
  // 3. defaults, 4. values.
  for (const ArgSpec& a : sig.args) {
    const size_t p = static_cast<size_t>(a.position);
    switch (a.kind) {
      case ArgKind::kInt: {
        if (a.list) {
          const int n = static_cast<int>(args.i.size()) - a.position;
          if (n > 0 && (n < a.min_count || n > a.max_count))
            return Status::error(StatusCode::kInvalidArgument, "%s: %s (i args %d..) has %d values: %s", op,
                                 a.name.c_str(), a.position, n, a.allowed_text(sig).c_str());
          if (a.axis_of < 0)
            for (size_t k = p; k < args.i.size(); ++k) {
              Status s = a.check_int(args.i[k]);
              if (!s.is_ok())
                return Status::error(StatusCode::kInvalidArgument, "%s: %s value %zu (i arg %zu) is %lld: it %s", op,
                                     a.name.c_str(), k - p, k, static_cast<long long>(args.i[k]), s.message().c_str());
            }
          break;
        }
        if (args.i.size() <= p) args.i.push_back(a.default_int);  // positions before it exist (step 2)
        if (a.axis_of >= 0) break;  // checked against the input's rank per call
        Status s = a.check_int(args.i[p]);
        if (!s.is_ok()) return bad_value(op, a, std::to_string(args.i[p]), s);
        break;
      }
      case ArgKind::kFloat: {
        if (a.list) {
          for (size_t k = p; k < args.t.size(); ++k) {
            Status s = a.check_float(args.t[k]);
            if (!s.is_ok())
              return Status::error(StatusCode::kInvalidArgument, "%s: %s value %zu (t arg %zu) is %s: it %s", op,
                                   a.name.c_str(), k - p, k, number_text(args.t[k]).c_str(), s.message().c_str());
          }
          break;
        }
        if (args.t.size() <= p) args.t.push_back(a.default_float);
        Status s = a.check_float(args.t[p]);
        if (!s.is_ok()) return bad_value(op, a, number_text(args.t[p]), s);
        break;
      }
      case ArgKind::kBool:
        if (args.b.size() <= p) args.b.push_back(a.default_int != 0);
        break;
      case ArgKind::kDtype:
        if (a.list) break;
        if (args.d.size() <= p) args.d.push_back(a.default_dtype);
        // An optional d arg whose default is kInvalid reads "not given".
        if (!dtype_is_valid(args.d[p]) && !(args.d[p] == DataType::kInvalid && !a.required &&
                                            a.default_dtype == DataType::kInvalid))
          return Status::error(StatusCode::kDtype, "%s: d arg %d (%s) is %d, which is not a dtype", op, a.position,
                               a.name.c_str(), static_cast<int>(args.d[p]));
        break;
    }
  }
  return Status::ok();
}

Status check_args_against_inputs(const OpSignature& sig, const char* op, const OpArgs& args,
                                 const NDArray* const* inputs, int n_inputs) {
  const int lo = sig.min_inputs(), hi = sig.max_inputs();
  if (n_inputs < lo || n_inputs > hi) {
    std::string names;
    for (const InputSpec& in : sig.inputs)
      names += (names.empty() ? "" : ", ") + in.name + (in.variadic ? "..." : in.optional ? "?" : "");
    std::string count = hi == kNoLimit ? str_format("at least %d", lo)
                        : lo == hi     ? std::to_string(lo)
                                       : str_format("%d to %d", lo, hi);
    return Status::error(StatusCode::kInvalidArgument, "%s: takes %s inputs (%s), got %d", op, count.c_str(),
                         names.c_str(), n_inputs);
  }
  for (const ArgSpec& a : sig.args) {
    if (a.from_input >= 0 && a.from_input < n_inputs && a.kind == ArgKind::kInt &&
        static_cast<int>(args.i.size()) > a.position)
      return Status::error(StatusCode::kInvalidArgument,
                           "%s: %s is given twice, as i args and as input %d; give one of them", op, a.name.c_str(),
                           a.from_input);
    if (a.axis_of < 0 || a.kind != ArgKind::kInt) continue;
    if (a.axis_of >= n_inputs || inputs[a.axis_of] == nullptr) continue;
    const NDArray& of = *inputs[a.axis_of];
    const int64_t rank = of.rank();
    const size_t first = static_cast<size_t>(a.position);
    const size_t end = a.list ? args.i.size() : first + 1;
    for (size_t k = first; k < end && k < args.i.size(); ++k) {
      const int64_t v = args.i[k];
      if (rank == 0)
        return Status::error(StatusCode::kInvalidArgument,
                             "%s: %s (i arg %zu) is %lld, but input %d (%s) is a scalar, which has no axes", op,
                             a.name.c_str(), k, static_cast<long long>(v), a.axis_of, sig.input_name(a.axis_of));
      if (v < -rank || v >= rank)
        return Status::error(StatusCode::kInvalidArgument,
                             "%s: %s (i arg %zu) is %lld: it must be an axis of input %d (%s) %s, in [%lld, %lld]", op,
                             a.name.c_str(), k, static_cast<long long>(v), a.axis_of, sig.input_name(a.axis_of),
                             of.shape().str().c_str(), static_cast<long long>(-rank), static_cast<long long>(rank - 1));
      if (!a.list || !a.distinct) continue;
      for (size_t j = first; j < k; ++j) {
        const int64_t u = args.i[j];
        if ((u < 0 ? u + rank : u) == (v < 0 ? v + rank : v))
          return Status::error(StatusCode::kInvalidArgument, "%s: %s names axis %lld twice (i args %zu and %zu)", op,
                               a.name.c_str(), static_cast<long long>(v < 0 ? v + rank : v), j, k);
      }
    }
  }
  return Status::ok();
}

}  // namespace libops
