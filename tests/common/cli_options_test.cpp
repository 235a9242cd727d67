// Options bound to variables (airlock/cli/options.h): what a command declares is what it reads.
#include <cstdlib>

#include <gmock/gmock.h>
#include <gtest/gtest.h>
#include <unistd.h>

#include <airlock/cli/options.h>

using ::testing::HasSubstr;

namespace airlock::cli {
namespace {

struct Parsed {
  bool ran = false;
  int exit_code = -1;
  std::string said;  // standard error
};

struct Example {
  std::string journal = "default.sqlite";
  std::optional<std::string> out;
  std::optional<int> threshold;
  int seconds = 60;
  bool json = false;
  std::optional<std::string> first;
  std::vector<std::string> rest;
};

Parsed parse_example(Example& e, const std::vector<std::string>& args) {
  po::options_description options("example");
  options.add_options()("journal", po::value<std::string>(&e.journal)->default_value(e.journal),
                        "the journal")("out", optional_value(&e.out), "where")(
      "threshold", optional_value(&e.threshold), "how many")(
      "seconds", value_in(&e.seconds, 1, 3600, "seconds")->default_value(e.seconds), "how long")(
      "json", po::bool_switch(&e.json), "json")("api-key-file", po::value<std::string>(), "key");
  Parsed p;
  testing::internal::CaptureStderr();
  p.ran = parse("airlock-test", args, options, {{"first", &e.first}, {"rest", nullptr, &e.rest}},
                p.exit_code,
                {{"AIRLOCK_TEST_JOURNAL", "journal"}, {"AIRLOCK_TEST_OTHER", "other-commands"}});
  p.said = testing::internal::GetCapturedStderr();
  return p;
}

TEST(CliOptions, ValuesLandInTheirVariablesAndAbsentOnesStayAbsent) {
  ::unsetenv("AIRLOCK_TEST_JOURNAL");
  Example e;
  const auto p = parse_example(e, {"a", "--out", "x.alres", "--json", "b", "c"});
  ASSERT_TRUE(p.ran) << p.said;
  EXPECT_EQ(e.out, "x.alres");
  EXPECT_FALSE(e.threshold.has_value());
  EXPECT_TRUE(e.json);
  EXPECT_EQ(e.seconds, 60);
  EXPECT_EQ(e.journal, "default.sqlite");
  EXPECT_EQ(e.first, "a");
  EXPECT_THAT(e.rest, testing::ElementsAre("b", "c"));
}

TEST(CliOptions, AnEnvironmentFallbackGivesWayToTheCommandLineAndBeatsTheDefault) {
  ::setenv("AIRLOCK_TEST_JOURNAL", "from-env.sqlite", 1);
  Example from_env;
  ASSERT_TRUE(parse_example(from_env, {}).ran);
  EXPECT_EQ(from_env.journal, "from-env.sqlite");
  Example given;
  ASSERT_TRUE(parse_example(given, {"--journal", "given.sqlite"}).ran);
  EXPECT_EQ(given.journal, "given.sqlite");
  ::unsetenv("AIRLOCK_TEST_JOURNAL");
}

TEST(CliOptions, AVariableForAnOptionThisCommandLacksIsIgnored) {
  ::setenv("AIRLOCK_TEST_OTHER", "x", 1);
  Example e;
  const auto p = parse_example(e, {});
  EXPECT_TRUE(p.ran) << p.said;
  ::unsetenv("AIRLOCK_TEST_OTHER");
}

TEST(CliOptions, ARangeIsAUsageErrorNamingTheOption) {
  Example e;
  const auto p = parse_example(e, {"--seconds", "0"});
  EXPECT_FALSE(p.ran);
  EXPECT_EQ(p.exit_code, kExitUsage);
  EXPECT_THAT(p.said, HasSubstr("--seconds must be 1 to 3600"));
}

TEST(CliOptions, NamesAreMatchedWholeSoAPrefixIsNotGuessed) {
  Example e;
  const auto p = parse_example(e, {"--api-key", "hv1_secret"});
  EXPECT_FALSE(p.ran);
  EXPECT_EQ(p.exit_code, kExitUsage);
  EXPECT_THAT(p.said, HasSubstr("unrecognised option '--api-key'"));
  EXPECT_THAT(p.said, testing::Not(HasSubstr("hv1_secret")));
}

// What follows an option's name may be a secret typed in the wrong place: an error names the
// option and never repeats what was attached to it or given as its value.
TEST(CliOptions, AnErrorNamesTheOptionAndNeverRepeatsItsValue) {
  const std::vector<std::vector<std::string>> typed = {{"--api-key=hv1_SECRETVALUE"},
                                                       {"-khv1_SECRETVALUE"},
                                                       {"--passphrase=hunter2SECRETVALUE"},
                                                       {"--seconds", "correct horse SECRETVALUE"},
                                                       {"--threshold=SECRETVALUE"}};
  for (const auto& args : typed) {
    Example e;
    const auto p = parse_example(e, args);
    SCOPED_TRACE(args.front());
    EXPECT_FALSE(p.ran);
    EXPECT_EQ(p.exit_code, kExitUsage);
    EXPECT_THAT(p.said, testing::Not(HasSubstr("SECRETVALUE")));
  }
  Example e;
  EXPECT_THAT(parse_example(e, {"--api-key=hv1_SECRETVALUE"}).said,
              HasSubstr("unrecognised option '--api-key'"));
  EXPECT_THAT(parse_example(e, {"-khv1_SECRETVALUE"}).said, HasSubstr("unrecognised option '-k'"));
  EXPECT_THAT(parse_example(e, {"--seconds", "x"}).said,
              HasSubstr("--seconds: the value given is not valid"));
  EXPECT_THAT(parse_example(e, {"--png=frames/"}).said, HasSubstr("--png is now --qr-png"));
}

TEST(CliOptions, AnOptionIsNeverTakenAsTheValueOfTheOneBefore) {
  Example e;
  const auto p = parse_example(e, {"--journal", "--json"});
  EXPECT_FALSE(p.ran);
  EXPECT_EQ(p.exit_code, kExitUsage);
  EXPECT_THAT(p.said, HasSubstr("--journal needs a value, and the next word --json is an option"));
  Example given;
  ASSERT_TRUE(parse_example(given, {"--journal=--odd-name", "--json"}).ran);
  EXPECT_EQ(given.journal, "--odd-name");
  EXPECT_TRUE(given.json);
}

// A descriptor option names a descriptor open when the command starts; a redirection left off
// is a usage error, never an empty answer read later.
TEST(CliOptions, ADescriptorMustBeOpen) {
  const auto run = [](const std::vector<std::string>& args, int& fd, std::optional<int>& other) {
    po::options_description options("example");
    options.add_options()("confirm-fd", descriptor(&fd, "confirm-fd")->default_value(-1), "fd")(
        "other-fd", optional_descriptor(&other, "other-fd"), "fd");
    Parsed p;
    testing::internal::CaptureStderr();
    p.ran = parse("airlock-test", args, options, {}, p.exit_code);
    p.said = testing::internal::GetCapturedStderr();
    return p;
  };
  int fd = 0;
  std::optional<int> other;
  ASSERT_TRUE(run({}, fd, other).ran) << "absent: the terminal";
  EXPECT_EQ(fd, -1);
  EXPECT_FALSE(other.has_value());
  ASSERT_TRUE(run({"--confirm-fd", "2", "--other-fd", "0"}, fd, other).ran);
  EXPECT_EQ(fd, 2);
  EXPECT_EQ(other, 0);
  // High, so that nothing the test opens meanwhile (the captured stderr) takes its number.
  const int closed = 987;
  ::close(closed);
  for (const auto& args :
       std::vector<std::vector<std::string>>{{"--confirm-fd", std::to_string(closed)},
                                             {"--other-fd", std::to_string(closed)},
                                             {"--confirm-fd", "-7"}}) {
    SCOPED_TRACE(args[0] + " " + args[1]);
    const auto p = run(args, fd, other);
    EXPECT_FALSE(p.ran);
    EXPECT_EQ(p.exit_code, kExitUsage);
    EXPECT_THAT(p.said, HasSubstr(args[0] + " must name a file descriptor open for reading"));
  }
}

}  // namespace
}  // namespace airlock::cli
