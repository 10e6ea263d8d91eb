// Lazy element-wise expressions over NDArrays, evaluated in one pass (after
// MatX's operators; docs/cpp-authoring.md, "Expressions").
//
//   using namespace libops::expr;
//   Status st = (out(z) = tanh(in(x) * 2.f + 1.f) * in(x)).run();
//
// Note [Expressions]
// in(a) and out(z) wrap arrays; operators and the free functions below build
// a tree of small value objects, and nothing is computed until run(). Then
// every element of the output is computed from the leaves in one pass over
// memory, with no temporary arrays: the chain above reads x once and writes
// z once where the same ops as separate calls make four passes.
//
// - Nodes: every functor of the legacy transform tables (exp, tanh, sigmoid,
//   gelu, abs, sqrt, is_nan, ...), the binary tables (the operators + - * /,
//   max, min, pow, atan2, ... and the comparisons < <= > >= == !=, which give
//   bool), where(c, a, b) and cast<T>(x). One generic node per arity wraps a
//   table's functor; the functions are generated from the tables' rows, so
//   a new row is a new function here with nothing else to edit.
// - Leaves: arrays of any dtype and strides, and scalars. Leaves broadcast to
//   the output's shape (Note [Broadcasting]); an array that does not is an
//   error naming the expression and the shapes.
// - Types: the tree is evaluated in one compute type (Note [Compute types]),
//   that of the promoted dtype of its array leaves; float32 (float64 for
//   64-bit integers) when those are integers but a node computes only in
//   floating point (sqrt, tanh ...) or a scalar has a fraction. Typed leaves
//   (in<float>) fix the type when the program is compiled; such a tree
//   that would need float is an error. Scalars take the compute type (they do not
//   widen it: float32 x * 2.5 stays float32). Leaves of other dtypes are
//   converted on load and the result on store, into the output's dtype.
// - Evaluation: the loop engine's strided N-d iterator over the output
//   (loops/nd_loop.h), split over the threads, each run compiled per
//   instruction set (Note [Runtime ISA dispatch]). Where every leaf and the
//   output are dense in the compute type, a run is one loop the compiler
//   vectorizes, with streaming stores for outputs larger than the cache
//   (Note [Streaming stores]); elsewhere leaves are loaded in blocks.
// - Every node prints itself: str() gives the tree, e.g.
//   "multiply(tanh(add(multiply(float32[16], 2), 1)), float32[16])", for
//   errors and profiling ranges.
// - An element computes from the same functors as the legacy ops, with the
//   same compute type, so a node's result equals its legacy op's bit for bit
//   (tests_cpu/expr/expr_test.cpp); a chain may differ from separate calls
//   only where those round an intermediate to a narrower dtype.
//
// - Reductions as roots: sum, mean, amax, amin over axes of an element-wise
//   expression, in the same pass (Note [Reductions]).
//
// Not yet: CUDA evaluation (run() on a device is an error naming the
// expression), and the graph optimizer's use of it.
#pragma once

#include <algorithm>
#include <cmath>
#include <limits>
#include <string>
#include <type_traits>
#include <vector>

#include "libops/array/ndarray.h"
#include "libops/array/shape.h"
#include "libops/core/cpu_isa.h"
#include "libops/core/device.h"
#include "libops/core/parallel.h"
#include "libops/core/status.h"
#include "libops/legacy/dispatch.h"
#include "libops/legacy/ops/binary_bool_ops.h"
#include "libops/legacy/ops/binary_ops.h"
#include "libops/legacy/ops/transform_bool_ops.h"
#include "libops/legacy/ops/transform_float_ops.h"
#include "libops/legacy/ops/transform_same_ops.h"
#include "libops/legacy/ops/transform_strict_ops.h"
#include "libops/loops/convert.h"
#include "libops/loops/copy.h"
#include "libops/loops/elementwise.h"
#include "libops/loops/extra_params.h"
#include "libops/loops/nd_loop.h"
#include "libops/loops/reduction_order.h"

namespace libops::expr {

// A subtree without array leaves (a scalar): it takes its parent's type.
inline constexpr int kNoLeaf = -2;

// Note [Compute types] of a storage type, when the program is compiled.
template <typename T>
inline constexpr ComputeType compute_type_of_v =
    std::is_same_v<T, double>                                      ? ComputeType::kF64
    : std::is_floating_point_v<T> || std::is_same_v<T, float16> ||
            std::is_same_v<T, bfloat16>                            ? ComputeType::kF32
    : std::is_same_v<T, uint64_t>                                  ? ComputeType::kU64
    : std::is_same_v<T, int64_t> || std::is_same_v<T, uint32_t>    ? ComputeType::kI64
                                                                   : ComputeType::kI32;

// The most array leaves one expression may read (the N-d iterator's
// operand count is a template argument, the output included).
inline constexpr int kMaxLeaves = 8;

// ---- what an expression is ----

struct ExprBase {};  // every node derives from it

template <typename T>
concept Expression = std::is_base_of_v<ExprBase, T>;

template <typename T>
concept ScalarValue = std::is_arithmetic_v<T> && !std::is_same_v<T, bool>;

// How a node constrains the compute type: the union of what its functors
// accept (legacy::TypeSet) and whether a scalar or node forces float.
struct TypeNeeds {
  unsigned types = legacy::kNumericTypes;  // compute types every node accepts
  bool wants_float = false;                // a fractional scalar, or a float-only node
};

inline TypeNeeds combine(TypeNeeds a, TypeNeeds b) {
  return {a.types & b.types, a.wants_float || b.wants_float};
}

// The compute type a tree runs in when its array leaves are typed (in<T>),
// known when the program is compiled: run() then instantiates the tree for
// that type alone instead of for every compute type. kDynamic: decided
// from the arrays' dtypes when the expression runs.
inline constexpr int kDynamic = -1;
constexpr int combine_static(int a, int b) {
  if (a == kDynamic || b == kDynamic) return kDynamic;
  if (a == kNoLeaf) return b;
  if (b == kNoLeaf) return a;
  return a == b ? a : kDynamic;
}
// A node computing only in floating point keeps a float static type; over
// typed integer leaves it makes the tree decide at run time.
constexpr int float_only(unsigned set, int st) {
  if (set != legacy::kFloatTypes || st == kNoLeaf || st == kDynamic) return st;
  return st == int(ComputeType::kF32) || st == int(ComputeType::kF64) ? st : kDynamic;
}

// ---- leaves ----

// An array read by the expression (in(a)).
struct Input : ExprBase {
  static constexpr int kLeaves = 1;
  static constexpr int kStatic = kDynamic;
  const NDArray* array;

