"""Every test here runs under both planar configuration spaces (tests/space_params.py)."""
from tests.space_params import configuration_space  # noqa: F401 (an autouse fixture)
