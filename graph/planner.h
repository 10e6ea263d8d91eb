// Planner: what is decided about a body before it runs.
//
//  - order_and_liveness: the topological order of the nodes (once, at load;
//    a cycle is an error naming a node on it) and, for each node position,
//    the slots whose last use it is, so the executor releases them right
//    after it (Note [Memory planning] in executor.h);
//  - infer_shapes: the shape of every slot from the shapes of the body's
//    inputs, through each op's shape function (custom ops, called with
//    shape-only arrays; constants keep their data) or the legacy rules
//    below. Run at load with the declared input shapes and again by a
//    Session whenever the fed shapes change.
//
// Note [Shape inference strictness]
//  At load, a node whose input shapes are all known and whose shape function
//  reports a shape or dtype error (kShape, kDtype) fails the load, naming the
//  node: that call could never succeed. Any other failure (say, a shape
//  function that needs input values, which shape-only arrays do not carry)
//  only leaves the node's outputs unknown; the executor then infers them
//  with the real arrays just before the node runs, and a real error is
//  reported there. Control-flow outputs are known when both If branches
//  agree, or when a While body gives back the shapes it was given. An If
//  branch is inferred leniently even at load, on its own or through its If
//  node: it may be one that these shapes never take (exporters guard
//  shape-dependent code so), and its errors are reported if it runs.
#pragma once

#include <vector>

#include "graph/graph.h"
#include "libops/ops/context.h"

namespace libops::graph {

// Note [Probing unknown extents]
//  Where a graph input has extents known only at run time (a symbolic
//  batch, image size or sequence length), load-time shape inference (and
//  the ONNX importer's, Note [Import-time shapes]) runs once per extent
//  below, every unknown extent taking it at once, and keeps what the probes
//  agree on. A probe that a shape function refuses (the input cannot have
//  that extent) drops out. The probes are 1 (it broadcasts and squeezes), 2
//  and 3 (a slice of the first 3 rows tells them apart), and two primes far
//  apart (a 32x downsampling takes 2 and 3 pixels to 1 alike, but not 257
//  and 1031). A value is known when both large probes reach it and every
//  probe that reaches it agrees on its rank and dtype; an extent, when every
//  such probe gives the same one. The executor infers the real shapes when
//  the graph runs; what the probes agree on only guides the optimizer and
//  the importer, so they must not be fooled easily.
inline constexpr int kNumProbes = 5;
inline constexpr int64_t kProbeExtents[kNumProbes] = {1, 2, 3, 257, 1031};
// True when a value reached by the probes `ok` can be known.
inline bool probes_known(const bool (&ok)[kNumProbes]) { return ok[3] && ok[4]; }

// Sorts body.nodes topologically (keeping file order where it is already
// valid), fills body.producer and the release lists. `slot_producer` gives each
// slot's producer by file position before sorting (-1 for variables); errors
// name the body and node.
Status order_and_liveness(Body& body, const std::vector<int32_t>& slot_producer);
// Each slot's producer by the position of body.nodes as they are now (-1
// for variables): what order_and_liveness takes after a rewrite.
std::vector<int32_t> slot_producers(const Body& body);

// Infers the shapes of every slot of `body` given the shapes of its inputs
// (in body.inputs order). `strict` selects the load-time rule of Note [Shape
// inference strictness]; otherwise failures only leave shapes unknown.
// `slots` receives num_slots entries; `values`, when given, the values of
// the slots computed on the way (Note [Shape values] in planner.cpp; empty
// arrays elsewhere).
Status infer_shapes(const Graph& graph, int body, const std::vector<ValueShape>& inputs, bool strict,
                    std::vector<ValueShape>& slots, std::vector<NDArray>* values = nullptr);

// The dtype and shape of a legacy node's output (z) for the given inputs:
//   transform_float: float_result_type(x); transform_same/strict: x's dtype;
//   transform_bool: bool; transform_any: d_args[0] if given, else x's dtype;
//   scalar / pairwise / broadcast: promote(x, y) (bool for the _bool groups)
//     with the broadcast shape of x and y (scalar groups and broadcast groups
//     with axes: x's shape);
//   reductions: over `axes` (none = all), keeping reduced dims when
//     b_args[0] is true; dtype float_result_type(x) for reduce_float,
//     summary_stats and reduce3 (of promote(x, y)), x's for reduce_same,
//     bool for reduce_bool, int64 for reduce_long and index_reduce;
//   random: x's shape, or i_args as the shape without x; dtype d_args[0] if
//     given, else x's when it is a float type, else float32.
Status legacy_output_shape(const Node& node, const TensorShape* inputs, int n_inputs, TensorShape& out);

// Runs `node` once on the CPU over `in` (every input holding data), with
// `ctx` as the custom op's context: its outputs, or false for a random op,
// control flow, an error, or a legacy output of more than
// `max_legacy_elements`. Shape values (Note [Shape values]) and constant
// folding (optimizer.cpp) run nodes through it.
bool run_node_on_cpu(const Node& node, const std::vector<const NDArray*>& in, int64_t max_legacy_elements,
                     Context& ctx, std::vector<NDArray>& out);

// The number of inputs a legacy group takes: exactly `min` .. `max`.
void legacy_arity(ops_legacy_group_t group, int& min_inputs, int& max_inputs);

}  // namespace libops::graph
