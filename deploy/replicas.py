"""Several replicas of the app behind Debian's nginx, with sticky sessions: docs/deploying.md's recipe, run.

    python deploy/replicas.py --replicas 2 --port 8080                 # replicas on 8501, 8502; nginx on 8080
    python deploy/replicas.py --replicas 2 --port 8080 --first-replica-port 8631 --per-address 100

Starts N `streamlit run app.py` (the README's command, each on its own port on 127.0.0.1, headless), writes an
nginx config from the template below into a folder of its own (config, logs, pid and nginx's temporary files;
nothing under /etc or /var is touched, and the system's nginx service is not used), starts nginx on --port, waits
until every replica and the balancer answer Streamlit's /_stcore/health, and stops them all on Ctrl-C or SIGTERM.

Why a cookie, not ip_hash: a school's students usually share one public (NAT) address, and ip_hash would send the
whole class to one replica. nginx instead gives each browser a random cookie (`attention_replica`, from its first
request's $request_id) and picks the replica by a hash of it: the browser's page, its websocket (where
every rerun travels), a reconnected websocket and its media requests all reach the same process, and all tabs of
one browser (they share cookies) land together, so the app's per-browser bounds see all of that browser's tabs.
"""

from __future__ import annotations

import argparse
import contextlib
import ctypes
import dataclasses
import shutil
import signal
import socket
import string
import subprocess
import sys
import tempfile
import time
import urllib.request
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
NGINX = shutil.which("nginx") or "/usr/sbin/nginx"
STICKY_COOKIE = "attention_replica"
# At most this many connections at once from one client address (nginx `limit_conn`; more get HTTP 429). A tab
# holds one websocket for its life and opens up to six short HTTP connections while it loads; a class of 30
# behind one school address with three tabs each holds 90 websockets. What one browser's many tabs may run at once
# is bounded in the app (per cookie); this is the ceiling for one address opening hundreds.
CONNECTIONS_PER_ADDRESS = 100

NGINX_TEMPLATE = string.Template("""\
# Written by deploy/replicas.py: $replicas replica(s) of app.py behind this nginx. Rewritten at every start.
daemon off;
worker_processes 1;
pid $workdir/nginx.pid;
error_log $workdir/nginx-error.log warn;
events { worker_connections 4096; }

http {
    client_body_temp_path $workdir/client_body;
    proxy_temp_path $workdir/proxy;
    fastcgi_temp_path $workdir/fastcgi;
    uwsgi_temp_path $workdir/uwsgi;
    scgi_temp_path $workdir/scgi;
    log_format replica '$$remote_addr [$$time_local] "$$request" $$status cookie=$$cookie_$cookie '
                       'replica=$$upstream_addr seconds=$$request_time';
    access_log $workdir/nginx-access.log replica;

    # A browser without the cookie gets a random one (this request's id); one with it keeps it.
    map $$cookie_$cookie $$replica_key {
        ""      $$request_id;
        default $$cookie_$cookie;
    }
    # ... and is told it once (an empty header is not sent).
    map $$cookie_$cookie $$new_cookie {
        ""      "$cookie=$$request_id; Path=/; HttpOnly; SameSite=Lax";
        default "";
    }
    map $$http_upgrade $$connection_upgrade {
        default upgrade;
        ""      close;
    }
    limit_conn_zone $$binary_remote_addr zone=per_address:10m;

    # Plain hashing, not `consistent`: the replicas never change while nginx runs, and the consistent ring gave one
    # of two replicas 54 % of 800 new browsers (plain: 50 %).
    upstream attention {
        hash $$replica_key;
$servers
    }

    server {
        listen $address:$port;
        location / {
            limit_conn per_address $per_address;
            limit_conn_status 429;
            proxy_pass http://attention;
            proxy_http_version 1.1;
            proxy_set_header Upgrade $$http_upgrade;
            proxy_set_header Connection $$connection_upgrade;
            # Streamlit accepts a websocket only from the origin its Host header names.
            proxy_set_header Host $$http_host;
            proxy_set_header X-Forwarded-For $$proxy_add_x_forwarded_for;
            # A websocket may sit quiet while a student reads: a day, not nginx's 60 s.
            proxy_read_timeout 86400s;
            proxy_send_timeout 86400s;
            add_header Set-Cookie $$new_cookie always;
            add_header X-Replica $$upstream_addr always;
        }
    }
}
""")


