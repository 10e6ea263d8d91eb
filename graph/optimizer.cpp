// Graph rewrites (Note [Graph rewrites] in optimizer.h).
#include "graph/optimizer.h"

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <unordered_map>

#include "graph/fuse_elementwise.h"
#include "graph/planner.h"
#include "blas/conv_dnnl.h"
#include "blas/winograd_conv.h"
#include "libops/core/cpu_isa.h"
#include "libops/legacy/legacy.h"
#include "libops/ops/declarable_op.h"
#include "libops/ops/nn/conv2d.h"
#include "libops/ops/op_pattern.h"
#include "libops/ops/registry.h"

namespace libops::graph {

bool rewrites_enabled_by_environment() {
  static const bool on = [] {
    const char* v = std::getenv("LIBOPS_GRAPH_REWRITES");
    return v == nullptr || std::strcmp(v, "0") != 0;
  }();
  return on;
}

namespace {

bool is_op(const Node& n, const char* name) {
  return n.kind == NodeKind::kCustom && n.op != nullptr && std::strcmp(n.op->name(), name) == 0;
}

// What the node's op declares itself to be (Note [Op patterns]); legacy
// nodes and ops that say nothing are opaque.
OpPattern pattern_of(const Node& n) {
  return n.kind == NodeKind::kCustom && n.op != nullptr ? op_pattern(n.op->name()) : OpPattern::kOpaque;
}

bool run_on_constants(const Node& node, const std::vector<const NDArray*>& in, std::vector<NDArray>& outputs);

// What the rewrites need to know of a body while they change it.
struct BodyIndex {
  std::vector<int32_t> reads;     // slot -> reads by nodes and outputs
  std::vector<int32_t> producer;  // slot -> node position, -1 for a variable
  std::unordered_map<int32_t, size_t> constant_of;  // slot -> index in body.constants

  explicit BodyIndex(const Body& body) {
    reads.assign(static_cast<size_t>(body.num_slots), 0);
    producer.assign(static_cast<size_t>(body.num_slots), -1);
    for (size_t p = 0; p < body.nodes.size(); ++p) {
      const Node& n = body.nodes[p];
      for (int32_t s : n.inputs) reads[static_cast<size_t>(s)]++;
      for (int32_t k = 0; k < n.num_outputs; ++k) producer[static_cast<size_t>(n.first_output + k)] = static_cast<int32_t>(p);
    }
    for (const GraphOutput& o : body.outputs) reads[static_cast<size_t>(o.slot)]++;
    for (size_t i = 0; i < body.constant_slots.size(); ++i) constant_of[body.constant_slots[i]] = i;
  }
  const NDArray* constant(const Body& body, int32_t slot) const {
    auto it = constant_of.find(slot);
    return it == constant_of.end() ? nullptr : &body.constants[it->second];
  }
};

// A new constant slot holding `a`.
int32_t add_constant(Body& body, BodyIndex& index, NDArray a) {
  const int32_t slot = body.num_slots++;
  body.constant_slots.push_back(slot);
  body.constants.push_back(std::move(a));
  index.reads.push_back(0);
  index.producer.push_back(-1);
  index.constant_of[slot] = body.constants.size() - 1;
  return slot;
}

// Drops the node at `pos`, whose work another node took over: what read its
// output reads `x` (the value that node now gives), which had no other
// reader.
void bypass(Body& body, BodyIndex& index, size_t pos, int32_t x, std::vector<uint8_t>& dropped) {
  Node& gone = body.nodes[pos];
  const int32_t y = gone.first_output;
  index.reads[static_cast<size_t>(x)] = index.reads[static_cast<size_t>(y)];
  for (Node& n : body.nodes)
    for (int32_t& in : n.inputs)
      if (in == y) in = x;
  for (GraphOutput& o : body.outputs)
    if (o.slot == y) o.slot = x;
  gone.inputs.clear();
  dropped[pos] = 1;
}

// The node producing `slot`, when `reader` is its only reader, it is not
// dropped, it runs at reader's placement, and it runs op `name` (any op for
// nullptr); else null. The rewrites that fold a node into its producer
// start here.
Node* sole_producer(Body& body, const BodyIndex& index, const std::vector<uint8_t>& dropped, int32_t slot,
                    const Node& reader, const char* name) {
  const int32_t p = index.producer[static_cast<size_t>(slot)];
  if (p < 0 || index.reads[static_cast<size_t>(slot)] != 1 || dropped[static_cast<size_t>(p)]) return nullptr;
  Node& n = body.nodes[static_cast<size_t>(p)];
  if ((name != nullptr && !is_op(n, name)) || n.placed != reader.placed || n.device != reader.device) return nullptr;
  return &n;
}

// weights * s along the filter axis, and (bias - mean) * s + beta, in T.
template <typename T>
void fold_values(const NDArray& w, int64_t cout, bool filters_last, const double* s, const NDArray* bias,
                 const NDArray& mean, const NDArray* beta, NDArray& new_w, NDArray& new_b) {
  const T* src = w.data_as<T>();
  T* dst = new_w.data_as<T>();
  const int64_t n = w.length(), per_filter = cout == 0 ? 0 : n / cout;
  // Two plain loops (no division per weight: ResNet-50's 25M weights took
  // 0.3 s to load with one).
  if (filters_last) {
    for (int64_t i = 0; i < n; i += cout)
      for (int64_t o = 0; o < cout; ++o) dst[i + o] = static_cast<T>(static_cast<double>(src[i + o]) * s[o]);
  } else {
    for (int64_t o = 0; o < cout; ++o)
      for (int64_t j = o * per_filter; j < (o + 1) * per_filter; ++j)
        dst[j] = static_cast<T>(static_cast<double>(src[j]) * s[o]);
  }
  T* b = new_b.data_as<T>();
  for (int64_t o = 0; o < cout; ++o) {
    const double b0 = bias != nullptr ? bias->get_double(o) : 0.0;
    const double shift = beta != nullptr ? beta->get_double(o) : 0.0;
    b[o] = static_cast<T>((b0 - mean.get_double(o)) * s[o] + shift);
  }
}

// Folds the batchnorm at position `bn_pos` into the conv2d that feeds it,
// when Note [Graph rewrites] allows; true when it did.
bool fold_batchnorm(Body& body, BodyIndex& index, size_t bn_pos, std::vector<uint8_t>& dropped,
                    std::vector<int32_t>& replaced, std::vector<std::string>& log) {
  Node& bn = body.nodes[bn_pos];
  if (bn.inputs.size() < 3 || bn.num_outputs != 1 || bn.args.i.size() < 3 || bn.args.t.empty()) return false;
  const int32_t x = bn.inputs[0];
  Node* producer = sole_producer(body, index, dropped, x, bn, "conv2d");
  if (producer == nullptr || producer->num_outputs != 1 || producer->args.i.size() < 11) return false;
  Node& conv = *producer;
  // A residual (input 3) is added before the batchnorm, which would scale
  // it too: no fold (the fold keeps inputs 0 to 2 only).
  if (conv.inputs.size() > 3) return false;
  // An activation the conv2d applies comes before the batchnorm: no fold.
  if (conv.args.i.size() > 12 && conv.args.i[12] != 0) return false;

  // The batchnorm's channel axis must be the conv2d output's.
  const bool nhwc = conv.args.i[9] == 1;
  const int64_t format = conv.args.i[10];
  int64_t axis = bn.args.i[2];
  if (axis < 0) axis += 4;
  if (axis != (nhwc ? 3 : 1)) return false;

  const int n_in = static_cast<int>(bn.inputs.size());
  const bool has_gamma = bn.args.i[0] == -1 ? n_in >= 4 : bn.args.i[0] == 1;
  const bool has_beta = bn.args.i[1] == -1 ? n_in == 5 : bn.args.i[1] == 1;
  if (n_in != 3 + int(has_gamma) + int(has_beta)) return false;
  const NDArray* w = index.constant(body, conv.inputs[1]);
  const NDArray* bias = conv.inputs.size() == 3 ? index.constant(body, conv.inputs[2]) : nullptr;
  const NDArray* mean = index.constant(body, bn.inputs[1]);
  const NDArray* var = index.constant(body, bn.inputs[2]);
  const NDArray* gamma = has_gamma ? index.constant(body, bn.inputs[3]) : nullptr;
  const NDArray* beta = has_beta ? index.constant(body, bn.inputs[3 + int(has_gamma)]) : nullptr;
  if (w == nullptr || mean == nullptr || var == nullptr || (conv.inputs.size() == 3 && bias == nullptr) ||
      (has_gamma && gamma == nullptr) || (has_beta && beta == nullptr))
    return false;
  const DataType dt = w->dtype();
  if ((dt != DataType::kFloat32 && dt != DataType::kFloat64) || w->rank() != 4 || !w->is_c_contiguous()) return false;
  const bool filters_last = format == 0;  // [kH, kW, Cin, Cout]
  const int64_t cout = filters_last ? w->dim(3) : w->dim(0);
  for (const NDArray* p : {bias, mean, var, gamma, beta})
    if (p != nullptr && (p->dtype() != dt || p->rank() != 1 || p->dim(0) != cout)) return false;

  const double eps = bn.args.t[0];
  std::vector<double> s(static_cast<size_t>(cout));
  for (int64_t o = 0; o < cout; ++o) {
    s[static_cast<size_t>(o)] = (gamma != nullptr ? gamma->get_double(o) : 1.0) / std::sqrt(var->get_double(o) + eps);
    if (!std::isfinite(s[static_cast<size_t>(o)])) return false;  // the run would say why, not the load
  }
  NDArray new_w, new_b;
  if (!NDArray::create(dt, w->shape(), 'c', new_w).is_ok() || !NDArray::create(dt, Dims{cout}, 'c', new_b).is_ok())
    return false;
  if (dt == DataType::kFloat32) fold_values<float>(*w, cout, filters_last, s.data(), bias, *mean, beta, new_w, new_b);
  else fold_values<double>(*w, cout, filters_last, s.data(), bias, *mean, beta, new_w, new_b);

  log.push_back(str_format("%snode %u '%s' (batchnorm) folded into node %u '%s' (conv2d)", body.where.c_str(), bn.id,
                           bn.name.c_str(), conv.id, conv.name.c_str()));
  // The conv2d reads the folded constants; the old ones lose a reader.
  for (size_t k = 1; k < conv.inputs.size(); ++k) {
    index.reads[static_cast<size_t>(conv.inputs[k])]--;
    replaced.push_back(conv.inputs[k]);
  }
  const int32_t w_slot = add_constant(body, index, std::move(new_w));
  const int32_t b_slot = add_constant(body, index, std::move(new_b));
  conv.inputs.resize(3);
  conv.inputs[1] = w_slot;
  conv.inputs[2] = b_slot;
  index.reads[static_cast<size_t>(w_slot)] = index.reads[static_cast<size_t>(b_slot)] = 1;
  // Whatever read the batchnorm's output reads the conv2d's.
  for (size_t k = 1; k < bn.inputs.size(); ++k) {
    index.reads[static_cast<size_t>(bn.inputs[k])]--;
    replaced.push_back(bn.inputs[k]);
  }
  bypass(body, index, bn_pos, x, dropped);
  return true;
}

// The activation of conv2d's activation arg that node `n` computes: 1 relu,
// 2 relu6 (clip to [0, inf) or [0, 6] alike), 0 none of them.
int64_t conv_activation_of(const Node& n) {
  if (n.inputs.size() != 1 || n.num_outputs != 1) return 0;
  if (is_op(n, "relu")) return 1;
  if (is_op(n, "relu6")) return 2;
  if (is_op(n, "clip") && n.args.t.size() >= 2 && n.args.t[0] == 0.0) {
    if (n.args.t[1] == 6.0) return 2;
    if (std::isinf(n.args.t[1]) && n.args.t[1] > 0) return 1;
  }
  return 0;
}

// The position of the activation arg of a conv2d or matmul node (both
// number them as conv_activation_of does), or -1 for another op.
int activation_arg_of(const Node& n) {
  if (is_op(n, "conv2d")) return 12;
  if (is_op(n, "matmul")) return 3;
  return -1;
}

// Folds the activation at position `pos` into the conv2d or matmul that
// feeds it (their activation arg, computed as the ops compute it).
bool fuse_activation(Body& body, BodyIndex& index, size_t pos, std::vector<uint8_t>& dropped,
                     std::vector<std::string>& log) {
  Node& act = body.nodes[pos];
  const int64_t kind = conv_activation_of(act);
  if (kind == 0) return false;
  const int32_t x = act.inputs[0];
  Node* producer = sole_producer(body, index, dropped, x, act, nullptr);
  const int arg = producer != nullptr ? activation_arg_of(*producer) : -1;
  if (arg < 0 || producer->args.i.size() <= static_cast<size_t>(arg) || producer->args.i[static_cast<size_t>(arg)] != 0)
    return false;
  Node& conv = *producer;
  conv.args.i[static_cast<size_t>(arg)] = kind;
  log.push_back(str_format("%snode %u '%s' (%s) fused into node %u '%s' (%s)", body.where.c_str(), act.id,
                           act.name.c_str(), act.op_label.c_str(), conv.id, conv.name.c_str(), conv.op_label.c_str()));
  bypass(body, index, pos, x, dropped);
  return true;
}

// ---------------------------------------------------------------- decomposed layer_norm and gelu

// Looks at the nodes feeding a value, for pattern matching.
class Matcher {
 public:
  Matcher(const Body& body, const BodyIndex& index, const std::vector<uint8_t>& dropped)
      : body_(body), index_(index), dropped_(dropped) {}

