// The limit: the ragged experiment's model — reduce_max over X, Dense+relu 10-20-40-20-10, Dense(1), MSE, Adam
// — written by hand with Eigen: forward, backward and the Adam update, with every buffer allocated once, no
// framework, no allocation per step. What a traced step is compared with in bench/ragged_bench.
//
//   RaggedLimit limit(initial_weights, {.learning_rate = 0.01f});
//   float loss = limit.step(x_data, x_rows, y);     // x: x_rows * 20 floats, row-major
#pragma once

#include <Eigen/Core>
#include <cmath>
#include <limits>
#include <vector>

namespace tracelab_bench {

class RaggedLimit {
 public:
  using Matrix = Eigen::Matrix<float, Eigen::Dynamic, Eigen::Dynamic, Eigen::RowMajor>;
  using Row = Eigen::Matrix<float, 1, Eigen::Dynamic>;

  struct Adam {
    float learning_rate = 0.01f, beta_1 = 0.9f, beta_2 = 0.999f, epsilon = 1e-7f;
  };

  /// `kernels[i]` is layer i's (in x out) kernel, row-major; biases start at zero (as the experiment's).
  RaggedLimit(const std::vector<std::vector<float>>& kernels, const std::vector<int>& widths, Adam adam)
      : adam_(adam) {
    for (std::size_t i = 0; i + 1 < widths.size(); ++i) {
      Layer layer;
      layer.w = Eigen::Map<const Matrix>(kernels[i].data(), widths[i], widths[i + 1]);
      layer.b = Row::Zero(widths[i + 1]);
      layer.mw = layer.vw = layer.gw = Matrix::Zero(widths[i], widths[i + 1]);
      layer.mb = layer.vb = layer.gb = Row::Zero(widths[i + 1]);
      layer.out = layer.dout = Row::Zero(widths[i + 1]);
      layers_.push_back(layer);
    }
    net_ = Row::Zero(widths[0]);
  }

  /// One training step on x (rows x features, row-major) and target y; returns the loss before the update.
  float step(const float* x, int rows, float y) {
    const int features = static_cast<int>(net_.size());
    Eigen::Map<const Matrix> input(x, rows, features);
    net_ = input.colwise().maxCoeff();
    const Row* in = &net_;
    for (std::size_t i = 0; i < layers_.size(); ++i) {
      Layer& l = layers_[i];
      l.out.noalias() = *in * l.w;
      l.out += l.b;
      if (i + 1 < layers_.size()) l.out = l.out.cwiseMax(0.f);
      in = &l.out;
    }
    const float diff = layers_.back().out(0) - y;
    layers_.back().dout(0) = 2.f * diff;
    for (std::size_t i = layers_.size(); i-- > 0;) {
      Layer& l = layers_[i];
      const Row& below = i == 0 ? net_ : layers_[i - 1].out;
      l.gw.noalias() = below.transpose() * l.dout;
      l.gb = l.dout;
      if (i > 0) {
        Layer& prev = layers_[i - 1];
        prev.dout.noalias() = l.dout * l.w.transpose();
        prev.dout = (prev.out.array() > 0.f).select(prev.dout, 0.f);
      }
    }
    ++t_;
    const float lr = adam_.learning_rate * std::sqrt(1.f - std::pow(adam_.beta_2, static_cast<float>(t_))) /
                     (1.f - std::pow(adam_.beta_1, static_cast<float>(t_)));
    for (Layer& l : layers_) {
      update(l.w, l.mw, l.vw, l.gw, lr);
      update(l.b, l.mb, l.vb, l.gb, lr);
    }
    return diff * diff;
  }

 private:
  struct Layer {
    Matrix w, mw, vw, gw;
    Row b, mb, vb, gb, out, dout;
  };

  template <class P, class G>
  void update(P& p, P& m, P& v, const G& g, float lr) {
    // Moments below FLT_MIN are flushed to zero, as Tracelab's adam_update does (denormals are slow).
    const float tiny = std::numeric_limits<float>::min();
    m = adam_.beta_1 * m + (1.f - adam_.beta_1) * g;
    v = adam_.beta_2 * v + (1.f - adam_.beta_2) * g.cwiseProduct(g);
    m.array() = (m.array().abs() >= tiny).select(m.array(), 0.f);
    v.array() = (v.array() >= tiny).select(v.array(), 0.f);
    p.array() -= lr * m.array() / (v.array().sqrt() + adam_.epsilon);
  }

  Adam adam_;
  std::vector<Layer> layers_;
  Row net_;
  long t_ = 0;
};

}  // namespace tracelab_bench
