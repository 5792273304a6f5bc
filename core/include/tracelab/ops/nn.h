// Neural-network ops: softmax and log_softmax along an axis, 2-D convolution and 2-D pooling of NHWC images.
// All are float32 only. Sliding windows follow TensorFlow's "VALID" / "SAME" padding rules exactly, so shapes
// and values match tf.nn.conv2d / max_pool2d / avg_pool2d; strides and ksize take 1, 2 or 4 ([1, h, w, 1]) ints.
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

}  // namespace tl
