"""Shared pytest machinery for the gpupy suite.

- ``@pytest.mark.gpu`` (or a module-level ``pytestmark = pytest.mark.gpu``): the test needs
  a CUDA GPU and is skipped, with a visible reason (the driver's own error message), when
  ``gpupy.cuda.is_available()`` is False. After each GPU test the device is synchronized,
  so an asynchronous kernel fault is reported by the test that caused it, not by the next.
- ``GPUPY_REQUIRE_GPU=1``: a run that must exercise the GPU. If no GPU can be used, the
  session stops at start with an error (exit status 4) naming the driver's message,
  instead of skipping every GPU test and reporting success.
- ``@pytest.mark.nogpu``: the test checks the no-GPU behaviour and is skipped when a GPU
  is present.
- Seeds: one session seed, printed in the report header, set with ``--gpupy-seed N`` or
  the environment variable ``GPUPY_TEST_SEED=N`` (random otherwise). The ``rng`` fixture
  derives each test's ``numpy.random.Generator`` from the session seed and the test's
  node id, so one test replays alone on the same data: ``pytest 'path::test[id]'
  --gpupy-seed N``. Hypothesis tests are seeded from the same two values (hypothesis's
  ``seed``), unless ``--hypothesis-seed`` is given. A failing test's report repeats the
  command line that replays it.
- Hypothesis profiles: ``ci`` (hypothesis's default 100 as the base count, the example
  counts written in the tests) and ``gpu`` (4x those counts), chosen by
  ``GPUPY_HYPOTHESIS_PROFILE``; default ``gpu`` when a GPU is present, ``ci`` otherwise.
  Tests scale their ``max_examples`` with ``helpers.examples(n)``.

Shared data helpers live in ``tests/helpers.py`` (gpupy-aware) and ``tests/compare.py``
(pure NumPy comparisons, self-tested in ``test_helpers.py``), not here.
"""

import gc
import hashlib
import os
import secrets

import numpy as np
import pytest

try:
    import gpupy
except ImportError as e:  # the helper self-tests still run; every other module fails to import
    gpupy = None
    GPUPY_IMPORT_ERROR = f"{type(e).__name__}: {e}"
else:
    GPUPY_IMPORT_ERROR = None


def _gpu_state():
    """(available, reason): the reason is the driver's own message when unavailable.

    ``is_available()`` is False for no driver or no GPU, and raises CUDARuntimeError for
    a driver that fails: that propagates here and stops the session with an error, as a
    broken driver is not a machine without a GPU."""
    if gpupy is None:
        return False, f"gpupy does not import ({GPUPY_IMPORT_ERROR})"
    if gpupy.cuda.is_available():
        return True, ""
    state, detail = gpupy._gpupy.availability()
    return False, f"{state}: {detail}"


GPU_AVAILABLE, GPU_MISSING_DETAIL = _gpu_state()
NO_GPU_REASON = f"no usable CUDA GPU (gpupy.cuda.is_available() is False): {GPU_MISSING_DETAIL}"
HAS_GPU_REASON = (
    "a CUDA GPU is present (gpupy.cuda.is_available() is True); "
    "this test covers the no-GPU error path"
)
REQUIRE_GPU = os.environ.get("GPUPY_REQUIRE_GPU", "") not in ("", "0")

# Hypothesis profiles. Tests write today's counts as ``examples(n)``, which scales n by
# the loaded profile's max_examples / 100.
HYPOTHESIS_PROFILES = {"ci": 100, "gpu": 400}
try:
    from hypothesis import HealthCheck, settings

    for _name, _count in HYPOTHESIS_PROFILES.items():
        settings.register_profile(
            _name,
            max_examples=_count,
            deadline=None,  # device start-up and kernel loading make first calls slow
            print_blob=True,  # a failure prints the @reproduce_failure blob
            suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large],
        )
    HYPOTHESIS_PROFILE = os.environ.get("GPUPY_HYPOTHESIS_PROFILE") or ("gpu" if GPU_AVAILABLE else "ci")
    if HYPOTHESIS_PROFILE not in HYPOTHESIS_PROFILES:
        raise pytest.UsageError(
            f"GPUPY_HYPOTHESIS_PROFILE={HYPOTHESIS_PROFILE!r}: expected one of {sorted(HYPOTHESIS_PROFILES)}"
        )
    settings.load_profile(HYPOTHESIS_PROFILE)
except ImportError:
    HYPOTHESIS_PROFILE = None


def pytest_addoption(parser):
    parser.addoption(
        "--gpupy-seed",
        type=int,
        default=None,
        help="session seed for the rng fixture and hypothesis (default: $GPUPY_TEST_SEED, else random)",
    )


def _session_seed(config):
    opt = config.getoption("--gpupy-seed")
    if opt is not None:
        return opt
    env = os.environ.get("GPUPY_TEST_SEED")
    if env:
        return int(env)
    return secrets.randbits(63)


