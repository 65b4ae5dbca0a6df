"""Shared fixtures: a real Federa server process for the whole test session.

The ``server`` fixture builds the TypeScript sources when ``packages/server/dist/bin/vserver-local.js`` is missing
(``npx tsc --build``), writes a temporary configuration, starts

    node packages/server/dist/bin/vserver-local.js start -c <config.yaml> -e prod -p <free port>

waits for ``GET /api/health`` and stops the process at the end. Its output is in ``<tmp>/server.log``.

``FEDERA_TEST_SERVER_COMMAND`` replaces the start command (a shell-free template with ``{config}`` and ``{port}``
placeholders, e.g. to test another build). Nothing else is configurable: the tests never touch an existing server.
"""

from __future__ import annotations

import os
import shlex
import socket
import subprocess
import sys
import time
from dataclasses import dataclass
from pathlib import Path

import pytest
import requests

TESTS = Path(__file__).resolve().parent
sys.path.insert(0, str(TESTS.parent))

from federa_client import Client  # noqa: E402
from federa_client.encryption import RSACryptor, create_new_rsa_key  # noqa: E402

REPO = TESTS.parents[2]
SERVER_BIN = REPO / "packages" / "server" / "dist" / "bin" / "vserver-local.js"
COMMON_DIST = REPO / "packages" / "common" / "dist" / "index.js"

# Test-only credentials of the throw-away server (meets the password policy).
ROOT_USERNAME = "root"
ROOT_PASSWORD = "Root-Test-Pw-7!x"
JWT_SECRET = "federa-python-client-tests-jwt-secret-0123456789"
# Smaller than the 4096 bits the CLI uses: key generation on shared CI cores; the format is the same.
TEST_KEY_BITS = 2048


def free_port() -> int:
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def build_if_needed() -> None:
    if SERVER_BIN.exists() and COMMON_DIST.exists():
        return
    try:
        done = subprocess.run(["npx", "tsc", "--build"], cwd=REPO, capture_output=True, text=True, timeout=900)
    except (OSError, subprocess.TimeoutExpired) as exc:
        pytest.fail(f"building the TypeScript sources (npx tsc --build) failed: {exc}", pytrace=False)
    if not SERVER_BIN.exists():
        pytest.fail(
            f"npx tsc --build did not produce {SERVER_BIN} (exit {done.returncode}):\n"
            f"{(done.stdout + done.stderr)[-3000:]}", pytrace=False)


@dataclass
class ServerInfo:
    host: str
    port: int
    tmp: Path
    log: Path
    jwt_secret: str = JWT_SECRET

    @property
    def api(self) -> str:
        return f"http://{self.host}:{self.port}/api"

    def client(self, verbose: bool = False) -> Client:
        return Client(f"http://{self.host}", self.port, verbose=verbose)


def _config_text(db: Path, port: int) -> str:
    return (
        "environments:\n"
        "  prod:\n"
        "    description: Federa Python client tests\n"
        f"    uri: 'sqlite:///{db}'\n"
        f"    port: {port}\n"
        "    ip: 127.0.0.1\n"
        f"    jwt_secret_key: '{JWT_SECRET}'\n"
        "    bcrypt_rounds: 4\n"
        "    root_user:\n"
        f"      username: {ROOT_USERNAME}\n"
        "      email: root@example.org\n"
        f"      password: '{ROOT_PASSWORD}'\n"
        "    password_policy:\n"
        "      max_failed_attempts: 50\n"
        "      max_failed_attempts_per_address: 500\n"
        "    logging:\n"
        "      level: warn\n"
    )


@pytest.fixture(scope="session")
def server(tmp_path_factory):
    """A running Federa server (one per test session)."""
    custom = os.environ.get("FEDERA_TEST_SERVER_COMMAND")
    if not custom:
        build_if_needed()
    tmp = tmp_path_factory.mktemp("federa-server")
    port = free_port()
    config = tmp / "server.yaml"
    config.write_text(_config_text(tmp / "db.sqlite", port))
    if custom:
        command = [part.format(config=config, port=port) for part in shlex.split(custom)]
    else:
        command = ["node", str(SERVER_BIN), "start", "-c", str(config), "-e", "prod", "-p", str(port)]
    log_path = tmp / "server.log"
    log_file = open(log_path, "wb")
    process = subprocess.Popen(command, cwd=REPO, stdout=log_file, stderr=subprocess.STDOUT,
                               stdin=subprocess.DEVNULL)
    info = ServerInfo("127.0.0.1", port, tmp, log_path)
    try:
        deadline = time.monotonic() + 90
        while True:
            if process.poll() is not None:
                pytest.fail(f"the Federa server exited with code {process.returncode} before it was ready:\n"
                            f"{log_path.read_text(errors='replace')[-3000:]}", pytrace=False)
            try:
                if requests.get(f"{info.api}/health", timeout=2).status_code == 200:
                    break
            except requests.RequestException:
                pass
            if time.monotonic() > deadline:
                pytest.fail(f"the Federa server did not answer /api/health within 90 s:\n"
                            f"{log_path.read_text(errors='replace')[-3000:]}", pytrace=False)
            time.sleep(0.25)
        yield info
    finally:
        if process.poll() is None:
            process.terminate()
            try:
                process.wait(timeout=15)
            except subprocess.TimeoutExpired:
                process.kill()
                process.wait(timeout=15)
        log_file.close()


@pytest.fixture(scope="session")
def root(server) -> Client:
    """The root user, logged in (not verbose)."""
    client = server.client()
    client.authenticate(ROOT_USERNAME, ROOT_PASSWORD)
    return client


@pytest.fixture(scope="session")
def keys(tmp_path_factory):
    """Private key files (made once): ``keys(name)`` returns the path of the key called ``name``."""
    folder = tmp_path_factory.mktemp("keys")
    made = {}

    def key(name: str) -> Path:
        if name not in made:
            path = folder / f"{name}.pem"
            create_new_rsa_key(path, key_size=TEST_KEY_BITS)
            made[name] = path
        return made[name]

    return key


@pytest.fixture(scope="session")
def root_key(root, keys) -> Path:
    """The root organization's private key; its public key is uploaded to the server."""
    path = keys("root-org")
    org_id = root.whoami["organization_id"]
    root.organization.update(org_id, public_key=RSACryptor(path).public_key_str)
    return path


_counter = {"n": 0}


@pytest.fixture
def unique():
    """Unique names for things created on the shared server: ``unique("org")`` → ``org-<pid>-<n>``."""

    def make(prefix: str) -> str:
        _counter["n"] += 1
        return f"{prefix}-{os.getpid()}-{_counter['n']}"

    return make


@pytest.fixture
def posted(root, server, unique):
    """``(task id, NodeSim)``: a task of the root organization in a new unencrypted collaboration, whose node the
    NodeSim plays (offline for the server, so the task waits)."""
    from nodesim import NodeSim

    org = root.whoami["organization_id"]
    collab = root.collaboration.create(unique("posted"), [org])
    node = NodeSim(server.api, root.node.create(collab["id"], organization_id=org)["api_key"])
    with pytest.warns(UserWarning, match="Offline node"):
        task = root.task.create(collab["id"], [org], name="posted", image="federa/average-python:local",
                                input_={"method": "sum"})
    return task["id"], node
