// Static shared memory: where a kernel library's `__shared__` variables and their guard zones are.
//
// Each `__shared__` variable is a thread_local of the kernel library with a guard zone (a thread_local
// of its own) declared just before it, and every guard registers itself when the library is loaded
// (emu/cuda_shim.hpp). Anchor objects linked first and last into the library
// (common/emu/module/) bound its thread-local storage. From the guards' offsets the emulator knows,
// for every OS thread alike, which bytes are guard zones (filled with kGuardByte, checked at every
// barrier and at the end of each block) and which are variables (poisoned at every block start).
// Standard C++ only: no loader API, no ELF; what the linker did is checked here, once per library.
#include <algorithm>
#include <cstring>
#include <mutex>
#include <string_view>

#include "internal.hpp"

namespace scanlab::emu {

namespace impl {

namespace {

struct Registered {
  std::ptrdiff_t offset;  ///< from the leading anchor
  const char* file;
  unsigned line;
};

struct Module {
  StaticSharedFn fn = nullptr;
  std::vector<Registered> guards;
  std::unique_ptr<StaticLayout> layout;
};

/// Every kernel library loaded so far. Function-local: kernel libraries register while they are
/// loaded, possibly before this library's own static objects would be constructed.
struct Registry {
  std::mutex mutex;
  std::vector<std::unique_ptr<Module>> modules;
  Module& module(StaticSharedFn fn) {
    for (auto& m : modules) {
      if (m->fn == fn) return *m;
    }
    modules.push_back(std::make_unique<Module>());
    modules.back()->fn = fn;
    return *modules.back();
  }
};
Registry& registry() {
  static Registry r;
  return r;
}

/// "brent_kung.cuh:133", as where_text() names a place.
std::string site_text(const char* file, unsigned line) {
  if (const char* slash = std::strrchr(file, '/')) file = slash + 1;
  return std::string(file) + ":" + std::to_string(line);
}

bool is_probe_file(const char* file) {
  constexpr std::string_view name = "shared_probe.cpp";
  const std::string_view path(file);
  return path.size() >= name.size() && path.substr(path.size() - name.size()) == name;
}

/// Builds and checks the layout from the guards the library registered, seen from this OS thread.
std::unique_ptr<StaticLayout> make_layout(StaticSharedFn fn, const std::vector<Registered>& guards) {
  auto layout = std::make_unique<StaticLayout>();
  const detail::StaticShared span = fn();
  const std::ptrdiff_t last = span.last - span.first;
  const auto refuse = [&](const std::string& why) {
    layout->error = "the emulator cannot find the kernel library's static __shared__ memory: " + why +
                    ". scanlab_kernel_library (common/cmake/scanlab.cmake) links common/emu/module/"
                    "shared_first.cpp first and shared_last.cpp last into every kernel library; please "
                    "report this with your compiler and linker versions";
    return std::move(layout);
  };
  const auto lead = static_cast<std::ptrdiff_t>(detail::kStaticLeadingGuardBytes);
  if (last < lead) return refuse("the linker did not keep its anchor objects in link order");
  layout->zones.push_back(StaticZone{0, detail::kStaticLeadingGuardBytes, nullptr, 0});
  for (const Registered& g : guards) {
    if (g.offset < lead || g.offset + static_cast<std::ptrdiff_t>(sizeof(detail::SharedGuard)) > last) {
      return refuse("the variable declared at " + site_text(g.file, g.line) +
                    " lies outside the span between the anchor objects (the linker did not keep them "
                    "first and last)");
    }
    layout->zones.push_back(StaticZone{static_cast<std::size_t>(g.offset), sizeof(detail::SharedGuard), g.file, g.line});
  }
  layout->zones.push_back(StaticZone{static_cast<std::size_t>(last), detail::kStaticTrailingGuardBytes, nullptr, 0});
  std::sort(layout->zones.begin(), layout->zones.end(),
            [](const StaticZone& a, const StaticZone& b) { return a.offset < b.offset; });
  for (std::size_t i = 1; i < layout->zones.size(); ++i) {
    const StaticZone& before = layout->zones[i - 1];
    const StaticZone& zone = layout->zones[i];
    if (before.offset + before.size > zone.offset) return refuse("two guard zones overlap");
    if (zone.offset > before.offset + before.size) {
      layout->variables.emplace_back(before.offset + before.size, zone.offset - (before.offset + before.size));
    }
  }
  // The probe (shared_probe.cpp): its own guard must end where it starts, or start right after it.
  // (Another variable's guard may touch it on the other side.)
  const auto probe = static_cast<std::size_t>(span.probe - span.first);
  bool before = false, after = false;
  for (const StaticZone& z : layout->zones) {
    if (z.file == nullptr || !is_probe_file(z.file)) continue;
    before = before || z.offset + z.size == probe;
    after = after || z.offset == probe + 1;
  }
  if (before == after) {
    return refuse("the compiler did not put a __shared__ variable's guard zone right next to it");
  }
  layout->guards_before_variables = before;
  return layout;
}

}  // namespace

const StaticLayout& static_layout(StaticSharedFn fn) {
  Registry& r = registry();
  std::lock_guard lock(r.mutex);
  Module& m = r.module(fn);
  if (!m.layout) m.layout = make_layout(fn, m.guards);
  return *m.layout;
}

std::string StaticLayout::variable_before(std::size_t zone) const {
  if (zone == 0 || zones[zone - 1].offset + zones[zone - 1].size == zones[zone].offset) return {};
  const StaticZone& owner = guards_before_variables ? zones[zone - 1] : zones[zone];
  return owner.file ? site_text(owner.file, owner.line) : std::string();
}

std::string StaticLayout::variable_after(std::size_t zone) const {
  if (zone + 1 >= zones.size() || zones[zone].offset + zones[zone].size == zones[zone + 1].offset) return {};
  const StaticZone& owner = guards_before_variables ? zones[zone] : zones[zone + 1];
  return owner.file ? site_text(owner.file, owner.line) : std::string();
}

}  // namespace impl

namespace detail {

bool register_shared_guard(StaticShared (*module)(), SharedGuardSiteFn site) {
  const StaticShared span = module();
  const SharedGuardSite g = site();
  impl::Registry& r = impl::registry();
  std::lock_guard lock(r.mutex);
  impl::Module& m = r.module(module);
  m.guards.push_back(impl::Registered{reinterpret_cast<const unsigned char*>(g.guard) - span.first, g.file, g.line});
  return true;
}

}  // namespace detail

}  // namespace scanlab::emu
