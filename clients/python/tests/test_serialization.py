"""Input/result payload formats (no server needed). Nothing read from the wire is ever unpickled."""

from __future__ import annotations

import os
import pickle

import pytest

from federa_client import UnsafePayloadWarning
from federa_client.serialization import deserialize, detect_format, read_payload, serialize

VALUE = {"method": "average", "args": ["age"], "kwargs": {"n": 1}, "master": False}


class Exploit:
    """Unpickling this creates the file ``path``: proof that code ran."""

    def __init__(self, path):
        self.path = str(path)

    def __reduce__(self):
        return (os.mkdir, (self.path,))


def test_json_format():
    data = serialize(VALUE)
    assert data == b'json.{"method": "average", "args": ["age"], "kwargs": {"n": 1}, "master": false}'
    assert detect_format(data) == "json" and deserialize(data) == VALUE


@pytest.mark.parametrize("prefix, words", [
    (b"pickle.", "is a Python pickle; Federa never unpickles"),
    (b"", r"without a format prefix \(vantage6's legacy format\)"),
    (b"PICKLE.", "is a Python pickle; Federa never unpickles"),
])
def test_pickled_results_are_returned_as_bytes_and_never_run(tmp_path, prefix, words):
    marker = tmp_path / "pwned"
    payload = prefix + pickle.dumps(Exploit(marker))
    with pytest.warns(UnsafePayloadWarning, match=words):
        value = read_payload(payload, "result 7")
    assert value == payload and isinstance(value, bytes)
    assert not marker.exists()


def test_unknown_format_is_returned_as_bytes_with_a_warning():
    with pytest.warns(UnsafePayloadWarning, match="result 8 is in the unknown format 'xml'"):
        assert read_payload(b"xml.<a/>", "result 8") == b"xml.<a/>"


@pytest.mark.parametrize("fmt", ["pickle", "legacy", "Pickle"])
def test_pickle_input_is_refused(fmt):
    with pytest.raises(ValueError, match="is not supported: unpickling runs code"):
        serialize({"method": "x"}, fmt)


@pytest.mark.parametrize("data, fmt", [
    (b"JSON.[1]", "json"),
    (b"Pickle." + pickle.dumps(3), "pickle"),
    (pickle.dumps(1, protocol=0), "legacy"),  # b"I1\n." : text with a dot, but not a format name
    (b"xml.<a/>", "xml"),
    (b"", "legacy"),
])
def test_detect_format(data, fmt):
    assert detect_format(data) == fmt


def test_protocol_0_pickle_is_not_mistaken_for_a_prefix():
    with pytest.warns(UnsafePayloadWarning, match="legacy"):
        assert read_payload(pickle.dumps([1, 2], protocol=0)) == pickle.dumps([1, 2], protocol=0)
    assert deserialize(b"JSON.[1]") == [1]


def test_bad_formats():
    with pytest.raises(ValueError, match="unknown data_format 'xml'"):
        serialize(1, "xml")
    with pytest.raises(ValueError, match="cannot be written as JSON"):
        serialize({1, 2})