  // The node producing `slot` if it runs op `name` with `n_in` inputs and
  // one output, and `slot` has `reads` readers (0: any number); else null.
  const Node* node(int32_t slot, const char* name, size_t n_in, int reads = 1) const {
    const size_t s = static_cast<size_t>(slot);
    if (s >= index_.producer.size() || index_.producer[s] < 0) return nullptr;
    if (reads > 0 && index_.reads[s] != reads) return nullptr;
    const size_t p = static_cast<size_t>(index_.producer[s]);
    const Node& n = body_.nodes[p];
    if (dropped_[p] || !is_op(n, name) || n.inputs.size() != n_in || n.num_outputs != 1) return nullptr;
    return &n;
  }
  // A one-element floating-point constant's value.
  bool scalar(int32_t slot, double& v) const {
    const NDArray* a = index_.constant(body_, slot);
    if (a == nullptr || a->length() != 1 || !is_float(a->dtype())) return false;
    v = a->get_double(0);
    return true;
  }
  bool scalar_is(int32_t slot, double want, double rtol = 0) const {
    double v;
    return scalar(slot, v) && std::fabs(v - want) <= rtol * std::fabs(want);
  }
  // A rank-1 floating-point constant of more than one element.
  bool vector(int32_t slot) const {
    const NDArray* a = index_.constant(body_, slot);
    return a != nullptr && a->rank() == 1 && a->length() > 1 && is_float(a->dtype());
  }
  // The dtype the planner inferred for `slot`; kInvalid where it is not
  // known.
  DataType dtype(int32_t slot) const {
    const size_t s = static_cast<size_t>(slot);
    return s < body_.static_shapes.size() ? body_.static_shapes[s].dtype : DataType::kInvalid;
  }
  // Whether a fused op that computes in x's dtype gives the dtype node `n`
  // gave: a float32 x with float64 constants (the Python builder's default
  // for Python floats) computes in float64 when left unfused.
  bool keeps_dtype(int32_t x, const Node& n) const {
    const DataType t = dtype(x);
    return t != DataType::kInvalid && t == dtype(n.first_output);
  }
  // The input of a binary node other than the one at `k`.
  static int32_t other(const Node& n, int k) { return n.inputs[static_cast<size_t>(1 - k)]; }
  size_t position(const Node* n) const { return static_cast<size_t>(n - body_.nodes.data()); }

