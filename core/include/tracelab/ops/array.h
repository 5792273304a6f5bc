// Array ops: change a tensor's shape or layout, pick and combine elements, convert dtypes — as in TensorFlow.
// They copy (tensors are values, an output never aliases an input) and accept float32, int32 and bool unless
// noted. Shape arguments are tl::Ints; -1 in reshape means "whatever size makes the element counts agree".
//
//   auto x = tl::reshape(tl::range(0, 6), {2, -1});             // (2, 3)
//   auto y = tl::concat({x, tl::transpose(tl::transpose(x))}, 0); // (4, 3)
//   auto i = tl::cast(tl::gather(x, tl::constant({1, 0}), 1), tl::int32);
#pragma once

#include <cstdint>
#include <vector>

#include "tracelab/base/attrs.h"
#include "tracelab/tensor/tensor.h"

namespace tl {

// ---- shape and layout ----
/// x with a new shape of the same element count; at most one entry of `shape` may be -1.
Tensor reshape(const Tensor& x, const Ints& shape);
Tensor reshape(const Tensor& x, Ints&& shape);  ///< the same, the dims moved into the op's attributes
/// Permutes the dims: output dim i is input dim perm[i]. An empty perm reverses the dims.
Tensor transpose(const Tensor& x, const Ints& perm = {});
/// Inserts a size-1 dim at `axis`, which may be in [-rank-1, rank] (negative counts from the end).
Tensor expand_dims(const Tensor& x, std::int64_t axis);
/// Removes the listed size-1 dims, or every size-1 dim when `axes` is empty.
Tensor squeeze(const Tensor& x, const Ints& axes = {});
/// Repeats x along its size-1 dims and new leading dims up to `shape` (NumPy broadcasting, like tf.broadcast_to).
Tensor broadcast_to(const Tensor& x, const Ints& shape);

// ---- combining and selecting ----
/// Joins tensors of one dtype and rank along an existing `axis`; the other dims must agree.
Tensor concat(const std::vector<Tensor>& values, std::int64_t axis);
/// Joins tensors of one dtype and shape along a new `axis` in [-rank-1, rank].
Tensor stack(const std::vector<Tensor>& values, std::int64_t axis = 0);
/// The box starting at `begin` with extent `size` (-1: up to the end of that dim).
Tensor slice(const Tensor& x, const Ints& begin, const Ints& size);
/// params sliced at the int32 `indices` along `axis`: shape params[:axis] + indices.shape + params[axis+1:].
Tensor gather(const Tensor& params, const Tensor& indices, std::int64_t axis = 0);
/// Sums the rows of `data` by segment (tf.math.unsorted_segment_sum): y[k, ...] adds every data[i..., ...] with
/// segment_ids[i...] == k. data is float32 or int32; segment_ids is int32, its shape a prefix of data's; the output is
/// [num_segments] + data.shape[rank(segment_ids):]. An id outside [0, num_segments) is an InvalidArgument
/// (TensorFlow silently drops negative ids). gather's gradient.
Tensor unsorted_segment_sum(const Tensor& data, const Tensor& segment_ids, std::int64_t num_segments);
/// `buffer` with element `index` (buffer[index]) replaced by `value`: tl::TensorArray::write's op. `index` is an int32
/// scalar in [0, buffer.shape[0]) — with `dynamic_size` any index >= 0, the buffer growing with zero elements up to
/// it; `value` has the buffer's dtype and the shape of one element. Each violation is an error naming the index or
/// the shapes. Gradients: to `value`, the upstream gradient's element `index`; to `buffer`, the rest.
Tensor tensor_array_write(const Tensor& buffer, const Tensor& index, const Tensor& value, bool dynamic_size);
/// Element `index` of `buffer` (buffer[index]): tl::TensorArray::read's op. `index` is an int32 scalar in
/// [0, buffer.shape[0]), else an InvalidArgument naming it and the size. The gradient writes g into zeros at `index`.
Tensor tensor_array_read(const Tensor& buffer, const Tensor& index);
/// The first like.shape[0] elements (rows along dim 0) of x, zero rows appended when like has more: the gradient of
/// a dynamic tensor_array_write, which cuts the grown buffer's gradient back to the buffer's size.
Tensor tensor_array_resize(const Tensor& x, const Tensor& like);
/// Pads with `constant_value`; paddings = {before0, after0, before1, after1, ...}, 2 * rank non-negative entries.
Tensor pad(const Tensor& x, const Ints& paddings, double constant_value = 0);

// ---- creating and converting ----
/// One-hot rows: depth entries, on_value where the int32 index equals the position, off_value elsewhere.
/// An index outside [0, depth) gives a row of off_value. The new dim goes at `axis` (-1: last).
Tensor one_hot(const Tensor& indices, std::int64_t depth, double on_value = 1, double off_value = 0,
               std::int64_t axis = -1, DType dtype = float32);
/// Converts to `dtype`. float -> int32 truncates toward zero and saturates (NaN -> 0); to bool means != 0.
Tensor cast(const Tensor& x, DType dtype);
/// Zeros of x's dtype and shape.
Tensor zeros_like(const Tensor& x);
/// Ones (true for bool) of x's dtype and shape.
Tensor ones_like(const Tensor& x);

// ---- gradient control ----
/// x itself (eagerly the same buffer, as every view op: reshape, expand_dims, squeeze); the gradient passes through
/// unchanged (tf.identity).
Tensor identity(const Tensor& x);
/// x itself (eagerly the same buffer) that the tape does not record, so no gradient flows back through it
/// (tf.stop_gradient): with y = stop_gradient(x), d(sum(y * x))/dx is y, not 2x.
Tensor stop_gradient(const Tensor& x);

}  // namespace tl
