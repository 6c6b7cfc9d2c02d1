// Whole jobs started from here (this program is not an MPI process): a rank that raises or
// dies ends the job, with mpirun returning non-zero well before the hang guard (`timeout`)
// would, and the error naming the failing rank and its exception; `strata launch` runs a job;
// training resumes from a hub checkpoint with another number of ranks; a worker runs a job as a
// data_parallel task.
#include <gtest/gtest.h>
#include <unistd.h>

#include <array>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
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

// Run as root (as the tests often are, in a container), `strata launch` lets mpirun run as root
// itself, saying so (mpirun refused root before).
const std::string kLaunch = "env -u OMPI_ALLOW_RUN_AS_ROOT -u OMPI_ALLOW_RUN_AS_ROOT_CONFIRM " STRATA_CLI_PATH " launch";

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

TEST(DistJob, ARankThatReturnsEarlyEndsTheJobAfterTheExitTimeout) {
  JobResult r = run("STRATA_DIST_EXIT_TIMEOUT=2 " STRATA_MPIEXEC
                    " --oversubscribe --allow-run-as-root -x STRATA_DIST_EXIT_TIMEOUT -n 3 " STRATA_DIST_JOB " return");
  EXPECT_NE(r.status, 0) << r.output;
  EXPECT_NE(r.status, 124) << "the job hung until timeout:\n" << r.output;
  EXPECT_NE(r.output.find("strata::dist: rank 1 of 3: finished, but other ranks did not within 2 s"), std::string::npos)
      << r.output;
}

TEST(DistJob, ABadExitTimeoutIsAnError) {
  JobResult r = run("STRATA_DIST_EXIT_TIMEOUT=soon " STRATA_MPIEXEC
                    " --oversubscribe --allow-run-as-root -x STRATA_DIST_EXIT_TIMEOUT -n 1 " STRATA_DIST_JOB " hello");
  EXPECT_NE(r.status, 0) << r.output;
  EXPECT_NE(r.output.find("STRATA_DIST_EXIT_TIMEOUT must be a number of seconds"), std::string::npos) << r.output;
}

TEST(DistJob, LaunchRunsTheProgramOnEveryRankWithItsArguments) {
  JobResult r = run(kLaunch + " -n 2 --oversubscribe " STRATA_DIST_JOB " hello --epochs 3");
  EXPECT_EQ(r.status, 0) << r.output;
  EXPECT_NE(r.output.find("rank 0 of 2 (local 0 of 2): --epochs 3"), std::string::npos) << r.output;
  EXPECT_NE(r.output.find("rank 1 of 2 (local 1 of 2): --epochs 3"), std::string::npos) << r.output;
  EXPECT_EQ(r.output.find("allowing Open MPI to run as root") != std::string::npos, ::geteuid() == 0) << r.output;
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

namespace {

std::string mpirun(int ranks, const std::string& args) {
  return STRATA_MPIEXEC " --oversubscribe --allow-run-as-root -n " + std::to_string(ranks) + " " STRATA_DIST_JOB " " +
         args;
}

// 2 epochs of Adam on 2 ranks, checkpointed; 2 more from the checkpoint on 3 ranks, and on 1;
// against 4 epochs on one process without a stop: the same weights.
TEST(DistJob, ResumesFromAHubCheckpointWithAnotherRankCount) {
  char dir_template[] = "/tmp/strata-dist-resume-XXXXXX";
  ASSERT_NE(mkdtemp(dir_template), nullptr);
  const std::string dir = dir_template, resumed = dir + "/resumed.db", straight = dir + "/straight.db";
  const std::string half = dir + "/half.db", on_one = dir + "/on_one.db";
  JobResult first = run(mpirun(2, "train " + resumed + " 2"));
  ASSERT_EQ(first.status, 0) << first.output;
  for (const std::string& copy : {half, on_one})  // the SQLite file and its blob folder
    for (const std::string suffix : {"", "-blobs"})
      std::filesystem::copy(resumed + suffix, copy + suffix, std::filesystem::copy_options::recursive);
  JobResult second = run(mpirun(3, "train " + resumed + " 4 resume"));
  ASSERT_EQ(second.status, 0) << second.output;
  JobResult alone = run(mpirun(1, "train " + on_one + " 4 resume"));
  ASSERT_EQ(alone.status, 0) << alone.output;
  JobResult reference = run(mpirun(1, "train " + straight + " 4"));
  ASSERT_EQ(reference.status, 0) << reference.output;
  JobResult same = run(mpirun(1, "compare " + resumed + " " + straight));
  EXPECT_EQ(same.status, 0) << same.output;
  JobResult same_on_one = run(mpirun(1, "compare " + on_one + " " + straight));
  EXPECT_EQ(same_on_one.status, 0) << same_on_one.output;
  // And the check can fail: 2 epochs are not 4.
  EXPECT_EQ(run(mpirun(1, "compare " + half + " " + straight)).status, 1);
  std::filesystem::remove_all(dir);
}

}  // namespace

namespace {

// A data-parallel job as a workflow task: `strata worker` leases a data_parallel task and runs
// it through mpirun; the ranks' output is the task's log; a failing rank fails the task; a
// program the worker's operator did not allow is refused.
TEST(DistJob, AWorkerRunsADataParallelTask) {
  char dir_template[] = "/tmp/strata-dist-task-XXXXXX";
  ASSERT_NE(mkdtemp(dir_template), nullptr);
  const std::string dir = dir_template, hub = dir + "/queue.db", plan = dir + "/plan.json";
  {
    std::ofstream out(plan);
    out << R"({"name": "dp", "tasks": [
      {"name": "hello", "kind": "data_parallel", "max_attempts": 1,
       "params": {"processes": 2, "oversubscribe": true, "argv": [")" STRATA_DIST_JOB R"(", "hello", "--epochs", "3"]}},
      {"name": "bad", "kind": "data_parallel", "max_attempts": 1,
       "params": {"processes": 2, "oversubscribe": true, "argv": [")" STRATA_DIST_JOB R"(", "throw"]}},
      {"name": "denied", "kind": "data_parallel", "max_attempts": 1,
       "params": {"processes": 2, "argv": ["/bin/echo", "hi"]}}]})";
  }
  const std::string cli = STRATA_CLI_PATH " plan --hub " + hub + " ";
  ASSERT_EQ(run(cli + "submit " + plan).status, 0);
  JobResult worker = run("OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1 " STRATA_CLI_PATH " worker --hub " +
                         hub + " --allow-command " STRATA_DIST_JOB " --exit-when-idle");
  ASSERT_EQ(worker.status, 0) << worker.output;
  const JobResult hello = run(cli + "log 1"), bad = run(cli + "log 2"), denied = run(cli + "log 3");
  EXPECT_NE(hello.output.find("succeeded"), std::string::npos) << hello.output;
  EXPECT_NE(hello.output.find("rank 0 of 2 (local 0 of 2): --epochs 3"), std::string::npos) << hello.output;
  EXPECT_NE(hello.output.find("rank 1 of 2 (local 1 of 2): --epochs 3"), std::string::npos) << hello.output;
  EXPECT_NE(bad.output.find("failed"), std::string::npos) << bad.output;
  EXPECT_NE(bad.output.find("exited with status"), std::string::npos) << bad.output;
  EXPECT_NE(bad.output.find("rank 1 of 2: uncaught exception"), std::string::npos) << bad.output;
  EXPECT_NE(denied.output.find("\"/bin/echo\" is not allowed on this worker"), std::string::npos) << denied.output;
  EXPECT_NE(run(cli + "log 99").status, 0);
  std::filesystem::remove_all(dir);
}

}  // namespace