 private:
  static bool is_float(DataType t) {
    return t == DataType::kFloat32 || t == DataType::kFloat64 || t == DataType::kFloat16 || t == DataType::kBFloat16;
  }
  const Body& body_;
  const BodyIndex& index_;
  const std::vector<uint8_t>& dropped_;
};

// A reduce_mean over the last axis keeping it, of one input.
bool mean_over_last_axis(const Node* n) {
  return n != nullptr && n->args.i.size() == 1 && n->args.i[0] == -1 && !n->args.b.empty() && n->args.b[0];
}

// Turns node `n` into a call of `op` with the given inputs and args, and
// drops `matched` (the nodes the pattern replaces).
Status replace_node(Body& body, BodyIndex& index, Node& n, const char* op, std::vector<int32_t> inputs, OpArgs args,
                    const std::vector<const Node*>& matched, std::vector<uint8_t>& dropped) {
  DeclarableOp* fused = OpRegistry::instance().find(op);
  if (fused == nullptr) return Status::error(StatusCode::kInternal, "graph rewrites: op %s is not registered", op);
  RETURN_IF_ERROR(resolve_args(fused->descriptor().signature, fused->name(), args));
  for (int32_t s : n.inputs) index.reads[static_cast<size_t>(s)]--;
  for (const Node* m : matched) {
    const size_t p = static_cast<size_t>(m - body.nodes.data());
    for (int32_t s : m->inputs) index.reads[static_cast<size_t>(s)]--;
    dropped[p] = 1;
  }
  n.op = fused;
  n.op_label = fused->name();
  n.inputs = std::move(inputs);
  n.args = std::move(args);
  for (int32_t s : n.inputs) index.reads[static_cast<size_t>(s)]++;
  return Status::ok();
}

// add(multiply(divide(x - mean(x), sqrt(mean((x - mean(x))^2) + eps)),
// gamma), beta), the last axis, as exporters write LayerNormalization:
// becomes layer_norm(x, gamma, beta).
Status fuse_layer_norm(Body& body, BodyIndex& index, size_t pos, std::vector<uint8_t>& dropped,
                       std::vector<std::string>& log) {
  Node& n = body.nodes[pos];
  if (!is_op(n, "add") || n.inputs.size() != 2) return Status::ok();
  Matcher m(body, index, dropped);
  for (int kb = 0; kb < 2; ++kb) {
    const int32_t beta = n.inputs[static_cast<size_t>(kb)];
    const Node* mul = m.node(Matcher::other(n, kb), "multiply", 2);
    if (!m.vector(beta) || mul == nullptr) continue;
    for (int kg = 0; kg < 2; ++kg) {
      const int32_t gamma = mul->inputs[static_cast<size_t>(kg)];
      const Node* div = m.node(Matcher::other(*mul, kg), "divide", 2);
      if (!m.vector(gamma) || div == nullptr) continue;
      const int32_t centered = div->inputs[0];
      const Node* sq = m.node(div->inputs[1], "sqrt", 1);
      const Node* eps_add = sq ? m.node(sq->inputs[0], "add", 2) : nullptr;
      if (eps_add == nullptr) continue;
      for (int ke = 0; ke < 2; ++ke) {
        double eps;
        if (!m.scalar(eps_add->inputs[static_cast<size_t>(ke)], eps) || !(eps >= 0)) continue;
        const Node* var = m.node(Matcher::other(*eps_add, ke), "reduce_mean", 1);
        if (!mean_over_last_axis(var)) continue;
        // (x - mean)^2 as pow(., 2), multiply(., .) or square(.).
        const Node* sqr = m.node(var->inputs[0], "pow", 2);
        int centered_reads = 2;
        if (sqr != nullptr && (sqr->inputs[0] != centered || !m.scalar_is(sqr->inputs[1], 2.0))) sqr = nullptr;
        if (sqr == nullptr) {
          sqr = m.node(var->inputs[0], "multiply", 2);
          if (sqr != nullptr && (sqr->inputs[0] != centered || sqr->inputs[1] != centered)) sqr = nullptr;
          centered_reads = 3;
        }
        if (sqr == nullptr) {
          sqr = m.node(var->inputs[0], "square", 1);
          if (sqr != nullptr && sqr->inputs[0] != centered) sqr = nullptr;
          centered_reads = 2;
        }
        if (sqr == nullptr) continue;
        const Node* sub = m.node(centered, "subtract", 2, centered_reads);
        const Node* mean = sub ? m.node(sub->inputs[1], "reduce_mean", 1) : nullptr;
        if (!mean_over_last_axis(mean) || mean->inputs[0] != sub->inputs[0]) continue;
        const int32_t x = sub->inputs[0];
        const DataType gamma_t = index.constant(body, gamma)->dtype(), beta_t = index.constant(body, beta)->dtype();
        if (!m.keeps_dtype(x, n) || gamma_t != m.dtype(x) || beta_t != m.dtype(x)) continue;
        OpArgs args;
        args.i = {-1};
        args.t = {eps};
        log.push_back(str_format("%snode %u '%s' and 9 nodes before it (a decomposed layer norm) became layer_norm",
                                 body.where.c_str(), n.id, n.name.c_str()));
        return replace_node(body, index, n, "layer_norm", {x, gamma, beta}, std::move(args),
                            {mean, sub, sqr, var, eps_add, sq, div, mul}, dropped);
      }
    }
  }
  return Status::ok();
}

// x / sqrt(mean(x^2) + eps) * w over the last axis, as exporters write
// RMSNormalization (LLaMA's and T5's RMSNorm): the division also as x *
// rsqrt(.) or x * reciprocal(sqrt(.)), x^2 as pow(x, 2), x * x or
// square(x), the weight on either side: becomes rms_norm(x, w), one pass
// where the pieces make two (a fused reduction and a scaling).
Status fuse_rms_norm(Body& body, BodyIndex& index, size_t pos, std::vector<uint8_t>& dropped,
                     std::vector<std::string>& log) {
  Node& n = body.nodes[pos];
  if (!is_op(n, "multiply") || n.inputs.size() != 2) return Status::ok();
  Matcher m(body, index, dropped);
  for (int kw = 0; kw < 2; ++kw) {
    const int32_t w = n.inputs[static_cast<size_t>(kw)];
    const int32_t normed = Matcher::other(n, kw);
    if (!m.vector(w)) continue;
    // x / sqrt(E), x * rsqrt(E) or x * reciprocal(sqrt(E)), either order.
    int32_t x = -1, e = -1;
    std::vector<const Node*> matched;
    if (const Node* div = m.node(normed, "divide", 2)) {
      if (const Node* sq = m.node(div->inputs[1], "sqrt", 1)) {
        x = div->inputs[0], e = sq->inputs[0];
        matched = {div, sq};
      }
    } else if (const Node* mul = m.node(normed, "multiply", 2)) {
      for (int kx = 0; kx < 2 && x < 0; ++kx) {
        const int32_t r = Matcher::other(*mul, kx);
        if (const Node* rs = m.node(r, "rsqrt", 1)) {
          x = mul->inputs[static_cast<size_t>(kx)], e = rs->inputs[0];
          matched = {mul, rs};
        } else if (const Node* rec = m.node(r, "reciprocal", 1)) {
          if (const Node* sq = m.node(rec->inputs[0], "sqrt", 1)) {
            x = mul->inputs[static_cast<size_t>(kx)], e = sq->inputs[0];
            matched = {mul, rec, sq};
          }
        }
      }
    }
    const Node* eps_add = x >= 0 ? m.node(e, "add", 2) : nullptr;
    if (eps_add == nullptr) continue;
    for (int ke = 0; ke < 2; ++ke) {
      double eps;
      if (!m.scalar(eps_add->inputs[static_cast<size_t>(ke)], eps) || !(eps >= 0)) continue;
      const Node* mean = m.node(Matcher::other(*eps_add, ke), "reduce_mean", 1);
      if (!mean_over_last_axis(mean)) continue;
      const int32_t sq_slot = mean->inputs[0];
      const Node* sqr = m.node(sq_slot, "pow", 2);
      if (sqr != nullptr && (sqr->inputs[0] != x || !m.scalar_is(sqr->inputs[1], 2.0))) sqr = nullptr;
      if (sqr == nullptr && (sqr = m.node(sq_slot, "multiply", 2)) != nullptr &&
          (sqr->inputs[0] != x || sqr->inputs[1] != x))
        sqr = nullptr;
      if (sqr == nullptr && (sqr = m.node(sq_slot, "square", 1)) != nullptr && sqr->inputs[0] != x) sqr = nullptr;
      if (sqr == nullptr) continue;
      // w must be x's last dim, and the fused op computes in x's dtype.
      const ValueShape& xs = body.static_shapes[static_cast<size_t>(x)];
      const NDArray* wa = index.constant(body, w);
      if (!xs.rank_known || xs.dims.size() == 0 || xs.dims[xs.dims.size() - 1] != wa->length() ||
          !m.keeps_dtype(x, n) || wa->dtype() != m.dtype(x))
        continue;
      OpArgs args;
      args.i = {-1};
      args.t = {eps};
      matched.insert(matched.end(), {eps_add, mean, sqr});
      log.push_back(str_format("%snode %u '%s' and %zu nodes before it (a decomposed RMS norm) became rms_norm",
                               body.where.c_str(), n.id, n.name.c_str(), matched.size()));
      return replace_node(body, index, n, "rms_norm", {x, w}, std::move(args), matched, dropped);
    }
  }
  return Status::ok();
}

// 0.5 * x * (1 + erf(x / sqrt(2))), in the orders exporters write it:
// becomes gelu(x).
Status fuse_gelu(Body& body, BodyIndex& index, size_t pos, std::vector<uint8_t>& dropped,
                 std::vector<std::string>& log) {
  Node& n = body.nodes[pos];
  if (!is_op(n, "multiply") || n.inputs.size() != 2) return Status::ok();
  Matcher m(body, index, dropped);
  // 1 + erf(x / sqrt(2)) at `slot`: its x, or -1.
  auto one_plus_erf = [&](int32_t slot, const Node*& add, const Node*& erf, const Node*& scaled) -> int32_t {
    add = m.node(slot, "add", 2);
    if (add == nullptr) return -1;
    for (int k = 0; k < 2; ++k) {
      if (!m.scalar_is(add->inputs[static_cast<size_t>(k)], 1.0)) continue;
      erf = m.node(Matcher::other(*add, k), "erf", 1);
      if (erf == nullptr) return -1;
      scaled = m.node(erf->inputs[0], "divide", 2);
      if (scaled != nullptr && m.scalar_is(scaled->inputs[1], std::sqrt(2.0), 1e-4)) return scaled->inputs[0];
      scaled = m.node(erf->inputs[0], "multiply", 2);
      if (scaled == nullptr) return -1;
      for (int j = 0; j < 2; ++j)
        if (m.scalar_is(scaled->inputs[static_cast<size_t>(j)], std::sqrt(0.5), 1e-4))
          return Matcher::other(*scaled, j);
      return -1;
    }
    return -1;
  };
  // 1 + tanh(sqrt(2 / pi) * (x + 0.044715 x^3)) at `slot` (GELU's tanh
  // form, as GPT-2's exports write it; x^3 as pow(x, 3), x * (x * x) or
  // (x * x) * x): its x, or -1; its nodes go to `nodes`.
  auto one_plus_tanh = [&](int32_t slot, std::vector<const Node*>& nodes) -> int32_t {
    nodes.clear();
    const Node* add1 = m.node(slot, "add", 2);
    if (add1 == nullptr) return -1;
    for (int k = 0; k < 2; ++k) {
      if (!m.scalar_is(add1->inputs[static_cast<size_t>(k)], 1.0)) continue;
      const Node* th = m.node(Matcher::other(*add1, k), "tanh", 1);
      const Node* outer = th ? m.node(th->inputs[0], "multiply", 2) : nullptr;
      if (outer == nullptr) return -1;
      for (int j = 0; j < 2; ++j) {
        if (!m.scalar_is(outer->inputs[static_cast<size_t>(j)], std::sqrt(2.0 / M_PI), 1e-4)) continue;
        const Node* sum = m.node(Matcher::other(*outer, j), "add", 2);
        if (sum == nullptr) return -1;
        for (int i = 0; i < 2; ++i) {
          const int32_t x = sum->inputs[static_cast<size_t>(i)];
          const Node* cubic = m.node(Matcher::other(*sum, i), "multiply", 2);
          if (cubic == nullptr) continue;
          for (int c = 0; c < 2; ++c) {
            if (!m.scalar_is(cubic->inputs[static_cast<size_t>(c)], 0.044715, 1e-4)) continue;
            const int32_t x3 = Matcher::other(*cubic, c);
            const Node* pow = m.node(x3, "pow", 2);
            const Node* mul = m.node(x3, "multiply", 2);
            const Node* sq = nullptr;
            if (pow != nullptr && (pow->inputs[0] != x || !m.scalar_is(pow->inputs[1], 3.0))) pow = nullptr;
            if (pow == nullptr && mul != nullptr)
              for (int q = 0; q < 2 && sq == nullptr; ++q) {
                sq = m.node(mul->inputs[static_cast<size_t>(q)], "multiply", 2);
                if (sq != nullptr && (Matcher::other(*mul, q) != x || sq->inputs[0] != x || sq->inputs[1] != x))
                  sq = nullptr;
              }
            if (pow == nullptr && sq == nullptr) continue;
            nodes = {add1, th, outer, sum, cubic};
            if (pow != nullptr) nodes.push_back(pow);
            else nodes.insert(nodes.end(), {mul, sq});
            return x;
          }
        }
        return -1;
      }
      return -1;
    }
    return -1;
  };
  std::vector<const Node*> tanh_nodes;
  // n becomes gelu(x) in the tanh form, over tanh_nodes and `last`.
  auto tanh_gelu = [&](int32_t x, const Node* last) {
    log.push_back(str_format("%snode %u '%s' and %zu nodes before it (a decomposed tanh gelu) became gelu",
                             body.where.c_str(), n.id, n.name.c_str(), tanh_nodes.size() + 1));
    tanh_nodes.push_back(last);
    OpArgs tanh_form;
    tanh_form.i = {1};
    return replace_node(body, index, n, "gelu", {x}, std::move(tanh_form), tanh_nodes, dropped);
  };
  const Node *add = nullptr, *erf = nullptr, *scaled = nullptr;
  for (int k = 0; k < 2; ++k) {
    const int32_t a = n.inputs[static_cast<size_t>(k)], b = Matcher::other(n, k);
    // 0.5 * (x * (1 + erf(..))), or the tanh form
    if (m.scalar_is(a, 0.5)) {
      const Node* inner = m.node(b, "multiply", 2);
      if (inner == nullptr) continue;
      for (int j = 0; j < 2; ++j) {
        const int32_t xt = one_plus_tanh(inner->inputs[static_cast<size_t>(j)], tanh_nodes);
        if (xt >= 0 && xt == Matcher::other(*inner, j) && m.keeps_dtype(xt, n)) return tanh_gelu(xt, inner);
        const int32_t x = one_plus_erf(inner->inputs[static_cast<size_t>(j)], add, erf, scaled);
        if (x < 0 || x != Matcher::other(*inner, j) || !m.keeps_dtype(x, n)) continue;
        log.push_back(str_format("%snode %u '%s' and 5 nodes before it (a decomposed gelu) became gelu",
                                 body.where.c_str(), n.id, n.name.c_str()));
        return replace_node(body, index, n, "gelu", {x}, OpArgs{}, {inner, add, erf, scaled}, dropped);
      }
    }
    // (0.5 * x) * (1 + erf(..)), or the tanh form
    const Node* half = m.node(a, "multiply", 2);
    if (half == nullptr) continue;
    for (int j = 0; j < 2; ++j) {
      if (!m.scalar_is(half->inputs[static_cast<size_t>(j)], 0.5)) continue;
      const int32_t xt = one_plus_tanh(b, tanh_nodes);
      if (xt >= 0 && xt == Matcher::other(*half, j) && m.keeps_dtype(xt, n)) return tanh_gelu(xt, half);
      const int32_t x = one_plus_erf(b, add, erf, scaled);
      if (x < 0 || x != Matcher::other(*half, j) || !m.keeps_dtype(x, n)) continue;
      log.push_back(str_format("%snode %u '%s' and 5 nodes before it (a decomposed gelu) became gelu",
                               body.where.c_str(), n.id, n.name.c_str()));
      return replace_node(body, index, n, "gelu", {x}, OpArgs{}, {half, add, erf, scaled}, dropped);
    }
  }
  return Status::ok();
}

// ---------------------------------------------------------------- layouts

const int64_t kToNhwc[4] = {0, 2, 3, 1};
const int64_t kToNchw[4] = {0, 3, 1, 2};

bool has_perm(const Node& n, const int64_t* perm) {
  return is_op(n, "permute") && n.inputs.size() == 1 && n.args.i.size() == 4 &&
         std::equal(n.args.i.begin(), n.args.i.end(), perm);
}

// Ops whose output element i reads only input element i of each input (a
// one-element input broadcasts): they commute with any permutation of the
// dims applied to all of their inputs alike. The element-wise nodes of Note
// [Element-wise fusion] (the rows of the element-wise tables, arithmetic,
// relu, clip), and every op that declares itself element-wise (Note [Op
// patterns]: gelu, whose CPU kernel is not a table row, cast).
bool elementwise(const Node& n) {
  return is_elementwise(n) ||
         (pattern_of(n) == OpPattern::kElementwise && n.inputs.size() == 1 && n.num_outputs == 1);
}

// The position of a window op's data_format i arg, -1 for other nodes.
int window_format_arg(const Node& n) {
  if ((is_op(n, "conv2d") || is_op(n, "depthwise_conv2d") || is_op(n, "deconv2d")) && n.args.i.size() > 9) return 9;
  if ((is_op(n, "maxpool2d") || is_op(n, "avgpool2d")) && n.args.i.size() > 10) return 10;
  return -1;
}

// A reduction over exactly H and W of an NCHW value (a global pool), axes
// given as i args: an op that declares itself a reduction (Note [Op
// patterns]) with the reduction ops' args (an i list of axes, keep_dims
// the first b arg).
bool spatial_reduction(const Node& n) {
  if (pattern_of(n) != OpPattern::kReduction) return false;
  const OpSignature& sig = n.op->descriptor().signature;
  const ArgSpec* axes = sig.find("axes");
  const ArgSpec* keep = sig.find("keep_dims");
  if (axes == nullptr || axes->kind != ArgKind::kInt || !axes->list || keep == nullptr ||
      keep->kind != ArgKind::kBool || keep->position != 0)
    return false;
  if (n.inputs.size() != 1 || n.args.i.size() != 2 || !n.args.t.empty()) return false;
  const int64_t a = n.args.i[0] < 0 ? n.args.i[0] + 4 : n.args.i[0];
  const int64_t b = n.args.i[1] < 0 ? n.args.i[1] + 4 : n.args.i[1];
  return std::min(a, b) == 2 && std::max(a, b) == 3;
}

const NDArray* constant_of(const Body& body, int32_t slot) {
  for (size_t i = 0; i < body.constant_slots.size(); ++i)
    if (body.constant_slots[i] == slot) return &body.constants[i];
  return nullptr;
}

// The filters of an NCHW conv2d or deconv2d whose weights are a float32
// constant (conv2d's weights_format i arg 10: 0 [kH, kW, Cin, Cout], 1
// [Cout, Cin, kH, kW], 2 [Cout, kH, kW, Cin]), and its input channels; -1
// for any other node.
// deconv2d's weights: 0 [kH, kW, Cout, Cin], 1 [Cin, Cout, kH, kW], 2 [Cin,
// kH, kW, Cout].
int64_t constant_conv_filters(const Body& body, const Node& n, int64_t* input_channels = nullptr) {
  const bool transposed = is_op(n, "deconv2d");
  if ((!is_op(n, "conv2d") && !transposed) || n.inputs.size() < 2) return -1;
  const NDArray* w = constant_of(body, n.inputs[1]);
  if (w == nullptr || w->rank() != 4 || w->dtype() != DataType::kFloat32) return -1;
  const int64_t format = n.args.i.size() > 10 ? n.args.i[10] : 1;
  if (transposed) {
    if (input_channels != nullptr) *input_channels = w->dim(format == 0 ? 3 : 0);
    return w->dim(format == 0 ? 2 : format == 1 ? 1 : 3);
  }
  const int64_t groups = n.args.i.size() > 11 ? n.args.i[11] : 1;
  if (input_channels != nullptr) *input_channels = groups * w->dim(format == 0 ? 2 : format == 1 ? 1 : 3);
  return format == 0 ? w->dim(3) : w->dim(0);
}

bool on_the_cpu(const Node& n) { return !n.placed || n.placement.is_cpu(); }

// The layout a body's window ops run in after the rewrite.
struct TargetLayout {
  bool keep = false;     // NCHW stays: no rewrite
  bool blocked = false;  // NCHWc with `lanes` lanes; else NHWC
  int64_t lanes = 0;
};

// Whether the body's one NCHW window op is a convolution libops' Winograd
// kernel takes once blocked (Note [Own Winograd convolution] in
// blas/winograd_conv.h: 3x3, stride 1, undilated, ungrouped, enough
// channels, 8-lane blocks on an AVX2 machine). Its two conversions cost
// less than the kernel saves: a 56x56 64 -> 64 layer took 1.9 ms as NCHW
// (oneDNN's direct kernel, its reorders) against about 1.3 blocked.
bool lone_winograd_conv(const Body& body) {
  if (cpu_isa_supported() != CpuIsa::kAvx2 || !blas::WinogradConv3x3::supported() || !blas::winograd_enabled())
    return false;
  for (const Node& n : body.nodes) {
    const int fmt = window_format_arg(n);
    if (fmt < 0 || n.args.i[static_cast<size_t>(fmt)] != 0) continue;
    int64_t cin = 0;
    const int64_t cout = constant_conv_filters(body, n, &cin);
    if (!is_op(n, "conv2d") || cout <= 0) return false;
    const NDArray* w = constant_of(body, n.inputs[1]);
    const int64_t format = n.args.i.size() > 10 ? n.args.i[10] : 1;
    const int64_t kh = w->dim(format == 0 ? 0 : format == 1 ? 2 : 1);
    const int64_t kw = w->dim(format == 0 ? 1 : format == 1 ? 3 : 2);
    const int64_t groups = n.args.i.size() > 11 ? n.args.i[11] : 1;
    const auto& a = n.args.i;
    if (!(kh == 3 && kw == 3 && a[2] == 1 && a[3] == 1 && a[6] == 1 && a[7] == 1 && groups == 1 &&
          std::min(cin, cout) >= 16 && std::max(cin, cout) >= 32))
      return false;
    // Where it reads a graph input of known dims, the image must also be
    // large enough for the kernel: else the convolution would run direct,
    // blocked, between two conversions it gains nothing from.
    for (const GraphInput& in : body.inputs) {
      const ValueShape& v = in.shape;
      if (in.slot != n.inputs[0] || !v.fully_known() || v.dims.size() != 4) continue;
      const bool same = a.size() > 8 && a[8] != 0;
      const int64_t oh = same ? v.dims[2] : v.dims[2] + 2 * a[4] - 2, ow = same ? v.dims[3] : v.dims[3] + 2 * a[5] - 2;
      return oh > 0 && ow > 0 && ops::nn::own_winograd_size(v.dims[0], oh, ow, cin, cout, true);
    }
    return true;
  }
  return false;
}

// Note [Graph rewrites]: NCHWc where oneDNN runs this CPU's blocked kernels
// and every NCHW window op of the body takes the layout: conv2d and
// deconv2d with float32 constant weights, maxpool2d and avgpool2d, placed
// on the CPU in a graph configured for it. Else NHWC.
TargetLayout choose_layout(const Body& body, const LayoutChoice& choice) {
  TargetLayout t;
  if (choice.layout == GraphLayout::kNhwc) return t;
  if (choice.layout == GraphLayout::kAuto) {
    // A lone window op has no neighbour to share its conversions with:
    // they cost more than the layout saves it (a 56x56x64 1x1 conv: 0.17
    // ms as NCHW, 0.54 ms blocked with its two conversions), but for a
    // convolution Winograd's algorithm takes once blocked.
    int window_ops = 0;
    for (const Node& n : body.nodes) {
      const int fmt = window_format_arg(n);
      if (fmt >= 0 && n.args.i[static_cast<size_t>(fmt)] == 0) ++window_ops;
    }
    if (window_ops < 2 && !(window_ops == 1 && lone_winograd_conv(body))) {
      t.keep = true;
      return t;
    }
    if (!choice.cpu_graph || !blas::dnnl_enabled() || cpu_isa_supported() == CpuIsa::kBaseline) return t;
    for (const Node& n : body.nodes) {
      const int fmt = window_format_arg(n);
      if (fmt < 0 || n.args.i[static_cast<size_t>(fmt)] != 0) continue;
      const bool takes = constant_conv_filters(body, n) > 0 || is_op(n, "maxpool2d") || is_op(n, "avgpool2d");
      if (!takes || !on_the_cpu(n)) return t;
    }
  }
  t.blocked = true;
  t.lanes = cpu_isa_supported() == CpuIsa::kAvx512 ? 16 : 8;
  return t;
}

// The layout rewrite of Note [Graph rewrites] on one body: window ops go
// NHWC (between permutes) or NCHWc (between block_channels and
// unblock_channels), and the conversions back move down and cancel. New
// nodes are appended; the caller restores the topological order.
class LayoutRewrite {
 public:
  LayoutRewrite(Body& body, TargetLayout target)
      : body_(body),
        target_(target),
        to_op_(OpRegistry::instance().find(target.blocked ? "block_channels" : "permute")),
        back_op_(OpRegistry::instance().find(target.blocked ? "unblock_channels" : "permute")) {
    for (const Node& n : body.nodes) next_id_ = std::max(next_id_, n.id);
    next_id_ = next_id_ == UINT32_MAX ? next_id_ : next_id_ + 1;  // ids only label messages and profiles
    first_new_slot_ = body.num_slots;
    producer_.assign(static_cast<size_t>(body.num_slots), -1);
    for (size_t p = 0; p < body.nodes.size(); ++p) note_outputs(p);
  }

