"""Shared pytest machinery for the gpupy suite.

- ``@pytest.mark.gpu`` (or a module-level ``pytestmark = pytest.mark.gpu``): the test needs
  a CUDA GPU and is skipped, with a visible reason, when ``gpupy.cuda.is_available()`` is
  False. After each GPU test the device is synchronized, so an asynchronous kernel fault
  is reported by the test that caused it, not by the next one.
- ``@pytest.mark.nogpu``: the test checks the no-GPU behaviour and is skipped when a GPU
  is present.
- ``rng``: a ``numpy.random.Generator`` seeded from a fresh random seed. The seed is
  printed and, when the test fails, shown in its report as ``GPUPY_TEST_SEED=...``;
  setting that environment variable reruns the test on the same data.

Shared data helpers live in ``tests/helpers.py``, not here.
"""

import os
import secrets

import numpy as np
import pytest

import gpupy

NO_GPU_REASON = "no CUDA GPU/driver on this machine (gpupy.cuda.is_available() is False)"
HAS_GPU_REASON = (
    "a CUDA GPU is present (gpupy.cuda.is_available() is True); "
    "this test covers the no-GPU error path"
)

GPU_AVAILABLE = gpupy.cuda.is_available()


def pytest_configure(config):
    config.addinivalue_line("markers", "gpu: needs a CUDA GPU; skipped when none is present")
    config.addinivalue_line("markers", "nogpu: checks behaviour without a GPU; skipped when one is present")


def pytest_report_header(config):
    return f"gpupy {gpupy.__version__} from {os.path.dirname(gpupy.__file__)}; GPU available: {GPU_AVAILABLE}"


def pytest_collection_modifyitems(config, items):
    skip_gpu = pytest.mark.skip(reason=NO_GPU_REASON)
    skip_nogpu = pytest.mark.skip(reason=HAS_GPU_REASON)
    for item in items:
        if "gpu" in item.keywords and not GPU_AVAILABLE:
            item.add_marker(skip_gpu)
        if "nogpu" in item.keywords and GPU_AVAILABLE:
            item.add_marker(skip_nogpu)


@pytest.fixture(autouse=True)
def _synchronize_after_gpu_test(request):
    yield
    if GPU_AVAILABLE and request.node.get_closest_marker("gpu") is not None:
        gpupy.cuda.Device().synchronize()


@pytest.fixture
def rng(request):
    """A fresh ``numpy.random.Generator``; the seed is reported on failure."""
    env = os.environ.get("GPUPY_TEST_SEED")
    seed = int(env) if env else secrets.randbits(63)
    request.node.user_properties.append(("rng_seed", seed))
    print(f"rng seed: GPUPY_TEST_SEED={seed}")
    return np.random.default_rng(seed)


@pytest.hookimpl(hookwrapper=True)
def pytest_runtest_makereport(item, call):
    outcome = yield
    report = outcome.get_result()
    if report.failed:
        for name, value in item.user_properties:
            if name == "rng_seed":
                report.sections.append(
                    ("rng seed", f"rerun on the same data with GPUPY_TEST_SEED={value}")
                )
