// lstm_cell: one LSTM step (libnd4j's lstmLayerCell): lstm_layer's cell
// over a single time step, from given states.
//
//   inputs  x [N, I], W [I, 4H], R [H, 4H], then b [4H] (has_biases),
//           h0 [N, H], c0 [N, H], then peepholes [3H] (has_peepholes)
//   outputs h [N, H], c [N, H], in x's dtype
//
// Gates i, f, g, o as lstm_layer's weights_format 0, with its activations,
// their alphas and betas, and cell_clip. The recurrent engine runs it as a
// layer of T = 1 (recurrent.h), so the cell is the layer's, on every device.
#include <cmath>

#include "libops/ops/declarable_op.h"
#include "libops/ops/device_copy.h"
#include "libops/ops/rnn/layer_spec.h"
#include "libops/ops/rnn/recurrent.h"

namespace libops::ops::rnn {
namespace {

enum BArg { kHasBiases, kHasPeepholes };

Status lstm_cell_call(const Context& block, RnnDesc& d, RnnOperands& in, NDArray views[6]) {
  const NDArray& x = *block.input(0);
  if (x.rank() != 2)
    return block.error(StatusCode::kInvalidArgument, "x%s must be [N, I]", x.shape().str().c_str());
  NDArray x3;
  RETURN_IF_ERROR(with_op_name(block, x.reshape(Dims{1, x.dim(0), x.dim(1)}, x3)));  // one time step
  const LayerSpec spec;  // time-major, forward, libnd4j's layouts
  d.kind = CellKind::kLstm;
  RETURN_IF_ERROR(read_layer(block, spec, x3, *block.input(1), *block.input(2), d));
  RETURN_IF_ERROR(read_activation(block, block.i_arg(0), block.t_arg(1), block.t_arg(2), d.gate_act));
  RETURN_IF_ERROR(read_activation(block, block.i_arg(1), block.t_arg(3), block.t_arg(4), d.cell_act));
  RETURN_IF_ERROR(read_activation(block, block.i_arg(2), block.t_arg(5), block.t_arg(6), d.out_act));
  d.cell_clip = block.t_arg(0);
  d.gates = gate_layout(CellKind::kLstm, 0);
  const LayerInputs has{block.b_arg(kHasBiases), false, true, true, block.b_arg(kHasPeepholes)};
  RETURN_IF_ERROR(read_operands(block, spec, d, has, in, views));
  views[0] = x3;
  in.x = &views[0];
  return Status::ok();
}

}  // namespace
}  // namespace libops::ops::rnn

CUSTOM_OP_IMPL(lstm_cell, -1, 2, false, 0, 0) {
  using namespace libops::ops::rnn;
  RnnDesc d;
  RnnOperands in;
  libops::NDArray views[6];
  RETURN_IF_ERROR(lstm_cell_call(block, d, in, views));
  return run_recurrent(block, d, in, nullptr, OUTPUT_VARIABLE(0), OUTPUT_VARIABLE(1));
}

DECLARE_SHAPE_FN(lstm_cell) {
  using namespace libops;
  using namespace libops::ops::rnn;
  RnnDesc d;
  RnnOperands in;
  NDArray views[6];
  RETURN_IF_ERROR(lstm_cell_call(block, d, in, views));
  const DataType t = INPUT_VARIABLE(0)->dtype();
  shapes.push_back(TensorShape{t, Dims{d.N, d.H}, 'c'});
  shapes.push_back(TensorShape{t, Dims{d.N, d.H}, 'c'});
  return Status::ok();
}

DECLARE_TYPES(lstm_cell) {
  // On a device through the recurrent engine (recurrent.cu and the device's BLAS).
  descriptor.allow_inputs(libops::types::kFloat).runs_on_any_device();
  descriptor.allow_outputs(libops::types::kFloat);
}

DECLARE_ARGS(lstm_cell) {
  args.describe("One LSTM step from given states: libnd4j's lstmLayerCell (gates i, f, g, o).");
  args.input("x", "[N, I]");
  args.input("W", "input weights [I, 4H]");
  args.input("R", "recurrent weights [H, 4H]");
  args.optional_input("b", "with has_biases: [4H]");
  // h0 and c0 are always given; "optional" only because b, when present, comes before them.
  args.optional_input("h0", "[N, H], the previous output (required)");
  args.optional_input("c0", "[N, H], the previous cell state (required)");
  args.optional_input("peepholes", "with has_peepholes: [3H] (i, f, o)");
  args.output("h", "the new output [N, H]");
  args.output("c", "the new cell state [N, H]");
  libops::ops::rnn::lstm_activation_i_args(args);
  libops::ops::rnn::lstm_t_args(args);
  args.b_arg("has_biases", false, "b is given");
  args.b_arg("has_peepholes", false, "peepholes are given");
}

DECLARE_SYN(lstmLayerCell, lstm_cell)
