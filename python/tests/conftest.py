"""One context for the whole run, on the device PORTACL_TEST_DEVICE names (default 'auto'), as the
C++ suites choose theirs."""

import os

import numpy as np
import pytest

import portacl


@pytest.fixture(scope="session")
def ctx():
    with portacl.Context(os.environ.get("PORTACL_TEST_DEVICE", "auto")) as c:
        yield c


@pytest.fixture(scope="session")
def fp64(ctx):
    if not ctx.device.fp64:
        pytest.skip(f"{ctx.device} has no fp64")
    return True


@pytest.fixture
def rng():
    return np.random.default_rng(20261127)
