// tl::TensorArray: a buffer tensor (element k = buffer[k]) and what is known statically — dtype, size, element
// shape. write and read are the tensor_array_write and tensor_array_read ops, stack the buffer itself.
#include "tracelab/function/tensor_array.h"

#include "tracelab/base/error.h"
#include "tracelab/ops/array.h"
#include "tracelab/ops/math.h"
#include "tracelab/ops/reduce.h"
#include "tracelab/tensor/creation.h"

namespace tl {

namespace {

/// The element shape `known` merged with `seen` (each dim known from either side); a ShapeError naming `what` when
/// the ranks or two known dims differ.
Shape merge_element_shape(const char* what, const Shape& known, const Shape& seen) {
  TL_CHECK(known.rank() == seen.rank() && known.is_compatible_with(seen), ShapeError, what,
           ": the array's elements have shape ", known.str(), ", got a value of shape ", seen.str());
  std::vector<std::int64_t> dims(known.dims().begin(), known.dims().end());
  for (std::size_t k = 0; k < dims.size(); ++k)
    if (dims[k] < 0) dims[k] = seen[k];
  return Shape(std::move(dims));
}

}  // namespace

TensorArray::TensorArray(DType dtype, std::int64_t size, TensorArrayOptions options)
    : dtype_(dtype), size_(size), dynamic_size_(options.dynamic_size), element_shape_(std::move(options.element_shape)) {
  TL_CHECK(size >= 0 && size <= std::int64_t{0x7fffffff}, InvalidArgument,
           "TensorArray: the size must be in [0, 2^31), got ", size);
  if (element_shape_ && element_shape_->is_fully_defined()) {
    std::vector<std::int64_t> dims{size};
    dims.insert(dims.end(), element_shape_->dims().begin(), element_shape_->dims().end());
    buffer_ = zeros(Shape(std::move(dims)), dtype);
  }
}

void TensorArray::check_index(const char* what, const Tensor& index, std::int64_t limit, const char* note) const {
  TL_CHECK(index.defined() && index.dtype() == DType::int32 && index.rank() == 0, DTypeError, what,
           ": the index must be an int32 scalar, got ",
           index.defined() ? meta_str(index.meta()) : std::string("an empty handle"));
  if (index.is_symbolic()) return;  // the op checks it when the graph runs
  const std::int32_t i = index.item<std::int32_t>();
  TL_CHECK(i >= 0, InvalidArgument, what, ": index ", i, " is negative");
  TL_CHECK(limit < 0 || i < limit, InvalidArgument, what, ": index ", i, " is out of range for an array of size ",
           limit, note);
}

TensorArray TensorArray::write(const Tensor& index, const Tensor& value) const {
  TL_CHECK(value.defined() && value.dtype() == dtype_, DTypeError, "TensorArray.write: the array holds ",
           dtype_name(dtype_), " elements, the value is ",
           value.defined() ? meta_str(value.meta()) : std::string("an empty handle"));
  const Shape& shape = value.shape();
  Shape merged = element_shape_ ? merge_element_shape("TensorArray.write", *element_shape_, shape) : shape;
  std::int64_t rows = buffer_.defined() ? buffer_.shape()[0] : size_;
  check_index("TensorArray.write", index, dynamic_size_ ? -1 : rows, " (dynamic_size is false)");
  TensorArray out = *this;
  out.element_shape_ = std::move(merged);
  // The first write makes the buffer: `size` zero elements shaped like the value (known only now when traced).
  Tensor buffer = buffer_.defined() ? buffer_ : tensor_array_resize(expand_dims(zeros_like(value), 0), zeros({size_}));
  out.buffer_ = tensor_array_write(buffer, index, value, dynamic_size_);
  return out;
}

TensorArray TensorArray::write(std::int32_t index, const Tensor& value) const { return write(scalar(index), value); }

Tensor TensorArray::read(const Tensor& index) const {
  TL_CHECK(buffer_.defined(), InvalidArgument, "TensorArray.read: nothing has been written and the element shape is ",
           element_shape_ ? "only partly known, " + element_shape_->str() : std::string("unknown"),
           ", so there is no element to read");
  check_index("TensorArray.read", index, buffer_.shape()[0], "");
  return tensor_array_read(buffer_, index);
}

Tensor TensorArray::read(std::int32_t index) const { return read(scalar(index)); }

Tensor TensorArray::stack() const {
  TL_CHECK(buffer_.defined(), InvalidArgument, "TensorArray.stack: nothing has been written and the element shape is ",
           element_shape_ ? "only partly known, " + element_shape_->str() : std::string("unknown"),
           ": give element_shape with every dim known to stack an unwritten array");
  return buffer_;
}

Tensor TensorArray::size() const {
  if (!buffer_.defined()) return scalar(static_cast<std::int32_t>(size_));
  const std::int64_t rows = buffer_.shape()[0];
  if (rows >= 0) return scalar(static_cast<std::int32_t>(rows));
  // A dynamic array in a traced loop: dim 0 is known only when the graph runs. Count it: one 1 per element.
  Ints inner;
  for (int k = 1; k < buffer_.rank(); ++k) inner.push_back(k);
  Tensor per_element = reduce_sum(cast(buffer_, float32), inner);  // (rows,), also for empty elements
  return cast(reduce_sum(ones_like(per_element)), int32);
}

TensorArray TensorArray::with_buffer(const TensorArray& like, Tensor buffer) {
  TL_CHECK(buffer.defined() && buffer.dtype() == like.dtype_ && buffer.rank() >= 1, InvalidArgument,
           "TensorArray: a buffer of ", dtype_name(like.dtype_), " elements (rank >= 1) expected, got ",
           buffer.defined() ? meta_str(buffer.meta()) : std::string("an empty handle"));
  TensorArray out = like;
  const Shape element(buffer.shape().dims().data() + 1, buffer.shape().dims().data() + buffer.rank());
  out.element_shape_ = like.element_shape_ ? merge_element_shape("TensorArray", *like.element_shape_, element) : element;
  out.buffer_ = std::move(buffer);
  return out;
}

void detail::LoopVar<TensorArray>::flatten(const TensorArray& array, std::vector<Tensor>& out) {
  TL_CHECK(array.buffer().defined(), InvalidArgument,
           "while_loop: a TensorArray enters the loop before its buffer exists (element shape ",
           array.element_shape() ? array.element_shape()->str() : std::string("unknown"),
           "): give element_shape with every dim known, or write one element before the loop");
  out.push_back(array.buffer());
}

}  // namespace tl
