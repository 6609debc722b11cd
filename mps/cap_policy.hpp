#pragma once
// How much of its GPU each rank may use. (Which GPU a local rank uses:
// core/device/device.hpp's gpu_of_local_rank.)
#include <cstdint>
#include <string>

namespace mpsfw::mps {

enum class AtpPolicy {
  Double,  // min(100, ceil(200 / k)): each of k ranks may use twice its share, so
           // one rank's idle phases (halo exchange) leave SMs to the others
  Even,    // floor(100 / k): strict partition, no overlap
};

// Active thread percentage for a GPU shared by k ranks (k >= 1).
int auto_active_thread_percentage(int k, AtpPolicy policy);
// The cap of a rank that carries `share` (0..1) of its GPU's work, under
// mps.active_thread_percentage = balanced: the policy's rule with the share
// in place of 1/k (double: min(100, ceil(200 share)), even: floor(100 share)),
// at least 1; a share of 1/k gives auto_active_thread_percentage(k).
int balanced_active_thread_percentage(double share, AtpPolicy policy);
// The one parser of a percentage: "auto" -> 0, "1".."100" -> the value and,
// where `allow_balanced` (the input key, not CUDA's variable), "balanced" ->
// kBalancedCaps; anything else throws InputError naming `origin` and what
// was expected.
constexpr int kBalancedCaps = -1;
int parse_active_thread_percentage(const std::string& text, const std::string& origin,
                                   bool allow_balanced = false);

// SMs a client should see under a cap: the device hands out SMs in pairs (TPCs),
// rounding down, and never fewer than two.
int expected_sms(int total_sms, int percentage);

// mps.pinned_device_mem_limit in the one form nvidia-cuda-mps-control takes:
// a whole number followed by M or G ("512M", "8G"; m and g too) -> bytes.
// Anything else (the daemon reads "64K" as 64M and "2T" as 2M without a word)
// throws InputError naming `origin`, the key and what is expected.
std::int64_t parse_pinned_mem_limit(const std::string& text, const std::string& origin);
// A limit of `bytes` as get_default_device_pinned_mem_limit shows it: whole
// GiB, rounded down, from 1 GiB on ("1536M" reads back as "1G"), else MiB.
std::string pinned_limit_as_shown(std::int64_t bytes);

// Most MPS clients one GPU's server takes: 48 before CUDA 13.1, 60 from it.
int max_clients_per_gpu(int cuda_version);  // e.g. 13000 for 13.0

}  // namespace mpsfw::mps
