"""deploy/replicas.py for real: two replicas of app.py behind Debian's nginx. A browser's page, its websocket, the
reruns it sends and the files those reruns make all stay on one replica; another browser can land on the other;
one client address is held to its connection limit; SIGTERM stops everything.

The evidence that a rerun ran on a replica is what only that replica holds: the download a rerun registers (a
deferred file, made on request over the websocket and then fetched over HTTP at /media/…) exists in that one
process, and a session id can be resumed only in the process that made it.
"""

import asyncio
import os
import signal
import subprocess
import sys
import time
import urllib.error
import urllib.request
from pathlib import Path

import pytest

from deploy.replicas import NGINX, STICKY_COOKIE, healthy, nginx_config, port_is_free, replicas, start_nginx

if not Path(NGINX).exists():
    if os.environ.get("CI"):
        raise RuntimeError(f"{NGINX} is missing: .ci/run installs Debian's nginx package")
    pytest.skip("Debian's nginx is not installed (apt-get install -y nginx)", allow_module_level=True)

pytestmark = [pytest.mark.browser, pytest.mark.slow]  # starts Streamlit servers and nginx (~40 s)

BALANCER_PORT, FIRST_REPLICA_PORT, LIMITED_PORT, CLI_PORT, CLI_REPLICA_PORT = 8640, 8631, 8639, 8638, 8633
PAGE = "step3_softmax"  # has downloads made on request (the matrix as CSV)


@pytest.fixture(scope="module")
def deployment(tmp_path_factory):
    with replicas(2, BALANCER_PORT, FIRST_REPLICA_PORT, workdir=tmp_path_factory.mktemp("replicas")) as running:
        yield running


def first_visit(url: str, cookie: str | None = None) -> tuple[str | None, str]:
    """GET the page as a browser does: (the sticky cookie nginx sets, if it sets one; the replica that answered)."""
    request = urllib.request.Request(f"{url}/{PAGE}", headers={"Cookie": f"{STICKY_COOKIE}={cookie}"} if cookie
                                     else {})
    with urllib.request.urlopen(request, timeout=30) as response:
        assert response.status == 200
        ours = [c.split(";")[0].split("=", 1)[1] for c in response.headers.get_all("Set-Cookie") or []
                if c.startswith(f"{STICKY_COOKIE}=")]  # Streamlit may set its own XSRF cookie beside it
        assert len(ours) <= 1, ours
        return (ours[0] if ours else None), response.headers["X-Replica"]


def http_status(url: str, cookie: str | None = None) -> int:
    request = urllib.request.Request(url, headers={"Cookie": f"{STICKY_COOKIE}={cookie}"} if cookie else {})
    try:
        with urllib.request.urlopen(request, timeout=30) as response:
            response.read()
            return response.status
    except urllib.error.HTTPError as error:
        return error.code


