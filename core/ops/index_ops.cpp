// Index ops: int32 indices choose where elements go — gather reads params rows at the indices,
// unsorted_segment_sum adds data rows into the segment each id names (each is the other's gradient),
// one_hot writes on_value at each index along a new dim. gather and unsorted_segment_sum reject an index out of
// range before writing anything; one_hot leaves off_value there, as TensorFlow does. tensor_array_write,
// tensor_array_read and tensor_array_resize are the storage of tl::TensorArray: a buffer whose dim 0 numbers the
// elements (each one's gradient is made of the others, so it works with dim 0 unknown in a traced loop).
#include <algorithm>
#include <cstdint>
#include <span>
#include <type_traits>

#include "ops/detail/array_common.h"
#include "ops/detail/elementwise.h"
#include "ops/detail/register.h"
#include "ops/detail/rules.h"
#include "tracelab/eager/execute.h"
#include "tracelab/ops/array.h"

namespace tl {
namespace detail {
namespace {

using I32 = std::int32_t;
using U32 = std::uint32_t;

/// Gather's rule: params of rank >= 1, int32 indices; shape params[:axis] + indices.shape + params[axis+1:].
void gather_shape(ShapeContext& ctx) {
  const TensorMeta& params = ctx.input(0);
  TL_CHECK(params.shape.rank() >= 1, ShapeError, "gather: params must have rank >= 1, got ", meta_str(params));
  expect_dtype(ctx, 1, {DType::int32});
  auto axis = static_cast<std::size_t>(
      normalize_axis("gather", ctx.attrs.get_or<std::int64_t>("axis", 0), params.shape.rank()));
  const Dims& p = params.shape.dims();
  Dims dims(p.begin(), p.begin() + static_cast<std::ptrdiff_t>(axis));
  const Dims& i = ctx.input(1).shape.dims();
  dims.insert(dims.end(), i.begin(), i.end());
  dims.insert(dims.end(), p.begin() + static_cast<std::ptrdiff_t>(axis) + 1, p.end());
  ctx.output() = TensorMeta{params.dtype, Shape(std::move(dims))};
}

/// Gather's kernel: every index is checked (InvalidArgument, like TF on CPU) before rows are copied.
void gather_kernel(KernelContext& ctx) {
  const Tensor& params = ctx.input(0);
  const Dims& p = params.shape().dims();
  auto axis = static_cast<std::size_t>(
      normalize_axis("gather", ctx.attrs.get_or<std::int64_t>("axis", 0), params.rank()));
  const std::int64_t outer = product(p, 0, axis), size = p[axis], inner = product(p, axis + 1, p.size());
  const std::int64_t count = ctx.input(1).num_elements();
  const I32* index = ctx.input(1).data<I32>();
  for (std::int64_t j = 0; j < count; ++j)
    TL_CHECK(index[j] >= 0 && index[j] < size, InvalidArgument, "gather: indices[", j, "] = ", index[j],
             " is not in [0, ", size, ") (params ", params.shape().str(), ", axis ", axis, ")");
  if (ctx.output().num_elements() == 0) return;
  visit_dtype(params.dtype(), [&](auto tag) {
    using T = decltype(tag);
    const T* src = params.data<T>();
    T* dst = ctx.output().mutable_data<T>();
    for (std::int64_t o = 0; o < outer; ++o)
      for (std::int64_t j = 0; j < count; ++j)
        std::copy_n(src + (o * size + index[j]) * inner, inner, dst + (o * count + j) * inner);
  });
}

/// The new dim's position in one_hot's output, from the axis attribute (-1 or [0, rank]).
std::size_t one_hot_axis(const ShapeContext& ctx) {
  const int rank = ctx.input(0).shape.rank();
  auto axis = ctx.attrs.get_or<std::int64_t>("axis", -1);
  TL_CHECK(axis >= -1 && axis <= rank, InvalidArgument, "one_hot: axis ", axis, " is out of range for indices ",
           meta_str(ctx.input(0)), " (expected -1 or 0 <= axis <= ", rank, ")");
  return static_cast<std::size_t>(axis < 0 ? rank : axis);
}

/// One-hot's rule: int32 indices, depth >= 0, on/off values that fit the dtype; depth is inserted at the axis.
void one_hot_shape(ShapeContext& ctx) {
  expect_dtype(ctx, 0, {DType::int32});
  auto depth = ctx.attrs.get<std::int64_t>("depth");
  TL_CHECK(depth >= 0, InvalidArgument, "one_hot: depth must be non-negative, got ", depth);
  DType dtype = ctx.attrs.get_or("dtype", DType::float32);
  visit_dtype(dtype, [&](auto tag) {
    element_from<decltype(tag)>("one_hot", "on_value", ctx.attrs.get_or("on_value", 1.0));
    element_from<decltype(tag)>("one_hot", "off_value", ctx.attrs.get_or("off_value", 0.0));
  });
  Dims dims = ctx.input(0).shape.dims();
  dims.insert(dims.begin() + static_cast<std::ptrdiff_t>(one_hot_axis(ctx)), depth);
  ctx.output() = TensorMeta{dtype, Shape(std::move(dims))};
}

/// One-hot's kernel: the output, seen as [outer, depth, inner], is off_value except at the indexed positions.
template <class T>
void one_hot_fill(KernelContext& ctx, std::size_t axis) {
  const Dims& in = ctx.input(0).shape().dims();
  const std::int64_t outer = product(in, 0, axis), inner = product(in, axis, in.size());
  const std::int64_t depth = ctx.attrs.get<std::int64_t>("depth");
  const T on = element_from<T>("one_hot", "on_value", ctx.attrs.get_or("on_value", 1.0));
  const T off = element_from<T>("one_hot", "off_value", ctx.attrs.get_or("off_value", 0.0));
  T* out = ctx.output().mutable_data<T>();
  std::fill_n(out, ctx.output().num_elements(), off);
  if (ctx.output().num_elements() == 0) return;
  const I32* index = ctx.input(0).data<I32>();
  for (std::int64_t o = 0; o < outer; ++o)
    for (std::int64_t i = 0; i < inner; ++i) {
      I32 v = index[o * inner + i];
      if (v >= 0 && v < depth) out[(o * depth + v) * inner + i] = on;
    }
}

/// unsorted_segment_sum's rule: float32 or int32 data, int32 segment_ids whose shape is a prefix of data's,
/// num_segments >= 0; the output is [num_segments] + data.shape[rank(segment_ids):].
void segment_sum_shape(ShapeContext& ctx) {
  const TensorMeta& data = ctx.input(0);
  const TensorMeta& ids = ctx.input(1);
  expect_dtype(ctx, 0, {DType::float32, DType::int32});
  expect_dtype(ctx, 1, {DType::int32});
  auto n = ctx.attrs.get<std::int64_t>("num_segments");
  TL_CHECK(n >= 0, InvalidArgument, "unsorted_segment_sum: num_segments must be non-negative, got ", n);
  bool prefix = ids.shape.rank() <= data.shape.rank();
  for (std::size_t k = 0; prefix && k < static_cast<std::size_t>(ids.shape.rank()); ++k)
    prefix = ids.shape[k] < 0 || data.shape[k] < 0 || ids.shape[k] == data.shape[k];
  TL_CHECK(prefix, ShapeError, "unsorted_segment_sum: the shape of segment_ids ", meta_str(ids),
           " must be a prefix of the shape of data ", meta_str(data));
  Dims dims{n};
  dims.insert(dims.end(), data.shape.dims().begin() + ids.shape.rank(), data.shape.dims().end());
  ctx.output() = TensorMeta{data.dtype, Shape(std::move(dims))};
}

/// unsorted_segment_sum's kernel: every id is checked first, then each data row is added to its segment's row
/// (int32 sums wrap, like the other integer arithmetic).
template <class T>
void segment_sum_fill(KernelContext& ctx) {
  const Tensor& data = ctx.input(0);
  const Tensor& ids = ctx.input(1);
  const std::int64_t n = ctx.attrs.get<std::int64_t>("num_segments"), count = ids.num_elements();
  const I32* id = ids.data<I32>();
  for (std::int64_t j = 0; j < count; ++j)
    TL_CHECK(id[j] >= 0 && id[j] < n, InvalidArgument, "unsorted_segment_sum: segment_ids[", j, "] = ", id[j],
             " is not in [0, ", n, ") (num_segments ", n, ")");
  T* out = ctx.output().mutable_data<T>();
  std::fill_n(out, ctx.output().num_elements(), T(0));
  const std::int64_t row = product(data.shape().dims(), static_cast<std::size_t>(ids.rank()),
                                   static_cast<std::size_t>(data.rank()));
  if (row == 0 || count == 0) return;
  const T* src = data.data<T>();
  for (std::int64_t j = 0; j < count; ++j) {
    T* to = out + id[j] * row;
    const T* from = src + j * row;
    if constexpr (std::is_same_v<T, I32>) {
      for (std::int64_t e = 0; e < row; ++e)
        to[e] = static_cast<I32>(static_cast<U32>(to[e]) + static_cast<U32>(from[e]));
    } else {
      ArrayMap<T>(to, row) += ConstArrayMap<T>(from, row);
    }
  }
}

// ---- TensorArray storage: buffer[k] is element k ----

/// The dims of one element of a TensorArray buffer: the buffer's dims after the first.
Shape element_shape_of(const Shape& buffer) { return Shape(buffer.dims().data() + 1, buffer.dims().data() + buffer.rank()); }

/// The rule tensor_array_write and _read share: input 0 is a buffer of rank >= 1 (element k is buffer[k]) and
/// input 1 an int32 scalar index.
void check_buffer_and_index(ShapeContext& ctx) {
  const std::string& op = ctx.op.name();
  TL_CHECK(ctx.input(0).shape.rank() >= 1, ShapeError, op,
           ": the buffer must have rank >= 1 (element k is buffer[k]), got ", meta_str(ctx.input(0)));
  expect_dtype(ctx, 1, {DType::int32});
  TL_CHECK(ctx.input(1).shape.rank() == 0, ShapeError, op, ": the index must be an int32 scalar, got ",
           meta_str(ctx.input(1)));
}

/// tensor_array_write's rule: the buffer and index as above, a value of the buffer's dtype shaped like one element
/// (unknown dims match anything). The output is the buffer's meta, with each element dim known from either side;
/// dim 0 is unknown for a dynamic array (the index decides how far it grows).
void tensor_array_write_shape(ShapeContext& ctx) {
  check_buffer_and_index(ctx);
  const TensorMeta& buffer = ctx.input(0);
  const TensorMeta& value = ctx.input(2);
  const Shape element = element_shape_of(buffer.shape);
  TL_CHECK(value.dtype == buffer.dtype, DTypeError, "tensor_array_write: the array holds ", dtype_name(buffer.dtype),
           " elements, the value is ", meta_str(value));
  TL_CHECK(value.shape.rank() == element.rank() && value.shape.is_compatible_with(element), ShapeError,
           "tensor_array_write: the array's elements have shape ", element.str(), ", the value is ", meta_str(value));
  Dims dims{ctx.attrs.get_or("dynamic_size", false) ? -1 : buffer.shape[0]};
  for (std::size_t k = 0; k < static_cast<std::size_t>(element.rank()); ++k)
    dims.push_back(element[k] >= 0 ? element[k] : value.shape[k]);
  ctx.output() = TensorMeta{buffer.dtype, Shape(std::move(dims))};
}

/// tensor_array_write's kernel: checks the index (>= 0; below the size unless dynamic) and the value's shape, then
/// copies the buffer — grown with zero elements up to the index for a dynamic array — with element `index` replaced.
void tensor_array_write_kernel(KernelContext& ctx) {
  const Tensor& buffer = ctx.input(0);
  const Tensor& value = ctx.input(2);
  const I32 index = ctx.input(1).item<I32>();
  const bool dynamic = ctx.attrs.get_or("dynamic_size", false);
  const std::int64_t size = buffer.shape()[0];
  TL_CHECK(index >= 0, InvalidArgument, "tensor_array_write: index ", index, " is negative (the array has ", size,
           " element(s))");
  TL_CHECK(dynamic || index < size, InvalidArgument, "tensor_array_write: index ", index,
           " is out of range for an array of size ", size, " (dynamic_size is false)");
  const Shape element = element_shape_of(buffer.shape());
  TL_CHECK(value.shape() == element, ShapeError, "tensor_array_write: element ", index, " is ", meta_str(value.meta()),
           " but the array's elements have shape ", element.str());
  Dims dims = buffer.shape().dims();
  dims[0] = std::max<std::int64_t>(size, std::int64_t{index} + 1);
  Tensor out = Tensor::empty(buffer.dtype(), Shape(std::move(dims)));
  const std::int64_t row = element.num_elements();
  visit_dtype(buffer.dtype(), [&](auto tag) {
    using T = decltype(tag);
    T* dst = out.mutable_data<T>();
    std::copy_n(buffer.data<T>(), size * row, dst);
    std::fill(dst + size * row, dst + out.num_elements(), T{});
    std::copy_n(value.data<T>(), row, dst + std::int64_t{index} * row);
  });
  ctx.outputs[0] = std::move(out);
}

/// tensor_array_read's rule: the buffer and index as for the write; the output is one element.
void tensor_array_read_shape(ShapeContext& ctx) {
  check_buffer_and_index(ctx);
  const TensorMeta& buffer = ctx.input(0);
  ctx.output() = TensorMeta{buffer.dtype, element_shape_of(buffer.shape)};
}

/// tensor_array_read's kernel: checks the index against the size, copies the element.
void tensor_array_read_kernel(KernelContext& ctx) {
  const Tensor& buffer = ctx.input(0);
  const I32 index = ctx.input(1).item<I32>();
  const std::int64_t size = buffer.shape()[0];
  TL_CHECK(index >= 0 && index < size, InvalidArgument, "tensor_array_read: index ", index,
           " is out of range for an array of size ", size);
  const std::int64_t row = ctx.output().num_elements();
  visit_dtype(buffer.dtype(), [&](auto tag) {
    using T = decltype(tag);
    std::copy_n(buffer.data<T>() + std::int64_t{index} * row, row, ctx.output().mutable_data<T>());
  });
}

/// tensor_array_resize's rule: x of rank >= 1; the output has like's dim 0 and x's other dims.
void tensor_array_resize_shape(ShapeContext& ctx) {
  const TensorMeta& x = ctx.input(0);
  const TensorMeta& like = ctx.input(1);
  TL_CHECK(x.shape.rank() >= 1 && like.shape.rank() >= 1, ShapeError,
           "tensor_array_resize: both inputs must have rank >= 1, got ", meta_str(x), " and ", meta_str(like));
  Dims dims = x.shape.dims();
  dims[0] = like.shape[0];
  ctx.output() = TensorMeta{x.dtype, Shape(std::move(dims))};
}

/// tensor_array_resize's kernel: x's first rows, then zero rows up to like's dim 0.
void tensor_array_resize_kernel(KernelContext& ctx) {
  const Tensor& x = ctx.input(0);
  const std::int64_t row = element_shape_of(x.shape()).num_elements();
  const std::int64_t kept = std::min(x.shape()[0], ctx.output().shape()[0]) * row;
  visit_dtype(x.dtype(), [&](auto tag) {
    using T = decltype(tag);
    T* dst = ctx.output().mutable_data<T>();
    std::copy_n(x.data<T>(), kept, dst);
    std::fill(dst + kept, dst + ctx.output().num_elements(), T{});
  });
}

// ---- gradient rules: public ops only ----
using Grads = std::span<Tensor>;

/// gather(p, i; axis): d_p = unsorted_segment_sum(g, i, p.dim(axis)) (repeated indices add up), with the axis
/// moved to the front by a transpose and back afterwards when axis > 0; no gradient for the int32 indices
void grad_gather(const GradContext& c, Grads d) {
  const Tensor& params = c.input(0);
  const Tensor& indices = c.input(1);
  const int axis = normalize_axis("gather", c.attrs.get_or<std::int64_t>("axis", 0), params.rank());
  const std::int64_t n = params.shape()[static_cast<std::size_t>(axis)];
  if (axis == 0) {
    d[0] = unsorted_segment_sum(c.grad(), indices, n);
    return;
  }
  const int index_rank = indices.rank();
  Ints front;  // g is p[:axis] + i.shape + p[axis+1:]; put i.shape first
  for (int k = 0; k < index_rank; ++k) front.push_back(axis + k);
  for (int k = 0; k < axis; ++k) front.push_back(k);
  for (int k = axis + index_rank; k < c.grad().rank(); ++k) front.push_back(k);
  Tensor summed = unsorted_segment_sum(transpose(c.grad(), front), indices, n);  // [n] + p[:axis] + p[axis+1:]
  Ints back;  // dim 0 (size n) back to the axis
  for (int k = 1; k <= axis; ++k) back.push_back(k);
  back.push_back(0);
  for (int k = axis + 1; k < params.rank(); ++k) back.push_back(k);
  d[0] = transpose(summed, back);
}

/// unsorted_segment_sum(x, s, n): d_x = gather(g, s) (each element gets its segment's gradient); none for s
void grad_segment_sum(const GradContext& c, Grads d) { d[0] = gather(c.grad(), c.input(1), 0); }


/// tensor_array_write(b, i, v): d_v = g[i]; d_b = g with element i zeroed (nothing reaches b's old element i),
/// cut back to b's size when a dynamic write grew the array.
void grad_tensor_array_write(const GradContext& c, Grads d) {
  const Tensor& index = c.input(1);
  if (c.needs(2)) d[2] = tensor_array_read(c.grad(), index);
  if (!c.needs(0)) return;
  Tensor cleared = tensor_array_write(c.grad(), index, zeros_like(c.input(2)), false);
  d[0] = c.attrs.get_or("dynamic_size", false) ? tensor_array_resize(cleared, c.input(0)) : cleared;
}

/// tensor_array_read(b, i): d_b = zeros with element i = g; none for i
void grad_tensor_array_read(const GradContext& c, Grads d) {
  d[0] = tensor_array_write(zeros_like(c.input(0)), c.input(1), c.grad(), false);
}

/// tensor_array_resize(x, like): d_x = g resized to x's dim 0 (dropped rows get 0); none for like (only its size
/// is read)
void grad_tensor_array_resize(const GradContext& c, Grads d) { d[0] = tensor_array_resize(c.grad(), c.input(0)); }

}  // namespace

void register_index_ops(OpRegistry& r) {
  r.op("gather").doc("y[p..., i..., q...] = params[p..., indices[i...], q...] along axis").inputs(2)
      .attr<std::int64_t>("axis")
      .shape_fn(gather_shape)
      .kernel(gather_kernel)
      .gradient(grad_gather);

  r.op("unsorted_segment_sum")
      .doc("y[k, ...] = sum of data[i..., ...] over the i with segment_ids[i...] == k, k in [0, num_segments); "
           "an id outside that range is an error (TF drops negative ids)")
      .inputs(2).attr<std::int64_t>("num_segments", true)
      .shape_fn(segment_sum_shape)
      .kernel([](KernelContext& ctx) {
        if (ctx.output().dtype() == DType::int32) return segment_sum_fill<I32>(ctx);
        segment_sum_fill<float>(ctx);
      })
      .gradient(grad_segment_sum);

  r.op("tensor_array_write")
      .doc("y = buffer with y[index] = value (tl::TensorArray::write); a dynamic_size array grows with zero "
           "elements up to index; an index < 0 or >= size (not dynamic) is an error")
      .inputs(3).attr<bool>("dynamic_size")
      .traits(trait::dynamic_outputs)
      .shape_fn(tensor_array_write_shape)
      .kernel(tensor_array_write_kernel)
      .gradient(grad_tensor_array_write);

  r.op("tensor_array_read")
      .doc("y = buffer[index] (tl::TensorArray::read); an index outside [0, size) is an error")
      .inputs(2)
      .shape_fn(tensor_array_read_shape)
      .kernel(tensor_array_read_kernel)
      .gradient(grad_tensor_array_read);

  r.op("tensor_array_resize")
      .doc("y = x's first like.shape[0] rows, zero rows appended when like has more (tensor_array_write's gradient)")
      .inputs(2)
      .shape_fn(tensor_array_resize_shape)
      .kernel(tensor_array_resize_kernel)
      .gradient(grad_tensor_array_resize);

  r.op("one_hot").doc("y[..., d, ...] = indices[...] == d ? on_value : off_value, d in [0, depth)").inputs(1)
      .traits(trait::not_differentiable)
      .attr<std::int64_t>("depth", true).attr<double>("on_value").attr<double>("off_value")
      .attr<std::int64_t>("axis").attr<DType>("dtype")
      .shape_fn(one_hot_shape)
      .kernel([](KernelContext& ctx) {
        auto axis = ctx.attrs.get_or<std::int64_t>("axis", -1);
        auto a = static_cast<std::size_t>(axis < 0 ? ctx.input(0).rank() : axis);
        visit_dtype(ctx.output().dtype(), [&](auto tag) { one_hot_fill<decltype(tag)>(ctx, a); });
      });
}

}  // namespace detail

Tensor gather(const Tensor& params, const Tensor& indices, std::int64_t axis) {
  static const OpDef& op = OpRegistry::global().get("gather");
  return execute(op, {params, indices}, {{"axis", axis}});
}

Tensor unsorted_segment_sum(const Tensor& data, const Tensor& segment_ids, std::int64_t num_segments) {
  static const OpDef& op = OpRegistry::global().get("unsorted_segment_sum");
  return execute(op, {data, segment_ids}, {{"num_segments", num_segments}});
}

Tensor tensor_array_write(const Tensor& buffer, const Tensor& index, const Tensor& value, bool dynamic_size) {
  static const OpDef& op = OpRegistry::global().get("tensor_array_write");
  return execute(op, {buffer, index, value}, {{"dynamic_size", dynamic_size}});
}

Tensor tensor_array_read(const Tensor& buffer, const Tensor& index) {
  static const OpDef& op = OpRegistry::global().get("tensor_array_read");
  return execute(op, {buffer, index}, {});
}

Tensor tensor_array_resize(const Tensor& x, const Tensor& like) {
  static const OpDef& op = OpRegistry::global().get("tensor_array_resize");
  return execute(op, {x, like}, {});
}

Tensor one_hot(const Tensor& indices, std::int64_t depth, double on_value, double off_value, std::int64_t axis,
               DType dtype) {
  static const OpDef& op = OpRegistry::global().get("one_hot");
  return execute(op, {indices},
                 {{"depth", depth}, {"on_value", on_value}, {"off_value", off_value}, {"axis", axis},
                  {"dtype", dtype}});
}

}  // namespace tl
