// The limit: the ragged experiment's model — reduce_max over X, Dense+relu 10-20-40-20-10, Dense(1), MSE, Adam
// — written by hand with Eigen: forward, backward and the Adam update, with every buffer allocated once, no
// framework, no allocation per step; the parameters, gradients and moments in contiguous arenas so that Adam
// is one vectorized pass over all 2311 parameters. What a traced step is compared with in bench/ragged_bench.
//
//   RaggedLimit limit(initial_weights, {.learning_rate = 0.01f});
//   float loss = limit.step(x_data, x_rows, y);     // x: x_rows * 20 floats, row-major
#pragma once

#include <Eigen/Core>
#include <algorithm>
#include <cmath>
#include <limits>
#include <vector>

namespace tracelab_bench {

class RaggedLimit {
 public:
  using Matrix = Eigen::Matrix<float, Eigen::Dynamic, Eigen::Dynamic, Eigen::RowMajor>;
  using Row = Eigen::Matrix<float, 1, Eigen::Dynamic>;
  using MatrixView = Eigen::Map<Matrix>;
  using RowView = Eigen::Map<Row>;

  struct Adam {
    float learning_rate = 0.01f, beta_1 = 0.9f, beta_2 = 0.999f, epsilon = 1e-7f;
  };

  /// `kernels[i]` is layer i's (in x out) kernel, row-major; biases start at zero (as the experiment's).
  RaggedLimit(const std::vector<std::vector<float>>& kernels, const std::vector<int>& widths, Adam adam)
      : adam_(adam) {
    std::size_t total = 0;
    for (std::size_t i = 0; i + 1 < widths.size(); ++i)
      total += static_cast<std::size_t>(widths[i] + 1) * static_cast<std::size_t>(widths[i + 1]);
    // Every parameter, its gradient and its two moments live in four contiguous arenas: Adam is one pass.
    params_.assign(total, 0.f);
    grads_.assign(total, 0.f);
    m_.assign(total, 0.f);
    v_.assign(total, 0.f);
    std::size_t at = 0;
    for (std::size_t i = 0; i + 1 < widths.size(); ++i) {
      const int in = widths[i], out = widths[i + 1];
      std::copy(kernels[i].begin(), kernels[i].end(), params_.begin() + static_cast<std::ptrdiff_t>(at));
      layers_.push_back(Layer{MatrixView(params_.data() + at, in, out),
                              RowView(params_.data() + at + static_cast<std::size_t>(in * out), out),
                              MatrixView(grads_.data() + at, in, out),
                              RowView(grads_.data() + at + static_cast<std::size_t>(in * out), out), Row::Zero(out),
                              Row::Zero(out)});
      at += static_cast<std::size_t>((in + 1) * out);
    }
    net_ = Row::Zero(widths[0]);
  }

  /// One training step on x (rows x features, row-major) and target y; returns the loss before the update.
  float step(const float* x, int rows, float y) {
    const int features = static_cast<int>(net_.size());
    Eigen::Map<const Matrix> input(x, rows, features);
    net_ = input.colwise().maxCoeff();
    // Forward and backward as plain loops over the small, fixed widths: for 10..40-wide layers these beat
    // Eigen's general products, whose setup costs as much as the arithmetic.
    const float* in = net_.data();
    for (std::size_t i = 0; i < layers_.size(); ++i) {
      Layer& l = layers_[i];
      const auto rows = l.w.rows(), cols = l.w.cols();
      float* out = l.out.data();
      const float* w = l.w.data();
      for (Eigen::Index j = 0; j < cols; ++j) out[j] = l.b.data()[j];
      for (Eigen::Index r = 0; r < rows; ++r) {
        const float a = in[r];
        const float* wr = w + r * cols;
        for (Eigen::Index j = 0; j < cols; ++j) out[j] += a * wr[j];
      }
      if (i + 1 < layers_.size())
        for (Eigen::Index j = 0; j < cols; ++j) out[j] = out[j] > 0.f ? out[j] : 0.f;
      in = out;
    }
    const float diff = layers_.back().out(0) - y;
    layers_.back().dout(0) = 2.f * diff;
    for (std::size_t i = layers_.size(); i-- > 0;) {
      Layer& l = layers_[i];
      const auto rows = l.w.rows(), cols = l.w.cols();
      const float* below = i == 0 ? net_.data() : layers_[i - 1].out.data();
      const float* dout = l.dout.data();
      float* gw = l.gw.data();
      const float* w = l.w.data();
      for (Eigen::Index r = 0; r < rows; ++r)
        for (Eigen::Index j = 0; j < cols; ++j) gw[r * cols + j] = below[r] * dout[j];
      for (Eigen::Index j = 0; j < cols; ++j) l.gb.data()[j] = dout[j];
      if (i > 0) {
        Layer& prev = layers_[i - 1];
        float* pd = prev.dout.data();
        const float* po = prev.out.data();
        for (Eigen::Index r = 0; r < rows; ++r) {
          float sum = 0.f;
          const float* wr = w + r * cols;
          for (Eigen::Index j = 0; j < cols; ++j) sum += dout[j] * wr[j];
          pd[r] = po[r] > 0.f ? sum : 0.f;
        }
      }
    }
    ++t_;
    const float lr = adam_.learning_rate * std::sqrt(1.f - std::pow(adam_.beta_2, static_cast<float>(t_))) /
                     (1.f - std::pow(adam_.beta_1, static_cast<float>(t_)));
    update(lr);
    return diff * diff;
  }

 private:
  struct Layer {
    MatrixView w;
    RowView b;
    MatrixView gw;
    RowView gb;
    Row out, dout;
  };

  /// Adam over every parameter at once (Keras' formulas, a moment below FLT_MIN / (1 - beta) flushed to zero as
  /// Tracelab's adam kernels do with this epsilon: denormals are slow), one vectorized pass over the arenas.
  void update(float lr) {
    // One plain loop: the compiler vectorizes it (SSE natively, simd128 in WebAssembly) and it beats Eigen's
    // five array expressions (one pass each) natively and in WASM, where Eigen has no SIMD packets.
    const float tiny = std::numeric_limits<float>::min();
    const float keep_m = 1.f - adam_.beta_1, keep_v = 1.f - adam_.beta_2, epsilon = adam_.epsilon;
    const bool early = std::sqrt(tiny / keep_v) <= epsilon * 0x1p-24f;  // as the adam kernels decide it
    const float floor_m = early ? tiny / keep_m : tiny, floor_v = early ? tiny / keep_v : tiny;
    float* __restrict p = params_.data();  // the arenas never overlap: lets the compiler vectorize
    float* __restrict m = m_.data();
    float* __restrict v = v_.data();
    const float* __restrict g = grads_.data();
    const std::size_t n = params_.size();
    for (std::size_t i = 0; i < n; ++i) {
      float mi = m[i] + (g[i] - m[i]) * keep_m;
      mi = std::fabs(mi) >= floor_m ? mi : 0.f;
      float vi = v[i] + (g[i] * g[i] - v[i]) * keep_v;
      vi = vi >= floor_v ? vi : 0.f;
      m[i] = mi;
      v[i] = vi;
      p[i] -= lr * mi / (std::sqrt(vi) + epsilon);
    }
  }

  Adam adam_;
  std::vector<float> params_, grads_, m_, v_;
  std::vector<Layer> layers_;
  Row net_;
  long t_ = 0;
};

}  // namespace tracelab_bench
