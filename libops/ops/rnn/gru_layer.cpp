// gru_layer: a whole GRU layer over a sequence, with lstm_layer's layouts
// and direction modes (layer_spec.h); ONNX's GRU with weights_format 1.
//
//   inputs  x, W, R, then those the b args say are present, in this order:
//           b (has_biases), seq_len (has_seq_len), h0 (has_init_h)
//   outputs those ret_full_seq and ret_last_h ask for: y, the last h
//
// Gates, libnd4j order (weights_format 0, one bias of 3H): r, u (= z), c;
// ONNX order (weights_format 1, bias [D, 6H]): z, r, h.
//   z = gate(gz), r = gate(gr),
//   n = cell(xn + bxn + (r * h) * Rn + bhn)       linear_before_reset false
//   n = cell(xn + bxn + r * (h * Rn + bhn))       linear_before_reset true
//                                                 (PyTorch's GRU)
//   h' = z * h + (1 - z) * n
// Sequence lengths as lstm_layer. The engine: recurrent.h.
#include <cmath>

#include "libops/ops/declarable_op.h"
#include "libops/ops/rnn/layer_spec.h"
#include "libops/ops/rnn/recurrent.h"
#include "libops/ops/host_reads.h"

namespace libops::ops::rnn {
namespace {

enum BArg { kHasBiases, kHasSeqLen, kHasInitH, kLinearBeforeReset, kRetFullSeq, kRetLastH };

Status gru_call(const Context& block, LayerSpec& spec, RnnDesc& d, RnnOperands& in, NDArray views[6]) {
  spec.data_format = static_cast<int>(block.i_arg(0));
  spec.direction = static_cast<int>(block.i_arg(1));
  spec.weights_format = static_cast<int>(block.i_arg(4));
  d.kind = CellKind::kGru;
  RETURN_IF_ERROR(read_layer(block, spec, *block.input(0), *block.input(1), *block.input(2), d));
  RETURN_IF_ERROR(read_activation(block, block.i_arg(2), block.t_arg(0), block.t_arg(1), d.gate_act));
  RETURN_IF_ERROR(read_activation(block, block.i_arg(3), block.t_arg(2), block.t_arg(3), d.cell_act));
  d.linear_before_reset = block.b_arg(kLinearBeforeReset);
  d.gates = gate_layout(CellKind::kGru, spec.weights_format);
  const LayerInputs has{block.b_arg(kHasBiases), block.b_arg(kHasSeqLen), block.b_arg(kHasInitH), false, false};
  RETURN_IF_ERROR(read_operands(block, spec, d, has, in, views));
  if (!block.b_arg(kRetFullSeq) && !block.b_arg(kRetLastH))
    return block.error(StatusCode::kInvalidArgument, "asks for no output: set ret_full_seq or ret_last_h");
  return Status::ok();
}

}  // namespace
}  // namespace libops::ops::rnn

CUSTOM_OP_IMPL(gru_layer, -1, -1, false, 0, 0) {
  using namespace libops::ops::rnn;
  return run_layer(block, gru_call, kRetFullSeq, false);
}

DECLARE_SHAPE_FN(gru_layer) {
  using namespace libops::ops::rnn;
  return layer_output_shapes(block, gru_call, kRetFullSeq, false, shapes);
}

DECLARE_TYPES(gru_layer) {
  // seq_len's place depends on the b args: the op checks the inputs from 3 on.
  descriptor.allow_inputs(libops::types::kFloat).allow_input(3, libops::types::kNumeric).runs_on_any_device();
  descriptor.allow_outputs(libops::types::kFloat);
}

DECLARE_ARGS(gru_layer) {
  args.describe("A GRU layer over a sequence, with lstm_layer's layouts; ONNX's GRU with weights_format 1.");
  reads_on_host(args, "seq_len when given, checked against T");
  args.input("x", "the sequence, [T, N, I], [N, T, I] or [N, I, T] (data_format)");
  args.input("W", "input weights: [I, 3H] ([2, I, 3H] bidirectional), or [D, 3H, I] (weights_format 1)");
  args.input("R", "recurrent weights: [H, 3H] ([2, H, 3H]), or [D, 3H, H] (weights_format 1)");
  args.optional_input("b", "with has_biases: [3H] ([2, 3H]) input bias, or [D, 6H] input then recurrent bias");
  args.optional_input("seq_len", "with has_seq_len: [N] integers in [0, T], each row's length");
  args.optional_input("h0", "with has_init_h: [N, H] or [D, N, H], the initial state");
  args.outputs_variadic("y, h_last", "those the ret_* b args ask for, in this order (x's dtype)");
  args.i_arg("data_format", 0, "0 [T, N, I], 1 [N, T, I], 2 [N, I, T], 3 as 0 with direction 4's y [T, 2, N, H]")
      .range(0, 3);
  args.i_arg("direction", 0, "0 forward, 1 backward, 2 both summed, 3 both concatenated, 4 both on their own axis")
      .range(0, 4);
  args.i_arg("gate_act", 2, "z and r's activation (lstm_layer's codes: 2 sigmoid)").range(0, 10);
  args.i_arg("cell_act", 0, "the candidate's activation (0 tanh)").range(0, 10);
  args.i_arg("weights_format", 0, "0 libnd4j's layouts and gate order r, u, c; 1 ONNX's, gates z, r, h").range(0, 1);
  args.t_arg("gate_alpha", NAN, "the gate activation's alpha (NaN: its ONNX default)").nan_allowed();
  args.t_arg("gate_beta", NAN, "the gate activation's beta (NaN: its ONNX default)").nan_allowed();
  args.t_arg("cell_alpha", NAN, "the cell activation's alpha").nan_allowed();
  args.t_arg("cell_beta", NAN, "the cell activation's beta").nan_allowed();
  args.b_arg("has_biases", false, "b is given");
  args.b_arg("has_seq_len", false, "seq_len is given");
  args.b_arg("has_init_h", false, "h0 is given (else zeros)");
  args.b_arg("linear_before_reset", false, "apply r after the recurrent projection (ONNX, PyTorch's GRU)");
  args.b_arg("ret_full_seq", true, "output y, every step's h");
  args.b_arg("ret_last_h", false, "output the last h of each row and direction");
}
