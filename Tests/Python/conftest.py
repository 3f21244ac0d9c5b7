"""The one way the pytest suites start tree-server.

`tree_server("--token", "t", ...)` starts the binary named by TREE_SERVER (default
.build/debug/tree-server) on 127.0.0.1 with a free port (`--port 0`; the port is read from the
server's "listening on" line), waits until /healthz answers 200 and returns a `TreeServer`. The
servers stop at the end of the test session; one that died during the run fails it.

`signing_key_file` is a `--signing-key-file` with one fresh key, for servers whose session
tokens (`POST /sessions/{sid}/tokens`) the tests mint.
"""
import os
import secrets
import shutil
import subprocess
import tempfile
import time
import urllib.request
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[2]


def tree_server_binary():
    path = Path(os.environ.get("TREE_SERVER") or REPO / ".build/debug/tree-server")
    if not (path.is_file() and os.access(path, os.X_OK)):
        pytest.fail(f"no tree-server at {path}: run `swift build --product tree-server` and set "
                    "TREE_SERVER to the binary (`swift build --show-bin-path`)/tree-server", pytrace=False)
    return path


class TreeServer:
    """A running tree-server: `url` is its base URL (no trailing slash)."""

    def __init__(self, binary, flags):
        self.flags = list(flags)
        self.log = tempfile.NamedTemporaryFile(prefix="tree-server-", suffix=".log", delete=False)
        # Each server stores its sessions in a data directory of its own (the default one in
        # the checkout is locked by the first server that opens it).
        self.data = None
        if not any(f == "--data-dir" or f.startswith("--data-dir=") for f in self.flags):
            self.data = tempfile.mkdtemp(prefix="tree-server-data-")
            self.flags += ["--data-dir", self.data]
        # From the repository root, where the server finds openapi.yaml to serve.
        self.process = subprocess.Popen(
            [str(binary), "--host", "127.0.0.1", "--port", "0", "--access-log", "false", *self.flags],
            stdout=self.log, stderr=subprocess.STDOUT, stdin=subprocess.DEVNULL, cwd=REPO)
        self.url = f"http://127.0.0.1:{self._port()}"
        self._wait_healthy()

    def _port(self):
        deadline = time.monotonic() + 20
        while time.monotonic() < deadline:
            for line in Path(self.log.name).read_text(errors="replace").splitlines():
                if "listening on 127.0.0.1:" in line:
                    return int(line.rsplit(":", 1)[1].split()[0])
            if self.process.poll() is not None:
                self._fail(f"exited with status {self.process.returncode}")
            time.sleep(0.05)
        self._fail("did not report its port")

    def _wait_healthy(self):
        deadline = time.monotonic() + 20
        while time.monotonic() < deadline:
            try:
                with urllib.request.urlopen(self.url + "/healthz", timeout=2) as response:
                    if response.status == 200:
                        return
            except OSError:
                pass
            if self.process.poll() is not None:
                self._fail(f"exited with status {self.process.returncode}")
            time.sleep(0.05)
        self._fail("/healthz did not answer 200")

    def log_tail(self, lines=40):
        return "\n".join(Path(self.log.name).read_text(errors="replace").splitlines()[-lines:])

    def _fail(self, what):
        self.stop()
        pytest.fail(f"tree-server {' '.join(self.flags)} {what}:\n{self.log_tail()}", pytrace=False)

    def alive(self):
        return self.process.poll() is None

    def stop(self):
        if self.process.poll() is None:
            self.process.terminate()
            try:
                self.process.wait(timeout=10)
            except subprocess.TimeoutExpired:
                self.process.kill()
                self.process.wait()
        self.log.close()
        if self.data:
            shutil.rmtree(self.data, ignore_errors=True)


@pytest.fixture(scope="session")
def tree_server(request):
    """Starts a tree-server with the given extra flags; all of them stop when the session ends
    (after a failed test, with the end of each server's log)."""
    binary = tree_server_binary()
    servers = []

    def start(*flags):
        server = TreeServer(binary, flags)
        servers.append(server)
        return server

    yield start
    if request.session.testsfailed:
        reporter = request.config.pluginmanager.get_plugin("terminalreporter")
        for server in servers:
            reporter.write_line(f"-- tree-server {' '.join(server.flags)} log (last 40 lines)")
            reporter.write_line(server.log_tail())
    died = [server for server in servers if not server.alive()]
    for server in servers:
        server.stop()
    try:
        if died:
            pytest.fail("tree-server died during the run:\n" + "\n".join(s.log_tail() for s in died),
                        pytrace=False)
    finally:
        for server in servers:
            os.unlink(server.log.name)


@pytest.fixture(scope="session")
def signing_key_file(tmp_path_factory):
    """A signing-key file (`ID SECRET` a line) with one random key, `test`."""
    path = tmp_path_factory.mktemp("signing-keys") / "keys"
    path.write_text("# tree-server --signing-key-file: ID SECRET, the first line signs\ntest " + secrets.token_urlsafe(32) + "\n")
    return path
