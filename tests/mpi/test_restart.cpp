// Checkpoint and restart (core/input/checkpoint.hpp), host backend: a run stopped
// halfway with a checkpoint and resumed from it equals the uninterrupted run.
// Heat: the field bit for bit, step, time and max_change exactly, resumed on
// 1, 2, 3 and all ranks whatever the rank count of the first half (total
// heat, a sum over ranks, exactly on the same rank count), also at a shape no
// rank grid divides (13x11x7, first half on all ranks and on 3), and from
// the checkpoint of a run of no steps. MD: positions and
// velocities bit for bit on the same ranks (the checkpoint's /md/resume
// brings back the lists and ghosts), within 1e-9 (sigma, sigma/tau) after 27
// more steps on one rank (new lists sum the pair forces in another order).
// The checkpoint is a valid input (read back through the solver's own
// schema), written by every rank's hyperslab alike collectively and rank
// after rank, complete or not at all when one rank fails; numbered
// checkpoints keep the last K, also those of a requeued run's first part;
// and a resumed run writes its outputs beside the first part's.
#include <gtest/gtest.h>
#include <mpi.h>
#include <unistd.h>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstring>
#include <filesystem>
#include <string>
#include <vector>

#include "support/heat_runs.hpp"
#include <mpsfw/core/base/error.hpp>
#include <mpsfw/core/driver/time_loop.hpp>
#include <mpsfw/core/input/checkpoint.hpp>
#include <mpsfw/core/io/field_output.hpp>
#include <mpsfw/core/io/h5_io.hpp>
#include <mpsfw/core/io/input_file.hpp>
#include <mpsfw/core/mesh/decomposition.hpp>
#include <mpsfw/solvers/md/md_config.hpp>
#include <mpsfw/solvers/md/md_solver.hpp>

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
  mpsfw::run_time_loop(solver, nullptr);
  return {solver.gather_global(), solver.diagnostics(), solver.step()};
}

