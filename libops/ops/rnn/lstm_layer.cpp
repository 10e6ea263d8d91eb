// lstm_layer: a whole LSTM layer over a sequence (libnd4j's lstmLayer, and
// ONNX's LSTM through weights_format 1).
//
//   inputs  x, W, R, then those the b args say are present, in this order:
//           b (has_biases), seq_len (has_seq_len), h0 (has_init_h),
//           c0 (has_init_c), peepholes (has_peepholes)
//   outputs those ret_full_seq, ret_last_h and ret_last_c ask for, in that
//           order: y, the last h, the last c (layer_spec.h for the shapes)
//
// Gates, libnd4j order (weights_format 0): i, f, g, o, peepholes i, f, o;
// ONNX order (weights_format 1): i, o, f, c, peepholes i, o, f.
//   i = gate(gi + pi * c), f = gate(gf + pf * c), g = cell(gg),
//   c' = f * c + i * g (clipped to +-cell_clip when cell_clip > 0),
//   o = gate(go + po * c'), h' = o * out(c')
// A row with a seq_len shorter than T keeps its state past its end and
// gets zeros in y there; the reverse pass of such a row starts at its last
// step. The engine: recurrent.h (CPU, and the cell kernel a device backend
// registered; GEMMs on the device's BLAS).
#include <cmath>

#include "libops/ops/declarable_op.h"
#include "libops/ops/rnn/layer_spec.h"
#include "libops/ops/rnn/recurrent.h"
#include "libops/ops/host_reads.h"

namespace libops::ops::rnn {
namespace {

enum BArg { kHasBiases, kHasSeqLen, kHasInitH, kHasInitC, kHasPeepholes, kRetFullSeq, kRetLastH, kRetLastC };

// The call read into a desc and the engine's operands (views of the inputs).
Status lstm_call(const Context& block, LayerSpec& spec, RnnDesc& d, RnnOperands& in, NDArray views[6]) {
  spec.data_format = static_cast<int>(block.i_arg(0));
  spec.direction = static_cast<int>(block.i_arg(1));
  spec.weights_format = static_cast<int>(block.i_arg(5));
  d.kind = CellKind::kLstm;
  const NDArray& x = *block.input(0);
  RETURN_IF_ERROR(read_layer(block, spec, x, *block.input(1), *block.input(2), d));
  RETURN_IF_ERROR(read_activation(block, block.i_arg(2), block.t_arg(1), block.t_arg(2), d.gate_act));
  RETURN_IF_ERROR(read_activation(block, block.i_arg(3), block.t_arg(3), block.t_arg(4), d.cell_act));
  RETURN_IF_ERROR(read_activation(block, block.i_arg(4), block.t_arg(5), block.t_arg(6), d.out_act));
  d.cell_clip = block.t_arg(0);
  d.gates = gate_layout(CellKind::kLstm, spec.weights_format);

  const LayerInputs has{block.b_arg(kHasBiases), block.b_arg(kHasSeqLen), block.b_arg(kHasInitH),
                        block.b_arg(kHasInitC), block.b_arg(kHasPeepholes)};
  RETURN_IF_ERROR(read_operands(block, spec, d, has, in, views));
  if (!block.b_arg(kRetFullSeq) && !block.b_arg(kRetLastH) && !block.b_arg(kRetLastC))
    return block.error(StatusCode::kInvalidArgument, "asks for no output: set ret_full_seq, ret_last_h or ret_last_c");
  return Status::ok();
}

}  // namespace
}  // namespace libops::ops::rnn

CUSTOM_OP_IMPL(lstm_layer, -1, -1, false, 0, 0) {
  using namespace libops::ops::rnn;
  return run_layer(block, lstm_call, kRetFullSeq, true);
}

DECLARE_SHAPE_FN(lstm_layer) {
  using namespace libops::ops::rnn;
  return layer_output_shapes(block, lstm_call, kRetFullSeq, true, shapes);
}

DECLARE_TYPES(lstm_layer) {
  // On a device through cell_device_kernel (recurrent.cu for CUDA) and its BLAS.
  // Inputs from 3 on are float, but for seq_len (integers), whose place
  // depends on the b args: the op checks them.
  descriptor.allow_inputs(libops::types::kFloat).allow_input(3, libops::types::kNumeric).runs_on_any_device();
  descriptor.allow_outputs(libops::types::kFloat);
}

DECLARE_ARGS(lstm_layer) {
  args.describe("An LSTM layer over a sequence: libnd4j's lstmLayer, and ONNX's LSTM with weights_format 1.");
  reads_on_host(args, "seq_len when given, checked against T");
  args.input("x", "the sequence, [T, N, I], [N, T, I] or [N, I, T] (data_format)");
  args.input("W", "input weights: [I, 4H] ([2, I, 4H] bidirectional), or [D, 4H, I] (weights_format 1)");
  args.input("R", "recurrent weights: [H, 4H] ([2, H, 4H]), or [D, 4H, H] (weights_format 1)");
  args.optional_input("b", "with has_biases: [4H] ([2, 4H]), or [D, 8H] input then recurrent bias (weights_format 1)");
  args.optional_input("seq_len", "with has_seq_len: [N] integers in [0, T], each row's length");
  args.optional_input("h0", "with has_init_h: [N, H] or [D, N, H], the initial output");
  args.optional_input("c0", "with has_init_c: [N, H] or [D, N, H], the initial cell state");
  args.optional_input("peepholes", "with has_peepholes: [3H] or [D, 3H] (i, f, o; i, o, f with weights_format 1)");
  args.outputs_variadic("y, h_last, c_last", "those the ret_* b args ask for, in this order (x's dtype)");
  args.i_arg("data_format", 0, "0 [T, N, I], 1 [N, T, I], 2 [N, I, T], 3 as 0 with direction 4's y [T, 2, N, H]")
      .range(0, 3);
  args.i_arg("direction", 0, "0 forward, 1 backward, 2 both summed, 3 both concatenated, 4 both on their own axis")
      .range(0, 4);
  libops::ops::rnn::lstm_activation_i_args(args);
  args.i_arg("weights_format", 0, "0 libnd4j's layouts and gate order i, f, g, o; 1 ONNX's, gates i, o, f, c")
      .range(0, 1);
  libops::ops::rnn::lstm_t_args(args);
  args.b_arg("has_biases", false, "b is given");
  args.b_arg("has_seq_len", false, "seq_len is given");
  args.b_arg("has_init_h", false, "h0 is given (else zeros)");
  args.b_arg("has_init_c", false, "c0 is given (else zeros)");
  args.b_arg("has_peepholes", false, "peepholes are given");
  args.b_arg("ret_full_seq", true, "output y, every step's h");
  args.b_arg("ret_last_h", false, "output the last h of each row and direction");
  args.b_arg("ret_last_c", false, "output the last c");
}

DECLARE_SYN(lstmLayer, lstm_layer)
