// OpSignature: an op's inputs, outputs and arguments, declared as data in
// the op's own file (DECLARE_ARGS) and read by everything that needs them:
// argument validation (DeclarableOp, the graph loader), `ops-run --list-ops`,
// docs/ops.md, the C API (ops_op_arg_info), the Python builder's keyword
// arguments and the ONNX importer. After ONNX's OpSchema: one declaration,
// many readers.
//
//   DECLARE_ARGS(softmax) {
//     args.input("x", "the logits");
//     args.output("z", "exp(x) / sum(exp(x)) along axis");
//     args.i_arg("axis", -1, "the axis to normalise over").axis_of(0);
//   }
//
// Note [Positional arguments]
// A call carries four positional lists, as in libnd4j: t args (double),
// i args (int64), b args (bool) and d args (dtype). Each declared argument
// has a kind and takes the next position of that kind, in declaration order.
// A list argument (i_list, t_list) takes every remaining position of its
// kind, so it comes last among its kind. An argument without a default is
// required; required ones come before optional ones of the same kind, since
// positions cannot be skipped.
//
// Note [Argument resolution]
// Before the shape function runs, resolve_args turns a call's lists into
// their canonical form, so that op bodies read INT_ARG(k) without checking:
//   1. a b arg also accepted as libnd4j's older t arg (or_t_arg: keep_dims
//      given as the t arg 1.0) moves to its b position;
//   2. too many args of a kind, or a required one missing, is an error that
//      names the op and the argument;
//   3. absent optional args get their defaults appended;
//   4. every value is checked against its declared range or choices.
// The canonical form resolves to itself, so resolving twice is harmless; the
// graph loader resolves every node's args once at load time. Checks that
// need the inputs (axis_of, values given as an input array) run per call.
#pragma once

#include <cstdint>
#include <initializer_list>
#include <limits>
#include <string>
#include <vector>

#include "libops/core/dtype.h"
#include "libops/core/status.h"

#include "libops/core/api.h"

LIBOPS_API_BEGIN

namespace libops {

class NDArray;

enum class ArgKind : uint8_t { kFloat, kInt, kBool, kDtype };
const char* arg_kind_name(ArgKind k);    // "t", "i", "b", "d"
const char* arg_kind_label(ArgKind k);   // "float (t)", "integer (i)", ...

// The argument lists of one call (Note [Positional arguments]).
struct OpArgs {
  std::vector<double> t;
  std::vector<int64_t> i;
  std::vector<bool> b;
  std::vector<DataType> d;

  void clear() {
    t.clear();
    i.clear();
    b.clear();
    d.clear();
  }
  int count(ArgKind k) const;
};

// One named value of an enumerated int arg: data_format 0 = "NCHW".
struct ArgChoice {
  int64_t value;
  std::string name;
};

struct ArgSpec {
  std::string name;
  std::string doc;
  ArgKind kind = ArgKind::kInt;
  int position = 0;     // among the args of its kind
  bool list = false;    // takes every position of its kind from `position` on
  bool required = true; // no default
  int64_t default_int = 0;
  double default_float = 0.0;
  DataType default_dtype = DataType::kInvalid;
  // Allowed values. Ints: [min_int, max_int], or one of `choices` when it is
  // not empty. Floats: [min_float, max_float] (min exclusive when
  // min_exclusive), NaN only when allow_nan.
  int64_t min_int = std::numeric_limits<int64_t>::min();
  int64_t max_int = std::numeric_limits<int64_t>::max();
  double min_float = -std::numeric_limits<double>::infinity();
  double max_float = std::numeric_limits<double>::infinity();
  bool min_exclusive = false;
  bool allow_nan = false;
  bool must_be_finite = false;
  std::vector<ArgChoice> choices;
  int axis_of = -1;       // an axis of this input: in [-rank, rank) (per call)
  bool distinct = false;  // lists: no value twice (axes after normalising when axis_of is set)
  int min_count = 0, max_count = std::numeric_limits<int>::max();  // lists
  int from_input = -1;    // the values may come as this input array instead (libnd4j, ONNX)
  int from_t_arg = -1;    // b args: also given as libnd4j's t arg at this position (1.0 = true)
  // default_text() and allowed_text(), fixed when the op registers: the
  // strings the C API, --list-ops and docs/ops.md hand out.
  std::string default_shown, allowed_shown;

