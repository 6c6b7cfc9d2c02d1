// A rank that raises or dies ends the whole job: mpirun returns non-zero well before the hang
// guard (`timeout`) would, and the error names the failing rank and its exception.
#include <gtest/gtest.h>

#include <array>
#include <cstdio>
#include <string>

namespace {

struct JobResult {
  int status = -1;
  std::string output;
};

JobResult run_job(const std::string& mode) {
  // 60 s guards against a hang; a working fault path ends in a few seconds.
  const std::string command = "timeout 60 " STRATA_MPIEXEC " --oversubscribe --allow-run-as-root -n 3 "
                              STRATA_DIST_FAULT_JOB " " + mode + " 2>&1";
  JobResult r;
  FILE* pipe = popen(command.c_str(), "r");
  if (pipe == nullptr) return r;
  std::array<char, 4096> buf;
  while (size_t n = fread(buf.data(), 1, buf.size(), pipe)) r.output.append(buf.data(), n);
  const int status = pclose(pipe);
  r.status = WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
  return r;
}

TEST(DistFault, AnUncaughtExceptionOnOneRankAbortsTheJob) {
  JobResult r = run_job("throw");
  EXPECT_NE(r.status, 0) << r.output;
  EXPECT_NE(r.status, 124) << "the job hung until timeout:\n" << r.output;
  EXPECT_NE(r.output.find("strata::dist: rank 1 of 3: uncaught exception: the data on rank 1 is bad"), std::string::npos)
      << r.output;
  EXPECT_EQ(r.output.find("finished, which it must not"), std::string::npos) << r.output;
}

TEST(DistFault, AKilledRankEndsTheJob) {
  JobResult r = run_job("kill");
  EXPECT_NE(r.status, 0) << r.output;
  EXPECT_NE(r.status, 124) << "the job hung until timeout:\n" << r.output;
  EXPECT_EQ(r.output.find("finished, which it must not"), std::string::npos) << r.output;
}

}  // namespace
