// Checkpoint and restart (core/checkpoint.hpp), host backend: a run stopped
// halfway with a checkpoint and resumed from it equals the uninterrupted run.
// Heat: the field bit for bit, step, time and max_change exactly, resumed on
// 1, 2, 3 and all ranks whatever the rank count of the first half (total
// heat, a sum over ranks, exactly on the same rank count). MD: positions and
// velocities bit for bit on the same ranks (the checkpoint's /md/resume
// brings back the lists and ghosts), within 1e-9 (sigma, sigma/tau) after 27
// more steps on one rank (new lists sum the pair forces in another order).
// The checkpoint is a valid input (read back through the solver's own
// schema), numbered checkpoints keep the last K, and a resumed run writes its
// outputs beside the first part's.
#include <gtest/gtest.h>
#include <mpi.h>
#include <unistd.h>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstring>
#include <filesystem>
#include <string>
#include <vector>

#include "core/checkpoint.hpp"
#include "core/h5_io.hpp"
#include "core/input_file.hpp"
#include "solvers/md/md_config.hpp"
#include "solvers/md/md_solver.hpp"
#include "support/heat_runs.hpp"

namespace mpsfw {
namespace {

namespace fs = std::filesystem;
using testing_support::heat_config;
using testing_support::world_rank;

int world_size() {
  int n = 1;
  MPI_Comm_size(MPI_COMM_WORLD, &n);
  return n;
}

// A fresh folder on rank 0, its name on every rank.
std::string shared_folder(const std::string& tag) {
  char name[256] = {};
  if (world_rank() == 0) {
    const fs::path dir =
        fs::temp_directory_path() / ("mpsfw-restart-" + tag + "-" + std::to_string(::getpid()));
    fs::remove_all(dir);
    fs::create_directories(dir);
    std::snprintf(name, sizeof name, "%s", dir.c_str());
  }
  MPI_Bcast(name, sizeof name, MPI_CHAR, 0, MPI_COMM_WORLD);
  return name;
}

// The first `ranks` ranks of the world (MPI_COMM_NULL on the others).
MPI_Comm first_ranks(int ranks) {
  MPI_Comm sub;
  MPI_Comm_split(MPI_COMM_WORLD, world_rank() < ranks ? 0 : MPI_UNDEFINED, world_rank(), &sub);
  return sub;
}

DeviceBinding host_device(MPI_Comm comm) {
  int size = 1;
  const int rank = testing_support::node_rank_and_size(comm, &size);
  return bind_device(Backend::Host, rank, size, CudaGate::without_mps());
}

bool same_bits(const std::vector<double>& a, const std::vector<double>& b) {
  return a.size() == b.size() && std::memcmp(a.data(), b.data(), a.size() * sizeof(double)) == 0;
}

struct HeatOutcome {
  std::vector<double> field;  // rank 0 of the run's ranks
  std::vector<heat::Diagnostics> diagnostics;
  long step = 0;
};

HeatOutcome run_heat(const heat::HeatConfig& c, const Params* params, MPI_Comm comm) {
  heat::HeatSolver solver(c, comm, host_device(comm), false);
  solver.set_params(params);
  solver.run(nullptr);
  return {solver.gather_global(), solver.diagnostics(), solver.step()};
}

void expect_heat_resumes(const std::vector<std::string>& problem) {
  const std::string dir = shared_folder("heat");
  constexpr long kEnd = 24, kHalf = 12;
  std::vector<std::string> whole = problem;
  whole.push_back("run.steps=" + std::to_string(kEnd));
  whole.push_back("run.diag_every=4");
  const HeatOutcome reference = run_heat(heat_config(whole), nullptr, MPI_COMM_WORLD);

  // The first half on every rank, its end checkpointed.
  const std::string checkpoint = dir + "/half.h5";
  std::vector<std::string> half = whole;
  half.push_back("run.steps=" + std::to_string(kHalf));
  half.push_back("run.checkpoint_file=" + checkpoint);
  const Params half_params = heat::heat_params_from_overrides(half);
  run_heat(heat::heat_config_from(half_params), &half_params, MPI_COMM_WORLD);
  ASSERT_TRUE(fs::exists(checkpoint));
  EXPECT_FALSE(fs::exists(checkpoint + ".partial"));

  for (int ranks : {1, 2, 3, world_size()}) {
    if (ranks > world_size()) continue;
    MPI_Comm sub = first_ranks(ranks);
    if (sub == MPI_COMM_NULL) continue;
    // The checkpoint is an input: the solver's own reader takes it.
    const heat::HeatConfig resumed_config =
        heat::load_heat_config(checkpoint, {"run.steps=" + std::to_string(kEnd)}, nullptr);
    EXPECT_EQ(resumed_config.start_step, kHalf);
    const HeatOutcome resumed = run_heat(resumed_config, nullptr, sub);
    EXPECT_EQ(resumed.step, kEnd);
    int me = 0;
    MPI_Comm_rank(sub, &me);
    if (me == 0) {
      EXPECT_TRUE(same_bits(resumed.field, reference.field))
          << "resumed on " << ranks << " of " << world_size() << " ranks";
      for (const heat::Diagnostics& d : resumed.diagnostics) {
        const auto same_step =
            std::find_if(reference.diagnostics.begin(), reference.diagnostics.end(),
                         [&](const heat::Diagnostics& r) { return r.step == d.step; });
        ASSERT_NE(same_step, reference.diagnostics.end()) << "step " << d.step;
        EXPECT_EQ(d.time, same_step->time) << "step " << d.step;
        EXPECT_EQ(d.max_change, same_step->max_change) << "step " << d.step;
        // A sum over the ranks: exact on the same rank count, else rounded
        // in another order.
        if (ranks == world_size()) {
          EXPECT_EQ(d.total_heat, same_step->total_heat) << "step " << d.step;
        } else {
          EXPECT_NEAR(d.total_heat, same_step->total_heat, 1e-13 * std::fabs(same_step->total_heat))
              << "step " << d.step;
        }
      }
    }
    MPI_Comm_free(&sub);
  }
  MPI_Barrier(MPI_COMM_WORLD);
  if (world_rank() == 0) fs::remove_all(dir);
}

TEST(HeatRestart, DirichletSineResumesBitForBitOnAnyRankCount) {
  expect_heat_resumes({"heat.nx=13", "heat.ny=11", "heat.nz=9"});
}

TEST(HeatRestart, PeriodicGaussianResumesBitForBitOnAnyRankCount) {
  expect_heat_resumes({"heat.nx=12", "heat.ny=10", "heat.nz=14", "heat.boundary=periodic",
                       "heat.initial=gaussian"});
}

TEST(HeatRestart, NumberedCheckpointsKeepTheLastK) {
  const std::string dir = shared_folder("keep");
  const Params p = heat::heat_params_from_overrides(
      {"heat.nx=8", "heat.ny=8", "heat.nz=8", "run.steps=10", "run.checkpoint_every=2",
       "run.checkpoint_keep=2", "run.checkpoint_file=" + dir + "/ck.h5"});
  const HeatOutcome done = run_heat(heat::heat_config_from(p), &p, MPI_COMM_WORLD);
  EXPECT_EQ(done.step, 10);
  MPI_Barrier(MPI_COMM_WORLD);
  if (world_rank() == 0) {
    std::vector<std::string> names;
    for (const auto& e : fs::directory_iterator(dir)) names.push_back(e.path().filename());
    std::sort(names.begin(), names.end());
    EXPECT_EQ(names, (std::vector<std::string>{"ck.00000008.h5", "ck.00000010.h5"}));
    const InputAttributes last = read_input_attributes(dir + "/ck.00000010.h5");
    EXPECT_EQ(last.groups.at("").at("step").integer, 10);
    fs::remove_all(dir);
  }
}

TEST(Checkpoint, ResumedOutputsGoBesideTheFirstPart) {
  EXPECT_EQ(resumed_output_path("out/run.h5", 0), "out/run.h5");
  EXPECT_EQ(resumed_output_path("out/run.h5", 400), "out/run.from00000400.h5");
  EXPECT_EQ(resumed_output_path("a.b/run", 7), "a.b/run.from00000007");
  EXPECT_EQ(resumed_output_path("", 7), "");
}

// MD: positions and velocities of every atom at the end, sorted by id.
std::vector<double> md_final_state(const std::string& checkpoint) {
  h5::Handle f = h5::open_file_readonly(checkpoint);
  h5::Handle md = h5::open_group(f.get(), "md");
  std::vector<double> state = h5::read_all_doubles(md.get(), "positions");
  const std::vector<double> v = h5::read_all_doubles(md.get(), "velocities");
  state.insert(state.end(), v.begin(), v.end());
  return state;
}

void run_md(const Params& p, MPI_Comm comm) {
  const md::MdConfig c = md::md_config_from(p);
  md::MdSolver solver(c, comm, host_device(comm));
  solver.set_params(&p);
  solver.run(nullptr);
}

// Stopped at step 23 (two steps after the third list build of md.rebuild_every
// = 7, so the lists and the displacement since their build must come back).
TEST(MdRestart, ResumesBitForBitOnTheSameRanksAndCloseOnOthers) {
  const std::string dir = shared_folder("md");
  const std::vector<std::string> problem = {"md.cells_x=6", "md.cells_y=6", "md.cells_z=6",
                                            "run.thermo_every=0", "md.rebuild_every=7"};
  const auto params = [&](std::vector<std::string> extra) {
    for (const std::string& p : problem) extra.push_back(p);
    return md::md_params_from_overrides(extra);
  };
  run_md(params({"run.steps=50", "run.checkpoint_file=" + dir + "/whole.h5"}), MPI_COMM_WORLD);
  run_md(params({"run.steps=23", "run.checkpoint_file=" + dir + "/half.h5"}), MPI_COMM_WORLD);
  const auto resume = [&](const std::string& out, MPI_Comm comm) {
    Params p(md::md_schema());
    p.read_file(dir + "/half.h5", nullptr);
    p.apply_override("run.steps=50");
    p.apply_override("run.checkpoint_file=" + out);
    p.finalize();
    EXPECT_EQ(md::md_config_from(p).start_step, 23);
    run_md(p, comm);
  };
  resume(dir + "/same.h5", MPI_COMM_WORLD);
  MPI_Comm one = first_ranks(1);
  if (one != MPI_COMM_NULL) {
    resume(dir + "/one.h5", one);
    MPI_Comm_free(&one);
  }
  MPI_Barrier(MPI_COMM_WORLD);
  if (world_rank() == 0) {
    const std::vector<double> whole = md_final_state(dir + "/whole.h5");
    for (const char* name : {"same.h5", "one.h5"}) {
      const std::vector<double> resumed = md_final_state(dir + "/" + name);
      ASSERT_EQ(resumed.size(), whole.size());
      double worst = 0;
      size_t differ = 0;
      for (size_t i = 0; i < whole.size(); ++i) {
        worst = std::max(worst, std::fabs(resumed[i] - whole[i]));
        differ += std::memcmp(&resumed[i], &whole[i], sizeof(double)) != 0;
      }
      std::printf(
          "MD resumed (%s) vs uninterrupted, %d ranks first: %zu of %zu values differ, "
          "largest difference %.3g\n",
          name, world_size(), differ, whole.size(), worst);
      const bool same_ranks = std::string(name) == "same.h5" || world_size() == 1;
      if (same_ranks) {
        EXPECT_EQ(differ, 0u) << name << ": not bit for bit on the same ranks";
      } else {
        EXPECT_LT(worst, 1e-9) << name;
      }
    }
    fs::remove_all(dir);
  }
}

}  // namespace
}  // namespace mpsfw