  // ---- declaration sugar (chainable) ----
  ArgSpec& range(double lo, double hi);
  ArgSpec& at_least(double lo);
  ArgSpec& positive();  // ints >= 1, floats > 0
  ArgSpec& flag();      // an int arg that is 0 or 1
  ArgSpec& one_of(std::initializer_list<ArgChoice> values);
  ArgSpec& axis(int input);  // each value is an axis of input `input`
  ArgSpec& unique_values() { distinct = true; return *this; }
  ArgSpec& count(int lo, int hi) { min_count = lo; max_count = hi; return *this; }
  ArgSpec& or_input(int input) { from_input = input; return *this; }
  ArgSpec& or_t_arg(int t_position) { from_t_arg = t_position; return *this; }
  ArgSpec& nan_allowed() { allow_nan = true; return *this; }
  ArgSpec& finite() { must_be_finite = true; return *this; }

  // "i 9", "t 0", "i 0.." (a list)
  std::string where() const;
  // "0", "1e-05", "float32", "" (required), "[]" (a list)
  std::string default_text() const;
  // "0 (NCHW) or 1 (NHWC)", ">= 1", "an axis of input 0 (x)", "" (anything)
  std::string allowed_text(const struct OpSignature& sig) const;
  // Checks one value (never for axis_of: that needs the input).
  Status check_int(int64_t v) const;
  Status check_float(double v) const;
};

struct InputSpec {
  std::string name;
  std::string doc;
  bool optional = false;
  bool variadic = false;  // this and every later input (one or more, or min_count more)
  int min_count = 1;      // variadic: at least this many
  std::string dtypes_shown;  // "float16, bfloat16, float32, float64", fixed at registration
};

struct OutputSpec {
  std::string name;
  std::string doc;
  bool variadic = false;  // the shape function decides how many
  std::string dtypes_shown;  // fixed at registration ("" when the op does not say)
};

struct OpSignature {
  std::string summary;  // one line: what the op computes
  std::vector<InputSpec> inputs;
  std::vector<OutputSpec> outputs;
  std::vector<ArgSpec> args;
  bool declared = false;  // DECLARE_ARGS ran

  // ---- used in DECLARE_ARGS bodies ----
  OpSignature& describe(const char* one_line) {
    summary = one_line;
    return *this;
  }
  OpSignature& input(const char* name, const char* doc);
  OpSignature& optional_input(const char* name, const char* doc);
  // One or more inputs (at least `min_count`), all described by this entry.
  OpSignature& inputs_variadic(const char* name, const char* doc, int min_count = 1);
  OpSignature& output(const char* name, const char* doc);
  OpSignature& outputs_variadic(const char* name, const char* doc);
  ArgSpec& i_arg(const char* name, const char* doc);                       // required
  ArgSpec& i_arg(const char* name, int64_t default_value, const char* doc);
  ArgSpec& i_list(const char* name, const char* doc);
  ArgSpec& t_arg(const char* name, const char* doc);                       // required
  ArgSpec& t_arg(const char* name, double default_value, const char* doc);
  ArgSpec& t_list(const char* name, const char* doc);
  ArgSpec& b_arg(const char* name, bool default_value, const char* doc);
  ArgSpec& d_arg(const char* name, const char* doc);                       // required
  ArgSpec& d_arg(const char* name, DataType default_value, const char* doc);

  // ---- queries ----
  int min_inputs() const;
  int max_inputs() const;  // INT_MAX when variadic
  const ArgSpec* find(const char* name) const;
  const ArgSpec* at(ArgKind kind, int position) const;  // covers list positions
  int declared_count(ArgKind kind) const;                // INT_MAX with a list
  int required_count(ArgKind kind) const;
  const char* input_name(int index) const;               // "" past the declared ones
  // Mistakes in the declaration itself (positions out of order, a list not
  // last, a required arg after an optional one); "" when well formed.
  std::string problems() const;
  // Fixes each arg's default_shown and allowed_shown.
  void fix_texts();

 private:
  ArgSpec& add_arg(const char* name, ArgKind kind, const char* doc);
};

// Note [Argument resolution], steps 1-4, for the op `op_name`.
Status resolve_args(const OpSignature& sig, const char* op_name, OpArgs& args);
// The per-call checks: axis_of values against the inputs' ranks, and the
// count of inputs against the declaration. `inputs` may be shape-only.
Status check_args_against_inputs(const OpSignature& sig, const char* op_name, const OpArgs& args,
                                 const NDArray* const* inputs, int n_inputs);

}  // namespace libops

LIBOPS_API_END
