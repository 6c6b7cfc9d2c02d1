// Issue 13.8: "sqlite://PATH" URLs, documented in hub.hpp, could open but not save: the blob
// folder was derived from the URL string ("sqlite://PATH-blobs") instead of from PATH.
#include "hub/hub_fixture.hpp"

namespace strata::hub::testing {
namespace {

TEST_P(HubTest, SqliteUrlsSaveBesideTheirPath) {
  const auto weights = small_model(3);
  {
    Hub hub = Hub::open("sqlite://" + url_);
    EXPECT_EQ(hub.save_model("m", weights), 1);
    expect_same_weights(hub.load_model("m").weights, weights);
  }
  EXPECT_EQ(blob_files(), 1u);  // in PATH-blobs, beside the database
  expect_same_weights(Hub::open(url_, {.cache_bytes = 0}).load_model("m").weights, weights);  // one hub, two spellings
}

}  // namespace
}  // namespace strata::hub::testing
