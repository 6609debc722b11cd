// Options for Kokkos on the command line: every --kokkos-* kept in
// order for Kokkos::initialize, a misspelt prefix still unknown, the options
// that choose the device or host threads refused by name (mpsfw's binding
// sets them), and options for Kokkos never silently unused: on another
// backend, in a build without Kokkos, or where nothing runs.
#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "support/parse_error.hpp"
#include <mpsfw/core/base/backend.hpp>
#include <mpsfw/core/base/error.hpp>
#include <mpsfw/core/device/kokkos_options.hpp>
#include <mpsfw/core/input/command_line.hpp>

namespace mpsfw {
namespace {

using test::parse_error;

std::string check_error(const std::vector<std::string>& options, Backend backend,
                        const std::string& origin) {
  try {
    check_kokkos_options(options, backend, origin);
  } catch (const InputError& e) {
    return e.what();
  }
  return "";
}

TEST(KokkosOptions, KeptInOrderBesideTheInput) {
  const CommandLine c = parse_command_line({"--kokkos-disable-warnings", "in.h5", "--backend",
                                            "kokkos", "--kokkos-tools-libs=a.so;b.so"});
  EXPECT_EQ(c.input, "in.h5");
  EXPECT_EQ(c.kokkos_options, (std::vector<std::string>{"--kokkos-disable-warnings",
                                                        "--kokkos-tools-libs=a.so;b.so"}));
  EXPECT_FALSE(c.kokkos_help);
  EXPECT_EQ(c.overrides, std::vector<std::string>{"run.backend=kokkos"});
}

TEST(KokkosOptions, AMisspeltPrefixIsUnknown) {
  for (const std::string typo :
       {"--kokos-disable-warnings", "--kokkos", "--kokkos-", "-kokkos-x"}) {
    EXPECT_NE(parse_error({"in.h5", typo}).find("unknown option '" + typo + "'"), std::string::npos)
        << typo;
  }
}

TEST(KokkosOptions, TheBindingsOptionsAreRefusedByName) {
  for (const std::string device :
       {"--kokkos-device-id=0", "--kokkos-device=1", "--kokkos-map-device-id-by=mpi_rank",
        "--kokkos-num-devices=2", "--kokkos-ndevices=2,1"}) {
    const std::string e = parse_error({"in.h5", device});
    EXPECT_EQ(e.rfind(device + ": mpsfw sets Kokkos's device from its binding", 0), 0u) << e;
    EXPECT_NE(e.find("CUDA_VISIBLE_DEVICES"), std::string::npos) << e;
  }
  for (const std::string threads :
       {"--kokkos-num-threads=4", "--kokkos-threads=4", "--kokkos-numa=2"}) {
    const std::string e = parse_error({"in.h5", threads});
    EXPECT_EQ(e.rfind(threads + ": mpsfw sets Kokkos's host threads from its binding", 0), 0u) << e;
    EXPECT_NE(e.find("OMP_NUM_THREADS"), std::string::npos) << e;
  }
  // Only the whole name: a longer one is Kokkos's to judge.
  EXPECT_EQ(parse_error({"in.h5", "--kokkos-device-idx=0"}), "");
}

TEST(KokkosOptions, HelpNeedsNoInputAndNothingThatRunsNothing) {
  const CommandLine c = parse_command_line({"--kokkos-help"});
  EXPECT_TRUE(c.kokkos_help);
  EXPECT_TRUE(parse_command_line({"--kokkos-tools-help", "--kokkos-tools-libs=t.so"}).kokkos_help);
  for (const std::vector<std::string>& args :
       {std::vector<std::string>{"--write-input", "o.h5", "--kokkos-disable-warnings"},
        {"--describe", "in.h5", "--kokkos-disable-warnings"},
        {"--list-keys", "--kokkos-disable-warnings"}}) {
    EXPECT_NE(parse_error(args).find("--kokkos-disable-warnings is for Kokkos in a run"),
              std::string::npos);
  }
}

TEST(KokkosOptions, NeverSilentlyUnused) {
  EXPECT_EQ(check_error({}, Backend::Host, "--backend host"), "");
  const std::vector<std::string> options = {"--kokkos-disable-warnings"};
  if (!built_with_kokkos()) {
    EXPECT_EQ(check_error(options, Backend::Kokkos, "--backend kokkos")
                  .rfind("--kokkos-disable-warnings given, but mpsfw was built without Kokkos", 0),
              0u);
    return;
  }
  EXPECT_EQ(check_error(options, Backend::Kokkos, "--backend kokkos"), "");
  for (Backend other : {Backend::Auto, Backend::Host, Backend::Cuda}) {
    const std::string e = check_error(options, other, "in.h5: attribute /run/backend");
    EXPECT_EQ(e.rfind(std::string("--kokkos-disable-warnings given, but this run's backend is ") +
                          to_string(other) + " (in.h5: attribute /run/backend)",
                      0),
              0u)
        << e;
  }
  // Kokkos 4 ends the process after its help: never inside a run.
  EXPECT_NE(check_error({"--kokkos-help"}, Backend::Kokkos, "").find("give it before a run"),
            std::string::npos);
}

}  // namespace
}  // namespace mpsfw
