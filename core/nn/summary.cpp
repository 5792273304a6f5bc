#include "tracelab/nn/summary.h"

#include <chrono>
#include <cmath>
#include <nlohmann/json.hpp>

namespace tl::summary {

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

}  // namespace tl::summary
