// Log sink: where Tracelab's messages go — tl::print output and warnings such as the frequent-retracing
// warning. The default sink writes prints to stdout and warnings to stderr; tests, the CLI and the web page
// install their own sink to capture them.
//
//   tl::ScopedLogCapture capture;             // collects messages until it goes out of scope
//   tl::print("step", step);                  // -> capture.messages() == {{LogLevel::print, "step 3"}}
//   tl::set_log_sink([](tl::LogLevel level, std::string_view text) { ... });
#pragma once

#include <functional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace tl {

/// What a message is.
enum class LogLevel {
  print,    ///< output of tl::print (a graph op: it prints every time the graph runs)
  info,     ///< progress and notes
  warning,  ///< something the user should act on (e.g. frequent retracing)
};

/// "print", "info" or "warning".
const char* log_level_name(LogLevel level) noexcept;

/// Receives every message. It must not throw.
using LogSink = std::function<void(LogLevel level, std::string_view text)>;

/// Installs `sink` for the whole process (nullptr restores the default) and returns the previous one.
LogSink set_log_sink(LogSink sink);

/// Sends `text` to the current sink. A sink that throws is ignored (messages never break a computation).
void log_message(LogLevel level, std::string_view text);

/// Collects messages while alive (and forwards nothing); restores the previous sink on destruction.
class ScopedLogCapture {
 public:
  ScopedLogCapture();
  ~ScopedLogCapture();
  ScopedLogCapture(const ScopedLogCapture&) = delete;
  ScopedLogCapture& operator=(const ScopedLogCapture&) = delete;

  /// The messages so far, oldest first.
  const std::vector<std::pair<LogLevel, std::string>>& messages() const noexcept { return messages_; }
  /// Only the texts of messages of `level`.
  std::vector<std::string> texts(LogLevel level) const;
  /// Forgets the messages so far; capturing goes on.
  void clear() noexcept { messages_.clear(); }

 private:
  std::vector<std::pair<LogLevel, std::string>> messages_;
  LogSink previous_;
};

}  // namespace tl
