/// \file cli.hpp
/// \brief The one command-line parser of every scanlab program (the section programs, 11.3's, the
/// GPU benchmark and the emulator's benchmark).
///
/// A program registers its options, each with its help text; the same list gives the --help text
/// and the --capabilities answer, so neither can drift from what is parsed. Parsing is CLI11's
/// (hidden in cli.cpp: only that file compiles CLI11, and nvcc never sees it), with scanlab's rules
/// for bad input: one line saying what is wrong and what to do, thrown as UsageError; the program
/// prints it and exits with status 2. Options are read in command-line order (a later --n wins, a
/// repeated --algorithm adds), "--name value" and "--name=value" alike; a value may start with '-'
/// (`--n -5` is refused by the value's check, not taken for an option).
#pragma once

#include <cstdint>
#include <functional>
#include <memory>
#include <string>
#include <vector>

namespace scanlab {

/// A bad command line: the message is one line saying what is wrong and what to do.
class UsageError : public std::exception {
 public:
  explicit UsageError(std::string message) : message_(std::move(message)) {}
  const char* what() const noexcept override { return message_.c_str(); }

 private:
  std::string message_;
};

namespace cli {

class Parser {
 public:
  /// `program` names the program in --help and --capabilities; `title` is --help's first line.
  Parser(std::string program, std::string title);
  ~Parser();
  Parser(const Parser&) = delete;
  Parser& operator=(const Parser&) = delete;

  /// A flag: `names` is "--name" or "--name,-x"; `on` runs each time it is given. "--name=value" is
  /// refused ("--name takes no value").
  Parser& flag(const std::string& names, const std::string& help, std::function<void()> on);
  /// A flag that sets `target` to true.
  Parser& flag(const std::string& names, const std::string& help, bool& target);
  /// An option with one value, shown as `metavar` in --help; `on` gets the value each time the
  /// option is given (it checks the value and throws UsageError if it is bad). Without a value:
  /// "--name needs a value (see --help)".
  Parser& option(const std::string& name, const std::string& metavar, const std::string& help,
                 std::function<void(const std::string&)> on);
  /// An option that stores its value in `target`.
  Parser& option(const std::string& name, const std::string& metavar, const std::string& help,
                 std::string& target);
  /// A positional argument (optional; in the order registered), shown as `[NAME]` in the usage line.
  Parser& positional(const std::string& name, const std::string& help, std::function<void(const std::string&)> on);
  /// An option this program refuses with `message` (with or without a value), though others take it
  /// (11.3 has no --type); not shown in --help or --capabilities.
  Parser& refuse(const std::string& name, const std::string& message);
  /// A line of --help before the options registered next ("cpu backend only:").
  Parser& heading(const std::string& text);
  /// Text at the end of --help.
  Parser& footer(const std::string& text);

  /// Parses argv (argv[0] is skipped). Throws UsageError with a one-line message: an unknown option
  /// ("unknown option '--frobnicate' (see --help)"), a missing value, or what an option's own check
  /// threw.
  void parse(int argc, const char* const* argv);

  /// The --help text.
  std::string help() const;
  /// Every long option accepted, in the order registered ("--n", "--type", ...).
  std::vector<std::string> long_options() const;
  /// The --capabilities answer: one JSON object (one line) with the section, the program, every
  /// long option, whether --trace takes a FILE and writes the traces as JSON, and the algorithms.
  std::string capabilities(const std::string& section, bool trace_file,
                           const std::vector<std::string>& algorithms) const;

 private:
  struct Impl;
  std::unique_ptr<Impl> impl_;
};

/// `text` as a whole number of digits only (no sign, no blanks) from `lo` to `hi`, else UsageError
/// "`flag` needs `what`, not 'text'" ("--n needs a non-negative whole number, not '-5'").
std::uint64_t whole_number(const std::string& flag, const std::string& text, std::uint64_t lo, std::uint64_t hi,
                           const std::string& what);

/// The last part of a path ("build/bin/scanlab_11_2" -> "scanlab_11_2").
std::string basename(const std::string& path);

}  // namespace cli
}  // namespace scanlab
