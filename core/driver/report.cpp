#include "report.hpp"

#include <sys/resource.h>

#include <algorithm>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <ctime>
#include <fstream>

#include <mpsfw/core/base/error.hpp>
#include <mpsfw/core/base/json_writer.hpp>
#include <mpsfw/core/base/number_text.hpp>
#include <mpsfw/core/device/build_info.hpp>
#include <mpsfw/core/device/device.hpp>
#include <mpsfw/core/device/kokkos_runtime.hpp>
#include <mpsfw/core/device/memory.hpp>
#include <mpsfw/core/mesh/decomposition.hpp>
#include <mpsfw/core/parallel/mpi_check.hpp>

namespace mpsfw {
namespace {

std::string grid_text(Int3 v) {
  return std::to_string(v.x) + " x " + std::to_string(v.y) + " x " + std::to_string(v.z);
}

std::string ended_text(const RunReport& r) {
  if (r.ended != "stopped") return r.ended + " at step " + std::to_string(r.end_step);
  return "stopped by " + stop_cause(r) + " at step " + std::to_string(r.end_step) +
         (r.checkpoint.empty() ? ", no checkpoint" : ", checkpoint " + r.checkpoint);
}

void min_avg_max_json(JsonWriter& j, const std::string& key, const MinAvgMax& m) {
  j.begin_object(key).value("min", m.min).value("avg", m.avg).value("max", m.max).end_object();
}

}  // namespace

std::string stop_cause(const RunReport& r) {
  return r.stop_signal.empty() ? "the wall limit (" + r.wall_limit + ")" : r.stop_signal;
}

MinAvgMax reduce_over_ranks(MPI_Comm comm, double value) {
  MinAvgMax m;
  int ranks = 1;
  MPSFW_MPI_CHECK(MPI_Comm_size(comm, &ranks));
  MPSFW_MPI_CHECK(MPI_Allreduce(&value, &m.min, 1, MPI_DOUBLE, MPI_MIN, comm));
  MPSFW_MPI_CHECK(MPI_Allreduce(&value, &m.max, 1, MPI_DOUBLE, MPI_MAX, comm));
  MPSFW_MPI_CHECK(MPI_Allreduce(&value, &m.avg, 1, MPI_DOUBLE, MPI_SUM, comm));
  m.avg /= ranks;
  return m;
}

std::string file_hash(const std::string& path) {
  std::ifstream f(path, std::ios::binary);
  if (!f) return "";
  std::uint64_t h = 1469598103934665603ull;
  char buf[1 << 16];
  while (f.read(buf, sizeof buf) || f.gcount() > 0) {
    for (std::streamsize i = 0; i < f.gcount(); ++i) {
      h ^= static_cast<unsigned char>(buf[i]);
      h *= 1099511628211ull;
    }
  }
  char hex[17];
  std::snprintf(hex, sizeof hex, "%016llx", static_cast<unsigned long long>(h));
  return hex;
}

double peak_rss_bytes() {
  rusage usage{};
  getrusage(RUSAGE_SELF, &usage);
  return static_cast<double>(usage.ru_maxrss) * 1024.0;  // Linux reports KiB
}

RunReport start_report(const std::string& solver, const Params& params, Backend backend,
                       const std::vector<std::string>& warnings) {
  RunReport r;
  r.solver = solver;
  r.version = version();
  r.git_revision = build_revision();
  r.input_hash = file_hash(params.file());
  r.input_file = params.file();
  r.backend = to_string(backend);
  if (backend == Backend::Kokkos) r.backend_detail = kokkos_description();
  for (const ParamSpec& s : params.schema()) {
    const ParamValue& v = params.value(s.name());
    r.parameters.push_back({s.name(), params.as_text(s.name()), v.type, v.integer, v.real});
  }
  r.warnings = warnings;
  return r;
}

RunReport start_job_report(const std::string& solver, const Params& params,
                           const CartDecomposition& d, const DeviceBinding& device,
                           const std::string& host, const std::string& detail,
                           const std::vector<std::string>& warnings) {
  RunReport r = start_report(solver, params, device.backend, warnings);
  r.ranks = d.size();
  r.rank_grid = d.rank_grid();
  r.global_cells = d.global_cells();
  r.device_per_rank = gather_strings(d.comm(), "rank " + std::to_string(d.rank()) + " on " + host +
                                                   ": " + device_text(device) + detail);
  const std::vector<std::string> hosts = gather_strings(d.comm(), host);
  const std::vector<std::string> names = gather_strings(d.comm(), device.name);
  const int mine[3] = {device.gpu, device.multiprocessors, device.mps_enabled};
  std::vector<int> all(3 * hosts.size());
  MPSFW_MPI_CHECK(MPI_Gather(mine, 3, MPI_INT, all.data(), 3, MPI_INT, 0, d.comm()));
  for (size_t k = 0; k < hosts.size(); ++k) {
    r.devices.push_back(
        {static_cast<int>(k), hosts[k], names[k], all[3 * k], all[3 * k + 1], all[3 * k + 2]});
  }
  return r;
}

void add_memory_usage(MPI_Comm comm, RunReport* r) {
  const memory::Usage use = memory::usage();
  r->device_bytes = reduce_over_ranks(comm, static_cast<double>(use.device_peak));
  r->host_bytes = reduce_over_ranks(comm, static_cast<double>(use.host_peak));
  r->peak_rss_bytes = reduce_over_ranks(comm, peak_rss_bytes());
}

void add_job_facts(MPI_Comm comm, const std::string& host, const std::string& command_line,
                   RunReport* r) {
  const std::vector<std::string> all = gather_strings(comm, host);
  r->hosts.clear();
  for (const std::string& h : all) {
    if (std::find(r->hosts.begin(), r->hosts.end(), h) == r->hosts.end()) r->hosts.push_back(h);
  }
  const std::time_t now = std::time(nullptr);
  std::tm utc{};
  gmtime_r(&now, &utc);
  char stamp[32];
  std::strftime(stamp, sizeof stamp, "%Y-%m-%dT%H:%M:%SZ", &utc);
  r->timestamp = stamp;
  r->job_id = batch_job_id();
  r->command_line = command_line;
}

std::string batch_job_id() {
  for (const char* name : {"SLURM_JOB_ID", "PBS_JOBID", "LSB_JOBID", "FLUX_JOB_ID"}) {
    const char* v = std::getenv(name);
    if (v != nullptr && *v != '\0') return v;
  }
  return "";
}

void print_report(std::FILE* out, const RunReport& r) {
  std::fprintf(out, "\n== mpsfw %s: %s run summary ==\n", r.version.c_str(), r.solver.c_str());
  std::fprintf(out, "  input          %s\n", r.input_file.c_str());
  if (r.problem.empty()) {
    std::fprintf(out, "  global grid    %s cells\n", grid_text(r.global_cells).c_str());
  } else {
    std::fprintf(out, "  problem        %s\n", r.problem.c_str());
  }
  std::fprintf(out, "  decomposition  %d ranks as %s\n", r.ranks, grid_text(r.rank_grid).c_str());
  std::fprintf(out, "  backend        %s%s\n", r.backend.c_str(),
               r.backend_detail.empty() ? "" : (" (" + r.backend_detail + ")").c_str());
  std::fprintf(out, "  halo messages  %s\n", r.halo_path.c_str());
  std::fprintf(out, "  MPS            %s\n", r.mps.c_str());
  for (const std::string& line : r.mps_per_rank) std::fprintf(out, "    %s\n", line.c_str());
  for (const std::string& d : r.device_per_rank) std::fprintf(out, "    %s\n", d.c_str());
  std::fprintf(out, "  steps          %ld in %.3f s\n", r.steps, r.loop_seconds);
  std::fprintf(out, "  ended          %s\n", ended_text(r).c_str());
  std::fprintf(out, "  throughput     %.4g %s (%.4g per rank)\n", r.updates_per_second,
               r.throughput_unit.c_str(), r.updates_per_second / r.ranks);
  if (r.steady_steps > 0) {
    std::fprintf(out, "  steady half    %ld steps in %.3f s: %.4g %s\n", r.steady_steps,
                 r.steady_seconds, r.steady_updates_per_second, r.throughput_unit.c_str());
  }
  std::fprintf(out, "\n  %-16s %12s %12s %12s %7s\n", "phase", "min [s]", "avg [s]", "max [s]",
               "% loop");
  for (const PhaseStats& p : r.phases) {
    // No step, no loop to take a share of (what was timed came before it);
    // opening and committing the output lie outside the loop's time.
    char share[16] = "      -";
    if (p.name == kOutputFilesPhase) {
      std::snprintf(share, sizeof share, "outside");
    } else if (r.steps > 0 && r.loop_seconds > 0) {
      std::snprintf(share, sizeof share, "%6.1f%%", 100.0 * p.avg / r.loop_seconds);
    }
    std::fprintf(out, "  %-16s %12.6f %12.6f %12.6f %s\n", p.name.c_str(), p.min, p.avg, p.max,
                 share);
  }
  std::fprintf(out, "\n  %-16s %12s %12s %12s\n", "memory per rank", "min", "avg", "max");
  const auto row = [&](const char* name, const MinAvgMax& m) {
    std::fprintf(out, "  %-16s %12s %12s %12s\n", name, byte_text(m.min).c_str(),
                 byte_text(m.avg).c_str(), byte_text(m.max).c_str());
  };
  row("device (fields)", r.device_bytes);
  row("host (fields)", r.host_bytes);
  row("host peak RSS", r.peak_rss_bytes);
  if (!r.diagnostic_rows.empty()) {
    std::fprintf(out, "\n ");
    for (const std::string& c : r.diagnostic_columns) std::fprintf(out, " %16s", c.c_str());
    std::fprintf(out, "\n");
    // First and last rows only; run.json has them all.
    const size_t n = r.diagnostic_rows.size();
    for (size_t i : {size_t{0}, n - 1}) {
      std::fprintf(out, " ");
      for (double v : r.diagnostic_rows[i]) std::fprintf(out, " %16.9g", v);
      std::fprintf(out, "\n");
      if (n == 1) break;
    }
  }
  for (const std::string& w : r.warnings) std::fprintf(out, "  warning: %s\n", w.c_str());
  std::fprintf(out, "\n");
  std::fflush(out);
}

std::string report_json(const RunReport& r) {
  JsonWriter j;
  j.begin_object();
  j.value("schema_version", kRunReportSchemaVersion);
  j.value("mpsfw_version", r.version).value("git_revision", r.git_revision);
  j.value("timestamp", r.timestamp).value("job_id", r.job_id).value("command_line", r.command_line);
  j.begin_array("hosts");
  for (const std::string& h : r.hosts) j.element(h);
  j.end_array();
  j.value("solver", r.solver).value("input", r.input_file).value("input_fnv1a64", r.input_hash);
  j.value("backend", r.backend).value("backend_detail", r.backend_detail);
  j.value("halo_path", r.halo_path).value("mps", r.mps);
  j.value("ranks", r.ranks);
  j.begin_array("rank_grid").element(r.rank_grid.x).element(r.rank_grid.y).element(r.rank_grid.z);
  j.end_array();
  j.begin_array("global_cells");
  j.element(r.global_cells.x).element(r.global_cells.y).element(r.global_cells.z).end_array();
  j.begin_array("devices");
  for (const DeviceRecord& d : r.devices) {
    j.begin_object().value("rank", d.rank).value("host", d.host).value("name", d.name);
    j.value("gpu", d.gpu).value("multiprocessors", d.multiprocessors);
    j.value("mps_enabled", d.mps_enabled).end_object();
  }
  j.end_array();
  j.begin_array("devices_text");
  for (const std::string& d : r.device_per_rank) j.element(d);
  j.end_array();
  j.value("steps", static_cast<std::int64_t>(r.steps)).value("loop_seconds", r.loop_seconds);
  j.begin_object("ended").value("how", r.ended).value("signal", r.stop_signal);
  j.value("wall_limit", r.wall_limit);
  j.value("step", static_cast<std::int64_t>(r.end_step)).value("checkpoint", r.checkpoint);
  j.end_object();
  j.value("updates_per_second", r.updates_per_second);
  j.value("throughput_unit", r.throughput_unit);
  j.begin_object("steady").value("steps", static_cast<std::int64_t>(r.steady_steps));
  j.value("seconds", r.steady_seconds).value("updates_per_second", r.steady_updates_per_second);
  j.end_object();
  j.begin_object("weak_scaling").begin_array("keys");
  for (const std::string& k : r.weak_scaling_keys) j.element(k);
  j.end_array().value("refusal", r.weak_scaling_refusal).end_object();
  // Keys scripts can name (halo_wait); the name as printed beside them.
  j.begin_object("phases");
  for (const PhaseStats& p : r.phases) {
    std::string key = p.name;
    std::replace(key.begin(), key.end(), ' ', '_');
    j.begin_object(key).value("name", p.name);
    j.value("min", p.min).value("avg", p.avg).value("max", p.max);
    j.begin_array("per_rank");
    for (double s : p.per_rank) j.element(s);
    j.end_array().end_object();
  }
  j.end_object();
  j.begin_object("memory_bytes_per_rank");
  min_avg_max_json(j, "device_fields", r.device_bytes);
  min_avg_max_json(j, "host_fields", r.host_bytes);
  min_avg_max_json(j, "host_peak_rss", r.peak_rss_bytes);
  j.end_object();
  j.begin_object("mps_details");
  for (const auto& [k, v] : r.mps_details) j.value(k, v);
  j.value("verified_clients", r.mps_verified_clients)
      .value("expected_clients", r.mps_expected_clients);
  j.begin_array("daemon_pids");
  for (long p : r.mps_daemon_pids) j.element(static_cast<std::int64_t>(p));
  j.end_array();
  j.begin_array("server_pids");
  for (long p : r.mps_server_pids) j.element(static_cast<std::int64_t>(p));
  j.end_array();
  j.begin_object("seconds");
  for (const auto& [step, s] : r.mps_seconds) j.value(step, s);
  j.end_object();
  j.begin_array("per_rank");
  for (const MpsRankRecord& m : r.mps_ranks) {
    j.begin_object().value("local_rank", m.local_rank).value("pid", std::int64_t{m.pid});
    j.value("gpu", m.gpu).value("mig", m.mig).value("cap", m.cap).value("pinned_limit", m.pinned);
    j.value("sms", m.sms).value("expected_sms", m.expected_sms);
    j.value("mps_attribute", m.mps_attribute).value("in_client_list", m.in_client_list);
    j.value("verified", m.verified).end_object();
  }
  j.end_array();
  j.begin_array("per_rank_text");
  for (const std::string& line : r.mps_per_rank) j.element(line);
  j.end_array();
  j.end_object();
  j.begin_object("parameters");
  for (const ReportParameter& p : r.parameters) {
    switch (p.type) {
      case ParamType::Integer:
        j.value(p.name, p.integer);
        break;
      case ParamType::Real:
        j.value(p.name, p.real);
        break;
      case ParamType::Text:
        j.value(p.name, p.text);
        break;
    }
  }
  j.end_object();
  j.begin_array("diagnostics");
  for (const std::vector<double>& row : r.diagnostic_rows) {
    j.begin_object();
    for (size_t c = 0; c < row.size() && c < r.diagnostic_columns.size(); ++c) {
      j.value(r.diagnostic_columns[c], row[c]);
    }
    j.end_object();
  }
  j.end_array();
  j.begin_array("warnings");
  for (const std::string& w : r.warnings) j.element(w);
  j.end_array();
  j.end_object();
  return j.text() + "\n";
}

}  // namespace mpsfw
