// rnn_layer: a simple (Elman) recurrent layer over a sequence, with
// lstm_layer's layouts and direction modes (layer_spec.h); ONNX's RNN with
// weights_format 1.
//
//   inputs  x, W, R, then those the b args say are present, in this order:
//           b (has_biases), seq_len (has_seq_len), h0 (has_init_h)
//   outputs those ret_full_seq and ret_last_h ask for: y, the last h
//
//   h' = act(x W + h R + b)   (W [I, H] / R [H, H], or ONNX's [D, H, I] /
//                              [D, H, H] with bias [D, 2H]: Wb then Rb)
// Sequence lengths as lstm_layer. The engine: recurrent.h.
#include <cmath>

#include "libops/ops/declarable_op.h"
#include "libops/ops/rnn/layer_spec.h"
#include "libops/ops/rnn/recurrent.h"
#include "libops/ops/host_reads.h"

namespace libops::ops::rnn {
namespace {

enum BArg { kHasBiases, kHasSeqLen, kHasInitH, kRetFullSeq, kRetLastH };

Status rnn_call(const Context& block, LayerSpec& spec, RnnDesc& d, RnnOperands& in, NDArray views[6]) {
  spec.data_format = static_cast<int>(block.i_arg(0));
  spec.direction = static_cast<int>(block.i_arg(1));
  spec.weights_format = static_cast<int>(block.i_arg(3));
  d.kind = CellKind::kRnn;
  RETURN_IF_ERROR(read_layer(block, spec, *block.input(0), *block.input(1), *block.input(2), d));
  RETURN_IF_ERROR(read_activation(block, block.i_arg(2), block.t_arg(0), block.t_arg(1), d.cell_act));
  d.gates = gate_layout(CellKind::kRnn, spec.weights_format);
  const LayerInputs has{block.b_arg(kHasBiases), block.b_arg(kHasSeqLen), block.b_arg(kHasInitH), false, false};
  RETURN_IF_ERROR(read_operands(block, spec, d, has, in, views));
  if (!block.b_arg(kRetFullSeq) && !block.b_arg(kRetLastH))
    return block.error(StatusCode::kInvalidArgument, "asks for no output: set ret_full_seq or ret_last_h");
  return Status::ok();
}

}  // namespace
}  // namespace libops::ops::rnn

CUSTOM_OP_IMPL(rnn_layer, -1, -1, false, 0, 0) {
  using namespace libops::ops::rnn;
  return run_layer(block, rnn_call, kRetFullSeq, false);
}

DECLARE_SHAPE_FN(rnn_layer) {
  using namespace libops::ops::rnn;
  return layer_output_shapes(block, rnn_call, kRetFullSeq, false, shapes);
}

DECLARE_TYPES(rnn_layer) {
  // seq_len's place depends on the b args: the op checks the inputs from 3 on.
  descriptor.allow_inputs(libops::types::kFloat).allow_input(3, libops::types::kNumeric).runs_on_any_device();
  descriptor.allow_outputs(libops::types::kFloat);
}

DECLARE_ARGS(rnn_layer) {
  args.describe("A simple recurrent layer, h' = act(x W + h R + b), with lstm_layer's layouts; ONNX's RNN.");
  reads_on_host(args, "seq_len when given, checked against T");
  args.input("x", "the sequence, [T, N, I], [N, T, I] or [N, I, T] (data_format)");
  args.input("W", "input weights: [I, H] ([2, I, H] bidirectional), or [D, H, I] (weights_format 1)");
  args.input("R", "recurrent weights: [H, H] ([2, H, H]), or [D, H, H] (weights_format 1)");
  args.optional_input("b", "with has_biases: [H] ([2, H]) input bias, or [D, 2H] input then recurrent bias");
  args.optional_input("seq_len", "with has_seq_len: [N] integers in [0, T], each row's length");
  args.optional_input("h0", "with has_init_h: [N, H] or [D, N, H], the initial state");
  args.outputs_variadic("y, h_last", "those the ret_* b args ask for, in this order (x's dtype)");
  args.i_arg("data_format", 0, "0 [T, N, I], 1 [N, T, I], 2 [N, I, T], 3 as 0 with direction 4's y [T, 2, N, H]")
      .range(0, 3);
  args.i_arg("direction", 0, "0 forward, 1 backward, 2 both summed, 3 both concatenated, 4 both on their own axis")
      .range(0, 4);
  args.i_arg("activation", 0, "lstm_layer's activation codes: 0 tanh, 1 relu, 2 sigmoid ...").range(0, 10);
  args.i_arg("weights_format", 0, "0 libnd4j-style [I, H] / [H, H]; 1 ONNX's [D, H, I] / [D, H, H]").range(0, 1);
  args.t_arg("alpha", NAN, "the activation's alpha (NaN: its ONNX default)").nan_allowed();
  args.t_arg("beta", NAN, "the activation's beta (NaN: its ONNX default)").nan_allowed();
  args.b_arg("has_biases", false, "b is given");
  args.b_arg("has_seq_len", false, "seq_len is given");
  args.b_arg("has_init_h", false, "h0 is given (else zeros)");
  args.b_arg("ret_full_seq", true, "output y, every step's h");
  args.b_arg("ret_last_h", false, "output the last h of each row and direction");
}
