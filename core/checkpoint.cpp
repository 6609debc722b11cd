#include "checkpoint.hpp"

#include <algorithm>
#include <cstdio>
#include <filesystem>
#include <string>

#include "atomic_file.hpp"
#include "collective.hpp"
#include "error.hpp"
#include "h5_io.hpp"
#include "mpi_check.hpp"
#include "param_attributes.hpp"

namespace mpsfw {
namespace {

std::string step_digits(long step) {
  char text[32];
  std::snprintf(text, sizeof text, "%08ld", step);
  return text;
}

// "a/b.h5" + "X" -> "a/b.X.h5"; without an extension, "a/b" -> "a/b.X".
std::string with_infix(const std::string& path, const std::string& infix) {
  const size_t slash = path.find_last_of('/');
  const size_t dot = path.find_last_of('.');
  if (dot == std::string::npos || (slash != std::string::npos && dot < slash) ||
      dot == (slash == std::string::npos ? 0 : slash + 1)) {
    return path + "." + infix;
  }
  return path.substr(0, dot) + "." + infix + path.substr(dot);
}

}  // namespace

CheckpointPlan::CheckpointPlan(const RunConfig& run)
    : file_(run.checkpoint_file),
      every_(run.checkpoint_every),
      seconds_(60 * run.checkpoint_minutes),
      keep_(run.checkpoint_keep) {}

bool CheckpointPlan::due(long step, const StopPoll& poll, bool polled) {
  if (!enabled()) return false;
  if (every_ > 0 && step % every_ == 0) return true;
  if (seconds_ > 0 && polled && poll.seconds() - last_seconds_ >= seconds_) {
    last_seconds_ = poll.seconds();
    return true;
  }
  return false;
}

std::string CheckpointPlan::path_for(long step) const {
  return keep_ <= 1 ? file_ : with_infix(file_, step_digits(step));
}

void CheckpointPlan::written(const std::string& path, MPI_Comm comm) {
  last_ = path;
  if (keep_ <= 1) return;
  int rank = 0;
  MPSFW_MPI_CHECK(MPI_Comm_rank(comm, &rank));
  if (kept_.empty() || kept_.back() != path) kept_.push_back(path);
  while (static_cast<int>(kept_.size()) > keep_) {
    if (rank == 0) std::remove(kept_.front().c_str());
    kept_.erase(kept_.begin());
  }
}

void write_checkpoint_file(const std::string& path, const Params& params, long step, double time,
                           const std::vector<std::string>& overrides, MPI_Comm comm,
                           const std::function<void(hid_t file)>& write_state) {
  int rank = 0;
  MPSFW_MPI_CHECK(MPI_Comm_rank(comm, &rank));
  std::string error;
  if (rank == 0) {
    const std::string partial = partial_path(path);
    try {
      Params saved = params;
      saved.apply_override("step=" + std::to_string(step), "checkpoint");
      char exact[40];
      std::snprintf(exact, sizeof exact, "%.17g", time);
      saved.apply_override(std::string("time=") + exact, "checkpoint");
      for (const std::string& o : overrides) saved.apply_override(o, "checkpoint");
      h5::Handle file = h5::create_file(partial);
      write_param_attributes(file.get(), saved);
      write_state(file.get());
      // A full disk may show only when the last data is flushed.
      h5::close_file(file, partial);
      move_into_place(partial, path);
    } catch (const std::exception& e) {
      std::remove(partial.c_str());
      error = "checkpoint '" + path + "': " + e.what();
    }
  }
  agree_on_error(comm, error);
}

bool is_numbered_checkpoint_of(const std::string& checkpoint_file, const std::string& path) {
  if (checkpoint_file.empty() || path.empty()) return false;
  const auto resolved = [](const std::string& p) {
    std::error_code ignored;
    return std::filesystem::weakly_canonical(std::filesystem::absolute(p), ignored)
        .lexically_normal()
        .string();
  };
  const std::string numbered = with_infix(resolved(checkpoint_file), "#");
  const std::string candidate = resolved(path);
  const size_t mark = numbered.find_last_of('#');
  const std::string before = numbered.substr(0, mark), after = numbered.substr(mark + 1);
  if (candidate.size() < before.size() + after.size() + 8) return false;
  if (candidate.compare(0, before.size(), before) != 0) return false;
  if (candidate.compare(candidate.size() - after.size(), after.size(), after) != 0) return false;
  const std::string digits =
      candidate.substr(before.size(), candidate.size() - before.size() - after.size());
  return std::all_of(digits.begin(), digits.end(), [](char c) { return c >= '0' && c <= '9'; });
}

std::string resumed_output_path(const std::string& path, long start_step) {
  if (start_step == 0 || path.empty()) return path;
  return with_infix(path, "from" + step_digits(start_step));
}

}  // namespace mpsfw
