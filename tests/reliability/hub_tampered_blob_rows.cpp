// Issue 13.9: rows read from the database are hostile input too. A blobs row whose file is
// "../victim.txt" made delete_model delete a file outside the blob folder (and load_model read
// one). Every such name is now refused with an error naming it, and nothing is read or deleted.
// A block size near 2^63 overflowed the block count (undefined behaviour) and a sound blob
// failed to load; such a size is one block covering the whole file now, and sizes of 0 or
// less are a plain "corrupted" error.
#include <cstdint>
#include <fstream>
#include <limits>

#include "hub/hub_fixture.hpp"
#include "strata/hub/shared_connection.hpp"
#include "support/expect_error.hpp"

namespace strata::hub::testing {
namespace {

using strata::testing::expect_error;

TEST_P(HubTest, BlobFileNamesFromTheDatabaseNeverLeadOutOfTheBlobFolder) {
  const fs::path victim = dir_ / "victim.txt";
  const std::string hex(32, 'a');
  int case_number = 0;
  for (const std::string name : {std::string("../victim.txt"), victim.string(), "../" + hex + ".safetensors",
                                 "sub/" + hex + ".safetensors", std::string(".."), std::string(""),
                                 hex + ".safetensors.bak", hex.substr(1) + "g.safetensors"}) {
    SCOPED_TRACE("blobs.file = \"" + name + "\"");
    std::ofstream(victim) << "not a blob";
    const std::string url = (dir_ / ("case" + std::to_string(++case_number) + ".db")).string();
    {
      Hub hub = Hub::open(url);
      hub.save_model("m", small_model(1));
      SharedConnection(hub).lock().db().execute("UPDATE blobs SET file = ?", {name});  // what a tampered database holds
    }
    Hub hub = Hub::open(url, {.cache_bytes = 0});
    for (const auto& attempt : {+[](Hub& h) { h.load_model("m", 1); }, +[](Hub& h) { h.delete_model("m", 1); }}) {
      expect_error([&] { attempt(hub); }, {"names the file \"" + name + "\""});
    }
    EXPECT_TRUE(fs::exists(victim));
    EXPECT_EQ(hub.list_models("m").size(), 1u) << "a refused delete deletes nothing";
  }
}

TEST_P(HubTest, BlockSizesFromTheDatabaseNeverOverflow) {
  const auto weights = small_model(2);
  {
    Hub hub = open();
    hub.save_model("m", weights);
  }
  auto set_block_bytes = [&](Hub& hub, int64_t block_bytes) {
    SharedConnection(hub).lock().db().execute("UPDATE blobs SET block_bytes = ?", {block_bytes});
  };
  {
    // The blob is smaller than a block, so its one digest covers the whole file whatever the
    // block size above its length.
    Hub hub = open({.cache_bytes = 0});
    set_block_bytes(hub, std::numeric_limits<int64_t>::max());
    expect_same_weights(hub.load_model("m").weights, weights);
  }
  for (const int64_t block_bytes : {int64_t{0}, int64_t{-4096}}) {
    SCOPED_TRACE("blobs.block_bytes = " + std::to_string(block_bytes));
    Hub hub = open({.cache_bytes = 0});
    set_block_bytes(hub, block_bytes);
    expect_error([&] { hub.load_model("m"); }, {"block digests do not fit its size"});
  }
}

}  // namespace
}  // namespace strata::hub::testing
