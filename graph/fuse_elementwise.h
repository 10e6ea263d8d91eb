// What an element-wise node computes, as steps of a fused program (Note
// [Element-wise fusion] in fuse_elementwise.cpp): the element-wise fusion
// builds its fused nodes from it, and the layout rewrite (optimizer.cpp)
// asks it which nodes are element-wise and what they give at the padding
// lanes of channel-blocked values (Note [Padding lanes]).
#pragma once

#include <vector>

#include "graph/graph.h"
#include "libops/ops/elementwise/fused_program.h"

namespace libops::graph {

// Appends the steps node `n` computes to `steps`: its inputs are values `in`
// of the program, and its first step's result will be value `next`. False
// (and `steps` unchanged) for a node that is not element-wise.
bool elementwise_steps(const Node& n, const std::vector<int>& in, int next, std::vector<ops::FusedStep>& steps);

// Whether `n` is element-wise: one or two legacy table rows with float32
// block kernels.
bool is_elementwise(const Node& n);

// `n`'s value where its inputs hold `inputs` (in float32, by its steps'
// own kernels); false for a node that is not element-wise.
bool elementwise_value(const Node& n, const std::vector<double>& inputs, double& out);

}  // namespace libops::graph