class Tab:
    """One browser tab's websocket, with its cookie (and, to reconnect, its old session id)."""

    def __init__(self, url: str, cookie: str, session_id: str | None = None):
        self.url, self.cookie, self.session_id = url, cookie, session_id
        self.download_ids: list[str] = []

    async def __aenter__(self):
        import websockets

        # Streamlit's browser sends its session id third, after the XSRF token, when it reconnects.
        protocols = ["streamlit"] + (["no-xsrf", self.session_id] if self.session_id else [])
        self.socket = await websockets.connect(
            self.url.replace("http://", "ws://") + "/_stcore/stream", subprotocols=protocols, max_size=2**27,
            additional_headers={"Cookie": f"{STICKY_COOKIE}={self.cookie}"}, origin=self.url, open_timeout=60)
        self.replica = self.socket.response.headers["X-Replica"]
        return self

    async def __aexit__(self, *exc):
        await self.socket.close()

    async def _receive(self, until):
        from streamlit.proto.ForwardMsg_pb2 import ForwardMsg

        while True:
            message = ForwardMsg()
            message.ParseFromString(await asyncio.wait_for(self.socket.recv(), timeout=120))
            kind = message.WhichOneof("type")
            if kind == "new_session":
                self.session_id = message.new_session.initialize.session_id
            elif kind == "delta" and message.delta.WhichOneof("type") == "new_element":
                element = message.delta.new_element
                assert element.WhichOneof("type") != "exception", element.exception.message
                if element.WhichOneof("type") == "download_button" and element.download_button.deferred_file_id:
                    self.download_ids.append(element.download_button.deferred_file_id)
            if until(message):
                return message

    async def rerun(self, sentence: str) -> None:
        from streamlit.proto.BackMsg_pb2 import BackMsg
        from streamlit.proto.ForwardMsg_pb2 import ForwardMsg

        message = BackMsg()
        message.rerun_script.query_string = f"sentence={sentence.replace(' ', '+')}"
        message.rerun_script.page_name = PAGE
        self.download_ids = []
        await self.socket.send(message.SerializeToString())
        # A deep link's first run may end early and rerun itself through app.py: wait for the run that finishes.
        await self._receive(lambda m: m.WhichOneof("type") == "script_finished"
                            and m.script_finished == ForwardMsg.FINISHED_SUCCESSFULLY)

    async def make_download(self) -> str:
        """Press a download (as the browser does on click): the session makes the file; its URL on the server."""
        from streamlit.proto.BackMsg_pb2 import BackMsg

        assert self.download_ids, "the page offered no download made on request"
        message = BackMsg()
        message.backend_operation_request.request_id = "test-download"
        message.backend_operation_request.session_id = self.session_id
        message.backend_operation_request.deferred_file.file_id = self.download_ids[0]
        await self.socket.send(message.SerializeToString())
        answer = await self._receive(lambda m: m.WhichOneof("type") == "backend_operation_response")
        response = answer.backend_operation_response
        assert not response.error_msg, response.error_msg
        return response.deferred_file.url


def test_a_browser_stays_on_its_replica(deployment):
    cookie, page_replica = first_visit(deployment.url)
    replica_urls = {f"127.0.0.1:{port}": f"http://127.0.0.1:{port}" for port in deployment.replica_ports}
    assert cookie and page_replica in replica_urls
    assert first_visit(deployment.url, cookie) == (None, page_replica)  # the page again: the cookie is kept
    other = next(url for address, url in replica_urls.items() if address != page_replica)

    def where_the_file_is(download: str) -> tuple[int, int, int]:
        """HTTP status of a file through nginx with the browser's cookie, on its replica, on the other one."""
        return (http_status(f"{deployment.url}{download}", cookie), http_status(f"{replica_urls[page_replica]}"
                f"{download}"), http_status(f"{other}{download}"))

    async def session():
        async with Tab(deployment.url, cookie) as tab:
            served, files = [tab.replica], []
            for sentence in ("The cat sat on the mat.", "The dog chased the ball because it was fast."):
                await tab.rerun(sentence)
                download = await tab.make_download()  # kept until the session's next run: fetched now
                assert download.startswith("/media/"), download
                files.append(await asyncio.to_thread(where_the_file_is, download))
            first_session = tab.session_id
        async with Tab(deployment.url, cookie, session_id=first_session) as again:  # the websocket reconnects
            served.append(again.replica)
            await again.rerun("The dog chased the ball because it was fast.")
            return served, files, first_session, again.session_id

    served, files, first_session, resumed = asyncio.run(session())
    assert served == [page_replica, page_replica], served
    assert resumed == first_session, "the reconnected websocket did not find its session: another replica"
    # each rerun's file exists on the browser's replica alone, and reaches the browser through nginx
    assert files == [(200, 200, 404), (200, 200, 404)], files
    # nginx's own record of the requests that carried the cookie: both websockets and both files, all on one
    # replica (a websocket is logged when it closes, a moment after the client has closed it)
    deadline = time.monotonic() + 10
    while True:
        log = (deployment.workdir / "nginx-access.log").read_text()
        mine = [line for line in log.splitlines() if f"cookie={cookie} " in line]
        if len(mine) >= 4 or time.monotonic() > deadline:
            break
        time.sleep(0.2)
    assert len(mine) >= 4 and all(f"replica={page_replica} " in line for line in mine), mine


