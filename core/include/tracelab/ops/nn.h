// Neural-network ops: softmax and log_softmax along an axis, 2-D convolution and 2-D pooling of NHWC images.
// All are float32 only. Sliding windows follow TensorFlow's "VALID" / "SAME" padding rules exactly, so shapes
// and values match tf.nn.conv2d / max_pool2d / avg_pool2d; strides and ksize take 1, 2 or 4 ([1, h, w, 1]) ints.
// Every op here is differentiable (GradientTape); the window ops' gradients are the backprop ops at the end.
//
//   auto probs = tl::softmax(logits);                               // each row sums to 1
//   auto y = tl::conv2d(images, filters, {1, 1}, "SAME");          // images NHWC, filters HWIO
//   auto p = tl::max_pool2d(tl::relu(y), {2, 2}, {2, 2});
#pragma once

#include <cstdint>
#include <string>

#include "tracelab/base/attrs.h"
#include "tracelab/tensor/tensor.h"

namespace tl {

// ---- normalizing along an axis ----
/// exp(x) / sum(exp(x)) along `axis` (computed as exp(x - max) so large logits do not overflow).
Tensor softmax(const Tensor& logits, std::int64_t axis = -1);
/// x - max - log(sum(exp(x - max))) along `axis`: the log of softmax, without its underflow.
Tensor log_softmax(const Tensor& logits, std::int64_t axis = -1);

// ---- sliding windows over NHWC images (padding "VALID" or "SAME") ----
/// 2-D cross-correlation (TF's conv2d): input [batch, h, w, in_ch], filters [kh, kw, in_ch, out_ch].
Tensor conv2d(const Tensor& input, const Tensor& filters, const Ints& strides = {1, 1},
              const std::string& padding = "VALID");
/// Maximum over each ksize window (padding cells are ignored).
Tensor max_pool2d(const Tensor& input, const Ints& ksize, const Ints& strides, const std::string& padding = "VALID");
/// Mean over each ksize window, dividing by the number of non-padding cells (like TensorFlow).
Tensor avg_pool2d(const Tensor& input, const Ints& ksize, const Ints& strides, const std::string& padding = "VALID");

// ---- backprop ops: the gradients of the window ops (TF's Conv2DBackpropInput/Filter, MaxPoolGrad, AvgPoolGrad) ----
// They are differentiable too (each is linear in its gradient operand), so nested tapes give higher orders.
// out_backprop must have the shape the forward op gives, else a ShapeError naming both shapes. In input_sizes,
// batch and channels may be -1 (taken from the other inputs), so a gradient traced with an unknown batch works.
/// d conv2d / d input: conv2d's transpose w.r.t. its input, applied to out_backprop. input_sizes = [N, H, W, C].
Tensor conv2d_backprop_input(const Ints& input_sizes, const Tensor& filters, const Tensor& out_backprop,
                             const Ints& strides = {1, 1}, const std::string& padding = "VALID");
/// d conv2d / d filters: conv2d's transpose w.r.t. its filters, applied to out_backprop (summed over the batch).
/// filter_sizes = [KH, KW, C, O].
Tensor conv2d_backprop_filter(const Tensor& input, const Ints& filter_sizes, const Tensor& out_backprop,
                              const Ints& strides = {1, 1}, const std::string& padding = "VALID");
/// d max_pool2d / d input: each window's out_backprop goes to the FIRST cell (row-major in the window) holding its
/// max, as TensorFlow's CPU kernel does (a NaN counts as the max); overlapping windows accumulate, padding gets
/// nothing. `output` is the forward result: only its shape is checked, the max is found again in `input`.
Tensor max_pool2d_grad(const Tensor& input, const Tensor& output, const Tensor& out_backprop, const Ints& ksize,
                       const Ints& strides, const std::string& padding = "VALID");
/// The transpose of max_pool2d_grad (TF's MaxPoolGradGrad): `grad` (input-shaped) read at each window's max cell,
/// giving the pooled shape. It makes second-order gradients through max_pool2d work.
Tensor max_pool2d_grad_grad(const Tensor& input, const Tensor& output, const Tensor& grad, const Ints& ksize,
                            const Ints& strides, const std::string& padding = "VALID");
/// d avg_pool2d / d input: each window's out_backprop / (its number of non-padding cells) spread over those cells.
Tensor avg_pool2d_grad(const Tensor& out_backprop, const Ints& input_sizes, const Ints& ksize, const Ints& strides,
                       const std::string& padding = "VALID");

}  // namespace tl
