// Finding the thread-local storage of the kernel's module: that is where `__shared__` variables
// live on this backend (the shim maps `__shared__` to `thread_local`), so poisoning it at each block
// start makes unwritten or stale shared memory visible.
#include <dlfcn.h>
#include <link.h>

#include "internal.hpp"

// glibc's resolver for general-dynamic TLS; used when dl_iterate_phdr does not report this thread's
// block (a dlopen'ed module whose TLS this thread has not touched yet).
struct TlsIndex {
  unsigned long module, offset;
};
extern "C" void* __tls_get_addr(TlsIndex*);

namespace scanlab::emu::impl {

namespace {

struct Search {
  std::uintptr_t address;
  TlsSpan found;
  bool matched = false;
};

bool contains(const dl_phdr_info* info, std::uintptr_t address) {
  for (int i = 0; i < info->dlpi_phnum; ++i) {
    const ElfW(Phdr)& ph = info->dlpi_phdr[i];
    if (ph.p_type != PT_LOAD) continue;
    const std::uintptr_t start = info->dlpi_addr + ph.p_vaddr;
    if (address >= start && address < start + ph.p_memsz) return true;
  }
  return false;
}

int visit(dl_phdr_info* info, std::size_t, void* data) {
  auto* search = static_cast<Search*>(data);
  if (!contains(info, search->address)) return 0;
  search->matched = true;
  for (int i = 0; i < info->dlpi_phnum; ++i) {
    const ElfW(Phdr)& ph = info->dlpi_phdr[i];
    if (ph.p_type != PT_TLS || ph.p_memsz == 0) continue;
    void* block = info->dlpi_tls_data;
    if (block == nullptr && info->dlpi_tls_modid != 0) {
      TlsIndex index{info->dlpi_tls_modid, 0};
      block = __tls_get_addr(&index);
    }
    search->found = TlsSpan{block, block ? ph.p_memsz : 0};
  }
  return 1;  // stop: this is the module
}

}  // namespace

TlsSpan find_module_tls(const void* anchor) {
  if (anchor == nullptr) return {};
  Search search{reinterpret_cast<std::uintptr_t>(anchor), {}};
  dl_iterate_phdr(&visit, &search);
  return search.found;
}

}  // namespace scanlab::emu::impl