  Status run(std::vector<std::string>& log) {
    if (target_.keep || to_op_ == nullptr || back_op_ == nullptr) return Status::ok();
    const size_t n0 = body_.nodes.size();
    // 1. Each NCHW window op goes NHWC or NCHWc between a conversion to
    // that layout and one back.
    int converted = 0;
    for (size_t i = 0; i < n0; ++i) {
      const int fmt = window_format_arg(body_.nodes[i]);
      if (fmt < 0 || body_.nodes[i].inputs.empty() || body_.nodes[i].args.i[static_cast<size_t>(fmt)] != 0) continue;
      int64_t channels = 0;  // of the output, for unblock_channels
      if (target_.blocked) {
        const Node& n = body_.nodes[i];
        int64_t input_channels = 0;
        const bool transposed = is_op(n, "deconv2d");
        if (is_op(n, "conv2d") || transposed) channels = constant_conv_filters(body_, n, &input_channels);
        else if (is_op(n, "maxpool2d") || is_op(n, "avgpool2d")) channels = back_channels(n.inputs[0]);
        // depthwise_conv2d, and pools of values of unknown channels, stay NCHW.
        if (channels <= 0 || !on_the_cpu(n)) continue;
        if (input_channels > 0 && input_channels < target_.lanes && !transposed) {
          // An image of fewer channels than a block (a network's first
          // layer) goes in as NCHW: oneDNN's kernels for it read nchw.
          Node& conv = body_.nodes[i];
          static const int64_t kDefaults[] = {1, 1, 0};  // weights_format, groups, activation
          for (size_t k = conv.args.i.size(); k < 13; ++k) conv.args.i.push_back(kDefaults[k - 10]);
          conv.args.i.resize(14);
          conv.args.i[9] = 2;
          conv.args.i[13] = target_.lanes;
          RETURN_IF_ERROR(convert_residual(i));
          RETURN_IF_ERROR(convert_back(i, channels));
          ++converted;
          continue;
        }
      }
      int32_t in = -1;
      RETURN_IF_ERROR(add_to(body_.nodes[i].inputs[0], i, in));
      body_.nodes[i].inputs[0] = in;
      body_.nodes[i].args.i[static_cast<size_t>(fmt)] = target_.blocked ? 2 : 1;
      RETURN_IF_ERROR(convert_residual(i));
      RETURN_IF_ERROR(convert_back(i, channels));
      ++converted;
    }
    if (converted == 0) return Status::ok();

    // 2. Conversions back move down through the ops that do not care about
    // the layout, in topological order, so that the next window op's
    // conversion meets them.
    for (size_t i = 0; i < n0; ++i) {
      int64_t channels = 0;
      bool needs_back = true;
      double pad = 0;
      if (!sinks(i, channels, needs_back, pad)) continue;
      for (int32_t& s : body_.nodes[i].inputs)
        if (const Node* p = back_producer(s)) s = p->inputs[0];
      // (Channels in whole blocks leave no padding lanes to track.)
      if (pad != 0 && target_.blocked && channels % target_.lanes != 0)
        pad_lanes_[body_.nodes[i].first_output] = pad;
      if (needs_back) RETURN_IF_ERROR(convert_back(i, channels));
    }

    // 3. A conversion of a conversion back is the value itself (NCHWc: where
    // its padding lanes are zeros, as block_channels would make them; an
    // element-wise chain may leave other values there, Note [Padding lanes]).
    for (size_t p = 0; p < body_.nodes.size(); ++p) {
      const Node& n = body_.nodes[p];
      if (n.op != to_op_ || !(target_.blocked ? n.args.i[0] == target_.lanes : has_perm(n, kToNhwc))) continue;
      if (const Node* src = back_producer(n.inputs[0]))
        if (pad_lanes(src->inputs[0]) == 0) replace_reads(n.first_output, src->inputs[0], body_.nodes.size());
    }

    // 4. Conversions nothing reads are dropped.
    const int left = drop_unread_conversions();
    const char* where = body_.where.empty() ? "main: " : body_.where.c_str();
    if (target_.blocked)
      log.push_back(str_format("%s%d convolution and pooling nodes run channel-blocked (NCHWc, %lld lanes), with "
                               "%d layout conversions",
                               where, converted, static_cast<long long>(target_.lanes), left));
    else
      log.push_back(str_format("%s%d convolution and pooling nodes run channels-last (NHWC), with %d layout "
                               "permutes",
                               where, converted, left));
    return Status::ok();
  }

