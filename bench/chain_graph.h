// The graph the executor-overhead benchmarks run (bench/graph_bench.cpp on the
// CPU, bench/cuda_bench.cpp on cuda:0): a chain of n adds on 1-element
// float32 arrays, so a run's time is almost all per-node overhead.
#pragma once

#include <flatbuffers/flatbuffers.h>

#include <cstdint>
#include <string>
#include <vector>

#include "libops/ops/declarable_op.h"
#include "schemas/graph_generated.h"

namespace libops::bench {

// x[1] -> add(., c) -> ... (n times) -> y, with the constant c = 1.0f, as the
// bytes of a FlatBuffers graph; feeding x = v gives y = v + n.
inline std::vector<uint8_t> chain_graph(int n) {
  namespace fb = libops::fb;
  flatbuffers::FlatBufferBuilder b;
  std::vector<flatbuffers::Offset<fb::Variable>> vars;
  const std::vector<int64_t> shape{1};
  vars.push_back(fb::CreateVariable(b, 0, b.CreateString("x"), fb::VariableValue::Placeholder,
                                    fb::CreatePlaceholder(b, fb::DType::FLOAT32, b.CreateVector(shape)).Union()));
  const float one = 1.0f;
  b.PreAlign(4, 64);  // force_align: 64 (ForceVectorAlignment asserts over 32)
  auto data = b.CreateVector(reinterpret_cast<const uint8_t*>(&one), 4);
  vars.push_back(
      fb::CreateVariable(b, 1, b.CreateString("c"), fb::VariableValue::Array,
                         fb::CreateArray(b, fb::DType::FLOAT32, b.CreateVector(shape), fb::Order::C, data).Union()));
  std::vector<flatbuffers::Offset<fb::Node>> nodes;
  uint32_t prev = 0;
  for (int k = 0; k < n; ++k) {
    const uint32_t id = 2 + static_cast<uint32_t>(k);
    std::vector<fb::ValueRef> in{fb::ValueRef(prev, 0), fb::ValueRef(1, 0)};
    auto op = fb::CreateCustomOp(b, b.CreateString("add"), libops::op_name_hash("add"));
    nodes.push_back(fb::CreateNode(b, id, b.CreateString("add_" + std::to_string(k)), fb::Op::CustomOp, op.Union(),
                                   b.CreateVectorOfStructs(in)));
    prev = id;
  }
  fb::ValueRef y(prev, 0);
  std::vector<flatbuffers::Offset<fb::Output>> outs{fb::CreateOutput(b, b.CreateString("y"), &y)};
  auto root = fb::CreateGraph(b, 1, b.CreateVector(vars), b.CreateVector(nodes), b.CreateVectorOfStrings({"x"}),
                              b.CreateVector(outs));
  b.Finish(root, "LOPS");
  return std::vector<uint8_t>(b.GetBufferPointer(), b.GetBufferPointer() + b.GetSize());
}

}  // namespace libops::bench
