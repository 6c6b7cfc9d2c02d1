"""Every test starts from the same generator state, so weights drawn at a layer's first call do
not depend on which tests ran before it."""
import pytest

import strata


@pytest.fixture(autouse=True)
def seeded():
    strata.manual_seed(0)