 private:
  void note_outputs(size_t p) {
    const Node& n = body_.nodes[p];
    for (int32_t k = 0; k < n.num_outputs; ++k) {
      const size_t s = static_cast<size_t>(n.first_output + k);
      if (s >= producer_.size()) producer_.resize(s + 1, -1);
      producer_[s] = static_cast<int32_t>(p);
    }
  }

  // The conversion back to NCHW (made here or written in the graph) that
  // produces `slot`, or null.
  const Node* back_producer(int32_t slot) const {
    const size_t s = static_cast<size_t>(slot);
    if (s >= producer_.size() || producer_[s] < 0) return nullptr;
    const Node& p = body_.nodes[static_cast<size_t>(producer_[s])];
    if (p.op != back_op_) return nullptr;
    return target_.blocked || has_perm(p, kToNchw) ? &p : nullptr;
  }

  // The channels of `slot` where a conversion back (to NCHW from NCHWc)
  // produces it, else 0.
  int64_t back_channels(int32_t slot) const {
    const Node* p = back_producer(slot);
    return p != nullptr && target_.blocked ? p->args.i[0] : 0;
  }

  bool is_scalar_constant(int32_t slot) const {
    const NDArray* a = constant_of(body_, slot);
    return a != nullptr && a->length() == 1 && a->rank() <= 1;
  }

  // Note [Padding lanes]
  // An NCHWc value of C channels holds ceil(C / lanes) blocks; the lanes past
  // C are padding. Convolutions and block_channels leave zeros there, and a
  // window op reads them (times zero weights), so they must hold 0 where a
  // value meets one. An element-wise chain in between may hold something
  // else for a while: GELU's 1 + erf(x / sqrt 2) holds 1 where x holds 0,
  // and x * 0.5 * (1 + erf(..)) is 0 again. So each NCHWc value made here
  // carries its padding lanes' value, the node's function of its inputs'
  // (scalar constants as they are), and a conversion pair cancels (step 3)
  // only over a value whose padding lanes hold 0. The value is worked out
  // by the node's own kernels (elementwise_value), in float32.
  double pad_lanes(int32_t slot) const {
    const auto it = pad_lanes_.find(slot);
    return it == pad_lanes_.end() ? 0.0 : it->second;
  }

  // Element-wise node n at its padding lanes, given its inputs' values there
  // (Note [Padding lanes]): worked out by its own kernels, or, for an op
  // that only declares itself element-wise (gelu, cast), by running the
  // node on one float32 value.
  static bool value_at_padding(const Node& n, const std::vector<double>& v, double& out) {
    if (elementwise_value(n, v, out)) return true;
    if (pattern_of(n) != OpPattern::kElementwise || v.size() != 1) return false;
    NDArray lane;
    std::vector<NDArray> result;
    if (!NDArray::scalar(DataType::kFloat32, v[0], lane).is_ok() || !run_on_constants(n, {&lane}, result) ||
        result.size() != 1 || result[0].length() != 1)
      return false;
    out = result[0].get_double(0);
    return true;
  }

