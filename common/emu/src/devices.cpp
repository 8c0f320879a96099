// The cpu backend's model of several GPUs of one host (runtime.hpp, "devices"): a current device per
// host thread and the peer-access matrix. Memory needs no model of its own: every device's memory is
// this process's, and the launcher records which device made each buffer (scanlab/memory.hpp).
#include <array>
#include <mutex>

#include "internal.hpp"

namespace scanlab::emu {

namespace {

thread_local int tls_current_device = 0;

std::mutex peer_mutex;
// peer[d][p]: kernels of device d may use device p's memory.
std::array<std::array<bool, kMaxDevices>, kMaxDevices> peer{};

bool valid(int device) { return device >= 0 && device < device_count(); }

}  // namespace

const char* device_status_text(DeviceStatus status) {
  switch (status) {
    case DeviceStatus::ok: return "cudaSuccess: no error";
    case DeviceStatus::invalid_device: return "cudaErrorInvalidDevice: invalid device ordinal";
    case DeviceStatus::peer_access_already_enabled:
      return "cudaErrorPeerAccessAlreadyEnabled: peer access is already enabled";
    case DeviceStatus::peer_access_not_enabled: return "cudaErrorPeerAccessNotEnabled: peer access has not been enabled";
  }
  return "?";
}

int device_count() { return settings().devices; }

int current_device() { return tls_current_device; }

DeviceStatus set_device(int device) {
  if (!valid(device)) return DeviceStatus::invalid_device;
  tls_current_device = device;
  return DeviceStatus::ok;
}

bool can_access_peer(int device, int peer_device) {
  return valid(device) && valid(peer_device) && device != peer_device;
}

DeviceStatus enable_peer_access(int peer_device) {
  const int device = current_device();
  if (!can_access_peer(device, peer_device)) return DeviceStatus::invalid_device;
  std::lock_guard lock(peer_mutex);
  if (peer[device][peer_device]) return DeviceStatus::peer_access_already_enabled;
  peer[device][peer_device] = true;
  return DeviceStatus::ok;
}

DeviceStatus disable_peer_access(int peer_device) {
  const int device = current_device();
  if (!can_access_peer(device, peer_device)) return DeviceStatus::invalid_device;
  std::lock_guard lock(peer_mutex);
  if (!peer[device][peer_device]) return DeviceStatus::peer_access_not_enabled;
  peer[device][peer_device] = false;
  return DeviceStatus::ok;
}

bool peer_access_enabled(int device, int peer_device) {
  if (device == peer_device) return true;
  if (!can_access_peer(device, peer_device)) return false;
  std::lock_guard lock(peer_mutex);
  return peer[device][peer_device];
}

void reset_devices() {
  std::lock_guard lock(peer_mutex);
  peer = {};
  tls_current_device = 0;
}

}  // namespace scanlab::emu
