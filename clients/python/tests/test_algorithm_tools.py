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

    def test_a_method_name_that_is_no_function_name_is_refused_on_one_line(self):
        code, out, err = self.run_algorithm(b'json.{"method": "x\\n[federa node] approved"}')
        self.assertEqual(code, 1)
        self.assertEqual(out, b"")
        self.assertIn("the method 'x\\n[federa node] approved' is not the name of a Python function", err)
        self.assertFalse(any(line.startswith("[federa") for line in err.splitlines()))

    def test_load_data(self):
        d = tempfile.mkdtemp()
        with open(f"{d}/x.csv", "w") as f:
            f.write("a,b\n1,x\n2.5,\n")
        rows = load_data({"USER_REQUESTED_DATABASE_LABEL": "default", "DEFAULT_DATABASE_URI": f"{d}/x.csv"})
        self.assertEqual(rows, [{"a": 1, "b": "x"}, {"a": 2.5, "b": None}])


if __name__ == "__main__":
    unittest.main()


class ProxyRestartTest(unittest.TestCase):
    """The node's proxy away for a moment (its node restarting): requests are tried again, within a bound."""

    def proxy(self, port, failures, status):
        import http.server
        import threading
        seen = []

        class Handler(http.server.BaseHTTPRequestHandler):
            def do_GET(self):  # noqa: N802
                self.answer()

            def do_POST(self):  # noqa: N802
                self.answer()

            def answer(self):
                seen.append(f"{self.command} {self.path}")
                failing = len(seen) <= failures
                body = json.dumps({"msg": "restarting"} if failing else {"id": 5, "complete": True}).encode()
                self.send_response(status if failing else 200)
                self.send_header("Content-Type", "application/json")
                self.send_header("Content-Length", str(len(body)))
                self.end_headers()
                self.wfile.write(body)

            def log_message(self, *args):
                pass

        server = http.server.HTTPServer(("127.0.0.1", port), Handler)
        threading.Thread(target=server.serve_forever, daemon=True).start()
        self.addCleanup(server.server_close)
        self.addCleanup(server.shutdown)
        return server, seen

    def client(self, port, retry_for):
        import base64 as b64
        from federa_algorithm_tools.client import AlgorithmClient
        part = b64.urlsafe_b64encode(json.dumps({"sub": {"node_id": 1, "task_id": 2}}).encode()).decode().rstrip("=")
        c = AlgorithmClient("http://127.0.0.1", port, "", f"e30.{part}.c2ln")
        c.retry_for = retry_for
        return c

    def test_503_then_the_answer(self):
        server, seen = self.proxy(0, 2, 503)
        self.assertEqual(self.client(server.server_port, 10).get_task(5)["id"], 5)
        self.assertEqual(seen, ["GET /task/5"] * 3)

    def test_nothing_listening_until_the_proxy_is_back_on_its_address(self):
        import threading
        first, _ = self.proxy(0, 0, 200)
        port = first.server_port
        first.shutdown()
        first.server_close()
        back = {}
        timer = threading.Timer(0.6, lambda: back.update(zip(("server", "seen"), self.proxy(port, 0, 200))))
        timer.start()
        self.assertEqual(self.client(port, 10).get_task(5)["id"], 5)
        timer.join()
        self.assertEqual(back["seen"], ["GET /task/5"])

    def test_a_post_is_not_sent_twice_after_a_502_and_a_get_gives_up_in_time(self):
        server, seen = self.proxy(0, 100, 502)
        with self.assertRaisesRegex(RuntimeError, "answered 502") as caught:
            self.client(server.server_port, 10).request("POST", "/task", {"name": "x"})
        self.assertEqual(caught.exception.status, 502)
        self.assertEqual(len(seen), 1)
        with self.assertRaisesRegex(RuntimeError, "answered 502"):
            self.client(server.server_port, 0.6).get_task(5)
        self.assertGreater(len(seen), 2)
