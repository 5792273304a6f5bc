#include "tracelab/nn/summary.h"

#include <chrono>
#include <cmath>
#include <nlohmann/json.hpp>

namespace tl::summary {

namespace {

/// This thread's summary state: the default writer and the current step (TF keeps both per thread).
struct State {
  SummaryWriter* writer = nullptr;
  std::optional<std::int64_t> step;
};

State& state() noexcept {
  thread_local State s;
  return s;
}

}  // namespace

void SummaryWriter::write_histogram(const std::string& tag, const Tensor&, std::int64_t) {
  throw InvalidArgument("summary::histogram('" + tag + "'): this writer writes scalars only (an EventFileWriter "
                        "from tl::summary::create_file_writer writes histograms)");
}

void SummaryWriter::write_graph(const graph::Graph&, std::int64_t) {
  throw InvalidArgument("summary::graph: this writer writes scalars only (an EventFileWriter from "
                        "tl::summary::create_file_writer writes graphs)");
}

ScalarWriter::ScalarWriter(const std::string& path) : path_(path), out_(path, std::ios::app) {
  TL_CHECK(out_.good(), InvalidArgument, "summary: cannot open '", path, "' for writing");
}

void ScalarWriter::scalar(const std::string& tag, double value, std::int64_t step) {
  double wall = std::chrono::duration<double>(std::chrono::system_clock::now().time_since_epoch()).count();
  nlohmann::json line{{"step", step}, {"tag", tag}, {"wall_time", wall}};
  if (std::isfinite(value)) line["value"] = value;
  else line["value"] = std::isnan(value) ? "nan" : (value > 0 ? "inf" : "-inf");
  out_ << line.dump() << '\n';
  out_.flush();
  TL_CHECK(out_.good(), InvalidArgument, "summary: writing '", path_, "' failed");
}

void ScalarWriter::scalar(const std::string& tag, const Tensor& value, std::int64_t step) {
  scalar(tag, value.item<double>(), step);
}

DefaultWriter::DefaultWriter(SummaryWriter& writer) : previous_writer_(state().writer) { state().writer = &writer; }

DefaultWriter::DefaultWriter(SummaryWriter& writer, std::int64_t step)
    : previous_writer_(state().writer), sets_step_(true), previous_step_(state().step) {
  state().writer = &writer;
  state().step = step;
}

DefaultWriter::~DefaultWriter() {
  state().writer = previous_writer_;
  if (sets_step_) state().step = previous_step_;
}

SummaryWriter* default_writer() noexcept { return state().writer; }
void set_step(std::optional<std::int64_t> step) noexcept { state().step = step; }
std::optional<std::int64_t> get_step() noexcept { return state().step; }

bool scalar(const std::string& tag, double value, std::int64_t step) {
  SummaryWriter* writer = state().writer;
  if (writer == nullptr) return false;
  writer->write_scalar(tag, value, step);
  return true;
}

bool scalar(const std::string& tag, double value) {
  if (state().writer == nullptr) return false;
  TL_CHECK(state().step.has_value(), InvalidArgument, "summary::scalar('", tag,
           "'): no step given and none set (tl::summary::set_step, or DefaultWriter(writer, step))");
  return scalar(tag, value, *state().step);
}

bool scalar(const std::string& tag, const Tensor& value, std::int64_t step) {
  if (state().writer == nullptr) return false;
  return scalar(tag, value.item<double>(), step);
}

bool scalar(const std::string& tag, const Tensor& value) {
  if (state().writer == nullptr) return false;
  return scalar(tag, value.item<double>());
}

}  // namespace tl::summary
