// Tracelab — a small TensorFlow-2-style engine: tensors on Eigen, eager ops, reverse-mode autodiff,
// tl::function tracing, Keras-style layers and tf.data-style datasets. This is the one include users need.
//
//   #include <tracelab/tracelab.h>
//   auto a = tl::constant({1.f, 2.f, 3.f, 4.f}, {2, 2});
//   std::cout << tl::matmul(a, a) << "\n";   // tl.Tensor(shape=(2, 2), dtype=float32, values=[[7. 10.] [15. 22.]])
#pragma once

#include "tracelab/autodiff/tape.h"
#include "tracelab/autodiff/variable.h"
#include "tracelab/base/attrs.h"
#include "tracelab/base/clock.h"
#include "tracelab/base/dtype.h"
#include "tracelab/base/error.h"
#include "tracelab/base/log.h"
#include "tracelab/base/shape.h"
#include "tracelab/data/dataset.h"
#include "tracelab/data/iterator.h"
#include "tracelab/eager/execute.h"
#include "tracelab/experiments/ragged.h"
#include "tracelab/function/any_function.h"
#include "tracelab/function/call_history.h"
#include "tracelab/function/concrete_function.h"
#include "tracelab/function/config.h"
#include "tracelab/function/control_flow.h"
#include "tracelab/function/function.h"
#include "tracelab/function/function_options.h"
#include "tracelab/function/retracing.h"
#include "tracelab/function/tensor_array.h"
#include "tracelab/function/trace_key.h"
#include "tracelab/graph/executor.h"
#include "tracelab/graph/graph.h"
#include "tracelab/graph/passes.h"
#include "tracelab/nn/checkpoint.h"
#include "tracelab/nn/event_file.h"
#include "tracelab/nn/fit.h"
#include "tracelab/nn/losses.h"
#include "tracelab/nn/metrics.h"
#include "tracelab/nn/optimizers.h"
#include "tracelab/nn/initializers.h"
#include "tracelab/nn/layer.h"
#include "tracelab/nn/layers.h"
#include "tracelab/nn/progress.h"
#include "tracelab/nn/saved_model.h"
#include "tracelab/nn/summary.h"
#include "tracelab/ops/array.h"
#include "tracelab/ops/debugging.h"
#include "tracelab/ops/io.h"
#include "tracelab/ops/linalg.h"
#include "tracelab/ops/math.h"
#include "tracelab/ops/nn.h"
#include "tracelab/ops/random.h"
#include "tracelab/ops/reduce.h"
#include "tracelab/registry/registry.h"
#include "tracelab/tensor/creation.h"
#include "tracelab/tensor/tensor.h"
#include "tracelab/tensor/tensor_spec.h"
#include "tracelab/version.h"

/// \mainpage Tracelab C++ API
/// The reference of every public name, generated from the headers in core/include/tracelab by
/// scripts/reference_cpp.sh. Start at the namespace tl (Namespaces above): its functions are the ops, tensor
/// creation and tracing (tl::function); its classes include tl::Tensor, tl::Variable and tl::GradientTape. The
/// guides (docs/ in the repository: tensors, autodiff, tracing, graph, training, layers, datasets, saved_model)
/// show how the parts fit together, with examples that the docs check compiles and runs.

/// \namespace tl
/// Tracelab's public API: tensors and their ops (tl::constant, tl::matmul, ...), reverse-mode autodiff
/// (tl::GradientTape), tracing into graphs (tl::function), Keras-style layers and training (tl::layers), datasets
/// (tl::data). Names in nested `detail` namespaces are internal and may change.

/// \namespace tl::config
/// Process-wide switches of the tracing layer (tf.config), such as run_functions_eagerly.

/// \namespace tl::data
/// tf.data-style input pipelines: Dataset, its iterators, and the in-graph loop over a dataset.

/// \namespace tl::experiments
/// The ragged-input experiment runner shared by the CLI, the benchmark, the JS bridge and the playground.

/// \namespace tl::initializers
/// How layers get their first weights (tf.keras.initializers), drawn from a seeded tl::Generator.

/// \namespace tl::layers
/// Keras-style layers and models (tf.keras.layers), and compile / fit.

/// \namespace tl::losses
/// Loss functions (tf.keras.losses), built from public ops: they work eagerly, under a tape and traced.

/// \namespace tl::metrics
/// Running means over batches (tf.keras.metrics), kept in non-trainable Variables.

/// \namespace tl::optimizers
/// Optimizers that update Variables from gradients, and learning-rate schedules (tf.keras.optimizers).

/// \namespace tl::saved_model
/// Concrete functions and the variables they capture, saved to one file and loaded without the code that traced
/// them (tf.saved_model).

/// \namespace tl::summary
/// Summary writers (tf.summary): scalars as JSON Lines, and TensorBoard event files.

namespace tl::detail {
/// The structured ops of every layer (fused_elementwise, cond, while_loop, while_grad, dataset_loop) are in the op
/// registry before main in any program that includes this header, so Graph::from_json and registry walks find them
/// in a process that never traced one. The umbrella is the one place that may reach every layer; each layer also
/// registers its own on first use.
inline const bool structured_ops_registered =
    (graph::fused_elementwise_op(), register_control_flow_ops(), data::register_dataset_loop_op(), true);
}  // namespace tl::detail
