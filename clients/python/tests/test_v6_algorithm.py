"""An algorithm written for vantage6 3.x (v6compat/v6_algorithm.py: master with sub-tasks through the
ContainerClient methods, RPC_ methods on a pandas DataFrame, vantage6's log helpers, started by
``docker_wrapper("module")``) runs with federa_algorithm_tools after changing only its imports. The node's proxy
is played by a small HTTP server that records what the algorithm sends."""
import base64
import json
import os
import pickle
import subprocess
import sys
import tempfile
import threading
import unittest
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

HERE = os.path.dirname(os.path.abspath(__file__))
PYTHON_DIR = os.path.join(HERE, "..")


def b64(data: bytes) -> str:
    return base64.b64encode(data).decode("ascii")


def token(identity: dict) -> str:
    part = lambda obj: base64.urlsafe_b64encode(json.dumps(obj).encode()).decode().rstrip("=")  # noqa: E731
    return f"{part({'alg': 'HS256'})}.{part({'sub': identity})}.c2lnbmF0dXJl"


class Proxy(BaseHTTPRequestHandler):
    posted: list = []
    polls = 0
    results: list = []

    def log_message(self, *args):  # keep the test output clean
        pass

    def reply(self, body, status=200):
        data = json.dumps(body).encode()
        self.send_response(status)
        self.send_header("Content-Type", "application/json")
        self.send_header("Content-Length", str(len(data)))
        self.end_headers()
        self.wfile.write(data)

    def do_GET(self):
        if self.path == "/collaboration/7/organization":
            return self.reply([{"id": 2, "name": "a"}, {"id": 3, "name": "b"}])
        if self.path == "/task/50":
            Proxy.polls += 1
            return self.reply({"id": 50, "complete": Proxy.polls >= 3})
        if self.path == "/task/50/result":
            return self.reply(Proxy.results)
        return self.reply({"msg": "not here"}, 404)

    def do_POST(self):
        body = json.loads(self.rfile.read(int(self.headers["Content-Length"])))
        Proxy.posted.append(body)
        return self.reply({"id": 50, **body})


class VantageAlgorithmTest(unittest.TestCase):
    @classmethod
    def setUpClass(cls):
        cls.server = ThreadingHTTPServer(("127.0.0.1", 0), Proxy)
        threading.Thread(target=cls.server.serve_forever, daemon=True).start()

    @classmethod
    def tearDownClass(cls):
        cls.server.shutdown()
        cls.server.server_close()

    def setUp(self):
        Proxy.posted, Proxy.polls = [], 0
        Proxy.results = [
            {"id": 1, "organization": 2, "status": "completed", "result": b64(b'json.{"sum": 30.0, "count": 2}')},
            {"id": 2, "organization": {"id": 3}, "status": "completed",
             "result": b64(b'json.{"sum": 60.0, "count": 3}')},
        ]

    def run_algorithm(self, task_input: bytes):
        folder = tempfile.mkdtemp()
        files = {"input": task_input, "output": b"", "token": token({
            "image": "example/v6-mean:1", "node_id": 4, "collaboration_id": 7, "organization_id": 2,
            "task_id": 49, "database": "default"}).encode(), "data.csv": b"age,weight\n10,1\n20,\n"}
        for name, content in files.items():
            with open(os.path.join(folder, name), "wb") as handle:
                handle.write(content)
        env = dict(os.environ, INPUT_FILE=f"{folder}/input", OUTPUT_FILE=f"{folder}/output",
                   TOKEN_FILE=f"{folder}/token", USER_REQUESTED_DATABASE_LABEL="default",
                   DEFAULT_DATABASE_URI=f"{folder}/data.csv", DEFAULT_DATABASE_TYPE="csv",
                   HOST="http://127.0.0.1", PORT=str(self.server.server_address[1]), API_PATH="",
                   PYTHONPATH=os.pathsep.join([PYTHON_DIR, os.path.join(HERE, "v6compat")]))
        proc = subprocess.run([sys.executable, os.path.join(HERE, "v6compat", "v6_main.py")], env=env,
                              capture_output=True, timeout=60)
        with open(f"{folder}/output", "rb") as handle:
            return proc.returncode, handle.read(), proc.stdout.decode() + proc.stderr.decode()

    def test_rpc_method_gets_a_data_frame(self):
        code, out, log = self.run_algorithm(b'json.{"method": "partial_sum", "kwargs": {"column": "age"}}')
        self.assertEqual(code, 0, log)
        self.assertEqual(out, b'json.{"sum": 30.0, "count": 2}')
        self.assertIn("info > Summing column age of 2 rows", log)

    def test_a_data_frame_result_is_written_as_json(self):
        code, out, log = self.run_algorithm(b'json.{"method": "summary", "output_format": "json"}')
        self.assertEqual(code, 0, log)
        self.assertTrue(out.startswith(b"json."))
        self.assertEqual(json.loads(out[5:]), {"age": {"count": 2.0, "mean": 15.0},
                                               "weight": {"count": 1.0, "mean": 1.0}})

    def test_master_creates_sub_tasks_and_combines_their_results(self):
        code, out, log = self.run_algorithm(b'json.{"method": "master", "master": true, "args": ["age"]}')
        self.assertEqual(code, 0, log)
        self.assertEqual(json.loads(out[5:]), {"average": 18.0, "organizations": 2})
        [posted] = Proxy.posted
        self.assertEqual(posted["image"], "example/v6-mean:1")
        self.assertEqual(posted["collaboration_id"], 7)
        self.assertEqual([o["id"] for o in posted["organizations"]], [2, 3])
        sub_input = base64.b64decode(posted["organizations"][0]["input"])
        self.assertEqual(sub_input, b'json.{"method": "partial_sum", "kwargs": {"column": "age"}}')

    def test_master_stops_on_a_crashed_sub_task(self):
        Proxy.results[1] = {"id": 2, "organization": 3, "status": "crashed", "result": "", "log": "Traceback: boom"}
        code, out, log = self.run_algorithm(b'json.{"method": "master", "master": true, "args": ["age"]}')
        self.assertEqual(code, 1)
        self.assertEqual(out, b"")
        self.assertIn("sub-task 50: the run of organization 3 did not succeed (crashed); log tail:\nTraceback: boom",
                      log)

    def test_a_pickled_sub_task_result_is_not_unpickled(self):
        marker = os.path.join(tempfile.mkdtemp(), "pwned")
        Proxy.results[1]["result"] = b64(pickle.dumps(type("X", (), {"__reduce__": lambda s: (os.mkdir, (marker,))})()))
        code, _, log = self.run_algorithm(b'json.{"method": "master", "master": true, "args": ["age"]}')
        self.assertEqual(code, 1)  # the master gets bytes, not a dict, and says so in its traceback
        self.assertIn("is a Python pickle", log)
        self.assertFalse(os.path.exists(marker))


if __name__ == "__main__":
    unittest.main()