def seed_for(session_seed, nodeid):
    """The seed of one test: a hash of the session seed and the test's node id."""
    digest = hashlib.sha256(f"{session_seed}:{nodeid}".encode()).digest()
    return int.from_bytes(digest[:8], "little") >> 1


def pytest_configure(config):
    config.addinivalue_line("markers", "gpu: needs a CUDA GPU; skipped when none is present")
    config.addinivalue_line("markers", "nogpu: checks behaviour without a GPU; skipped when one is present")
    worker = getattr(config, "workerinput", None)  # a pytest-xdist worker: the controller's seed
    config._gpupy_seed = worker["gpupy_seed"] if worker and "gpupy_seed" in worker else _session_seed(config)


@pytest.hookimpl(optionalhook=True)
def pytest_configure_node(node):
    """pytest-xdist: every worker uses the session seed the controller printed."""
    node.workerinput["gpupy_seed"] = node.config._gpupy_seed


def pytest_sessionstart(session):
    if REQUIRE_GPU and not GPU_AVAILABLE:
        raise pytest.UsageError(
            "GPUPY_REQUIRE_GPU=1 is set but no CUDA GPU can be used, so the GPU tests would "
            f"all be skipped. {GPU_MISSING_DETAIL}"
        )


def pytest_report_header(config):
    where = "not importable" if gpupy is None else f"{gpupy.__version__} from {os.path.dirname(gpupy.__file__)}"
    lines = [
        f"gpupy {where}; GPU available: {GPU_AVAILABLE}"
        + ("" if GPU_AVAILABLE else f" ({GPU_MISSING_DETAIL})")
        + ("; GPUPY_REQUIRE_GPU=1" if REQUIRE_GPU else ""),
        f"gpupy test seed: {config._gpupy_seed} (replay with --gpupy-seed {config._gpupy_seed} "
        f"or GPUPY_TEST_SEED={config._gpupy_seed}); hypothesis profile: {HYPOTHESIS_PROFILE}",
    ]
    return lines


def pytest_collection_modifyitems(config, items):
    skip_gpu = pytest.mark.skip(reason=NO_GPU_REASON)
    skip_nogpu = pytest.mark.skip(reason=HAS_GPU_REASON)
    forced = config.getoption("--hypothesis-seed", default=None) is not None
    for item in items:
        if "gpu" in item.keywords and not GPU_AVAILABLE:
            item.add_marker(skip_gpu)
        if "nogpu" in item.keywords and GPU_AVAILABLE:
            item.add_marker(skip_nogpu)
        fn = getattr(item, "obj", None)
        if not forced and getattr(fn, "is_hypothesis_test", False):
            from hypothesis import seed

            s = seed_for(config._gpupy_seed, item.nodeid)
            seed(s)(fn)  # hypothesis's @seed, applied to the collected test
            item.user_properties.append(("hypothesis_seed", s))


@pytest.fixture(autouse=True)
def _synchronize_after_gpu_test(request):
    yield
    if GPU_AVAILABLE and request.node.get_closest_marker("gpu") is not None:
        gpupy.cuda.Device().synchronize()


@pytest.fixture
def rng(request):
    """A ``numpy.random.Generator`` seeded from the session seed and this test's node id."""
    s = seed_for(request.config._gpupy_seed, request.node.nodeid)
    request.node.user_properties.append(("rng_seed", s))
    return np.random.default_rng(s)


@pytest.fixture
def pool_baseline():
    """The memory pool's used bytes are the same after the test as before it (nothing a
    failed call allocated stays behind)."""
    gc.collect()
    pool = gpupy.get_default_memory_pool()
    before = pool.used_bytes()
    yield
    gc.collect()
    assert pool.used_bytes() == before, f"pool used bytes {before} -> {pool.used_bytes()}"


@pytest.hookimpl(hookwrapper=True)
def pytest_runtest_makereport(item, call):
    outcome = yield
    report = outcome.get_result()
    if report.failed:
        props = dict(item.user_properties)
        seed = item.config._gpupy_seed
        lines = [f"replay this test on the same data: pytest '{item.nodeid}' --gpupy-seed {seed}"]
        if "rng_seed" in props:
            lines.append(f"(its rng was numpy.random.default_rng({props['rng_seed']}))")
        if "hypothesis_seed" in props:
            lines.append(
                f"(hypothesis seed {props['hypothesis_seed']}: or add @hypothesis.seed({props['hypothesis_seed']}))"
            )
        report.sections.append(("gpupy seed", "\n".join(lines)))


# The matrix-product paths that ran (test_matmul_paths.py records each in its report's
# user properties, which reach the controller under xdist too), listed at the end.
_MATMUL_PATHS = set()


def pytest_runtest_logreport(report):
    if report.when == "call":
        for name, value in report.user_properties:
            if name == "matmul_path":
                _MATMUL_PATHS.add(value)


def pytest_terminal_summary(terminalreporter):
    if _MATMUL_PATHS:
        terminalreporter.section("matmul paths ran")
        for line in sorted(_MATMUL_PATHS):
            terminalreporter.write_line(line)
