#include "tracelab/base/log.h"

#include <iostream>
#include <mutex>

namespace tl {
namespace {

std::mutex& sink_mutex() {
  static std::mutex mutex;
  return mutex;
}

LogSink& current_sink() {
  static LogSink sink;
  return sink;
}

void default_sink(LogLevel level, std::string_view text) {
  std::ostream& out = level == LogLevel::warning ? std::cerr : std::cout;
  if (level == LogLevel::warning) out << "WARNING: ";
  out << text << '\n';
  out.flush();
}

}  // namespace

const char* log_level_name(LogLevel level) noexcept {
  switch (level) {
    case LogLevel::print: return "print";
    case LogLevel::info: return "info";
    case LogLevel::warning: return "warning";
  }
  return "?";
}

LogSink set_log_sink(LogSink sink) {
  std::lock_guard<std::mutex> lock(sink_mutex());
  return std::exchange(current_sink(), std::move(sink));
}

void log_message(LogLevel level, std::string_view text) {
  LogSink sink;
  {
    std::lock_guard<std::mutex> lock(sink_mutex());
    sink = current_sink();
  }
  try {
    if (sink) sink(level, text);
    else default_sink(level, text);
  } catch (...) {  // a message must never break the computation that emitted it
  }
}

ScopedLogCapture::ScopedLogCapture()
    : previous_(set_log_sink([this](LogLevel level, std::string_view text) {
        messages_.emplace_back(level, std::string(text));
      })) {}

ScopedLogCapture::~ScopedLogCapture() { set_log_sink(std::move(previous_)); }

std::vector<std::string> ScopedLogCapture::texts(LogLevel level) const {
  std::vector<std::string> out;
  for (const auto& [l, text] : messages_)
    if (l == level) out.push_back(text);
  return out;
}

}  // namespace tl