  explicit Input(const NDArray& a) : array(&a) {}
  std::string str() const { return std::string(dtype_name(array->dtype())) + array->shape().str(); }
  void collect(const NDArray** out) const { out[0] = array; }
  TypeNeeds needs() const { return {}; }
  Status check() const { return Status::ok(); }
  template <typename C>
  LIBOPS_FORCE_INLINE C at(const C* const* p, int64_t i) const {
    return p[0][i];
  }
};

// An array of storage type T (in<float>(a)): run() checks a's dtype, and a
// tree whose typed leaves share one compute type is compiled for that type
// alone.
template <typename T>
struct TypedInput : Input {
  static constexpr int kStatic = static_cast<int>(compute_type_of_v<T>);
  explicit TypedInput(const NDArray& a) : Input(a) {}
  Status check() const {
    if (array->dtype() != dtype_of_v<T>)
      return Status::error(StatusCode::kDtype, "in<%s>(%s): the array is %s", dtype_name(dtype_of_v<T>),
                           str().c_str(), dtype_name(array->dtype()));
    return Status::ok();
  }
};

// A number, converted to the compute type when the expression runs.
struct Scalar : ExprBase {
  static constexpr int kLeaves = 0;
  static constexpr int kStatic = kNoLeaf;
  double value;

  explicit Scalar(double v) : value(v) {}
  std::string str() const {
    char buf[32];
    std::snprintf(buf, sizeof buf, "%g", value);
    return buf;
  }
  void collect(const NDArray**) const {}
  Status check() const { return Status::ok(); }
  TypeNeeds needs() const { return {legacy::kNumericTypes, value != std::trunc(value)}; }
  template <typename C>
  LIBOPS_FORCE_INLINE C at(const C* const*, int64_t) const {
    return static_cast<C>(value);
  }
};

inline Input in(const NDArray& a) { return Input(a); }
template <typename T>
TypedInput<T> in(const NDArray& a) {
  return TypedInput<T>(a);
}

// An operand as a node: expressions as they are, numbers as Scalars.
template <typename T>
auto as_node(const T& v) {
  if constexpr (Expression<T>) {
    return v;
  } else {
    static_assert(ScalarValue<T>,
                  "libops::expr: an operand must be an expression (in(array), or a node built from one) or a number");
    return Scalar(static_cast<double>(v));
  }
}

// ---- nodes over the legacy functor tables ----

// f(x) for a transform table's functor F, which computes in C for the
// compute types kSet holds.
template <template <typename> class F, unsigned kSet, typename X>
struct Unary : ExprBase {
  static constexpr int kLeaves = X::kLeaves;
  static constexpr int kStatic = float_only(kSet, X::kStatic);
  X x;
  const char* name;
  ExtraParams extra;

  Unary(const X& x_, const char* n, ExtraParams e = {}) : x(x_), name(n), extra(e) {}
  std::string str() const { return std::string(name) + "(" + x.str() + ")"; }
  void collect(const NDArray** out) const { x.collect(out); }
  Status check() const { return x.check(); }
  TypeNeeds needs() const {
    return combine(x.needs(), {kSet, kSet == legacy::kFloatTypes});
  }
  template <typename C>
  LIBOPS_FORCE_INLINE auto at(const C* const* p, int64_t i) const {
    if constexpr (legacy::type_set_has<C>(kSet))
      return F<C>::op(static_cast<C>(x.template at<C>(p, i)), extra);
    else
      return C{};  // never run: run() refuses compute types kSet lacks
  }
};

// f(x, y) for a binary table's functor F.
template <template <typename> class F, unsigned kSet, typename X, typename Y>
struct Binary : ExprBase {
  static constexpr int kLeaves = X::kLeaves + Y::kLeaves;
  static constexpr int kStatic = float_only(kSet, combine_static(X::kStatic, Y::kStatic));
  X x;
  Y y;
  const char* name;