def nginx_config(replica_ports: list[int], port: int, workdir: Path, address: str = "127.0.0.1",
                 per_address: int = CONNECTIONS_PER_ADDRESS) -> str:
    # max_fails=0: one refused or slow connection does not send a replica's browsers elsewhere for 10 s (nginx's
    # default); a replica that is down is still passed over, request by request, for the next one.
    servers = "\n".join(f"        server 127.0.0.1:{p} max_fails=0;" for p in replica_ports)
    return NGINX_TEMPLATE.substitute(replicas=len(replica_ports), workdir=workdir, cookie=STICKY_COOKIE,
                                     servers=servers, address=address, port=port, per_address=per_address)


def port_is_free(port: int, address: str = "127.0.0.1") -> bool:
    with socket.socket() as probe:
        probe.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        try:
            probe.bind((address, port))
        except OSError:
            return False
    return True


def _die_with_parent() -> None:
    """Runs in the child before exec: on Linux it gets SIGTERM if this script dies, even by SIGKILL."""
    with contextlib.suppress(OSError, AttributeError):
        ctypes.CDLL("libc.so.6", use_errno=True).prctl(1, signal.SIGTERM)  # PR_SET_PDEATHSIG


def _start(command: list[str], log: Path, env: dict | None = None) -> subprocess.Popen:
    # A session of its own: Ctrl-C reaches this script only, which stops nginx first, then the replicas.
    with open(log, "ab") as out:
        return subprocess.Popen(command, cwd=ROOT, env=env, stdin=subprocess.DEVNULL, stdout=out,
                                stderr=subprocess.STDOUT, start_new_session=True,
                                preexec_fn=_die_with_parent if sys.platform == "linux" else None)


def start_nginx(config: Path, workdir: Path) -> subprocess.Popen:
    """nginx in the foreground (the config says `daemon off`) with its own prefix, so it never reads /etc/nginx."""
    return _start([NGINX, "-c", str(config), "-p", str(workdir)], workdir / "nginx-error.log")


def replica_command(port: int) -> list[str]:
    return [sys.executable, "-m", "streamlit", "run", str(ROOT / "app.py"), "--server.port", str(port),
            "--server.address", "127.0.0.1", "--server.headless", "true"]


@dataclasses.dataclass
class Deployment:
    url: str
    workdir: Path
    replica_ports: list[int]
    replicas: list[subprocess.Popen]
    nginx: subprocess.Popen | None = None

    @property
    def replica_urls(self) -> list[str]:
        return [f"http://127.0.0.1:{p}" for p in self.replica_ports]

    def replica_log(self, port: int) -> Path:
        return self.workdir / f"replica-{port}.log"

    def stop(self, timeout: float = 10.0) -> None:
        """nginx first (no new request reaches a replica that is leaving), then every replica."""
        for process in ([self.nginx] if self.nginx else []) + self.replicas:
            if process.poll() is None:
                process.terminate()
        deadline = time.monotonic() + timeout
        for process in ([self.nginx] if self.nginx else []) + self.replicas:
            try:
                process.wait(max(0.1, deadline - time.monotonic()))
            except subprocess.TimeoutExpired:
                process.kill()
                process.wait()


def healthy(url: str) -> bool:
    try:
        with urllib.request.urlopen(f"{url}/_stcore/health", timeout=2) as response:
            return response.status == 200
    except OSError:
        return False


def wait_until_healthy(deployment: Deployment, timeout: float) -> None:
    """Every replica, then the balancer (asked before its replicas are up, nginx would log each refusal)."""
    deadline = time.monotonic() + timeout
    for phase in (dict(zip(deployment.replica_urls, deployment.replicas)), {deployment.url: deployment.nginx}):
        while phase:
            for url, process in list(phase.items()):
                if process.poll() is not None:
                    log = deployment.workdir / "nginx-error.log" if process is deployment.nginx \
                        else deployment.replica_log(int(url.rsplit(":", 1)[1]))
                    tail = log.read_text(errors="replace")[-1500:] if log.exists() else ""
                    raise RuntimeError(f"{url} exited with code {process.returncode}:\n{tail}")
                if healthy(url):
                    del phase[url]
            if phase and time.monotonic() > deadline:
                raise TimeoutError(f"not healthy after {timeout:.0f} s: {', '.join(phase)}")
            time.sleep(0.2 if phase else 0)


