// The runner's side of the grader's channel (scanlab/remote.hpp): a loop that reads a request on fd 3,
// runs it in this process (the student's kernels), and answers on fd 4.
#include <unistd.h>

#include <cerrno>
#include <cstdio>
#include <cstring>
#include <stdexcept>

#include "scanlab/error.hpp"
#include "scanlab/remote.hpp"
#include "scanlab/types.hpp"

#if defined(SCANLAB_WITH_EMULATOR)
#include "scanlab/emu/runtime.hpp"
#endif

namespace scanlab::remote {
namespace {

constexpr int kRequests = 3, kAnswers = 4;

}  // namespace

void add_table(Entries& entries, std::string_view name, const AlgorithmTable& table) {
  for (const Algorithm& a : table.algorithms) {
    add_run(entries, std::string(name) + "." + std::string(a.name), a.run);
  }
  const auto device = table.device;
  entries.emplace_back(std::string(name) + ".device", [device](Reader&, Writer& out) { out.str(device()); });
}

void add_run(Entries& entries, std::string name, std::function<RunResult(const RunRequest&)> fn) {
  entries.emplace_back(std::move(name), [fn = std::move(fn)](Reader& in, Writer& out) {
    std::string input;
    RunRequest request = in.request(input);
    // The output array: for a request of reps > 0 elements beyond n (11.7's repeated launches) the
    // input's size, which the checker sent.
    std::string output(input.size(), '\0');
    if (request.problem.in_place) {
      output = input;
      request.input = output.data();
    }
    request.output = output.data();
    answer(out, request, output.size(), fn(request));
  });
}

void answer(Writer& out, const RunRequest& request, std::size_t bytes, const RunResult& result, const std::string* more) {
  out.str(std::string_view(static_cast<const char*>(request.output), bytes));
  out.result(result);
  if (more) out.str(*more);
}

int serve(const Entries& entries) {
  for (;;) {
    std::uint64_t length = 0;
    if (!read_all(kRequests, &length, sizeof length)) return 0;  // the checker is done
    if (length > kMaxMessageBytes) {
      std::fprintf(stderr, "scanlab: the grader sent a request of %llu bytes, more than the %llu a runner takes\n",
                   static_cast<unsigned long long>(length), static_cast<unsigned long long>(kMaxMessageBytes));
      return 3;
    }
    std::string frame(length, '\0');
    if (!read_all(kRequests, frame.data(), length)) return 3;
    Reader in(frame);
    Writer out;
    try {
      const std::string entry = in.str();
      const std::string settings = in.str();
#if defined(SCANLAB_WITH_EMULATOR)
      if (settings.size() == sizeof(emu::Settings)) std::memcpy(&emu::settings(), settings.data(), settings.size());
#endif
      const Handler* handler = nullptr;
      for (const auto& [name, h] : entries) {
        if (name == entry) handler = &h;
      }
      if (!handler) throw Error("the kernels' runner has no entry '" + entry + "'");
      Writer answer;
      (*handler)(in, answer);
      out.u64(0);
      out.str(answer.bytes());
    } catch (const NoDeviceError& e) {
      out = Writer();
      out.u64(1);
      out.u64(static_cast<std::uint64_t>(Thrown::no_device));
      out.str(e.what());
    } catch (const Error& e) {
      out = Writer();
      out.u64(1);
      out.u64(static_cast<std::uint64_t>(Thrown::error));
      out.str(e.what());
    } catch (const std::exception& e) {
      out = Writer();
      out.u64(1);
      out.u64(static_cast<std::uint64_t>(Thrown::other));
      out.str(e.what());
    }
    std::vector<std::string> waits;
#if defined(SCANLAB_WITH_EMULATOR)
    waits = emu::take_block_waits();
#endif
    out.u64(waits.size());
    for (const std::string& w : waits) out.str(w);
    std::fflush(stdout);  // what the kernels printed, before the answer that ends the call
    std::fflush(stderr);
    const std::uint64_t size = out.bytes().size();
    if (!write_all(kAnswers, &size, sizeof size) || !write_all(kAnswers, out.bytes().data(), size)) return 3;
  }
}

}  // namespace scanlab::remote
