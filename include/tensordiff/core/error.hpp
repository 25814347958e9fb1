// tensordiff — the one error type of the library.
#pragma once
#include <cstddef>
#include <cstdint>
#include <optional>
#include <stdexcept>
#include <string>
#include <utility>

#include "config.hpp"

TD_NAMESPACE_BEGIN

/// What went wrong, coarsely; the message says the rest.
enum class ErrorCategory {
  invalid_argument,  ///< API misuse: bad shape, stride, option
  unsupported,       ///< a valid input tensordiff does not handle (dtype, format feature)
  format,            ///< malformed or truncated file content
  security,          ///< input refused by a safety rule (forbidden pickle global, caps)
  io,                ///< open/read/map/write failures
  mismatch,          ///< two inputs that cannot be paired (shape, count)
  device,            ///< CUDA / ACL runtime error
};

/// The category in words ("format error", "I/O error", ...).
inline const char* to_string(ErrorCategory c) noexcept {
  switch (c) {
    case ErrorCategory::invalid_argument: return "invalid argument";
    case ErrorCategory::unsupported: return "unsupported";
    case ErrorCategory::format: return "format error";
    case ErrorCategory::security: return "refused";
    case ErrorCategory::io: return "I/O error";
    case ErrorCategory::mismatch: return "mismatch";
    case ErrorCategory::device: return "device error";
  }
  return "error";
}

/// Where an error happened: file, field (a JSON key, a pickle opcode, a zip
/// member) and byte offset, each optional.
struct ErrorContext {
  std::string file;                    ///< the file read or written ("" when none)
  std::string field;                   ///< the part of it: a JSON key, an opcode, a zip member
  std::optional<std::uint64_t> offset;  ///< byte offset in the file
};

/// `text` made safe for one terminal line: control characters, DEL and
/// newlines become `\n`, `\t`, `\xNN` (so a hostile file name or descr
/// cannot move the cursor or clear the screen), and anything past `max_chars`
/// is cut with a note of how much was left out.
inline std::string escape_for_message(const std::string& text, std::size_t max_chars = 4096) {
  static const char* hex = "0123456789abcdef";
  std::string out;
  out.reserve(text.size() < max_chars ? text.size() : max_chars);
  std::size_t i = 0;
  for (; i < text.size() && out.size() < max_chars; ++i) {
    const auto c = static_cast<unsigned char>(text[i]);
    if (c == '\n') out += "\\n";
    else if (c == '\r') out += "\\r";
    else if (c == '\t') out += "\\t";
    else if (c < 0x20 || c == 0x7f) out += std::string("\\x") + hex[c >> 4] + hex[c & 0xF];
    else out += static_cast<char>(c);
  }
  if (i < text.size()) out += "... (" + std::to_string(text.size() - i) + " more bytes)";
  return out;
}

/// The exception thrown by every tensordiff function. `what()` is one line:
/// "FILE: FIELD at byte N: REASON" with the parts that are known, escaped and
/// truncated by escape_for_message().
class Error : public std::runtime_error {
 public:
  /// `reason` says what is wrong, `context` where.
  Error(ErrorCategory category, std::string reason, ErrorContext context = {})
      : std::runtime_error(format(reason, context)),
        category_(category),
        reason_(std::move(reason)),
        context_(std::move(context)) {}

  ErrorCategory category() const noexcept { return category_; }   ///< what kind of error
  const std::string& reason() const noexcept { return reason_; }   ///< the reason alone, without the context
  const ErrorContext& context() const noexcept { return context_; }  ///< file, field and offset

  /// The same error with the file name filled in (readers learn it late).
  Error with_file(const std::string& file) const {
    ErrorContext c = context_;
    if (c.file.empty()) c.file = file;
    return Error(category_, reason_, std::move(c));
  }

  /// The same error told by `file`, the name the caller asked for, when it names `staged`: a
  /// temporary that is renamed to `file` once complete and removed on failure, so gone by the time
  /// the message is read. The staged path follows in the reason. Any other error comes back as is.
  Error with_final_file(const std::string& staged, const std::string& file) const {
    if (context_.file != staged) return *this;
    ErrorContext c = context_;
    c.file = file;
    return Error(category_, reason_ + " (while writing it as " + staged + ")", std::move(c));
  }

 private:
  static std::string format(const std::string& reason, const ErrorContext& c) {
    std::string s;
    if (!c.file.empty()) s += escape_for_message(c.file, 1024) + ": ";
    if (!c.field.empty()) s += escape_for_message(c.field, 512) + (c.offset ? " " : ": ");
    if (c.offset) s += "at byte " + std::to_string(*c.offset) + ": ";
    return s + escape_for_message(reason, 2048);
  }

  ErrorCategory category_;
  std::string reason_;
  ErrorContext context_;
};

TD_NAMESPACE_END
