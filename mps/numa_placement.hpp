#pragma once
// A rank's CPUs near its GPU. Where the launcher left a rank free to run on
// every CPU, the session pins it to the CPUs of its GPU's NUMA node (the PCI
// device's local_cpulist), as LAMMPS, GROMACS and AMReX guides ask users to do
// by hand: host staging and kernel launches then stay on the GPU's side of
// the machine. A rank the launcher or a cgroup already restricted is left as
// it is, and so is one whose GPU's CPUs are fewer than the ranks sharing it.
#include <string>
#include <vector>

#include "launcher.hpp"

namespace mpsfw::mps {

// "0-15,32-47" -> {0..15, 32..47}; throws nothing (bad parts are skipped).
std::vector<int> parse_cpu_list(const std::string& text);
// The CPUs near PCI device `pci_bus` ("0000:3b:00.0"), from
// /sys/bus/pci/devices/<bus>/local_cpulist (MPSFW_SYSFS_ROOT replaces /sys,
// for tests); empty when unknown.
std::vector<int> cpus_near(const std::string& pci_bus, const EnvLookup& env = nullptr);
// Pins this process to `near` when its affinity is every online CPU and
// `near` holds at least `ranks_sharing` CPUs. Returns what it did, for the
// status ("" when it left the process alone).
std::string place_near(const std::vector<int>& near, int ranks_sharing);

}  // namespace mpsfw::mps
