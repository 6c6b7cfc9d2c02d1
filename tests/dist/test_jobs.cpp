// Whole jobs started from here (this program is not an MPI process): a rank that raises or
// dies ends the job, with mpirun returning non-zero well before the hang guard (`timeout`)
// would, and the error naming the failing rank and its exception; `strata launch` runs a job.
#include <gtest/gtest.h>

#include <array>
#include <cstdio>
#include <string>

namespace {

struct JobResult {
  int status = -1;
  std::string output;
};

// Runs a shell command (stdout and stderr together); 60 s guards against a hang, where a
// working fault path ends in a few seconds.
JobResult run(const std::string& command) {
  JobResult r;
  FILE* pipe = popen(("timeout 60 env " + command + " 2>&1").c_str(), "r");
  if (pipe == nullptr) return r;
  std::array<char, 4096> buf;
  while (size_t n = fread(buf.data(), 1, buf.size(), pipe)) r.output.append(buf.data(), n);
  const int status = pclose(pipe);
  r.status = WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
  return r;
}

JobResult run_job(const std::string& mode) {
  return run(STRATA_MPIEXEC " --oversubscribe --allow-run-as-root -n 3 " STRATA_DIST_JOB " " + mode);
}

// mpirun refuses root without these (the tests may run as root in a container).
const std::string kLaunch = "OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1 " STRATA_CLI_PATH " launch";

TEST(DistJob, AnUncaughtExceptionOnOneRankAbortsTheJob) {
  JobResult r = run_job("throw");
  EXPECT_NE(r.status, 0) << r.output;
  EXPECT_NE(r.status, 124) << "the job hung until timeout:\n" << r.output;
  EXPECT_NE(r.output.find("strata::dist: rank 1 of 3: uncaught exception: the data on rank 1 is bad"), std::string::npos)
      << r.output;
  EXPECT_EQ(r.output.find("finished, which it must not"), std::string::npos) << r.output;
}

TEST(DistJob, AKilledRankEndsTheJob) {
  JobResult r = run_job("kill");
  EXPECT_NE(r.status, 0) << r.output;
  EXPECT_NE(r.status, 124) << "the job hung until timeout:\n" << r.output;
  EXPECT_EQ(r.output.find("finished, which it must not"), std::string::npos) << r.output;
}

TEST(DistJob, LaunchRunsTheProgramOnEveryRankWithItsArguments) {
  JobResult r = run(kLaunch + " -n 2 --oversubscribe " STRATA_DIST_JOB " hello --epochs 3");
  EXPECT_EQ(r.status, 0) << r.output;
  EXPECT_NE(r.output.find("rank 0 of 2: --epochs 3"), std::string::npos) << r.output;
  EXPECT_NE(r.output.find("rank 1 of 2: --epochs 3"), std::string::npos) << r.output;
}

TEST(DistJob, LaunchSaysWhatIsMissing) {
  JobResult no_program = run(kLaunch + " -n 2");
  EXPECT_EQ(no_program.status, 1);
  EXPECT_NE(no_program.output.find("name the program to run"), std::string::npos) << no_program.output;
  JobResult no_mpirun = run("STRATA_MPIRUN=/nonexistent/mpirun " + kLaunch + " -n 2 " STRATA_DIST_JOB " hello");
  EXPECT_EQ(no_mpirun.status, 1);
  EXPECT_NE(no_mpirun.output.find("cannot run /nonexistent/mpirun"), std::string::npos) << no_mpirun.output;
  EXPECT_NE(run(kLaunch + " -n 0 " STRATA_DIST_JOB " hello").status, 0);
}

}  // namespace
