"""Input/result payload formats (no server needed)."""

from __future__ import annotations

import pickle

import pytest

from federa_client.serialization import deserialize, detect_format, serialize

VALUE = {"method": "average", "args": ["age"], "kwargs": {"n": 1}, "master": False}


def test_json_format():
    data = serialize(VALUE)
    assert data == b'json.{"method": "average", "args": ["age"], "kwargs": {"n": 1}, "master": false}'
    assert detect_format(data) == "json" and deserialize(data) == VALUE


def test_pickle_formats():
    prefixed = serialize({"s": {1, 2}}, "pickle")
    assert prefixed.startswith(b"pickle.") and detect_format(prefixed) == "pickle"
    assert deserialize(prefixed) == {"s": {1, 2}}
    legacy = serialize({"s": {1, 2}}, "legacy")
    assert legacy == pickle.dumps({"s": {1, 2}}) and detect_format(legacy) == "legacy"
    assert deserialize(legacy) == {"s": {1, 2}}


@pytest.mark.parametrize("data, fmt", [
    (b"JSON.[1]", "json"),
    (b"Pickle." + pickle.dumps(3), "pickle"),
    (pickle.dumps(1, protocol=0), "legacy"),  # b"I1\n." : text with a dot, but not a format name
    (b"xml.<a/>", "legacy"),
    (b"", "legacy"),
])
def test_detect_format(data, fmt):
    assert detect_format(data) == fmt


def test_protocol_0_pickle_is_not_mistaken_for_a_prefix():
    assert deserialize(pickle.dumps([1, 2], protocol=0)) == [1, 2]
    assert deserialize(b"JSON.[1]") == [1]


def test_bad_formats():
    with pytest.raises(ValueError, match="unknown data_format 'xml'"):
        serialize(1, "xml")
    with pytest.raises(ValueError, match="cannot be written as JSON"):
        serialize({1, 2})
