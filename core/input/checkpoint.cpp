#include "checkpoint.hpp"

#include <algorithm>
#include <cstdio>
#include <filesystem>
#include <functional>
#include <set>
#include <string>
#include <utility>
#include <vector>

#include "param_attributes.hpp"
#include <mpsfw/core/base/atomic_file.hpp>
#include <mpsfw/core/base/error.hpp>
#include <mpsfw/core/base/number_text.hpp>
#include <mpsfw/core/io/h5_io.hpp>
#include <mpsfw/core/parallel/collective.hpp>
#include <mpsfw/core/parallel/mpi_check.hpp>

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

// The step digits of `path` when it is a numbered checkpoint of
// `checkpoint_file` (is_numbered_checkpoint_of), else "".
std::string numbered_digits(const std::string& checkpoint_file, const std::string& path) {
  if (checkpoint_file.empty() || path.empty()) return "";
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
  if (candidate.size() < before.size() + after.size() + 8) return "";
  if (candidate.compare(0, before.size(), before) != 0) return "";
  if (candidate.compare(candidate.size() - after.size(), after.size(), after) != 0) return "";
  const std::string digits =
      candidate.substr(before.size(), candidate.size() - before.size() - after.size());
  const bool all_digits =
      std::all_of(digits.begin(), digits.end(), [](char c) { return c >= '0' && c <= '9'; });
  return all_digits ? digits : "";
}

// Whether step digits `a` name a higher step than `b`, at any length.
bool higher_step(std::string a, std::string b) {
  a.erase(0, std::min(a.find_first_not_of('0'), a.size()));
  b.erase(0, std::min(b.find_first_not_of('0'), b.size()));
  return a.size() != b.size() ? a.size() > b.size() : a > b;
}

// The root attributes `solver` and `step` of `path` when it is an HDF5 file
// with both, else {"", -1}.
std::pair<std::string, long> checkpoint_solver_and_step(const std::string& path) {
  try {
    h5::QuietErrors quiet;
    if (H5Fis_hdf5(path.c_str()) <= 0) return {"", -1};
    h5::Handle file = h5::open_file_readonly(path);
    h5::Handle root = h5::open_group(file.get(), "/");
    if (!h5::has_attribute(root.get(), "step") || !h5::has_attribute(root.get(), "solver")) {
      return {"", -1};
    }
    const h5::Scalar solver = h5::read_scalar(root.get(), "solver");
    const h5::Scalar step = h5::read_scalar(root.get(), "step");
    if (solver.kind != h5::Scalar::Kind::Text || step.kind != h5::Scalar::Kind::Integer) {
      return {"", -1};
    }
    return {solver.text, static_cast<long>(step.integer)};
  } catch (const std::exception&) {
    return {"", -1};
  }
}

// Whether `path`, named with step `digits`, is a checkpoint that `solver`
// wrote of that step: an input of the same solver (step 0) is not.
bool own_checkpoint(const std::string& path, const std::string& digits, const std::string& solver) {
  const auto [its_solver, step] = checkpoint_solver_and_step(path);
  return !solver.empty() && its_solver == solver && step >= 0 && step_digits(step) == digits;
}

// Rank 0, after writing `newest`: removes the numbered checkpoints of `file`
// in its folder but `newest` and the `keep` - 1 others of the highest steps.
// Only files provably this run's: a name of the numbered form and an HDF5
// checkpoint of the solver that wrote `newest` whose step is the name's; any
// other file of such a name
// is the user's, kept with a warning (once: `warned` holds those named).
void prune_numbered(const std::string& file, const std::string& newest, int keep,
                    std::set<std::string>* warned) {
  namespace fs = std::filesystem;
  fs::path folder = fs::path(file).parent_path();
  if (folder.empty()) folder = ".";
  struct Numbered {
    std::string digits;
    fs::path path;
  };
  const std::string solver = checkpoint_solver_and_step(newest).first;
  std::vector<Numbered> others;
  std::error_code error;
  for (fs::directory_iterator it(folder, error), end; !error && it != end; it.increment(error)) {
    std::error_code ignored;
    if (!fs::is_regular_file(it->symlink_status(ignored))) continue;
    const std::string digits = numbered_digits(file, it->path().string());
    if (digits.empty() || fs::equivalent(it->path(), newest, ignored)) continue;
    if (!own_checkpoint(it->path().string(), digits, solver)) {
      if (warned->insert(it->path().string()).second) {
        std::fprintf(stderr,
                     "mpsfw: warning: run.checkpoint_keep: '%s' has the name of a numbered "
                     "checkpoint but is not a %s checkpoint; kept, not counted\n",
                     it->path().c_str(), solver.empty() ? "mpsfw" : solver.c_str());
      }
      continue;
    }
    others.push_back({digits, it->path()});
  }
  std::sort(others.begin(), others.end(),
            [](const Numbered& a, const Numbered& b) { return higher_step(a.digits, b.digits); });
  for (size_t i = static_cast<size_t>(keep - 1); i < others.size(); ++i) {
    std::error_code ignored;
    fs::remove(others[i].path, ignored);
  }
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
  if (rank == 0) prune_numbered(file_, path, keep_, &warned_);
}

void write_checkpoint_file(const std::string& path, const Params& params, long step, double time,
                           const std::vector<std::string>& overrides, MPI_Comm comm,
                           const std::function<void(const std::string& partial)>& write_state) {
  int rank = 0;
  MPSFW_MPI_CHECK(MPI_Comm_rank(comm, &rank));
  const std::string partial = partial_path(path), context = "checkpoint '" + path + "'";
  std::string error;
  if (rank == 0) {
    error = error_of(
        [&] {
          Params saved = params;
          saved.apply_override("step=" + std::to_string(step), "checkpoint");
          saved.apply_override("time=" + exact_number(time), "checkpoint");
          // Where a run writes is not kept: the resumed run is told again.
          saved.apply_override("run.output_file=", "checkpoint");
          saved.apply_override("run.checkpoint_file=", "checkpoint");
          saved.apply_override("run.timeline_file=", "checkpoint");
          // Nor when its job ends: the resumed run has an allocation of its own.
          saved.apply_override("run.wall_limit=auto", "checkpoint");
          for (const std::string& o : overrides) saved.apply_override(o, "checkpoint");
          h5::Handle file = h5::create_file(partial);
          write_param_attributes(file.get(), saved);
          h5::close_file(file, partial);
        },
        context);
  }
  error = first_error(comm, error);
  // Every rank its own part of the state: no rank holds the global field.
  if (error.empty()) error = first_error(comm, error_of([&] { write_state(partial); }, context));
  if (error.empty() && rank == 0)
    error = error_of([&] { move_into_place(partial, path); }, context);
  if (!error.empty() && rank == 0) std::remove(partial.c_str());
  agree_on_error(comm, error);
}

bool is_numbered_checkpoint_of(const std::string& checkpoint_file, const std::string& path) {
  return !numbered_digits(checkpoint_file, path).empty();
}

std::string resumed_output_path(const std::string& path, long start_step) {
  if (start_step == 0 || path.empty()) return path;
  return with_infix(path, "from" + step_digits(start_step));
}

}  // namespace mpsfw
