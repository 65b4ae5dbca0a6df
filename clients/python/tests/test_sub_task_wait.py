"""How federa_algorithm_tools waits for a sub-task: one long-poll at a proxy that holds them (``x-federa-wait``),
polling at a proxy that does not (vantage6 3.x) or that holds too many waits (503). The stand-in proxies here only
show what the client sends; the system test e2e/sub-task-wait.test.ts runs the real one."""
import base64
import json
import os
import sys
import threading
import unittest
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

sys.path.insert(0, os.path.join(os.path.dirname(__file__), ".."))

from federa_algorithm_tools.client import AlgorithmClient  # noqa: E402


def _token():
    part = base64.urlsafe_b64encode(json.dumps({"sub": {"node_id": 1, "organization_id": 2, "collaboration_id": 3,
                                                         "task_id": 4, "image": "x"}}).encode()).decode().rstrip("=")
    return f"e30.{part}.c2ln"


class FakeProxy:
    """Task 9 completes on the third read; ``mode`` is ``hold`` (long-polls), ``plain`` (3.x) or ``busy`` (503)."""

    def __init__(self, mode):
        self.mode = mode
        self.paths = []
        outer = self

        class Handler(BaseHTTPRequestHandler):
            def log_message(self, *args):
                pass

            def do_GET(self):
                outer.paths.append(self.path)
                if self.path.startswith("/task/9/result"):
                    return self.reply(200, [{"id": 1, "status": "completed", "organization": 2,
                                             "result": base64.b64encode(b'json.{"sum": 3}').decode()}])
                waiting = "wait=" in self.path
                if waiting and outer.mode == "busy":
                    return self.reply(503, {"msg": "the node proxy already holds 100 waits"})
                reads = sum(1 for p in outer.paths if p.startswith("/task/9") and "/result" not in p)
                done = reads >= 3 or (waiting and outer.mode == "hold")
                self.reply(200, {"id": 9, "complete": done},
                           {"x-federa-wait": "complete"} if waiting and outer.mode == "hold" else {})

            def reply(self, status, body, headers=None):
                text = json.dumps(body).encode()
                self.send_response(status)
                for key, value in (headers or {}).items():
                    self.send_header(key, value)
                self.send_header("Content-Type", "application/json")
                self.send_header("Content-Length", str(len(text)))
                self.end_headers()
                self.wfile.write(text)

        self.server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        threading.Thread(target=self.server.serve_forever, daemon=True).start()

    def client(self):
        return AlgorithmClient("http://127.0.0.1", self.server.server_address[1], "", _token())

    def close(self):
        self.server.shutdown()
        self.server.server_close()


class SubTaskWaitTest(unittest.TestCase):
    def run_with(self, mode):
        proxy = FakeProxy(mode)
        self.addCleanup(proxy.close)
        self.assertEqual(proxy.client().wait_for_results(9, interval=0.05), [{"sum": 3}])
        return [p for p in proxy.paths if p.startswith("/task/9") and "/result" not in p]

    def test_one_long_poll_where_the_proxy_holds_waits(self):
        self.assertEqual(self.run_with("hold"), ["/task/9?wait=30"])

    def test_polls_a_proxy_without_long_polls(self):
        self.assertEqual(self.run_with("plain"), ["/task/9?wait=30", "/task/9", "/task/9"])

    def test_polls_once_when_the_proxy_holds_too_many_waits(self):
        reads = self.run_with("busy")
        self.assertEqual(reads[0], "/task/9?wait=30")
        self.assertIn("/task/9", reads)


if __name__ == "__main__":
    unittest.main()