@contextlib.contextmanager
def replicas(count: int, port: int, first_replica_port: int = 8501, address: str = "127.0.0.1",
             per_address: int = CONNECTIONS_PER_ADDRESS, workdir: Path | None = None, timeout: float = 180.0,
             env: dict | None = None):
    """Start `count` replicas and nginx in front of them; yield the Deployment once all are healthy; stop all."""
    ports = list(range(first_replica_port, first_replica_port + count))
    if port in ports:
        raise ValueError(f"nginx's port {port} is among the replicas' ports {ports}")
    busy = [p for p in ports if not port_is_free(p)] + ([port] if not port_is_free(port, address) else [])
    if busy:
        raise RuntimeError(f"port(s) already in use: {', '.join(map(str, busy))}")
    own_dir = workdir is None
    workdir = Path(tempfile.mkdtemp(prefix="attention-replicas-")) if own_dir else Path(workdir)
    workdir.mkdir(parents=True, exist_ok=True)
    host = "127.0.0.1" if address in ("0.0.0.0", "") else address
    deployment = Deployment(url=f"http://{host}:{port}", workdir=workdir, replica_ports=ports, replicas=[])
    try:
        for replica_port in ports:
            deployment.replicas.append(_start(replica_command(replica_port), deployment.replica_log(replica_port),
                                              env))
        config = workdir / "nginx.conf"
        config.write_text(nginx_config(ports, port, workdir, address, per_address))
        deployment.nginx = start_nginx(config, workdir)
        wait_until_healthy(deployment, timeout)
        yield deployment
    finally:
        deployment.stop()
        if own_dir:
            shutil.rmtree(workdir, ignore_errors=True)


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--replicas", type=int, default=2, help="Streamlit processes (one per core)")
    parser.add_argument("--port", type=int, default=8080, help="the port nginx listens on")
    parser.add_argument("--address", default="0.0.0.0", help="the address nginx listens on (0.0.0.0: every one)")
    parser.add_argument("--first-replica-port", type=int, default=8501,
                        help="the replicas listen on this port and the next ones, on 127.0.0.1 only")
    parser.add_argument("--per-address", type=int, default=CONNECTIONS_PER_ADDRESS,
                        help="connections at once from one client address (nginx limit_conn)")
    parser.add_argument("--workdir", type=Path, help="where the config and logs go (default: a new temporary folder, "
                                                     "removed at the end)")
    args = parser.parse_args(argv)

    def stop_on_signal(signum, _frame):
        raise KeyboardInterrupt(signal.Signals(signum).name)

    signal.signal(signal.SIGTERM, stop_on_signal)
    try:
        with replicas(args.replicas, args.port, args.first_replica_port, args.address, args.per_address,
                      args.workdir) as deployment:
            pids = ",".join(str(process.pid) for process in deployment.replicas)
            print(f"{args.replicas} replica(s) of app.py behind nginx at http://{args.address}:{args.port} "
                  f"(sticky by the cookie {STICKY_COOKIE}; at most {args.per_address} connections per client "
                  f"address)", flush=True)
            for url, process in zip(deployment.replica_urls, deployment.replicas):
                print(f"  replica {url} pid {process.pid}", flush=True)
            print(f"  config and logs: {deployment.workdir}", flush=True)
            print(f"measure a class: python bench/load.py --url {deployment.url} --pids {pids} --students 30 "
                  f"--worst 0", flush=True)
            print("Ctrl-C stops them all.", flush=True)
            while deployment.nginx.poll() is None:
                for url, process in zip(deployment.replica_urls, deployment.replicas):
                    if process.poll() is not None and not getattr(process, "reported", False):
                        process.reported = True
                        print(f"replica {url} exited ({process.returncode}); nginx sends its browsers to the "
                              f"others", flush=True)
                time.sleep(1)
            print(f"nginx exited ({deployment.nginx.returncode}); stopping", flush=True)
    except KeyboardInterrupt:
        print("stopped", flush=True)


if __name__ == "__main__":
    main()
