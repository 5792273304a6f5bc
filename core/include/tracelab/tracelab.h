// Tracelab — a small TensorFlow-2-style engine: tensors on Eigen, eager ops (this header), and, as the
// project grows, reverse-mode autodiff and tl::function tracing. This is the one include users need.
//
//   #include <tracelab/tracelab.h>
//   auto a = tl::constant({1.f, 2.f, 3.f, 4.f}, {2, 2});
//   std::cout << tl::matmul(a, a) << "\n";   // tl.Tensor(shape=(2, 2), dtype=float32, values=[[7. 10.] [15. 22.]])
#pragma once

#include "tracelab/autodiff/tape.h"
#include "tracelab/autodiff/variable.h"
#include "tracelab/base/attrs.h"
#include "tracelab/base/dtype.h"
#include "tracelab/base/error.h"
#include "tracelab/base/log.h"
#include "tracelab/base/shape.h"
#include "tracelab/eager/execute.h"
#include "tracelab/function/concrete_function.h"
#include "tracelab/function/control_flow.h"
#include "tracelab/function/function.h"
#include "tracelab/function/retracing.h"
#include "tracelab/function/trace_key.h"
#include "tracelab/graph/executor.h"
#include "tracelab/graph/graph.h"
#include "tracelab/graph/passes.h"
#include "tracelab/ops/array.h"
#include "tracelab/ops/io.h"
#include "tracelab/ops/linalg.h"
#include "tracelab/ops/math.h"
#include "tracelab/ops/nn.h"
#include "tracelab/ops/reduce.h"
#include "tracelab/registry/registry.h"
#include "tracelab/tensor/creation.h"
#include "tracelab/tensor/tensor.h"
#include "tracelab/tensor/tensor_spec.h"
#include "tracelab/version.h"