  Binary(const X& x_, const Y& y_, const char* n) : x(x_), y(y_), name(n) {}
  std::string str() const { return std::string(name) + "(" + x.str() + ", " + y.str() + ")"; }
  void collect(const NDArray** out) const {
    x.collect(out);
    y.collect(out + X::kLeaves);
  }
  Status check() const {
    RETURN_IF_ERROR(x.check());
    return y.check();
  }
  TypeNeeds needs() const { return combine(combine(x.needs(), y.needs()), {kSet, kSet == legacy::kFloatTypes}); }
  template <typename C>
  LIBOPS_FORCE_INLINE auto at(const C* const* p, int64_t i) const {
    if constexpr (legacy::type_set_has<C>(kSet))
      return F<C>::op(static_cast<C>(x.template at<C>(p, i)), static_cast<C>(y.template at<C>(p + X::kLeaves, i)),
                      ExtraParams{});
    else
      return C{};
  }
};

// cond ? a : b, element by element (cond nonzero is true).
template <typename Cond, typename A, typename B>
struct Where : ExprBase {
  static constexpr int kLeaves = Cond::kLeaves + A::kLeaves + B::kLeaves;
  static constexpr int kStatic = combine_static(combine_static(Cond::kStatic, A::kStatic), B::kStatic);
  Cond cond;
  A a;
  B b;

  Where(const Cond& c, const A& a_, const B& b_) : cond(c), a(a_), b(b_) {}
  std::string str() const { return "where(" + cond.str() + ", " + a.str() + ", " + b.str() + ")"; }
  void collect(const NDArray** out) const {
    cond.collect(out);
    a.collect(out + Cond::kLeaves);
    b.collect(out + Cond::kLeaves + A::kLeaves);
  }
  Status check() const {
    RETURN_IF_ERROR(cond.check());
    RETURN_IF_ERROR(a.check());
    return b.check();
  }
  TypeNeeds needs() const { return combine(combine(cond.needs(), a.needs()), b.needs()); }
  template <typename C>
  LIBOPS_FORCE_INLINE C at(const C* const* p, int64_t i) const {
    const bool c = static_cast<bool>(cond.template at<C>(p, i));
    const C va = static_cast<C>(a.template at<C>(p + Cond::kLeaves, i));
    const C vb = static_cast<C>(b.template at<C>(p + Cond::kLeaves + A::kLeaves, i));
    return c ? va : vb;
  }
};

// x rounded through storage type T and back: the value a cast to T's dtype
// would store (float16 rounding, integer truncation and wrap-around).
template <typename T, typename X>
struct Cast : ExprBase {
  static constexpr int kLeaves = X::kLeaves;
  static constexpr int kStatic = X::kStatic;
  X x;

