"""Tests of federa_algorithm_tools (standard library only): payloads, data loading and the wrapper."""
import json
import os
import pickle
import subprocess
import sys
import tempfile
import unittest

sys.path.insert(0, os.path.join(os.path.dirname(__file__), ".."))

from federa_algorithm_tools import (PayloadFormatError, UnsafePayloadWarning, decode_payload,  # noqa: E402
                                    detect_format, encode_payload, load_data)
from federa_algorithm_tools.payload import read_result  # noqa: E402

HERE = os.path.dirname(os.path.abspath(__file__))


class Exploit:
    """Unpickling this creates the folder ``path``: proof that code ran."""

    def __init__(self, path):
        self.path = str(path)

    def __reduce__(self):
        return (os.mkdir, (self.path,))


class PayloadTest(unittest.TestCase):
    def test_formats(self):
        self.assertEqual(detect_format(b'json.{"a": 1}')[0], "json")
        self.assertEqual(detect_format(pickle.dumps({"a": 1}))[0], "legacy")
        self.assertEqual(decode_payload(encode_payload({"a": 1}, "json")), {"a": 1})
        self.assertEqual(decode_payload(encode_payload({"a": (1, 2)})), {"a": [1, 2]})
        self.assertTrue(encode_payload([1]).startswith(b"json."))

    def test_pickles_are_refused_and_never_run(self):
        marker = os.path.join(tempfile.mkdtemp(), "pwned")
        for data, words in ((b"pickle." + pickle.dumps(Exploit(marker)), "is a pickle ('pickle.' prefix)"),
                            (pickle.dumps(Exploit(marker)), "no format prefix: it is a Python pickle")):
            with self.assertRaisesRegex(PayloadFormatError, words.replace("(", r"\(").replace(")", r"\)")):
                decode_payload(data, "the task input")
            with self.assertWarns(UnsafePayloadWarning):
                self.assertEqual(read_result(data), data)
        self.assertFalse(os.path.exists(marker))
        with self.assertRaisesRegex(PayloadFormatError, "pickle output is not written"):
            encode_payload(1, "pickle")


class WrapperTest(unittest.TestCase):
    def run_algorithm(self, payload: bytes):
        d = tempfile.mkdtemp()
        for name, content in (("input", payload), ("output", b""), ("data.csv", b"age,w\n10,1\n20,\n")):
            with open(os.path.join(d, name), "wb") as f:
                f.write(content)
        env = dict(os.environ, INPUT_FILE=f"{d}/input", OUTPUT_FILE=f"{d}/output", DATABASE_URI=f"{d}/data.csv",
                   PYTHONPATH=os.pathsep.join([os.path.join(HERE, ".."), os.path.join(HERE, "../../../algorithms/average-python")]))
        proc = subprocess.run([sys.executable, "-c", "import average\nfrom federa_algorithm_tools import run\nrun(average)"],
                              env=env, capture_output=True)
        with open(f"{d}/output", "rb") as f:
            return proc.returncode, f.read(), proc.stderr.decode()

    def test_partial_average_writes_json(self):
        code, out, _ = self.run_algorithm(b'json.{"method": "partial_average", "args": ["age"], "output_format": "json"}')
        self.assertEqual(code, 0)
        self.assertEqual(json.loads(out[5:]), {"sum": 30.0, "count": 2})
        # A vantage6 client asking for pickle output still gets JSON (which it reads as well).
        code, out, _ = self.run_algorithm(b'json.{"method": "partial_average", "args": ["w"], "output_format": "pickle"}')
        self.assertEqual(code, 0)
        self.assertEqual(out, b'json.{"sum": 1.0, "count": 1}')

    def test_pickled_input_is_refused_without_running_it(self):
        marker = os.path.join(tempfile.mkdtemp(), "pwned")
        code, out, err = self.run_algorithm(pickle.dumps({"method": "partial_average", "args": [Exploit(marker)]}))
        self.assertEqual(code, 1)
        self.assertEqual(out, b"")
        self.assertIn("the task input has no format prefix: it is a Python pickle", err)
        self.assertFalse(os.path.exists(marker))

    def test_unknown_method_exits_1_with_traceback(self):
        code, _, err = self.run_algorithm(b'json.{"method": "nope"}')
        self.assertEqual(code, 1)
        self.assertIn("no function 'RPC_nope'", err)

    def test_load_data(self):
        d = tempfile.mkdtemp()
        with open(f"{d}/x.csv", "w") as f:
            f.write("a,b\n1,x\n2.5,\n")
        rows = load_data({"USER_REQUESTED_DATABASE_LABEL": "default", "DEFAULT_DATABASE_URI": f"{d}/x.csv"})
        self.assertEqual(rows, [{"a": 1, "b": "x"}, {"a": 2.5, "b": None}])


if __name__ == "__main__":
    unittest.main()
