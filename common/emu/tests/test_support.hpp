// Helpers for the emulator's tests.
#pragma once

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <string>

#include "scanlab/emu/runtime.hpp"
#include "test_kernels.hpp"

namespace emu_test {

/// Restores the emulator's settings after each test and drops leftover stats.
class Emu : public ::testing::Test {
 protected:
  void SetUp() override {
    saved_ = scanlab::emu::settings();
    scanlab::emu::take_stats();
  }
  void TearDown() override { scanlab::emu::settings() = saved_; }

  /// The message of the LaunchError that `f` throws (fails the test if it throws none).
  template <class F>
  static std::string error_of(F&& f) {
    try {
      f();
    } catch (const scanlab::emu::LaunchError& e) {
      return e.what();
    }
    ADD_FAILURE() << "no LaunchError was thrown";
    return {};
  }

 private:
  scanlab::emu::Settings saved_;
};

inline std::string at(const char* file, int line) { return std::string(file) + ":" + std::to_string(line); }

}  // namespace emu_test