def test_another_browser_can_land_on_the_other_replica(deployment):
    cookie, replica = first_visit(deployment.url)
    # A new browser's cookie is random: the chance that 40 of them all pick the first replica is 2^-40.
    others = [visit for visit in (first_visit(deployment.url) for _ in range(40)) if visit[1] != replica]
    assert others, "40 new browsers all landed on one replica"
    other_cookie, other_replica = others[0]
    assert other_cookie != cookie

    async def both():
        async with Tab(deployment.url, cookie) as mine:
            await mine.rerun("The cat sat on the mat.")
            async with Tab(deployment.url, other_cookie, session_id=mine.session_id) as theirs:
                await theirs.rerun("The cat sat on the mat.")
                return mine.replica, theirs.replica, mine.session_id, theirs.session_id

    mine, theirs, my_session, their_session = asyncio.run(both())
    assert (mine, theirs) == (replica, other_replica)
    assert their_session != my_session  # a session lives in one process: the other replica cannot resume it


def test_one_client_address_is_held_to_its_connection_limit(deployment):
    """A second nginx in front of the same replicas, with a limit of 3 connections per address."""
    import websockets

    config = deployment.workdir / "limited" / "nginx.conf"
    config.parent.mkdir()
    config.write_text(nginx_config(deployment.replica_ports, LIMITED_PORT, config.parent, per_address=3))
    nginx = start_nginx(config, config.parent)
    url = f"http://127.0.0.1:{LIMITED_PORT}"
    try:
        deadline = time.monotonic() + 30
        while not healthy(url):
            assert nginx.poll() is None and time.monotonic() < deadline, "the limited nginx did not start"
            time.sleep(0.1)

        async def crowd():
            held = [await Tab(url, "one-address").__aenter__() for _ in range(3)]
            with pytest.raises(websockets.InvalidStatus) as refused:
                await Tab(url, "one-address").__aenter__()
            await held.pop().__aexit__()
            for _ in range(50):  # nginx counts the closed connection out as soon as it sees it close
                try:
                    admitted = await Tab(url, "one-address").__aenter__()
                    break
                except websockets.InvalidStatus:
                    await asyncio.sleep(0.1)
            else:
                pytest.fail("a connection closed did not make room for another")
            for tab in held + [admitted]:
                await tab.__aexit__()
            return refused.value.response.status_code

        assert asyncio.run(crowd()) == 429
    finally:
        nginx.terminate()
        nginx.wait(10)


def test_sigterm_stops_nginx_and_every_replica():
    process = subprocess.Popen(
        [sys.executable, str(Path(__file__).resolve().parents[1] / "deploy" / "replicas.py"), "--replicas", "1",
         "--port", str(CLI_PORT), "--address", "127.0.0.1", "--first-replica-port", str(CLI_REPLICA_PORT)],
        stdout=subprocess.PIPE, text=True)
    try:
        lines = []
        for line in process.stdout:
            lines.append(line)
            if "Ctrl-C" in line:
                break
        assert process.poll() is None, "".join(lines)
        replica_pid = int(next(line for line in lines if "pid" in line).split("pid")[1])
        assert http_status(f"http://127.0.0.1:{CLI_PORT}/_stcore/health") == 200
        process.send_signal(signal.SIGTERM)
        assert process.wait(30) == 0
        assert not Path(f"/proc/{replica_pid}").exists()
        assert port_is_free(CLI_PORT) and port_is_free(CLI_REPLICA_PORT)
    finally:
        if process.poll() is None:
            process.kill()
            process.wait()

