// `strata hub export-tensorboard` (lifecycle::export_tensorboard) of a run whose rows the hub refuses
// (a metric's split tampered with) fails naming the row and leaves no event file behind: a
// partial export would have been read by TensorBoard as the run. A second export into a folder
// that holds one is refused, and the first is kept: TensorBoard would show every point twice.
#include <filesystem>
#include <set>
#include <string>

#include "hub/hub_fixture.hpp"
#include "strata/hub/shared_connection.hpp"
#include "strata/lifecycle/tensorboard_export.hpp"
#include "support/expect_error.hpp"

namespace strata::hub::testing {
namespace {

std::set<std::string> event_files(const fs::path& dir) {
  std::set<std::string> files;
  std::error_code ec;
  for (auto it = fs::recursive_directory_iterator(dir, ec); !ec && it != fs::recursive_directory_iterator(); ++it)
    if (it->path().filename().string().starts_with("events.out.tfevents.")) files.insert(it->path().string());
  return files;
}

using strata::testing::expect_error;

TEST_P(HubTest, TensorBoardExportLeavesNothingOfARunItCannotReadAndNeverDoublesOne) {
  Hub hub = open();
  auto run = hub.create_run("exported", "{}");
  run.log(0, Split::train, "loss", 1.0);
  run.log(0, Split::validation, "loss", 0.5);
  run.finish();
  const fs::path out = dir_ / "tensorboard";
  SharedConnection connection(hub);  // one statement at a time, between the hub's calls

  connection.lock().db().execute("UPDATE metrics SET split = ? WHERE split = ?",
                                 {std::string("../../etc"), std::string("validation")});
  expect_error([&] { lifecycle::export_tensorboard(hub, run.id(), out.string()); }, {"unknown split \"../../etc\""});
  EXPECT_TRUE(event_files(out).empty());

  connection.lock().db().execute("UPDATE metrics SET split = ? WHERE split = ?",
                                 {std::string("validation"), std::string("../../etc")});
  EXPECT_EQ(lifecycle::export_tensorboard(hub, run.id(), out.string()).points, 2);
  const auto first = event_files(out);
  EXPECT_EQ(first.size(), 2u);  // train, validation
  expect_error([&] { lifecycle::export_tensorboard(hub, run.id(), out.string()); }, {"already holds event files"});
  EXPECT_EQ(event_files(out), first);
}

}  // namespace
}  // namespace strata::hub::testing
