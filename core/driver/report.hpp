#pragma once
// The run report: what ran where, how long each phase took (min/avg/max over
// ranks), throughput, memory. Rank 0 prints it as a table and writes run.json.
#include <mpi.h>

#include <cstdint>
#include <cstdio>
#include <string>
#include <utility>
#include <vector>

#include <mpsfw/core/base/backend.hpp>
#include <mpsfw/core/device/timers.hpp>
#include <mpsfw/core/driver/mps_rank_record.hpp>
#include <mpsfw/core/input/params.hpp>
#include <mpsfw/core/mesh/box.hpp>
#include <mpsfw/core/parallel/string_gather.hpp>

namespace mpsfw {

// The phase that times opening and committing the output file: outside the
// loop's time (the report gives it no share of the loop).
inline constexpr const char kOutputFilesPhase[] = "output files";

class CartDecomposition;
struct DeviceBinding;

struct MinAvgMax {
  double min = 0, avg = 0, max = 0;
};

// A parameter's final value, as text and typed (numbers go to run.json as numbers).
struct ReportParameter {
  std::string name, text;
  ParamType type = ParamType::Text;
  std::int64_t integer = 0;
  double real = 0;
};

// run.json's layout version (docs/run-report.md): raised when a key changes
// meaning or type, not when one is added.
inline constexpr int kRunReportSchemaVersion = 2;

// One rank's device as run.json gives it to scripts (`devices`).
struct DeviceRecord {
  int rank = 0;
  std::string host;
  std::string name;         // "NVIDIA H200", or "host (8 OpenMP threads)"
  int gpu = -1;             // CUDA device ordinal; -1 on the host backend
  int multiprocessors = 0;  // SMs the rank may use (an MPS cap lowers it)
  int mps_enabled = -1;     // cudaDevAttrMpsEnabled: 1, 0; -1 on the host
};

struct RunReport {
  std::string solver, input_file, version;
  std::string git_revision;    // of the build
  std::string input_hash;      // FNV-1a 64 of the input file's bytes, hex
  std::string backend;         // host | cuda | kokkos
  std::string backend_detail;  // kokkos: "Kokkos 4.7.2, execution space Cuda"
  std::string halo_path;       // how halo messages travel
  int ranks = 1;
  Int3 rank_grid, global_cells;
  std::vector<std::string> device_per_rank;  // "rank 0 on node1: cuda:0 NVIDIA H200"
  std::vector<DeviceRecord> devices;         // the same as fields (rank 0)
  long steps = 0;
  // How the run ended: "completed" (reached run.steps) or "stopped" (by
  // `stop_signal`, e.g. "SIGTERM", or at the wall limit `wall_limit`, e.g.
  // "run.wall_limit = 3600", at `end_step`); the checkpoint that resumes it
  // ("" if none was written).
  std::string ended = "completed";
  std::string stop_signal;
  std::string wall_limit;
  long end_step = 0;
  std::string checkpoint;
  double loop_seconds = 0;        // slowest rank's time loop
  double updates_per_second = 0;  // cell (or particle) updates per second, whole job
  std::string throughput_unit = "cell-updates/s";  // what updates_per_second counts
  // The loop's steady half (LoopRecord): its steps, the slowest rank's time
  // and the throughput over it; 0 where the loop took fewer than 2 steps.
  long steady_steps = 0;
  double steady_seconds = 0, steady_updates_per_second = 0;
  std::string problem;  // e.g. "32000 atoms in a 33.6^3 box"; "" prints the global grid
  // The keys a weak-scaling study multiplies (Workload::weak_scaling), or why none.
  std::vector<std::string> weak_scaling_keys;
  std::string weak_scaling_refusal;
  std::vector<PhaseStats> phases;
  MinAvgMax device_bytes, host_bytes, peak_rss_bytes;  // per rank
  std::vector<ReportParameter> parameters;
  std::vector<std::string> diagnostic_columns;
  std::vector<std::vector<double>> diagnostic_rows;
  std::vector<std::string> warnings;
  std::string mps;  // what MPS did for this run, one line
  std::vector<std::pair<std::string, std::string>> mps_details;  // texts (state, reason, ...)
  int mps_verified_clients = 0, mps_expected_clients = 0;        // over all ranks
  std::vector<long> mps_daemon_pids, mps_server_pids;            // node 0's
  // The job: when the report was made (UTC, ISO 8601), on which hosts (each
  // once, in rank order), the batch system's job id ("" outside one), and the
  // command line of rank 0.
  std::string timestamp;
  std::vector<std::string> hosts;
  std::string job_id;
  std::string command_line;
  std::vector<std::string> mps_per_rank;  // node 0's ranks: cap, SMs, client or not
  std::vector<MpsRankRecord> mps_ranks;   // the same as fields
  std::vector<std::pair<std::string, double>> mps_seconds;  // each MPS step's slowest rank
};

// What every solver's report starts with: solver name, version, build, input
// file and its hash, backend, every parameter's final value, warnings.
RunReport start_report(const std::string& solver, const Params& params, Backend backend,
                       const std::vector<std::string>& warnings);
// Collective over d.comm(): start_report's, plus the job's layout (ranks,
// rank grid, global cells) and each rank's line, "rank R on HOST: DEVICE"
// followed by `detail` (", block 64x64x32", ", 8000 atoms").
RunReport start_job_report(const std::string& solver, const Params& params,
                           const CartDecomposition& d, const DeviceBinding& device,
                           const std::string& host, const std::string& detail,
                           const std::vector<std::string>& warnings);
// Collective: memory per rank (device and host fields, peak RSS) into `report`.
void add_memory_usage(MPI_Comm comm, RunReport* report);
// Collective: timestamp, hosts (from each rank's `host`), job id (Slurm, PBS,
// LSF or Flux variables) and `command_line` into `report`.
void add_job_facts(MPI_Comm comm, const std::string& host, const std::string& command_line,
                   RunReport* report);

// The batch system's job id (Slurm, PBS, LSF or Flux variables), "" outside one.
std::string batch_job_id();

// Collective helpers for building a report.
MinAvgMax reduce_over_ranks(MPI_Comm comm, double value);
// (Every rank's string on rank 0: gather_strings, string_gather.hpp.)

// FNV-1a 64-bit hash of a file's bytes as 16 hex digits ("" if unreadable):
// tells results of different inputs apart.
std::string file_hash(const std::string& path);
// This process's peak resident set size in bytes.
double peak_rss_bytes();

void print_report(std::FILE* out, const RunReport& report);
// What stopped a run that ended "stopped": "SIGTERM", or "the wall limit
// (run.wall_limit = 3600)".
std::string stop_cause(const RunReport& report);
std::string report_json(const RunReport& report);

}  // namespace mpsfw