// The first part (up to step `half`, 0: a run of no steps) on the first
// `first_part_ranks` ranks, resumed on 1, 2, 3 and all ranks up to step 24.
void expect_heat_resumes(const std::vector<std::string>& problem, int first_part_ranks = 0,
                         long half = 12) {
  const std::string dir = shared_folder("heat");
  constexpr long kEnd = 24;
  const long kHalf = half;
  std::vector<std::string> whole = problem;
  whole.push_back("run.steps=" + std::to_string(kEnd));
  whole.push_back("run.diag_every=4");
  const HeatOutcome reference = run_heat(heat_config(whole), nullptr, MPI_COMM_WORLD);

  // The first part, its end checkpointed.
  const std::string checkpoint = dir + "/half.h5";
  std::vector<std::string> first_part = whole;
  first_part.push_back("run.steps=" + std::to_string(kHalf));
  first_part.push_back("run.checkpoint_file=" + checkpoint);
  const Params half_params = heat::heat_params_from_overrides(first_part);
  MPI_Comm first = first_ranks(first_part_ranks > 0 ? first_part_ranks : world_size());
  if (first != MPI_COMM_NULL) {
    run_heat(heat::heat_config_from(half_params), &half_params, first);
    MPI_Comm_free(&first);
  }
  MPI_Barrier(MPI_COMM_WORLD);
  ASSERT_TRUE(fs::exists(checkpoint));
  EXPECT_FALSE(fs::exists(checkpoint + ".partial"));
  EXPECT_EQ(read_input_attributes(checkpoint).groups.at("").at("step").integer, kHalf);

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

// 13x11x7 splits unevenly over 2, 3 and 4 ranks (blocks a cell apart).
TEST(HeatRestart, UnevenShapeResumesBitForBitFromAnyRankCount) {
  const std::vector<std::string> problem = {"heat.nx=13", "heat.ny=11", "heat.nz=7",
                                            "heat.boundary=periodic", "heat.initial=gaussian"};
  expect_heat_resumes(problem);
  if (world_size() > 3) expect_heat_resumes(problem, 3);
}

TEST(HeatRestart, RunOfNoStepsCheckpointsTheInitialState) {
  expect_heat_resumes({"heat.nx=13", "heat.ny=11", "heat.nz=7"}, 0, 0);
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

// A requeued run prunes by what is on disk: the first part's numbered
// checkpoints go too, and nothing that is not one exactly.
TEST(HeatRestart, NumberedCheckpointsOfTheFirstPartArePruned) {
  const std::string dir = shared_folder("requeue");
  const std::vector<std::string> problem = {"heat.nx=8",
                                            "heat.ny=7",
                                            "heat.nz=6",
                                            "run.checkpoint_every=2",
                                            "run.checkpoint_keep=2",
                                            "run.checkpoint_file=" + dir + "/ck.h5"};
  std::vector<std::string> first = problem;
  first.push_back("run.steps=6");
  const Params p = heat::heat_params_from_overrides(first);
  run_heat(heat::heat_config_from(p), &p, MPI_COMM_WORLD);
  const std::vector<std::string> decoys = {"ck.00000002.h5.partial", "ck.0000002.h5",
                                           "ck.00000002.h5.bak",     "ck.0000000x.h5",
                                           "other.00000002.h5",      "ck.00000002.hdf5"};
  if (world_rank() == 0) {
    for (const std::string& d : decoys) std::fclose(std::fopen((dir + "/" + d).c_str(), "w"));
    fs::create_directory(dir + "/ck.00000001.h5");                  // a folder, never removed
    fs::create_symlink("ck.00000004.h5", dir + "/ck.00000003.h5");  // a link, never removed
  }
  MPI_Barrier(MPI_COMM_WORLD);
  // The requeued part: from the newest checkpoint up to step 10.
  Params resumed(heat::heat_schema());
  resumed.read_file(dir + "/ck.00000006.h5", nullptr);
  for (const std::string& o : problem) resumed.apply_override(o);
  resumed.apply_override("run.steps=10");
  resumed.finalize();
  EXPECT_EQ(run_heat(heat::heat_config_from(resumed), &resumed, MPI_COMM_WORLD).step, 10);
  MPI_Barrier(MPI_COMM_WORLD);
  if (world_rank() == 0) {
    std::vector<std::string> names;
    for (const auto& e : fs::directory_iterator(dir)) names.push_back(e.path().filename());
    std::vector<std::string> expected = decoys;
    for (const char* kept :
         {"ck.00000001.h5", "ck.00000003.h5", "ck.00000008.h5", "ck.00000010.h5"}) {
      expected.push_back(kept);
    }
    std::sort(names.begin(), names.end());
    std::sort(expected.begin(), expected.end());
    EXPECT_EQ(names, expected);
    fs::remove_all(dir);
  }
}

// Block values that name their global cell, [z][y][x] order.
double cell_value(std::int64_t i, std::int64_t j, std::int64_t k) {
  return static_cast<double>(i + 100 * j + 10000 * k) + 0.25;
}

// The checkpoint writer: each rank its hyperslab, collectively (parallel
// HDF5) and rank after rank (any HDF5) alike; a failure on one rank only
// reaches every rank and leaves the previous checkpoint as it was.
TEST(CheckpointFile, EveryRankWritesItsBlockAndFailuresLeaveThePreviousOne) {
  const std::string dir = shared_folder("blocks");
  const Params params = heat::heat_params_from_overrides({"heat.nx=13", "heat.ny=11", "heat.nz=7"});
  CartDecomposition d(MPI_COMM_WORLD, {13, 11, 7}, {0, 0, 0}, {false, false, false});
  const Int3 n = d.local_cells(), o = d.offset();
  std::vector<double> block;
  for (int k = 0; k < n.z; ++k)
    for (int j = 0; j < n.y; ++j)
      for (int i = 0; i < n.x; ++i) block.push_back(cell_value(o.x + i, o.y + j, o.z + k));
  const h5::BlockSlab slab = h5::block_slab(d.global_cells(), o, n);
  std::vector<bool> ways = {false};
  if (hdf5_is_parallel()) ways.push_back(true);
  for (const bool collective : ways) {
    const std::string path = dir + (collective ? "/collective.h5" : "/rank_ordered.h5");
    write_checkpoint_file(path, params, 3, 0.5, {"heat.initial=dataset"}, d.comm(),
                          [&](const std::string& partial) {
                            h5::write_block_datasets(partial, d.comm(), collective, slab,
                                                     {{"/heat/u0", block.data()}}, "test");
                          });
    if (world_rank() == 0) {
      h5::Handle f = h5::open_file_readonly(path);
      h5::Handle heat = h5::open_group(f.get(), "heat");
      const std::vector<double> all = h5::read_all_doubles(heat.get(), "u0");
      ASSERT_EQ(all.size(), 13u * 11 * 7);
      size_t t = 0, wrong = 0;
      for (int k = 0; k < 7; ++k)
        for (int j = 0; j < 11; ++j)
          for (int i = 0; i < 13; ++i) wrong += all[t++] != cell_value(i, j, k);
      EXPECT_EQ(wrong, 0u) << path;
      EXPECT_EQ(read_input_attributes(path).groups.at("").at("step").integer, 3);
    }
    // The last rank fails while writing its state: every rank hears of it,
    // the previous file stays, no partial file is left.
    const auto before = fs::file_size(path);
    const int last = world_size() - 1;
    try {
      write_checkpoint_file(path, params, 4, 0.75, {"heat.initial=dataset"}, d.comm(),
                            [&](const std::string&) {
                              if (world_rank() == last) throw Error("disk on fire");
                            });
      ADD_FAILURE() << "no error on rank " << world_rank();
    } catch (const AgreedError& e) {
      EXPECT_NE(std::string(e.what()).find("checkpoint '" + path + "': disk on fire"),
                std::string::npos)
          << e.what();
    }
    MPI_Barrier(MPI_COMM_WORLD);
    EXPECT_EQ(fs::file_size(path), before);
    EXPECT_EQ(read_input_attributes(path).groups.at("").at("step").integer, 3);
    EXPECT_FALSE(fs::exists(path + ".partial"));
  }
  MPI_Barrier(MPI_COMM_WORLD);
  // The same file either way (the collective write's reserved space is cut).
  if (world_rank() == 0 && ways.size() == 2) {
    EXPECT_EQ(fs::file_size(dir + "/collective.h5"), fs::file_size(dir + "/rank_ordered.h5"));
  }
  if (world_rank() == 0) fs::remove_all(dir);
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
  mpsfw::run_time_loop(solver, nullptr);
}

TEST(MdRestart, RunOfNoStepsCheckpointsTheInitialState) {
  const std::string dir = shared_folder("md-zero");
  const std::vector<std::string> problem = {"md.cells_x=6", "md.cells_y=6", "md.cells_z=6",
                                            "run.diag_every=0"};
  const auto params = [&](std::vector<std::string> extra) {
    for (const std::string& p : problem) extra.push_back(p);
    return md::md_params_from_overrides(extra);
  };
  run_md(params({"run.steps=10", "run.checkpoint_file=" + dir + "/whole.h5"}), MPI_COMM_WORLD);
  run_md(params({"run.steps=0", "run.checkpoint_file=" + dir + "/zero.h5"}), MPI_COMM_WORLD);
  MPI_Barrier(MPI_COMM_WORLD);
  ASSERT_TRUE(fs::exists(dir + "/zero.h5"));
  EXPECT_EQ(read_input_attributes(dir + "/zero.h5").groups.at("").at("step").integer, 0);
  Params p(md::md_schema());
  p.read_file(dir + "/zero.h5", nullptr);
  p.apply_override("run.steps=10");
  p.apply_override("run.checkpoint_file=" + dir + "/resumed.h5");
  p.finalize();
  run_md(p, MPI_COMM_WORLD);
  MPI_Barrier(MPI_COMM_WORLD);
  if (world_rank() == 0) {
    EXPECT_TRUE(same_bits(md_final_state(dir + "/resumed.h5"), md_final_state(dir + "/whole.h5")));
    fs::remove_all(dir);
  }
}

// Stopped at step 23 (two steps after the third list build of md.rebuild_every
// = 7, so the lists and the displacement since their build must come back).
TEST(MdRestart, ResumesBitForBitOnTheSameRanksAndCloseOnOthers) {
  const std::string dir = shared_folder("md");
  const std::vector<std::string> problem = {"md.cells_x=6", "md.cells_y=6", "md.cells_z=6",
                                            "run.diag_every=0", "md.rebuild_every=7"};
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
