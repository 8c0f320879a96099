// Settings of the emulator and their environment variables.
#include <cstdio>
#include <cstdlib>
#include <string>

#include "internal.hpp"

namespace scanlab::emu {

Order parse_order(const std::string& text) {
  if (text == "forward") return Order::forward;
  if (text == "reverse") return Order::reverse;
  if (text == "random") return Order::random;
  throw std::invalid_argument("unknown order '" + text + "' (use forward, reverse or random)");
}

const char* order_name(Order order) {
  switch (order) {
    case Order::forward: return "forward";
    case Order::reverse: return "reverse";
    case Order::random: return "random";
  }
  return "?";
}

Schedule parse_schedule(const std::string& text) {
  if (text == "adversarial") return Schedule::adversarial;
  if (text == "random") return Schedule::random;
  throw std::invalid_argument("unknown block schedule '" + text + "' (use adversarial or random)");
}

const char* schedule_name(Schedule schedule) {
  return schedule == Schedule::adversarial ? "adversarial" : "random";
}

namespace {

// Each reader returns false if the text is not a valid value; the caller then warns and keeps the
// default, so a typo in a variable never stops a program.
bool read_unsigned(const char* text, unsigned long long& out) {
  char* end = nullptr;
  out = std::strtoull(text, &end, 10);
  return end != text && *end == '\0';
}

void apply_environment(Settings& s) {
  auto warn = [](const char* name, const char* value) {
    std::fprintf(stderr, "scanlab emu: ignoring %s=%s (not a valid value)\n", name, value);
  };
  auto order = [&](const char* name, Order& out) {
    if (const char* v = std::getenv(name)) {
      try {
        out = parse_order(v);
      } catch (const std::invalid_argument&) {
        warn(name, v);
      }
    }
  };
  order("SCANLAB_EMU_BLOCK_ORDER", s.block_order);
  order("SCANLAB_EMU_THREAD_ORDER", s.thread_order);
  unsigned long long n = 0;
  if (const char* v = std::getenv("SCANLAB_EMU_SEED")) {
    if (read_unsigned(v, n)) s.seed = n; else warn("SCANLAB_EMU_SEED", v);
  }
  if (const char* v = std::getenv("SCANLAB_EMU_WORKERS")) {
    if (read_unsigned(v, n) && n >= 1 && n <= 256) s.workers = static_cast<unsigned>(n);
    else warn("SCANLAB_EMU_WORKERS", v);
  }
  if (const char* v = std::getenv("SCANLAB_EMU_RESIDENT_BLOCKS")) {
    if (read_unsigned(v, n) && n >= 1 && n <= 64) s.resident_blocks = static_cast<unsigned>(n);
    else warn("SCANLAB_EMU_RESIDENT_BLOCKS", v);
  }
  if (const char* v = std::getenv("SCANLAB_EMU_BLOCK_SCHEDULE")) {
    try {
      s.block_schedule = parse_schedule(v);
    } catch (const std::invalid_argument&) {
      warn("SCANLAB_EMU_BLOCK_SCHEDULE", v);
    }
  }
  if (const char* v = std::getenv("SCANLAB_EMU_DEVICES")) {
    if (read_unsigned(v, n) && n >= 1 && n <= static_cast<unsigned long long>(kMaxDevices)) s.devices = static_cast<int>(n);
    else warn("SCANLAB_EMU_DEVICES", v);
  }
  if (const char* v = std::getenv("SCANLAB_EMU_STACK_KB")) {
    if (read_unsigned(v, n) && n >= 16 && n <= 65536) s.stack_bytes = n * 1024;
    else warn("SCANLAB_EMU_STACK_KB", v);
  }
  if (const char* v = std::getenv("SCANLAB_EMU_WATCHDOG_S")) {
    char* end = nullptr;
    const double seconds = std::strtod(v, &end);
    if (end != v && *end == '\0' && seconds >= 0) s.watchdog_seconds = seconds;
    else warn("SCANLAB_EMU_WATCHDOG_S", v);
  }
  if (const char* v = std::getenv("SCANLAB_EMU_TRACE")) s.trace = std::string(v) == "1";
  if (const char* v = std::getenv("SCANLAB_EMU_TSAN_RACES")) s.tsan_races = std::string(v) == "1";
}

}  // namespace

Settings& settings() {
  // The environment gives the defaults, read once, before anyone can change them.
  static Settings s = [] {
    Settings initial;
    apply_environment(initial);
    return initial;
  }();
  return s;
}

}  // namespace scanlab::emu
