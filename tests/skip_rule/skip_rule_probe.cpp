// A GoogleTest program for checking ctest's skip rule itself
// (tests/skip_rule/check_skip_rule.sh): one test that skips, one that
// passes, one that fails, selected with --gtest_filter.
#include <gtest/gtest.h>

TEST(SkipRule, Skips) { GTEST_SKIP() << "no GPU (pretend)"; }
TEST(SkipRule, Passes) { EXPECT_EQ(1 + 1, 2); }
TEST(SkipRule, Fails) { EXPECT_EQ(1 + 1, 3) << "a failure the rule must not hide"; }