  explicit Cast(const X& x_) : x(x_) {}
  std::string str() const { return std::string("cast<") + dtype_name(dtype_of_v<T>) + ">(" + x.str() + ")"; }
  void collect(const NDArray** out) const { x.collect(out); }
  Status check() const { return x.check(); }
  TypeNeeds needs() const { return x.needs(); }
  template <typename C>
  LIBOPS_FORCE_INLINE C at(const C* const* p, int64_t i) const {
    return convert_value<C>(convert_value<T>(x.template at<C>(p, i)));
  }
};

template <typename Cond, typename A, typename B>
auto where(const Cond& c, const A& a, const B& b) {
  return Where<decltype(as_node(c)), decltype(as_node(a)), decltype(as_node(b))>(as_node(c), as_node(a),
                                                                                  as_node(b));
}

template <typename T, typename X>
auto cast(const X& x) {
  static_assert(std::is_arithmetic_v<T> || std::is_same_v<T, float16> || std::is_same_v<T, bfloat16>,
                "libops::expr::cast<T>: T must be a storage type (a number type, float16 or bfloat16)");
  return Cast<T, decltype(as_node(x))>(as_node(x));
}

// One free function per row of the transform tables: exp(x), tanh(x) ...
// (a row whose name is also a binary row, e.g. relu, gets both arities).
#define LIBOPS_EXPR_UNARY_FN(NUM, NAME, F, SET)                            \
  template <Expression X>                                                  \
  auto NAME(const X& x) {                                                  \
    return Unary<legacy::F, legacy::SET, X>(x, #NAME);                     \
  }
LIBOPS_TRANSFORM_STRICT_OPS(LIBOPS_EXPR_UNARY_FN)
LIBOPS_TRANSFORM_SAME_OPS(LIBOPS_EXPR_UNARY_FN)
LIBOPS_TRANSFORM_FLOAT_OPS(LIBOPS_EXPR_UNARY_FN)
LIBOPS_TRANSFORM_BOOL_OPS(LIBOPS_EXPR_UNARY_FN)
#undef LIBOPS_EXPR_UNARY_FN

// One per row of the binary tables: max(x, y), pow(x, 2), less_than(x, y) ...
// with at least one operand an expression (the other may be a number).
#define LIBOPS_EXPR_BINARY_FN(NUM, NAME, F, SET)                                                        \
  template <typename X, typename Y>                                                                     \
    requires(Expression<X> || Expression<Y>)                                                            \
  auto NAME(const X& x, const Y& y) {                                                                   \
    return Binary<legacy::F, legacy::SET, decltype(as_node(x)), decltype(as_node(y))>(as_node(x),       \
                                                                                       as_node(y), #NAME); \
  }
LIBOPS_BINARY_OPS(LIBOPS_EXPR_BINARY_FN)
LIBOPS_BINARY_BOOL_OPS(LIBOPS_EXPR_BINARY_FN)
#undef LIBOPS_EXPR_BINARY_FN

// Operators, as the binary rows they are.
#define LIBOPS_EXPR_OPERATOR(OP, NAME)                   \
  template <typename X, typename Y>                      \
    requires(Expression<X> || Expression<Y>)             \
  auto operator OP(const X& x, const Y& y) {             \
    return NAME(x, y);                                   \
  }
LIBOPS_EXPR_OPERATOR(+, add)
LIBOPS_EXPR_OPERATOR(-, subtract)
LIBOPS_EXPR_OPERATOR(*, multiply)
LIBOPS_EXPR_OPERATOR(/, divide)
LIBOPS_EXPR_OPERATOR(<, less_than)
LIBOPS_EXPR_OPERATOR(<=, less_or_equal)
LIBOPS_EXPR_OPERATOR(>, greater_than)
LIBOPS_EXPR_OPERATOR(>=, greater_or_equal)
LIBOPS_EXPR_OPERATOR(==, equals)
LIBOPS_EXPR_OPERATOR(!=, not_equals)
#undef LIBOPS_EXPR_OPERATOR

template <Expression X>
auto operator-(const X& x) {
  return neg(x);
}

// ---- evaluation ----

namespace detail {

// The compute type an expression runs in (Note [Expressions], Types).
template <Expression E>
Status compute_type_for(const E& e, const NDArray* const* leaves, ComputeType& ct) {
  const TypeNeeds needs = e.needs();
  DataType dt = DataType::kFloat32;
  if constexpr (E::kLeaves > 0) {
    dt = leaves[0]->dtype();
    for (int k = 1; k < E::kLeaves; ++k) dt = promote_types(dt, leaves[k]->dtype());
  } else {
    dt = needs.wants_float ? DataType::kFloat32 : DataType::kInt64;
  }
  ct = compute_type_of(dt);
  const bool is_float = ct == ComputeType::kF32 || ct == ComputeType::kF64;
  if (!is_float && needs.wants_float)  // 64-bit integers keep their precision in double
    ct = dt == DataType::kInt64 || dt == DataType::kUInt64 ? ComputeType::kF64 : ComputeType::kF32;
  const bool now_float = ct == ComputeType::kF32 || ct == ComputeType::kF64;
  const unsigned have = now_float ? legacy::kFloatTypes : legacy::kIntTypes;
  if ((needs.types & have) == 0)
    return Status::error(StatusCode::kDtype, "expression %s: a node takes only %s, and its arrays compute in %s",
                         e.str().c_str(), legacy::type_set_name(needs.types), compute_type_name(ct));
  return Status::ok();
}

// The leaves of one run of the N-d iterator (operands 1..L, pointers p and
// byte strides s), kConvertBlock elements at a time, as arrays of the
// compute type: a contiguous leaf in the compute type is read where it
// lies, a leaf broadcast along the run (stride 0) from a chunk filled once
// per run, any other leaf converted (or gathered) into its chunk.
template <typename C, int L>
class LeafChunks {
 public:
  LeafChunks(const bool* direct, const LoadFn<C>* load, char* const* p, const int64_t* s)
      : direct_(direct), load_(load), p_(p), s_(s) {
    for (int k = 0; k < L; ++k) {
      if (direct[k] && s[k + 1] == int64_t(sizeof(C))) {
        kind_[k] = Leaf::kInPlace;
      } else if (s[k + 1] == 0) {
        kind_[k] = Leaf::kRepeated;
        C v;
        if (direct[k]) v = *reinterpret_cast<const C*>(p[k + 1]);
        else load[k](p[k + 1], 0, 1, &v);
        for (int64_t j = 0; j < kConvertBlock; ++j) blocks_[k][j] = v;
      } else {
        kind_[k] = Leaf::kLoaded;
      }
    }
  }

  // The leaves' elements [i, i + m) of the run, m <= kConvertBlock.
  const C* const* at(int64_t i, int64_t m) {
    for (int k = 0; k < L; ++k) {
      const char* src = p_[k + 1] + i * s_[k + 1];
      if (kind_[k] == Leaf::kInPlace) {
        lp_[k] = reinterpret_cast<const C*>(src);
        continue;
      }
      if (kind_[k] == Leaf::kLoaded) {
        if (direct_[k]) {
          for (int64_t j = 0; j < m; ++j) blocks_[k][j] = *reinterpret_cast<const C*>(src + j * s_[k + 1]);
        } else {
          load_[k](src, s_[k + 1], m, blocks_[k]);
        }
      }
      lp_[k] = blocks_[k];
    }
    return lp_;
  }

 private:
  enum class Leaf : unsigned char { kInPlace, kRepeated, kLoaded };
  const bool* direct_;
  const LoadFn<C>* load_;
  char* const* p_;
  const int64_t* s_;
  Leaf kind_[L > 0 ? L : 1];
  C blocks_[L > 0 ? L : 1][kConvertBlock];
  const C* lp_[L > 0 ? L : 1];
};

// Runs root over out's elements in compute type C (Note [Expressions]).
template <typename C, Expression E>
void evaluate(const E& root, NDArray& out, const NDArray* const* leaves) {
  constexpr int L = E::kLeaves;
  using R = std::remove_cvref_t<decltype(root.template at<C>(static_cast<const C* const*>(nullptr), 0))>;
  NdLoop<L + 1> loop;
  loop.init(out.shape());
  loop.set_operand(0, out.data(), out.strides(), static_cast<int64_t>(out.element_size()));
  bool leaf_direct[L > 0 ? L : 1] = {};
  LoadFn<C> load[L > 0 ? L : 1] = {};
  for (int k = 0; k < L; ++k) {
    const NDArray& a = *leaves[k];
    loop.set_operand(k + 1, a.data(), broadcast_strides(a.shape(), a.strides(), out.shape()),
                     static_cast<int64_t>(a.element_size()));
    leaf_direct[k] = a.dtype() == dtype_of_v<C>;
    if (!leaf_direct[k]) load[k] = load_fn<C>(a.dtype());
  }
  loop.sort_dims_by_operand(0);
  loop.coalesce();
  const bool out_direct = out.dtype() == dtype_of_v<R>;
  const StoreFn<R> store = out_direct ? nullptr : store_fn<R>(out.dtype());
  const bool stream = out_direct && libops::detail::stream_output(out);

  auto body = [&](char* const* p, const int64_t* s, int64_t n) {
    bool dense = out_direct && s[0] == int64_t(sizeof(R));
    for (int k = 0; k < L; ++k) dense = dense && leaf_direct[k] && s[k + 1] == int64_t(sizeof(C));
    if (dense) {
      const C* lp[L > 0 ? L : 1];
      for (int k = 0; k < L; ++k) lp[k] = reinterpret_cast<const C*>(p[k + 1]);
      const E r = root;  // a local copy: its scalars are read once, not per element
      libops::detail::write_dense(reinterpret_cast<R*>(p[0]), n, stream,
                                  [&](int64_t i) { return static_cast<R>(r.template at<C>(lp, i)); });
      return;
    }
    // Otherwise in chunks of kConvertBlock (LeafChunks).
    LeafChunks<C, L> chunks(leaf_direct, load, p, s);
    const bool out_in_place = out_direct && s[0] == int64_t(sizeof(R));
    R zb[kConvertBlock];
    for (int64_t i = 0; i < n; i += kConvertBlock) {
      const int64_t m = std::min(kConvertBlock, n - i);
      const C* const* lp = chunks.at(i, m);
      const E r = root;
      if (out_in_place) {
        libops::detail::write_dense(reinterpret_cast<R*>(p[0]) + i, m, false,
                                    [&](int64_t j) { return static_cast<R>(r.template at<C>(lp, j)); });
        continue;
      }
      for (int64_t j = 0; j < m; ++j) zb[j] = static_cast<R>(r.template at<C>(lp, j));
      if (out_direct) {
        for (int64_t j = 0; j < m; ++j) *reinterpret_cast<R*>(p[0] + (i + j) * s[0]) = zb[j];
      } else {
        store(zb, p[0] + i * s[0], s[0], m);
      }
    }
  };
  parallel_for(loop.count(), kElementwiseGrain, [&](int64_t begin, int64_t end) {
    loop.run(begin, end, [&](char* const* p, const int64_t* s, int64_t n) { isa_dispatch<true>([&] { body(p, s, n); }); });
    libops::stream_fence();  // Note [Streaming stores]: once per thread's part
  });
}

// f(C{}) for the compute type C: the one typed leaves fix when the program
// is compiled (kStatic >= 0: one instantiation), else ct's.
template <int kStatic, typename F>
Status dispatch_for(ComputeType ct, F&& f) {
  if constexpr (kStatic >= 0) {
    constexpr auto kC = static_cast<ComputeType>(kStatic);
    if constexpr (kC == ComputeType::kF32) return f(float{});
    else if constexpr (kC == ComputeType::kF64) return f(double{});
    else if constexpr (kC == ComputeType::kI32) return f(int32_t{});
    else if constexpr (kC == ComputeType::kI64) return f(int64_t{});
    else return f(uint64_t{});
  } else {
    return dispatch_compute(ct, f);
  }
}

// write(target) with target = `out`, or, where an input shares memory with
// `out` (other than as the very same view, when `same_view_reads_first`:
// z = z * 2 reads each element before it writes it), a temporary copied
// into `out` after: otherwise an input would be read after it was written.
template <typename Write>
Status write_around_overlap(NDArray& out, const NDArray* const* leaves, int count, bool same_view_reads_first,
                            Write&& write) {
  bool overlap = false;
  for (int k = 0; k < count; ++k)
    overlap = overlap || (out.may_overlap(*leaves[k]) && !(same_view_reads_first && out.same_view(*leaves[k])));
  NDArray tmp;
  if (overlap) RETURN_IF_ERROR(NDArray::create(out.dtype(), out.shape(), 'c', tmp));
  RETURN_IF_ERROR(write(overlap ? tmp : out));
  if (overlap) copy_into(tmp, out);
  return Status::ok();
}

// Reductions as roots (Note [Reductions]).
enum class ReduceKind { kSum, kMean, kMax, kMin };

// What a reduction accumulates in: double for floating compute types and
// every mean (sums of float32 lose no precision to their order), int64 for
// integer sums, the compute type for max and min.
template <ReduceKind K, typename C>
using Accumulator =
    std::conditional_t<K == ReduceKind::kMax || K == ReduceKind::kMin, C,
                       std::conditional_t<std::is_floating_point_v<C> || K == ReduceKind::kMean, double, int64_t>>;

template <ReduceKind K, typename A>
LIBOPS_FORCE_INLINE A reduce_step(A acc, A v) {
  if constexpr (K == ReduceKind::kMax) {
    if constexpr (std::is_floating_point_v<A>) return std::isnan(acc) || v > acc || std::isnan(v) ? (std::isnan(acc) ? acc : v) : acc;
    else return v > acc ? v : acc;
  } else if constexpr (K == ReduceKind::kMin) {
    if constexpr (std::is_floating_point_v<A>) return std::isnan(acc) || v < acc || std::isnan(v) ? (std::isnan(acc) ? acc : v) : acc;
    else return v < acc ? v : acc;
  } else {
    return acc + v;
  }
}

template <ReduceKind K, typename A>
A reduce_identity() {
  if constexpr (K == ReduceKind::kMax) {
    return std::numeric_limits<A>::has_infinity ? -std::numeric_limits<A>::infinity() : std::numeric_limits<A>::lowest();
  } else if constexpr (K == ReduceKind::kMin) {
    return std::numeric_limits<A>::has_infinity ? std::numeric_limits<A>::infinity() : std::numeric_limits<A>::max();
  } else {
    return A{0};
  }
}

// out[j] = the reduction over `axes` of root's elements, the root broadcast
// over `shape` (Note [Reductions]).
template <ReduceKind K, typename C, Expression E>
void evaluate_reduction(const E& root, const Dims& shape, const Dims& axes, NDArray& out,
                        const NDArray* const* leaves) {
  constexpr int L = E::kLeaves;
  using A = Accumulator<K, C>;
  // Kept dims outer, reduced inner: each output element's values are one
  // contiguous range of the enumeration (loops/reduction_order.h).
  const ReductionOrder ro = reduction_order(shape, axes, out);
  NdLoop<L + 1> loop = ro.loop<L + 1>(out);
  bool leaf_direct[L > 0 ? L : 1] = {};
  LoadFn<C> load[L > 0 ? L : 1] = {};
  for (int k = 0; k < L; ++k) {
    const NDArray& a = *leaves[k];
    ro.set_input(loop, k + 1, a, shape);
    leaf_direct[k] = a.dtype() == dtype_of_v<C>;
    if (!leaf_direct[k]) load[k] = load_fn<C>(a.dtype());
  }
  loop.coalesce();
  const int64_t per_output = ro.per_output;
  const int64_t n_out = out.length();
  const bool out_direct = out.dtype() == dtype_of_v<A>;
  const StoreFn<A> store = out_direct ? nullptr : store_fn<A>(out.dtype());
  auto finish = [&](char* dst, A acc) {
    if constexpr (K == ReduceKind::kMean) acc = static_cast<A>(acc / static_cast<A>(per_output));
    if (out_direct) *reinterpret_cast<A*>(dst) = acc;
    else store(&acc, dst, 0, 1);
  };
  // The reduction of m values of a chunk: the values first (a loop the
  // compiler vectorizes), then eight independent partial results: one
  // accumulator would wait on each add's latency.
  auto reduce_chunk = [](const E& r, const C* const* lp, int64_t m) {
    A vals[kConvertBlock];
    for (int64_t j = 0; j < m; ++j) vals[j] = static_cast<A>(r.template at<C>(lp, j));
    A lanes[8];
    for (A& l : lanes) l = reduce_identity<K, A>();
    int64_t j = 0;
    for (; j + 8 <= m; j += 8)
      for (int l = 0; l < 8; ++l) lanes[l] = reduce_step<K, A>(lanes[l], vals[j + l]);
    for (; j < m; ++j) lanes[0] = reduce_step<K, A>(lanes[0], vals[j]);
    A acc = reduce_identity<K, A>();
    for (int l = 0; l < 8; ++l) acc = reduce_step<K, A>(acc, lanes[l]);
    return acc;
  };
  // Few outputs of many values each (a sum of everything): Note [Split
  // reductions] in loops/reduction_order.h.
  if (const int64_t pieces = split_pieces(n_out, per_output); pieces > 0) {
    std::vector<A> partial(static_cast<size_t>(n_out * pieces));
    std::vector<char*> dst(static_cast<size_t>(n_out));
    parallel_for(n_out * pieces, 1, [&](int64_t begin, int64_t end) {
      for (int64_t t = begin; t < end; ++t) {
        const int64_t j = t / pieces, from = j * per_output + (t % pieces) * kSplitPiece;
        const int64_t to = std::min(from + kSplitPiece, (j + 1) * per_output);
        A acc = reduce_identity<K, A>();
        loop.run(from, to, [&](char* const* p, const int64_t* s, int64_t n) {
          isa_dispatch<true>([&] {
            LeafChunks<C, L> chunks(leaf_direct, load, p, s);
            const E r = root;
            for (int64_t i = 0; i < n; i += kConvertBlock) {
              const int64_t m = std::min(kConvertBlock, n - i);
              acc = reduce_step<K, A>(acc, reduce_chunk(r, chunks.at(i, m), m));
            }
          });
          if (t % pieces == 0) dst[static_cast<size_t>(j)] = p[0];
        });
        partial[static_cast<size_t>(t)] = acc;
      }
    });
    for (int64_t j = 0; j < n_out; ++j) {
      A acc = reduce_identity<K, A>();
      for (int64_t c = 0; c < pieces; ++c) acc = reduce_step<K, A>(acc, partial[static_cast<size_t>(j * pieces + c)]);
      finish(dst[static_cast<size_t>(j)], acc);
    }
    return;
  }
  // Each output element whole in one thread's range: threads never share one.
  const int64_t grain = std::max<int64_t>(1, kElementwiseGrain / std::max<int64_t>(per_output, 1));
  parallel_for(n_out, grain, [&](int64_t begin, int64_t end) {
    char* current = nullptr;
    A acc = reduce_identity<K, A>();
    auto body = [&](char* const* p, const int64_t* s, int64_t n) {
      LeafChunks<C, L> chunks(leaf_direct, load, p, s);
      const E r = root;
      for (int64_t i = 0; i < n; i += kConvertBlock) {
        const int64_t m = std::min(kConvertBlock, n - i);
        const C* const* lp = chunks.at(i, m);
        if (s[0] == 0) {  // the run reduces into one output element
          char* dst = p[0];
          if (dst != current) {
            if (current != nullptr) finish(current, acc);
            current = dst;
            acc = reduce_identity<K, A>();
          }
          acc = reduce_step<K, A>(acc, reduce_chunk(r, lp, m));
          continue;
        }
        for (int64_t j = 0; j < m; ++j) {  // no reduced dim left: one element each
          char* dst = p[0] + (i + j) * s[0];
          if (dst != current) {
            if (current != nullptr) finish(current, acc);
            current = dst;
            acc = reduce_identity<K, A>();
          }
          acc = reduce_step<K, A>(acc, static_cast<A>(r.template at<C>(lp, j)));
        }
      }
    };
    loop.run(begin * per_output, end * per_output,
             [&](char* const* p, const int64_t* s, int64_t n) { isa_dispatch<true>([&] { body(p, s, n); }); });
    if (current != nullptr) finish(current, acc);
  });
}

}  // namespace detail

// out(z) = expression: nothing runs until run() (Note [Expressions]).
template <Expression E>
class Assignment {
 public:
  Assignment(NDArray& out, const E& e) : out_(&out), e_(e) {}

  std::string str() const { return std::string(dtype_name(out_->dtype())) + out_->shape().str() + " = " + e_.str(); }

  // Evaluates on the CPU; on another device an error (not yet supported).
  Status run(Device device = Device::cpu()) const {
    static_assert(E::kLeaves <= kMaxLeaves, "libops::expr: an expression reads at most kMaxLeaves (8) arrays");
    if (!device.is_cpu())
      return Status::error(StatusCode::kNotImplemented, "expression %s: runs on the CPU only (asked for %s)",
                           str().c_str(), device.str().c_str());
    const NDArray* leaves[E::kLeaves > 0 ? E::kLeaves : 1] = {};
    e_.collect(leaves);
    for (int k = 0; k < E::kLeaves; ++k) {
      if (!broadcasts_to_shape(leaves[k]->shape(), out_->shape()))
        return Status::error(StatusCode::kShape, "expression %s: %s does not broadcast to the output's shape %s",
                             str().c_str(), leaves[k]->shape().str().c_str(), out_->shape().str().c_str());
      if (leaves[k]->length() > 0 && !leaves[k]->has_data())
        return Status::error(StatusCode::kNullPointer, "expression %s: input %d has no memory", str().c_str(), k);
    }
    if (out_->length() > 0 && !out_->has_data())
      return Status::error(StatusCode::kNullPointer, "expression %s: the output has no memory", str().c_str());
    RETURN_IF_ERROR(e_.check());
    ComputeType ct;
    RETURN_IF_ERROR(detail::compute_type_for(e_, leaves, ct));
    if constexpr (E::kStatic >= 0) {
      if (ct != static_cast<ComputeType>(E::kStatic))
        return Status::error(StatusCode::kDtype,
                             "expression %s: its typed arrays compute in %s, but the expression needs %s (a "
                             "fractional scalar or a float-only node): cast the arrays first",
                             str().c_str(), compute_type_name(static_cast<ComputeType>(E::kStatic)),
                             compute_type_name(ct));
    }
    if (out_->length() == 0) return Status::ok();
    return detail::write_around_overlap(*out_, leaves, E::kLeaves, true, [&](NDArray& target) {
      return detail::dispatch_for<E::kStatic>(ct, [&](auto tag) -> Status {
        using C = decltype(tag);
        if constexpr (std::is_same_v<C, uint64_t>) {
          return Status::error(StatusCode::kDtype, "expression %s: uint64 arrays are not supported", str().c_str());
        } else {
          detail::evaluate<C>(e_, target, leaves);
          return Status::ok();
        }
      });
    });
  }

 private:
  NDArray* out_;
  E e_;
};

// ---- reductions as roots ----

// Note [Reductions]
// sum(e, axes), mean(e, axes), amax(e, axes), amin(e, axes): the root of an
// assignment, (out(z) = sum(in(x) * in(x), {1})).run(), reduces the
// element-wise expression e over `axes` (none: every axis; negative count
// from the end) in one pass, with no temporary for e. e's leaves broadcast
// to one shape (the broadcast of theirs); z has that shape with the axes
// removed, or kept as extent 1. e computes in its compute type (Note
// [Compute types]); sums and means accumulate in double (int64 for integer
// sums), max and min in the compute type, NaN winning; an empty sum is 0,
// an empty mean NaN, and an empty max or min is an error. Threads take
// whole output elements, each reduced in the iterator's order; where there
// are at most 16 outputs of 128K values or more (a sum of everything), each
// output's values are cut into pieces of 64K reduced in parallel and then
// combined in order (Note [Split reductions]). Either way the cut depends on
// the shapes only, so a result does not depend on the thread count.
template <detail::ReduceKind K, Expression E>
struct Reduction {
  E e;
  Dims axes;  // as given
  std::string str() const {
    static const char* const kNames[] = {"sum", "mean", "amax", "amin"};
    return std::string(kNames[static_cast<int>(K)]) + "(" + e.str() + ", " + axes.str() + ")";
  }
};

template <typename T>
inline constexpr bool kIsReduction = false;
template <detail::ReduceKind K, Expression E>
inline constexpr bool kIsReduction<Reduction<K, E>> = true;

#define LIBOPS_EXPR_REDUCTION(NAME, KIND)                                      \
  template <Expression E>                                                      \
  Reduction<detail::ReduceKind::KIND, E> NAME(const E& e, const Dims& axes = {}) { \
    return {e, axes};                                                          \
  }
LIBOPS_EXPR_REDUCTION(sum, kSum)
LIBOPS_EXPR_REDUCTION(mean, kMean)
LIBOPS_EXPR_REDUCTION(amax, kMax)
LIBOPS_EXPR_REDUCTION(amin, kMin)
#undef LIBOPS_EXPR_REDUCTION

// out(z) = a reduction: nothing runs until run() (Note [Reductions]).
template <detail::ReduceKind K, Expression E>
class ReductionAssignment {
 public:
  ReductionAssignment(NDArray& out, const Reduction<K, E>& r) : out_(&out), r_(r) {}

  std::string str() const { return std::string(dtype_name(out_->dtype())) + out_->shape().str() + " = " + r_.str(); }

  Status run(Device device = Device::cpu()) const {
    static_assert(E::kLeaves >= 1, "libops::expr: a reduction reads at least one array (its shape is theirs)");
    static_assert(E::kLeaves <= kMaxLeaves, "libops::expr: an expression reads at most kMaxLeaves (8) arrays");
    if (!device.is_cpu())
      return Status::error(StatusCode::kNotImplemented, "expression %s: runs on the CPU only (asked for %s)",
                           str().c_str(), device.str().c_str());
    const NDArray* leaves[E::kLeaves] = {};
    r_.e.collect(leaves);
    const std::string what = "expression " + str();
    Dims shape = leaves[0]->shape();
    for (int k = 1; k < E::kLeaves; ++k) {
      Dims both;
      RETURN_IF_ERROR(broadcast_shapes(what.c_str(), shape, leaves[k]->shape(), both));
      shape = both;
    }
    for (int k = 0; k < E::kLeaves; ++k)
      if (leaves[k]->length() > 0 && !leaves[k]->has_data())
        return Status::error(StatusCode::kNullPointer, "%s: input %d has no memory", what.c_str(), k);
    Dims axes;
    RETURN_IF_ERROR(normalize_axes(what.c_str(), r_.axes.data(), r_.axes.size(), shape.size(), true, axes));
    const Dims dropped = reduced_shape(shape, axes, false), kept = reduced_shape(shape, axes, true);
    if (out_->shape() != dropped && out_->shape() != kept)
      return Status::error(StatusCode::kShape, "%s: the output is %s; reducing %s over axes %s gives %s (or %s)",
                           what.c_str(), out_->shape().str().c_str(), shape.str().c_str(), axes.str().c_str(),
                           dropped.str().c_str(), kept.str().c_str());
    if (out_->length() > 0 && !out_->has_data())
      return Status::error(StatusCode::kNullPointer, "%s: the output has no memory", what.c_str());
    RETURN_IF_ERROR(r_.e.check());
    ComputeType ct;
    RETURN_IF_ERROR(detail::compute_type_for(r_.e, leaves, ct));
    if (out_->length() == 0) return Status::ok();
    int64_t per_output = 1;
    for (int d : axes) per_output *= shape[d];
    if (per_output == 0) {
      if constexpr (K == detail::ReduceKind::kMax || K == detail::ReduceKind::kMin)
        return Status::error(StatusCode::kShape, "%s: the %s of no elements (axes %s of %s are empty)", what.c_str(),
                             K == detail::ReduceKind::kMax ? "maximum" : "minimum", axes.str().c_str(),
                             shape.str().c_str());
      NDArray fill;
      RETURN_IF_ERROR(NDArray::scalar(out_->dtype(), K == detail::ReduceKind::kSum ? 0.0 : std::nan(""), fill));
      copy_into(fill, *out_);
      return Status::ok();
    }
    if constexpr (E::kStatic >= 0) {
      constexpr auto kC = static_cast<ComputeType>(E::kStatic);
      if (ct != kC)
        return Status::error(StatusCode::kDtype,
                             "%s: its typed arrays compute in %s, but the expression needs %s: cast the arrays first",
                             what.c_str(), compute_type_name(kC), compute_type_name(ct));
    }
    // Outputs are written while other outputs' ranges are still being read:
    // any overlap, the same view too, goes through a temporary.
    return detail::write_around_overlap(*out_, leaves, E::kLeaves, false, [&](NDArray& target) {
      return detail::dispatch_for<E::kStatic>(ct, [&](auto tag) -> Status {
        using C = decltype(tag);
        if constexpr (std::is_same_v<C, uint64_t>) {
          return Status::error(StatusCode::kDtype, "%s: uint64 arrays are not supported", what.c_str());
        } else {
          detail::evaluate_reduction<K, C>(r_.e, shape, axes, target, leaves);
          return Status::ok();
        }
      });
    });
  }

 private:
  NDArray* out_;
  Reduction<K, E> r_;
};

// The array an expression is assigned to: (out(z) = expression).run().
class Output {
 public:
  explicit Output(NDArray& z) : z_(&z) {}
  // (A deduced return type: naming as_node's in the signature would
  // instantiate it for a Reduction before the constraint set it aside.)
  template <typename T>
    requires(!kIsReduction<T>)
  auto operator=(const T& e) const {
    return Assignment<decltype(as_node(e))>(*z_, as_node(e));
  }
  template <detail::ReduceKind K, Expression E>
  ReductionAssignment<K, E> operator=(const Reduction<K, E>& r) const {
    return ReductionAssignment<K, E>(*z_, r);
  }

 private:
  NDArray* z_;
};

inline Output out(NDArray& z) { return Output(z); }

}  // namespace libops::expr
