"""The examples in the public docstrings run and print what they say."""

import doctest
import importlib

import pytest

MODULES = ["axisops", "axisops.ops", "axisops.config", "axisops.registry", "axisops.merge",
           "axisops.dispatch", "axisops.streaming.topk_stream", "axisops.streaming.files_api"]


@pytest.mark.parametrize("name", MODULES)
def test_docstring_examples(name):
    module = importlib.import_module(name)
    result = doctest.testmod(module, optionflags=doctest.NORMALIZE_WHITESPACE)
    assert result.attempted > 0 and result.failed == 0
