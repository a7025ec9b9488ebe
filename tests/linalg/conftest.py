"""The solver tests run under both planar configuration spaces: angles stored as such
('planar') and as unit complex numbers updated multiplicatively ('planar-complex'), so a
solver that adds to q or assumes q.shape == v.shape fails here."""
import pytest

from fembody import space


@pytest.fixture(autouse=True, params=space.SPACES)
def configuration_space(request):
    old = space.set_default(request.param)
    yield request.param
    space.set_default(old)
