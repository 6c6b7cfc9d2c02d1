// Runs every HubTest on both backends.
#include "hub_fixture.hpp"

namespace strata::hub::testing {

INSTANTIATE_TEST_SUITE_P(Backends, HubTest, ::testing::Values("sqlite", "postgres"),
                         [](const ::testing::TestParamInfo<std::string>& p) { return p.param; });

}  // namespace strata::hub::testing
