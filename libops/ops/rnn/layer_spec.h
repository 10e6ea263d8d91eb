// What lstm_layer, gru_layer and rnn_layer share: libnd4j lstmLayer's layouts and
// direction modes, read from a call into an RnnDesc (recurrent.h), the
// shapes of their outputs, and the checks of their inputs.
//
//   data_format  0 x [T, N, I] (time-major), 1 [N, T, I], 2 [N, I, T],
//                3 as 0, for direction 4's output
//   direction    0 forward, 1 backward, 2 both summed, 3 both concatenated
//                along the units, 4 both on their own axis (data_format 3:
//                y [T, 2, N, H], ONNX's layout)
//   weights_format  0 libnd4j: W [I, G*H], R [H, G*H], with a leading 2 when
//                bidirectional, one bias of G*H;
//                1 ONNX: W [D, G*H, I], R [D, G*H, H], bias [D, 2*G*H]
//                (the input bias, then the recurrent one)
// y:  format 0/3: [T, N, H'], 1: [N, T, H'], 2: [N, H', T] with H' = 2H
//     for direction 3, else H; [T, 2, N, H] for direction 4.
// Final states: [N, H] one direction, [2, N, H] both.
#pragma once

#include <cstdint>

#include "libops/array/ndarray.h"
#include "libops/ops/context.h"
#include "libops/ops/declarable_op.h"
#include "libops/ops/rnn/recurrent.h"

namespace libops::ops::rnn {

struct LayerSpec {
  int data_format = 0, direction = 0, weights_format = 0;
};

// Reads the layout from x, W and R and fills d's sizes, directions, strides
// and w_transposed (d.kind set by the caller). Errors name the op.
Status read_layer(const Context& block, const LayerSpec& spec, const NDArray& x, const NDArray& w, const NDArray& r,
                  RnnDesc& d);

Dims y_shape(const LayerSpec& spec, const RnnDesc& d);
Dims state_shape(const RnnDesc& d);  // [N, H] or [2, N, H]

// x as a [T, N, I] view.
Status time_major(const NDArray& x, int data_format, NDArray& out);

// A per-direction parameter: `count` values per direction, given as
// [count] (one direction, libnd4j) or [D, count]; out is its [D, count] view.
Status direction_param(const Context& block, const NDArray& a, const char* name, const RnnDesc& d, int64_t count,
                       NDArray& out);
// An initial state: [N, H] (one direction) or [D, N, H]; out is [D, N, H].
Status initial_state(const Context& block, const NDArray& a, const char* name, const RnnDesc& d, NDArray& out);
// seq_len: [N] integers.
Status check_lengths(const Context& block, const NDArray& a, const RnnDesc& d);

// An activation i arg with its two t args (NaN: the activation's ONNX
// default alpha / beta).
Status read_activation(const Context& block, int64_t code, double alpha, double beta, ActivationFn& out);

// The optional inputs a call has, in their order after x, W and R (each
// present only when its b arg says so).
struct LayerInputs {
  bool biases = false, seq_len = false, init_h = false, init_c = false, peepholes = false;
};
// Checks the inputs' count and shapes against d and points `in` at them;
// views[6] holds the views made (x time-major, the biases, h0, c0, the
// peepholes) and must outlive `in`. A bias of weights_format 1 splits into
// the input and recurrent halves.
Status read_operands(const Context& block, const LayerSpec& spec, const RnnDesc& d, const LayerInputs& has,
                     RnnOperands& in, NDArray views[6]);

// Reads one call of a layer op into a desc and the engine's operands
// (views[6] as read_operands).
using LayerReader = Status (*)(const Context& block, LayerSpec& spec, RnnDesc& d, RnnOperands& in, NDArray views[6]);

// The two bodies every layer op shares. Its outputs are chosen by the b
// args ret_full_seq (at position `ret_full_seq`), then ret_last_h and, with
// `has_c`, ret_last_c right after it.
Status run_layer(Context& block, LayerReader read, int ret_full_seq, bool has_c);
Status layer_output_shapes(Context& block, LayerReader read, int ret_full_seq, bool has_c, ShapeList& shapes);

// LSTM's activation args, shared by lstm_layer and lstm_cell: the i args
// gate_act, cell_act and out_act (declared where the caller is), and the t
// args cell_clip and each activation's alpha and beta.
void lstm_activation_i_args(OpSignature& args);
void lstm_t_args(OpSignature& args);

// The ONNX gate blocks and peephole order (weights_format 1) for `kind`:
// LSTM i, o, f, c and peepholes i, o, f; GRU z, r, h. libnd4j's order
// (weights_format 0) is GateLayout's default for LSTM (i, f, g, o /
// i, f, o) and r, u, c for GRU.
GateLayout gate_layout(CellKind kind, int weights_format);

}  // namespace libops::ops::rnn
