"""`sowdb serve` started on a free port of this machine, for the scripts that drive it
(scripts/page_game.py, scripts/bench_opponent.py)."""
import os
import re
import select
import subprocess
import sys
import threading
import time


def start_server(sowdb, tables, env, extra=(), wait=120):
    """Starts `sowdb serve --bind 127.0.0.1 --port 0 --tables TABLES EXTRA...` with the
    environment `env` and returns (process, base URL) once it prints its URL; exits the script
    with what the server printed when it prints none within `wait` seconds."""
    proc = subprocess.Popen([sowdb, "serve", "--bind", "127.0.0.1", "--port", "0", "--tables",
                             tables, *extra], stdout=subprocess.PIPE, stderr=subprocess.STDOUT,
                            bufsize=0, env=env)
    seen = b""
    deadline = time.monotonic() + wait
    while time.monotonic() < deadline:
        ready, _, _ = select.select([proc.stdout], [], [], deadline - time.monotonic())
        if not ready:
            break
        chunk = os.read(proc.stdout.fileno(), 4096)
        if not chunk:
            break
        seen += chunk
        m = re.search(rb"listening on (http://[0-9.]+:[0-9]+)", seen)
        if m:
            # Drain the log so that a full pipe never blocks the server.
            threading.Thread(target=lambda: [None for _ in iter(
                lambda: os.read(proc.stdout.fileno(), 65536), b"")], daemon=True).start()
            return proc, m.group(1).decode()
    proc.kill()
    sys.exit(f"sowdb serve printed no URL: {seen.decode(errors='replace')}")
