// The hub's regression tests in this folder (hub_*.cpp) are about SQLite hubs on disk (blob
// files beside the database, sqlite:// URLs): HubTest runs them on SQLite only.
#include "hub/hub_fixture.hpp"

namespace strata::hub::testing {

INSTANTIATE_TEST_SUITE_P(Sqlite, HubTest, ::testing::Values("sqlite"));

}  // namespace strata::hub::testing