  // Whether the spatial reduction n of an all-zero image gives 0, so that
  // an NCHWc value's zero padding lanes stay zeros through it (a
  // log-sum-exp would give log(H * W) there): run on a 2 x 2 image.
  static bool reduces_zeros_to_zero(const Node& n) {
    NDArray image;
    if (!NDArray::create(DataType::kFloat32, Dims{1, 1, 2, 2}, 'c', image).is_ok()) return false;
    for (int64_t k = 0; k < 4; ++k) image.set_double(k, 0.0);
    Node probe = n;
    probe.args.i = {2, 3};
    std::vector<NDArray> result;
    if (!run_on_constants(probe, {&image}, result) || result.size() != 1 || result[0].length() != 1) return false;
    return result[0].get_double(0) == 0.0;
  }

  // Whether node i can read its inputs' NHWC / NCHWc sources instead of
  // their conversions back (adjusting its args); needs_back: its output is
  // then in that layout and needs a conversion back (NHWC: a global pool's
  // [N, C] does not), of `channels` channels (NCHWc).
  bool sinks(size_t i, int64_t& channels, bool& needs_back, double& pad) {
    Node& n = body_.nodes[i];
    if (target_.blocked) {
      // NCHWc values and scalar constants only, the values all of the same
      // channels (a broadcast across channels would meet the lanes), the
      // result's padding lanes known (Note [Padding lanes]).
      if (elementwise(n)) {
        std::vector<double> at_padding;
        for (int32_t s : n.inputs) {
          const int64_t c = back_channels(s);
          if (c == 0 && is_scalar_constant(s)) {
            at_padding.push_back(constant_of(body_, s)->get_double(0));
            continue;
          }
          if (c == 0 || (channels != 0 && c != channels)) return false;
          channels = c;
          at_padding.push_back(pad_lanes(back_producer(s)->inputs[0]));
        }
        return channels != 0 && value_at_padding(n, at_padding, pad);
      }
      if (n.inputs.empty() || back_producer(n.inputs[0]) == nullptr) return false;
      // Concatenated whole blocks have no padding; a global pool of the
      // padding would keep its value there: zeros only.
      if (pad_lanes(back_producer(n.inputs[0])->inputs[0]) != 0) return false;
      if (is_op(n, "concat") && n.args.i.size() == 1 && (n.args.i[0] == 1 || n.args.i[0] == -3)) {
        for (int32_t s : n.inputs) {  // whole blocks only: axis 1 then concatenates the channels
          const int64_t c = back_channels(s);
          if (c == 0 || c % target_.lanes != 0) return false;
          channels += c;
        }
        n.args.i[0] = 1;
        return true;
      }
      if (spatial_reduction(n) && reduces_zeros_to_zero(n)) {  // [N, Cb, b] or [N, Cb, 1, 1, b]
        channels = back_channels(n.inputs[0]);
        n.args.i = {2, 3};
        return true;
      }
      return false;
    }
    if (elementwise(n)) {
      int permuted = 0;
      for (int32_t s : n.inputs) {
        if (back_producer(s) != nullptr) ++permuted;
        else if (!is_scalar_constant(s)) return false;
      }
      return permuted > 0;
    }
    if (n.inputs.empty() || back_producer(n.inputs[0]) == nullptr) return false;
    if (is_op(n, "batchnorm") && n.args.i.size() >= 3 && (n.args.i[2] == 1 || n.args.i[2] == -3)) {
      for (size_t k = 1; k < n.inputs.size(); ++k)
        if (back_producer(n.inputs[k]) != nullptr) return false;  // statistics are [C]
      n.args.i[2] = 3;
      return true;
    }
    if (is_op(n, "concat") && n.args.i.size() == 1 && (n.args.i[0] == 1 || n.args.i[0] == -3)) {
      for (int32_t s : n.inputs)
        if (back_producer(s) == nullptr) return false;
      n.args.i[0] = 3;
      return true;
    }
    if (spatial_reduction(n)) {
      needs_back = !n.args.b.empty() && n.args.b[0];
      n.args.i = {1, 2};
      return true;
    }
    return false;
  }

  // Appends op(slot) with i args `args`, placed like node `anchor`.
  Status add_conversion(DeclarableOp* op, int32_t slot, std::vector<int64_t> args, size_t anchor, const char* suffix,
                        int32_t& out) {
    Node p;
    const Node& a = body_.nodes[anchor];
    p.id = next_id_++;
    p.name = a.name + suffix;
    p.kind = NodeKind::kCustom;
    p.op = op;
    p.op_label = op->name();
    p.inputs = {slot};
    p.first_output = body_.num_slots++;
    p.num_outputs = 1;
    p.args.i = std::move(args);
    p.device = a.device;
    p.placed = a.placed;
    p.placement = a.placement;
    RETURN_IF_ERROR(resolve_args(op->descriptor().signature, op->name(), p.args));
    out = p.first_output;
    body_.nodes.push_back(std::move(p));
    note_outputs(body_.nodes.size() - 1);
    return Status::ok();
  }

  // The input `slot` of node `anchor`, converted to the target layout.
  Status add_to(int32_t slot, size_t anchor, int32_t& out) {
    if (target_.blocked) return add_conversion(to_op_, slot, {target_.lanes}, anchor, "/to_nchwc", out);
    return add_conversion(to_op_, slot, {kToNhwc, kToNhwc + 4}, anchor, "/to_nhwc", out);
  }

  // A conv2d's residual (input 3) is added to its output, so it takes the
  // output's layout too (step 3 cancels the conversion where the residual
  // came out of that layout).
  Status convert_residual(size_t i) {
    if (!is_op(body_.nodes[i], "conv2d") || body_.nodes[i].inputs.size() < 4) return Status::ok();
    int32_t r = -1;
    RETURN_IF_ERROR(add_to(body_.nodes[i].inputs[3], i, r));
    body_.nodes[i].inputs[3] = r;
    return Status::ok();
  }

  // Node i's output is now NHWC / NCHWc (of `channels` channels): its
  // readers get it converted back.
  Status convert_back(size_t i, int64_t channels) {
    const int32_t y = body_.nodes[i].first_output;
    int32_t back = -1;
    if (target_.blocked) RETURN_IF_ERROR(add_conversion(back_op_, y, {channels}, i, "/to_nchw", back));
    else RETURN_IF_ERROR(add_conversion(back_op_, y, {kToNchw, kToNchw + 4}, i, "/to_nchw", back));
    replace_reads(y, back, body_.nodes.size() - 1);
    return Status::ok();
  }

  // Every read of `from` (nodes other than position `except`, outputs)
  // reads `to` instead.
  void replace_reads(int32_t from, int32_t to, size_t except) {
    for (size_t p = 0; p < body_.nodes.size(); ++p) {
      if (p == except) continue;
      for (int32_t& s : body_.nodes[p].inputs)
        if (s == from) s = to;
    }
    for (GraphOutput& o : body_.outputs)
      if (o.slot == from) o.slot = to;
  }

  bool made_here(const Node& n) const { return n.first_output >= first_new_slot_; }

  // Removes the conversions made here that nothing reads; returns how many
  // made here are left.
  int drop_unread_conversions() {
    for (bool again = true; again;) {
      again = false;
      std::vector<int32_t> reads(static_cast<size_t>(body_.num_slots), 0);
      for (const Node& n : body_.nodes)
        for (int32_t s : n.inputs) reads[static_cast<size_t>(s)]++;
      for (const GraphOutput& o : body_.outputs) reads[static_cast<size_t>(o.slot)]++;
      std::vector<Node> kept;
      kept.reserve(body_.nodes.size());
      for (Node& n : body_.nodes) {
        if (made_here(n) && reads[static_cast<size_t>(n.first_output)] == 0) {
          again = true;
          continue;
        }
        kept.push_back(std::move(n));
      }
      body_.nodes = std::move(kept);
      producer_.assign(producer_.size(), -1);
      for (size_t p = 0; p < body_.nodes.size(); ++p) note_outputs(p);
    }
    int left = 0;
    for (const Node& n : body_.nodes) left += made_here(n) ? 1 : 0;
    return left;
  }

