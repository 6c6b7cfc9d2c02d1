// The dist tests' main: starts MPI, then runs the gtest cases on every rank. Rank 0 prints
// gtest's usual report; the others print only their failures, marked with the rank, so a
// failure anywhere is visible and fails the job (mpirun returns non-zero).
#include <gtest/gtest.h>

#include <iostream>

#include "strata/dist/world.hpp"

namespace {

class RankFailures : public testing::EmptyTestEventListener {
 public:
  explicit RankFailures(int rank) : rank_(rank) {}
  void OnTestPartResult(const testing::TestPartResult& result) override {
    if (result.failed())
      std::cerr << "[rank " << rank_ << "] " << result.file_name() << ":" << result.line_number() << ": "
                << result.summary() << '\n';
  }

 private:
  int rank_;
};

}  // namespace

int main(int argc, char** argv) {
  testing::InitGoogleTest(&argc, argv);
  const strata::dist::World& world = strata::dist::init();
  if (world.rank != 0) {
    auto& listeners = testing::UnitTest::GetInstance()->listeners();
    delete listeners.Release(listeners.default_result_printer());
    listeners.Append(new RankFailures(world.rank));
  }
  return RUN_ALL_TESTS();
}
