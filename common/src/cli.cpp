#include "scanlab/cli.hpp"

#include <CLI/CLI.hpp>

#include <algorithm>
#include <cerrno>
#include <cstdlib>
#include <limits>
#include <nlohmann/json.hpp>
#include <sstream>

namespace scanlab::cli {

namespace {

/// One registered option, as --help and --capabilities show it.
struct Entry {
  std::string heading;  // a --help line printed before this entry ("" for none)
  std::string names;    // "--n", "--help,-h", or a positional's name
  std::string metavar;  // "N"; "" for a flag
  std::string help;
  bool positional = false;
};

std::string first_name(const std::string& names) { return names.substr(0, names.find(',')); }

}  // namespace

struct Parser::Impl {
  std::string program, title, footer, pending_heading;
  std::vector<Entry> entries;
  CLI::App app;

  Impl(std::string p, std::string t) : program(std::move(p)), title(std::move(t)), app(title, program) {
    app.set_help_flag();      // --help is the program's own flag, with scanlab's text
    app.allow_extras();       // unknown arguments are reported below, in scanlab's words
    app.allow_windows_style_options(false);
  }

  Entry& add(Entry e) {
    e.heading = std::move(pending_heading);
    pending_heading.clear();
    entries.push_back(std::move(e));
    return entries.back();
  }

  const Entry* find(const std::string& name) const {
    for (const Entry& e : entries) {
      std::stringstream names(e.names);
      for (std::string n; std::getline(names, n, ',');) {
        if (n == name && !e.positional) return &e;
      }
    }
    return nullptr;
  }
};

Parser::Parser(std::string program, std::string title)
    : impl_(std::make_unique<Impl>(std::move(program), std::move(title))) {}

Parser::~Parser() = default;

Parser& Parser::flag(const std::string& names, const std::string& help, std::function<void()> on) {
  impl_->add({"", names, "", help});
  impl_->app.add_flag_callback(names, std::move(on), help)->trigger_on_parse();
  return *this;
}

Parser& Parser::flag(const std::string& names, const std::string& help, bool& target) {
  return flag(names, help, [&target] { target = true; });
}

Parser& Parser::option(const std::string& name, const std::string& metavar, const std::string& help,
                       std::function<void(const std::string&)> on) {
  impl_->add({"", name, metavar, help});
  // trigger_on_parse: the callback runs as the option is read, so options apply in command-line order.
  impl_->app.add_option_function<std::string>(name, std::move(on), help)->trigger_on_parse();
  return *this;
}

Parser& Parser::option(const std::string& name, const std::string& metavar, const std::string& help,
                       std::string& target) {
  return option(name, metavar, help, [&target](const std::string& v) { target = v; });
}

Parser& Parser::positional(const std::string& name, const std::string& help,
                           std::function<void(const std::string&)> on) {
  Entry e{"", name, "", help};
  e.positional = true;
  impl_->add(std::move(e));
  impl_->app.add_option_function<std::string>(name, std::move(on), help);
  return *this;
}

Parser& Parser::refuse(const std::string& name, const std::string& message) {
  impl_->app
      .add_option(name, [message](const CLI::results_t&) -> bool { throw UsageError(message); })
      ->expected(0, 1)
      ->trigger_on_parse();
  return *this;
}

Parser& Parser::heading(const std::string& text) {
  impl_->pending_heading = text;
  return *this;
}

Parser& Parser::footer(const std::string& text) {
  impl_->footer = text;
  return *this;
}

void Parser::parse(int argc, const char* const* argv) {
  // CLI11 reads "--flag=1" as "--flag"; scanlab's flags take no value, so say so.
  for (int i = 1; i < argc; ++i) {
    const std::string arg = argv[i];
    const auto eq = arg.find('=');
    if (arg.rfind("--", 0) != 0 || eq == std::string::npos) continue;
    const Entry* e = impl_->find(arg.substr(0, eq));
    if (e != nullptr && e->metavar.empty()) throw UsageError(arg.substr(0, eq) + " takes no value");
  }
  try {
    impl_->app.parse(argc, argv);
  } catch (const CLI::ArgumentMismatch&) {
    // A value was missing: the command line ran out right after the option that wanted it.
    std::string last = argc > 1 ? argv[argc - 1] : "";
    last = last.substr(0, last.find('='));
    throw UsageError(last + " needs a value (see --help)");
  } catch (const CLI::ParseError& e) {
    std::string message = e.what();
    std::replace(message.begin(), message.end(), '\n', ' ');
    throw UsageError(message + " (see --help)");
  }
  const std::vector<std::string> extra = impl_->app.remaining();
  if (!extra.empty()) throw UsageError("unknown option '" + extra.front() + "' (see --help)");
}

std::string Parser::help() const {
  std::size_t width = 20;
  std::string positionals;
  for (const Entry& e : impl_->entries) {
    if (e.positional) {
      positionals += " [" + e.names;
      continue;
    }
    width = std::max(width, first_name(e.names).size() + (e.metavar.empty() ? 0 : e.metavar.size() + 1) + 2);
  }
  for (const Entry& e : impl_->entries) {
    if (e.positional) positionals += "]";
  }
  std::ostringstream out;
  out << impl_->title << "\n\nusage: " << impl_->program << " [options]" << positionals << "\n\n";
  for (const Entry& e : impl_->entries) {
    if (!e.heading.empty()) out << e.heading << "\n";
    std::string left = e.positional ? e.names : first_name(e.names);
    if (!e.metavar.empty()) left += " " + e.metavar;
    left.resize(width, ' ');
    std::stringstream lines(e.help);
    bool first = true;
    for (std::string line; std::getline(lines, line);) {
      out << "  " << (first ? left : std::string(width, ' ')) << line << "\n";
      first = false;
    }
    if (first) out << "  " << left << "\n";
  }
  if (!impl_->footer.empty()) out << "\n" << impl_->footer;
  return out.str();
}

std::vector<std::string> Parser::long_options() const {
  std::vector<std::string> names;
  for (const Entry& e : impl_->entries) {
    std::stringstream all(e.names);
    for (std::string n; std::getline(all, n, ',');) {
      if (!e.positional && n.rfind("--", 0) == 0) names.push_back(n);
    }
  }
  return names;
}

std::string Parser::capabilities(const std::string& section, bool trace_file,
                                 const std::vector<std::string>& algorithms) const {
  const nlohmann::ordered_json answer = {{"section", section},
                                 {"program", impl_->program},
                                 {"options", long_options()},
                                 {"trace_file", trace_file},
                                 {"algorithms", algorithms}};
  return answer.dump();
}

std::uint64_t whole_number(const std::string& flag, const std::string& text, std::uint64_t lo, std::uint64_t hi,
                           const std::string& what) {
  // strtoull accepts "-1" (wrapping it), "+1" and leading blanks; a count is plain digits.
  if (text.empty() || text.find_first_not_of("0123456789") != std::string::npos) {
    throw UsageError(flag + " needs " + what + ", not '" + text + "'");
  }
  errno = 0;
  const unsigned long long value = std::strtoull(text.c_str(), nullptr, 10);
  if (errno == ERANGE && hi == std::numeric_limits<std::uint64_t>::max()) {
    throw UsageError(flag + " value '" + text + "' is too large");
  }
  if (errno == ERANGE || value < lo || value > hi) throw UsageError(flag + " needs " + what + ", not '" + text + "'");
  return value;
}

std::string basename(const std::string& path) {
  const auto slash = path.find_last_of('/');
  return slash == std::string::npos ? path : path.substr(slash + 1);
}

}  // namespace scanlab::cli