  Body& body_;
  TargetLayout target_;
  std::unordered_map<int32_t, double> pad_lanes_;  // NCHWc values' padding, where not 0 (Note [Padding lanes])
  DeclarableOp* to_op_;
  DeclarableOp* back_op_;
  uint32_t next_id_ = 0;
  int32_t first_new_slot_ = 0;  // the conversions made here write slots from here on
  std::vector<int32_t> producer_;  // slot -> node position
};

}  // namespace

// ---------------------------------------------------------------- residual and bias adds

namespace {

bool same_known_shape(const ValueShape& a, const ValueShape& b) {
  return a.fully_known() && b.fully_known() && a.dtype == b.dtype && a.dims == b.dims;
}

// The add at `pos` whose input k is the output of a conv2d read by nothing
// else (no activation, no residual yet, same placement), and whose other
// input has that output's shape: the conv2d takes the other input as its
// residual, with a zero bias where it had none.
bool fuse_residual_add(Body& body, BodyIndex& index, size_t pos, std::vector<uint8_t>& dropped,
                       std::vector<std::string>& log) {
  Node& add = body.nodes[pos];
  if (!is_op(add, "add") || add.inputs.size() != 2 || add.num_outputs != 1) return false;
  const auto shape = [&](int32_t slot) -> const ValueShape& { return body.static_shapes[static_cast<size_t>(slot)]; };
  for (size_t k = 0; k < 2; ++k) {
    const int32_t y = add.inputs[k], r = add.inputs[1 - k];
    Node* producer = sole_producer(body, index, dropped, y, add, "conv2d");  // y == r: read twice, null
    if (producer == nullptr || producer->inputs.size() > 3 || producer->args.i.size() < 13 || producer->args.i[12] != 0)
      continue;
    Node& conv = *producer;
    if (!same_known_shape(shape(y), shape(r)) || !same_known_shape(shape(y), shape(add.first_output))) continue;
    if (conv.inputs.size() == 2) {  // the residual is input 3: a zero bias of Cout comes first
      const ValueShape& w = shape(conv.inputs[1]);
      if (!w.fully_known() || w.dims.size() != 4) continue;
      const int64_t cout = conv.args.i[10] == 0 ? w.dims[3] : w.dims[0];
      NDArray zero;
      if (!NDArray::create(w.dtype, Dims{cout}, 'c', zero).is_ok()) continue;
      for (int64_t i = 0; i < cout; ++i) zero.set_double(i, 0.0);
      const int32_t bias = add_constant(body, index, std::move(zero));
      conv.inputs.push_back(bias);
      index.reads[static_cast<size_t>(bias)]++;
    }
    conv.inputs.push_back(r);  // the add's read of r moves to the conv2d
    log.push_back(str_format("%snode %u '%s' (add) fused into node %u '%s' (conv2d) as its residual",
                             body.where.c_str(), add.id, add.name.c_str(), conv.id, conv.name.c_str()));
    bypass(body, index, pos, y, dropped);
    return true;
  }
  return false;
}

// The add at `pos` (or bias_add along the last axis) whose input k is the
// output of a matmul read by nothing else (no bias, activation or
// transpose_z yet, same placement, y a matrix) and whose other input is a
// rank-1 constant of the product's dtype and last dim: the matmul takes the
// constant as its bias (Note [Matmul epilogue]). A rank-1 operand of the
// product's last extent cannot broadcast the product to more, so only the
// product's rank and last dim need to be known: an unknown batch fuses too.
bool fuse_bias_add(Body& body, BodyIndex& index, size_t pos, std::vector<uint8_t>& dropped,
                   std::vector<std::string>& log) {
  Node& add = body.nodes[pos];
  const bool bias_add = is_op(add, "bias_add");
  if ((!bias_add && !is_op(add, "add")) || add.inputs.size() != 2 || add.num_outputs != 1) return false;
  const auto shape = [&](int32_t slot) -> const ValueShape& { return body.static_shapes[static_cast<size_t>(slot)]; };
  for (size_t k = 0; k < (bias_add ? 1u : 2u); ++k) {  // bias_add's bias is input 1
    const int32_t y = add.inputs[k], b = add.inputs[1 - k];
    Node* producer = sole_producer(body, index, dropped, y, add, "matmul");
    if (producer == nullptr || producer->inputs.size() != 2 || producer->args.i.size() < 4 ||
        producer->args.i[2] != 0 || producer->args.i[3] != 0)
      continue;
    Node& mm = *producer;
    const NDArray* bias = index.constant(body, b);
    const ValueShape& product = shape(y);
    const ValueShape& w = shape(mm.inputs[1]);
    if (bias == nullptr || bias->rank() != 1 || !product.rank_known || product.dims.empty() ||
        product.dims.back() != bias->dim(0) || bias->dtype() != product.dtype || !w.rank_known || w.dims.size() < 2)
      continue;
    const int64_t rank = static_cast<int64_t>(product.dims.size());
    if (bias_add && (add.args.i.empty() || (add.args.i[0] != -1 && add.args.i[0] != rank - 1))) continue;
    mm.inputs.push_back(b);  // the add's read of b moves to the matmul
    log.push_back(str_format("%snode %u '%s' (%s) fused into node %u '%s' (matmul) as its bias", body.where.c_str(),
                             add.id, add.name.c_str(), add.op_label.c_str(), mm.id, mm.name.c_str()));
    bypass(body, index, pos, y, dropped);
    return true;
  }
  return false;
}

// A matmul with none of its optional parts: two inputs, no transposes
// (transpose_y allowed when `allow_transpose_y`), no activation.
bool plain_matmul(const Node& n, bool allow_transpose_y) {
  return is_op(n, "matmul") && n.inputs.size() == 2 && n.num_outputs == 1 && n.args.i.size() >= 4 &&
         n.args.i[0] == 0 && (allow_transpose_y || n.args.i[1] == 0) && n.args.i[2] == 0 && n.args.i[3] == 0;
}

// A permute of one input that swaps the last two of `rank` dims.
bool swaps_last_two(const Node& n, size_t rank) {
  if (!is_op(n, "permute") || n.inputs.size() != 1 || n.args.i.size() != rank || rank < 2) return false;
  for (size_t d = 0; d < rank; ++d) {
    const int64_t want = d + 2 == rank ? rank - 1 : d + 1 == rank ? rank - 2 : d;
    if (n.args.i[d] != want && n.args.i[d] != want - static_cast<int64_t>(rank)) return false;
  }
  return true;
}

// The matmul at `pos`, when it computes softmax(scale * q k^T + mask) v as
// exporters write attention, becomes dot_product_attention(q, k, v, mask)
// (Note [Blocked attention] in libops/ops/nn/dot_product_attention.cpp):
//   scores = matmul(q, permute(k, swap last two))  or  matmul(q, k, transpose_y)
//            or matmul(q, k^T) with k^T a constant (a permute folded at load)
//            q, k or k^T may each be multiplied by a constant first, as
//            PyTorch exports scaled_dot_product_attention (sqrt(scale) on
//            each side)
//   scores = multiply(scores, c) or divide(scores, 1 / c), a constant; optional
//   scores = add(scores, mask), the mask not widening the scores; optional
//   z      = matmul(softmax(scores) over the last axis, v)
// Every value inside is read only by the next step, everything runs at
// the matmul's placement, q, k, v, the mask and z share one float dtype
// and have rank >= 2 (so that matmul's vector rules do not apply), and the
// constants multiply to a positive scale.
bool fuse_attention(Body& body, BodyIndex& index, size_t pos, std::vector<uint8_t>& dropped,
                    std::vector<std::string>& log) {
  Node& n = body.nodes[pos];
  if (!plain_matmul(n, false)) return false;
  const auto shape = [&](int32_t slot) -> const ValueShape& { return body.static_shapes[static_cast<size_t>(slot)]; };
  const DataType dt = shape(n.first_output).dtype;
  if (dt != DataType::kFloat32 && dt != DataType::kFloat64 && dt != DataType::kFloat16 && dt != DataType::kBFloat16)
    return false;
  auto fits = [&](int32_t slot) {
    return shape(slot).rank_known && shape(slot).dims.size() >= 2 && shape(slot).dtype == dt;
  };
  auto here = [&](const Node* p) {
    return p != nullptr && p->placed == n.placed && p->device == n.device ? p : nullptr;
  };
  Matcher m(body, index, dropped);
  const int32_t v = n.inputs[1];
  const Node* softmax = here(m.node(n.inputs[0], "softmax", 1));
  if (softmax == nullptr || !fits(v) || !fits(softmax->inputs[0])) return false;
  const ValueShape& scores = shape(softmax->inputs[0]);
  const int64_t rank = static_cast<int64_t>(scores.dims.size());
  const int64_t axis = softmax->args.i.empty() ? -1 : softmax->args.i[0];
  if (axis != -1 && axis != rank - 1) return false;
  std::vector<const Node*> matched = {softmax};

  // add(scores, mask) in either order: the scores are the side a scale or
  // the first matmul produces.
  int32_t s = softmax->inputs[0], mask = -1;
  if (const Node* add = here(m.node(s, "add", 2))) {
    for (int k = 0; k < 2 && mask < 0; ++k) {
      const int32_t inner = add->inputs[static_cast<size_t>(k)], other = Matcher::other(*add, k);
      if (!m.node(inner, "multiply", 2) && !m.node(inner, "divide", 2) && !m.node(inner, "matmul", 2)) continue;
      const ValueShape& ms = shape(other);
      const ValueShape& is = shape(inner);
      if (!ms.rank_known || ms.dtype != dt || ms.dims.size() > scores.dims.size() || !is.rank_known ||
          is.dims.size() != scores.dims.size())
        continue;
      bool narrow = true;  // the mask broadcasts into the scores without widening them
      for (int i = 1; narrow && i <= ms.dims.size(); ++i) {
        const int64_t md = ms.dims[ms.dims.size() - i], sd = is.dims[is.dims.size() - i];
        narrow = md == 1 || (md >= 0 && md == sd);
      }
      if (!narrow) return false;
      mask = other;
      s = inner;
      matched.push_back(add);
    }
    if (mask < 0) return false;
  }
  double scale = 1.0;
  if (const Node* mul = here(m.node(s, "multiply", 2))) {
    for (int k = 0; k < 2; ++k) {
      double c;
      const int32_t c_slot = mul->inputs[static_cast<size_t>(k)];
      if (!m.scalar(c_slot, c) || shape(c_slot).dims.size() > scores.dims.size()) continue;
      scale = c;
      s = Matcher::other(*mul, k);
      matched.push_back(mul);
      break;
    }
    if (matched.back() != mul) return false;
  } else if (const Node* div = here(m.node(s, "divide", 2))) {
    double c;
    if (!m.scalar(div->inputs[1], c) || shape(div->inputs[1]).dims.size() > scores.dims.size()) return false;
    scale = 1.0 / c;
    s = div->inputs[0];
    matched.push_back(div);
  }
  const Node* qk = here(m.node(s, "matmul", 2));
  if (qk == nullptr || !plain_matmul(*qk, true)) return false;
  matched.push_back(qk);
  // `slot` without a multiply by a constant that does not widen it (its
  // factor joins the scale).
  auto unscaled = [&](int32_t slot) {
    const Node* mul = here(m.node(slot, "multiply", 2));
    if (mul == nullptr) return slot;
    for (int j = 0; j < 2; ++j) {
      double c;
      const int32_t c_slot = mul->inputs[static_cast<size_t>(j)], x = Matcher::other(*mul, j);
      if (!m.scalar(c_slot, c) || !shape(x).rank_known || shape(c_slot).dims.size() > shape(x).dims.size()) continue;
      scale *= c;
      matched.push_back(mul);
      return x;
    }
    return slot;
  };
  const int32_t q = unscaled(qk->inputs[0]);
  int32_t k = unscaled(qk->inputs[1]);
  // k^T folded to a constant at load (constant folding): k is that
  // constant with its last two dims swapped back, made once here.
  const NDArray* constant_kt = nullptr;
  if (qk->args.i[1] == 0) {
    const Node* t = here(m.node(k, "permute", 1));
    if (t != nullptr && fits(t->inputs[0]) && swaps_last_two(*t, shape(t->inputs[0]).dims.size())) {
      k = unscaled(t->inputs[0]);
      matched.push_back(t);
    } else {
      constant_kt = index.constant(body, k);
      if (constant_kt == nullptr || constant_kt->rank() < 2 || constant_kt->dtype() != dt) return false;
    }
  }
  if (!(scale > 0) || !std::isfinite(scale) || !fits(q) || (constant_kt == nullptr && !fits(k))) return false;
  if (constant_kt != nullptr) {
    Dims perm;
    for (int d = 0; d < constant_kt->rank(); ++d) perm.push_back(d);
    std::swap(perm[perm.size() - 1], perm[perm.size() - 2]);
    NDArray view, dense;
    if (!constant_kt->permute(perm, view).is_ok() || !view.dup('c', dense).is_ok()) return false;
    const ValueShape dense_shape = ValueShape::of(dense.desc());
    k = add_constant(body, index, std::move(dense));
    body.static_shapes.push_back(dense_shape);  // `shape` references are not used past here
  }
  std::vector<int32_t> inputs = {q, k, v};
  if (mask >= 0) inputs.push_back(mask);
  OpArgs args;
  args.t = {scale};
  const std::string line = str_format("%snode %u '%s' and %zu nodes before it (softmax(q k^T) v) became "
                                      "dot_product_attention", body.where.c_str(), n.id, n.name.c_str(),
                                      matched.size());
  if (!replace_node(body, index, n, "dot_product_attention", std::move(inputs), std::move(args), matched, dropped)
           .is_ok())
    return false;
  log.push_back(line);
  return true;
}

}  // namespace

Status optimize_planned_body(Body& body, std::vector<std::string>& log, bool& changed) {
  changed = false;
  if (body.static_shapes.size() != static_cast<size_t>(body.num_slots)) return Status::ok();
  BodyIndex index(body);
  std::vector<uint8_t> dropped(body.nodes.size(), 0);
  // Decomposed layer norms and gelus: here, where the dtypes are known
  // (the fused op computes in x's dtype; Matcher::keeps_dtype).
  const size_t before = log.size();
  for (size_t p = 0; p < body.nodes.size(); ++p) {
    if (dropped[p]) continue;
    RETURN_IF_ERROR(fuse_layer_norm(body, index, p, dropped, log));
    RETURN_IF_ERROR(fuse_gelu(body, index, p, dropped, log));
  }
  // After the layer norms, whose scaled part gamma * (x - mean) / sqrt(..)
  // is an RMS norm of x - mean: the pattern seen whole wins.
  for (size_t p = 0; p < body.nodes.size(); ++p)
    if (!dropped[p]) RETURN_IF_ERROR(fuse_rms_norm(body, index, p, dropped, log));
  changed = log.size() != before;
  for (size_t p = 0; p < body.nodes.size(); ++p)
    if (!dropped[p])
      changed |= fuse_residual_add(body, index, p, dropped, log) || fuse_bias_add(body, index, p, dropped, log);
  // relu(conv + residual) and relu(x W + b): the activation joins the
  // conv2d or matmul too.
  if (changed)
    for (size_t p = 0; p < body.nodes.size(); ++p)
      if (!dropped[p]) fuse_activation(body, index, p, dropped, log);
  for (size_t p = 0; p < body.nodes.size(); ++p)
    if (!dropped[p]) changed |= fuse_attention(body, index, p, dropped, log);
  if (!changed) return Status::ok();
  std::vector<Node> kept;
  kept.reserve(body.nodes.size());
  for (size_t p = 0; p < body.nodes.size(); ++p)
    if (!dropped[p]) kept.push_back(std::move(body.nodes[p]));
  body.nodes = std::move(kept);
  return order_and_liveness(body, slot_producers(body));
}

GraphLayout layout_from_environment() {
  static const GraphLayout layout = [] {
    const char* v = std::getenv("LIBOPS_GRAPH_LAYOUT");
    if (v != nullptr && std::strcmp(v, "nhwc") == 0) return GraphLayout::kNhwc;
    if (v != nullptr && std::strcmp(v, "nchwc") == 0) return GraphLayout::kNchwc;
    return GraphLayout::kAuto;
  }();
  return layout;
}

namespace {

// Note [Graph rewrites], constant folding: runs `node` (all inputs
// constants) on the CPU; its outputs in `outputs`. False when it cannot be
// folded (a random op, an error, an output too large to keep).
bool run_on_constants(const Node& node, const std::vector<const NDArray*>& in, std::vector<NDArray>& outputs) {
  constexpr int64_t kMaxFoldedBytes = int64_t{64} << 20;
  Context ctx(node.op != nullptr ? node.op->name() : "legacy");
  if (!run_node_on_cpu(node, in, kMaxFoldedBytes, ctx, outputs)) return false;
  for (const NDArray& o : outputs)
    if (o.length() * static_cast<int64_t>(o.element_size()) > kMaxFoldedBytes || !o.has_data()) return false;
  return true;
}

// Folds every node whose inputs are constants (in topological order, so
// chains fold whole); true when any was.
bool fold_constant_nodes(Body& body, std::vector<std::string>& log) {
  std::unordered_map<int32_t, size_t> constant_of;  // slot -> index into body.constants
  for (size_t i = 0; i < body.constant_slots.size(); ++i) constant_of[body.constant_slots[i]] = i;
  std::vector<Node> kept;
  bool any = false;
  for (Node& n : body.nodes) {
    std::vector<const NDArray*> in;
    bool all_constant = !n.inputs.empty() && !n.placed;
    for (int32_t s : n.inputs) {
      auto it = constant_of.find(s);
      if (it == constant_of.end()) {
        all_constant = false;
        break;
      }
      in.push_back(&body.constants[it->second]);
    }
    std::vector<NDArray> outputs;
    if (!all_constant || !run_on_constants(n, in, outputs)) {
      kept.push_back(std::move(n));
      continue;
    }
    std::string shapes;
    for (int32_t k = 0; k < n.num_outputs; ++k) {
      NDArray dense;
      if (!outputs[static_cast<size_t>(k)].dup('c', dense).is_ok()) dense = outputs[static_cast<size_t>(k)];
      constant_of[n.first_output + k] = body.constants.size();
      body.constant_slots.push_back(n.first_output + k);
      shapes += (k ? ", " : "") + dense.desc().str();
      body.constants.push_back(std::move(dense));
    }
    log.push_back(str_format("%snode %u '%s' (%s) folded to a constant %s at load", body.where.c_str(), n.id,
                             n.name.c_str(), n.op_label.c_str(), shapes.c_str()));
    any = true;
  }
  body.nodes = std::move(kept);
  return any;
}

// conv2d's default weights_format depends on its data format
// (conv2d_weights_format): made explicit before any rewrite reads the
// weights or changes the data format.
void resolve_conv2d_weights_formats(Body& body) {
  for (Node& n : body.nodes)
    if (is_op(n, "conv2d") && n.args.i.size() > 10)
      n.args.i[10] = ops::nn::conv2d_weights_format(n.args.i[10], n.args.i[9]);
}

}  // namespace

Status optimize_body(Body& body, const LayoutChoice& choice, std::vector<std::string>& log) {
  resolve_conv2d_weights_formats(body);
  if (fold_constant_nodes(body, log)) {
    RETURN_IF_ERROR(order_and_liveness(body, slot_producers(body)));
  }
  BodyIndex index(body);
  std::vector<uint8_t> dropped(body.nodes.size(), 0);
  std::vector<int32_t> replaced;  // constant slots that lost a reader
  bool changed = false;
  for (size_t p = 0; p < body.nodes.size(); ++p)
    if (is_op(body.nodes[p], "batchnorm")) changed |= fold_batchnorm(body, index, p, dropped, replaced, log);
  for (size_t p = 0; p < body.nodes.size(); ++p)
    if (!dropped[p]) changed |= fuse_activation(body, index, p, dropped, log);

  if (changed) {
    std::vector<Node> kept;
    kept.reserve(body.nodes.size());
    for (size_t p = 0; p < body.nodes.size(); ++p)
      if (!dropped[p]) kept.push_back(std::move(body.nodes[p]));
    body.nodes = std::move(kept);
    // Constants a rewrite replaced and nothing else reads are released.
    std::vector<int32_t> slots;
    std::vector<NDArray> constants;
    for (size_t i = 0; i < body.constant_slots.size(); ++i) {
      const int32_t s = body.constant_slots[i];
      const bool unread = index.reads[static_cast<size_t>(s)] == 0 &&
                          std::find(replaced.begin(), replaced.end(), s) != replaced.end();
      if (unread) continue;
      slots.push_back(s);
      constants.push_back(std::move(body.constants[i]));
    }
    body.constant_slots = std::move(slots);
    body.constants = std::move(constants);
  }
  // After the folds, which leave convolutions the window ops of the layout
  // rewrite can take.
  const size_t logged = log.size();
  LayoutChoice chosen = choice;
  if (chosen.layout == GraphLayout::kAuto) chosen.layout = layout_from_environment();
  RETURN_IF_ERROR(LayoutRewrite(body, choose_layout(body, chosen)).run(log));
  if (!changed && log.size() == logged) return Status::ok();

  return order_and_liveness(body, slot_producers(body));
}

}  // namespace libops::graph
