"""The libops package's tests: run by ./buildnativeoperations.sh --test (ctest
python_tests, with <build>/python first on the path), or by hand after pip
install: python3 -m pytest python/tests."""
import os

import pytest

ROOT = os.path.abspath(os.path.join(os.path.dirname(__file__), "..", ".."))


@pytest.fixture
def golden():
    """A file of tests_cpu/golden."""
    return lambda *parts: os.path.join(ROOT, "tests_cpu", "golden", *parts)
