// A SQLite hub's blob folder: a file being written is never swept by another Hub opening, and
// blobs stored as rows by hubs of schema version 3 (before blob files) still load and
// deduplicate. PostgreSQL keeps every blob in rows, so these run on SQLite only.
#include <condition_variable>
#include <fstream>
#include <iterator>
#include <mutex>
#include <thread>

#include "hub_fixture.hpp"
#include "strata/hub/shared_connection.hpp"

namespace strata::hub::testing {
namespace {

TEST_P(HubTest, OpeningDoesNotSweepAFileBeingWritten) {
  if (postgres()) GTEST_SKIP() << "blob files are SQLite's";
  std::mutex mu;
  std::condition_variable changed;
  bool writing = false, swept = false;
  HubOptions options;
  options.chunk_bytes = 64 << 10;
  options.on_chunk_written = [&](int64_t chunk) {
    if (chunk != 2) return;
    std::unique_lock lock(mu);
    writing = true;
    changed.notify_all();
    changed.wait(lock, [&] { return swept; });
  };
  Hub writer = open(options);
  const auto weights = big_model(1 << 20);
  std::thread save([&] { writer.save_model("m", weights); });
  {
    std::unique_lock lock(mu);
    changed.wait(lock, [&] { return writing; });
  }
  EXPECT_EQ(blob_files(), 1u);
  { Hub other = open(); }  // sweeps orphans: the half-written file is locked by its writer
  EXPECT_EQ(blob_files(), 1u);
  {
    std::lock_guard lock(mu);
    swept = true;
  }
  changed.notify_all();
  save.join();
  { Hub other = open(); }  // now recorded: kept
  expect_same_weights(open().load_model("m").weights, weights);
}

TEST_P(HubTest, BlobsStoredAsRowsStillLoadAndDeduplicate) {
  if (postgres()) GTEST_SKIP() << "blob files are SQLite's";
  const auto weights = small_model(7);
  {
    // Turn the saved blob into what a hub before blob files wrote: one row in blob_chunks.
    Hub hub = open();
    hub.save_model("m", weights);
    auto session = SharedConnection(hub).lock();
    Database& db = session.db();
    std::string file;
    db.query("SELECT file FROM blobs", {}, [&](const Row& r) { file = r.text(0); });
    const std::string path = url_ + "-blobs/" + file;
    std::ifstream in(path, std::ios::binary);
    const std::string bytes((std::istreambuf_iterator<char>(in)), {});
    db.transaction(true, [&] {
      db.execute("INSERT INTO blob_chunks (sha256, idx, data) SELECT sha256, 0, ? FROM blobs", {Bytes{bytes}});
      db.execute("UPDATE blobs SET file = NULL, block_bytes = NULL, block_sha256 = NULL, chunk_count = 1");
    });
    fs::remove(path);
  }
  Hub hub = open();
  expect_same_weights(hub.load_model("m", 1).weights, weights);
  EXPECT_EQ(hub.save_model("m", weights), 2);  // the same bytes: the row blob is reused
  EXPECT_EQ(hub.store_size().blobs, 1);
  EXPECT_EQ(blob_files(), 0u);
  hub.save_model("m", small_model(8));  // new blobs go to files
  EXPECT_EQ(blob_files(), 1u);
  expect_same_weights(Hub::open(url_, {.cache_bytes = 0}).load_model("m", 2).weights, weights);
}

}  // namespace
}  // namespace strata::hub::testing
