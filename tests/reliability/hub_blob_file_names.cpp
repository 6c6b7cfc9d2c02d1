// Issue 13.9: names read from the database are hostile input too. A blobs row whose file is
// "../victim.txt" made delete_model delete a file outside the blob folder (and load_model read
// one). Every such name is now refused with an error naming it, and nothing is read or deleted.
#include <fstream>

#include "../../src/hub/hub_state.hpp"
#include "hub/hub_fixture.hpp"

namespace strata::hub::testing {
namespace {

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
      auto& db = *detail::HubAccess::state(hub)->db;
      db.execute("UPDATE blobs SET file = ?", {name});  // what a tampered database holds
    }
    Hub hub = Hub::open(url, {.cache_bytes = 0});
    for (const auto& attempt : {+[](Hub& h) { h.load_model("m", 1); }, +[](Hub& h) { h.delete_model("m", 1); }}) {
      try {
        attempt(hub);
        ADD_FAILURE() << "expected a strata::Error";
      } catch (const Error& e) {
        const std::string what = e.what();
        EXPECT_NE(what.find("names the file \"" + name + "\""), std::string::npos) << what;
      }
    }
    EXPECT_TRUE(fs::exists(victim));
    EXPECT_EQ(hub.list_models("m").size(), 1u) << "a refused delete deletes nothing";
  }
}

}  // namespace
}  // namespace strata::hub::testing
