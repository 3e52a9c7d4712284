#!/usr/bin/python3
"""`sowdb serve` against its contract (docs/API.md), over real connections to a running server.

Usage: server_test.py SOWDB TABLES_DIR CASE
  CASE tables: writes the table directories the other cases serve (a ctest fixture);
  CASE contract: every endpoint and every error status; the position endpoint's JSON equals
    `sowdb probe --json` for random positions of Oware, Kalah(4,3) and co-operative Oware;
  CASE damaged: a layer damaged under the server answers 500, in a batch too, and is logged;
  CASE health: a server started on a directory with a truncated layer says so on stderr and in
    health; one whose layer is truncated while it runs reports it once a request touched it;
    no answer names a file path; a batch that hits the layer is one log line;
  CASE fair_connections: health is answered while the connection table is full of idle
    connections from 127.0.0.2 and up (the health client sharing one of their addresses), the
    longest idle closed for it; a client over its address's cap is answered 503 with
    Retry-After; /metrics counts both;
  CASE small_answers: max_plies=0 gives no line, fields keeps the keys asked (every key of a
    competitive and a co-operative answer may be asked), a batch is gzip-encoded when asked and
    decodes to the plain answer, an answer over --max-answer-kb is a 413 with a JSON message,
    --cors answers a preflight and marks answers for the origin named only;
  CASE safety_<name>: one hostile client (body_size, header_size, slowloris, malformed, path,
    batch, variant, seeds); each gets the right 4xx with a JSON message or a closed
    connection, and the server answers the next request.
The server is started on a free port (--port 0) and found by the URL it prints; no sleeping:
every wait is a blocking read with a bounded timeout.
"""
import gzip
import http.client
import json
import os
import random
import re
import resource
import shutil
import signal
import socket
import subprocess
import sys
import tempfile
import time

SOWDB, TABLES, CASE = sys.argv[1], sys.argv[2], sys.argv[3]
OWARE = os.path.join(TABLES, "oware")
KALAH = os.path.join(TABLES, "kalah43")
COOP = os.path.join(TABLES, "oware_coop")
MAX = {"oware": 8, "kalah43": 8, "oware_coop": 6}
LIMITS = ["--max-batch", "20", "--max-body-kb", "16", "--read-timeout", "2"]
failures = []


def check(cond, what):
    if not cond:
        failures.append(what)
        print("FAIL: " + what, flush=True)


def make_tables():
    os.makedirs(TABLES, exist_ok=True)
    jobs = [
        ["--variant", "oware", "--max-stones", "8", "--out", OWARE],
        ["--variant", "kalah/4x3", "--max-stones", "8", "--out", KALAH],
        ["--variant", "oware", "--objective", "cooperative", "--max-stones", "6", "--out", COOP],
    ]
    for args in jobs:
        subprocess.run([SOWDB, "gen", "--quiet", "--zstd-level", "1", *args], check=True)


class Server:
    """`sowdb serve --port 0` on the test tables; `port` is what it printed."""

    def __init__(self, *extra, tables=(OWARE, KALAH, COOP)):
        self.proc = subprocess.Popen(
            [SOWDB, "serve", "--port", "0", *[a for t in tables for a in ("--tables", t)], *extra],
            stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
            preexec_fn=lambda: signal.signal(signal.SIGINT, signal.SIG_IGN))
        self.port = None
        for line in self.proc.stdout:
            m = re.match(r"listening on http://127\.0\.0\.1:(\d+)/", line)
            if m:
                self.port = int(m.group(1))
                break
        if self.port is None:
            raise SystemExit("sowdb serve printed no URL: " + self.proc.stderr.read())

    def request(self, method, path, body=None, headers=None):
        c = http.client.HTTPConnection("127.0.0.1", self.port, timeout=30)
        c.request(method, path, body=body, headers=headers or {})
        r = c.getresponse()
        data = r.read()
        c.close()
        return r.status, dict(r.getheaders()), data

    def get_json(self, path):
        status, headers, data = self.request("GET", path)
        return status, json.loads(data)

    def raw(self, data, timeout=10):
        """Sends `data` on a new connection; returns everything read until the server closes."""
        s = socket.create_connection(("127.0.0.1", self.port), timeout=timeout)
        try:
            s.sendall(data)
        except OSError:
            pass  # the server may close before reading everything
        out = b""
        try:
            while True:
                chunk = s.recv(65536)
                if not chunk:
                    break
                out += chunk
        except OSError:
            pass
        s.close()
        return out

    def healthy(self, what):
        status, j = self.get_json("/api/v1/health")
        check(status == 200 and j.get("status") == "ok", what + ": the next request is answered")

    def stop(self, sig=signal.SIGTERM):
        self.proc.send_signal(sig)
        out, err = self.proc.communicate(timeout=30)
        name = "SIGINT" if sig == signal.SIGINT else "SIGTERM"
        check(self.proc.returncode == 0, "%s: exit 0, got %d (%s)" % (name, self.proc.returncode, err))
        check("stopped on " + name in out, name + ": says it stopped")
        return err


def status_of(raw):
    m = re.match(rb"HTTP/1\.[01] (\d{3})", raw)
    return int(m.group(1)) if m else None


def body_of(raw):
    return raw.split(b"\r\n\r\n", 1)[1] if b"\r\n\r\n" in raw else b""


def expect_error(srv, method, path, status, fragment, body=None):
    got, headers, data = srv.request(method, path, body=body)
    try:
        j = json.loads(data)
    except ValueError:
        j = {}
    check(got == status and j.get("status") == status and fragment in j.get("error", ""),
          "%s %s: want %d with '%s', got %d %s" % (method, path[:80], status, fragment, got, data[:200]))


def random_board(rng, pits, max_seeds):
    n = rng.randint(0, max_seeds)
    board = [0] * pits
    for _ in range(n):
        board[rng.randrange(pits)] += 1
    return board


def probe_bulk(directory, boards):
    """`sowdb probe --json -` over `boards`, one JSON object each."""
    text = "".join(" ".join(map(str, b)) + "\n" for b in boards)
    out = subprocess.run([SOWDB, "probe", "--tables", directory, "--json", "-"], input=text,
                         capture_output=True, text=True, check=True).stdout
    return [json.loads(line) for line in out.splitlines()]


def compare_with_probe(srv, variant, directory, pits, max_seeds, count, rng, objective=None):
    boards = [random_board(rng, pits, max_seeds) for _ in range(count)]
    expected = probe_bulk(directory, boards)
    extra = "&objective=" + objective if objective else ""
    for board, want in zip(boards, expected):
        status, got = srv.get_json("/api/v1/position?variant=%s&board=%s&stores=0,0%s" % (
            variant, ",".join(map(str, board)), extra))
        check(status == 200 and got.get("api") == 1, "position %s: 200 with api 1" % board)
        got.pop("api", None)
        check(got == want, "position %s %s equals sowdb probe --json" % (variant, board))
    return boards, expected


def contract():
    srv = Server(*LIMITS)
    rng = random.Random(31)
    # Variants: each served set, no filesystem path.
    status, headers, data = srv.request("GET", "/api/v1/variants")
    j = json.loads(data)
    check(status == 200 and j["api"] == 1, "variants: 200")
    got = sorted((t["variant"], t["objective"], t["layers"]["max"]) for t in j["tables"])
    check(got == [("kalah/4x3", "competitive", 8), ("oware/6x4", "competitive", 8),
                  ("oware/6x4", "cooperative", 6)], "variants: the three sets, got %s" % got)
    check(all(t["positions"] > 0 and t["bytes"] > 0 and "rules" in t for t in j["tables"]),
          "variants: positions, bytes, rules")
    check(TABLES.encode() not in data, "variants: no filesystem path")
    # One variant text, in a spelling of its own: the canonical text and both objectives' sets.
    status, headers, data = srv.request("GET", "/api/v1/variant?variant=oware")
    j = json.loads(data)
    check(status == 200 and j["variant"] == "oware/6x4" and j["family"] == "oware" and
          j["pits_per_side"] == 6 and j["seeds_per_pit"] == 4 and
          sorted(t["objective"] for t in j["tables"]) == ["competitive", "cooperative"],
          "variant oware: got %d %s" % (status, data[:200]))
    check(TABLES.encode() not in data, "variant: no filesystem path")
    status, headers, data = srv.request("GET", "/api/v1/variant?variant=kalah/4x3")
    check(status == 200 and json.loads(data)["family"] == "kalah", "variant kalah/4x3: family")
    expect_error(srv, "GET", "/api/v1/variant?variant=kalah", 404, "kalah/6x4 is not served")
    expect_error(srv, "GET", "/api/v1/variant?variant=nosuch", 404, "nosuch")
    srv.healthy("health")
    # The position endpoint against the command line, with stores too.
    compare_with_probe(srv, "oware/6x4", OWARE, 12, 8, 60, rng)
    compare_with_probe(srv, "kalah/4x3", KALAH, 8, 8, 40, rng)
    compare_with_probe(srv, "oware/6x4", COOP, 12, 6, 20, rng, "cooperative")
    for _ in range(5):
        board = random_board(rng, 12, 8)
        stores = [rng.randint(0, 20), rng.randint(0, 20)]
        want = json.loads(subprocess.run(
            [SOWDB, "probe", "--tables", OWARE, "--json", "--stores", "%d,%d" % tuple(stores),
             *map(str, board)], capture_output=True, text=True, check=True).stdout)
        status, got = srv.get_json("/api/v1/position?variant=oware&board=%s&stores=%d,%d" % (
            ",".join(map(str, board)), *stores))
        got.pop("api", None)
        check(status == 200 and got == want, "position %s stores %s equals probe" % (board, stores))
    # A repeated position comes from the cache, and says so in the metrics.
    path = "/api/v1/position?variant=oware/6x4&board=1,2,0,0,0,0,0,0,0,0,1,0"
    first = srv.request("GET", path)
    second = srv.request("GET", path)
    check(first[0] == 200 and first[2] == second[2], "position: a repeat answers the same")
    check("max-age" in first[1].get("Cache-Control", ""), "position: Cache-Control")
    # Batch: the same objects as the position endpoint, errors in place.
    boards = [random_board(rng, 8, 8) for _ in range(6)]
    items = [{"board": b, "stores": [0, 0]} for b in boards]
    items.insert(2, {"board": [9, 0, 0, 0, 0, 0, 0, 0]})
    items.insert(4, {"board": [1, 2]})
    status, headers, data = srv.request(
        "POST", "/api/v1/batch", body=json.dumps({"variant": "kalah/4x3", "positions": items}))
    j = json.loads(data)
    check(status == 200 and j["api"] == 1 and len(j["results"]) == 8, "batch: 8 results")
    expected = probe_bulk(KALAH, boards)
    results = j["results"]
    check(results[2].get("status") == 422 and "9 seeds" in results[2].get("error", ""),
          "batch: too many seeds is 422 in place, got %s" % results[2])
    check(results[4].get("status") == 400 and "expected 8 pit counts" in results[4].get("error", ""),
          "batch: a short board is 400 in place, got %s" % results[4])
    rest = [r for i, r in enumerate(results) if i not in (2, 4)]
    for r, want in zip(rest, expected):
        r.pop("api", None)
        check(r == want, "batch: a result equals sowdb probe --json")
    # A client that asks before sending its body (curl above 1 KiB) is told to go on.
    body = json.dumps({"variant": "kalah/4x3", "positions": items}).encode()
    s = socket.create_connection(("127.0.0.1", srv.port), timeout=10)
    s.sendall(b"POST /api/v1/batch HTTP/1.1\r\nHost: t\r\nExpect: 100-continue\r\n"
              b"Content-Length: %d\r\n\r\n" % len(body))
    check(s.recv(4096).startswith(b"HTTP/1.1 100 Continue"), "Expect: 100-continue is answered")
    s.sendall(body)
    reply = b""
    while b"]}" not in reply:
        chunk = s.recv(65536)
        if not chunk:
            break
        reply += chunk
    s.close()
    check(status_of(reply) == 200 and len(json.loads(body_of(reply))["results"]) == 8,
          "batch after 100 Continue: 200")
    # Metrics in Prometheus text.
    status, headers, data = srv.request("GET", "/metrics")
    text = data.decode()
    check(status == 200 and headers.get("Content-Type", "").startswith("text/plain"), "metrics: 200 text")
    m = re.search(r'sowdb_http_requests_total\{endpoint="position",status="200"\} (\d+)', text)
    check(m is not None and int(m.group(1)) >= 120, "metrics: position requests counted")
    m = re.search(r"^sowdb_cache_hits_total (\d+)$", text, re.M)
    check(m is not None and int(m.group(1)) >= 1, "metrics: cache hits counted")
    check(re.search(r'^sowdb_http_request_duration_seconds_bucket\{le="\+Inf"\} \d+$', text, re.M)
          is not None, "metrics: latency histogram")
    check(re.search(r"^sowdb_cache_bytes \d+$", text, re.M) is not None, "metrics: cache bytes")
    # The page: / with any query is index.html; an ETag answers 304.
    for path in ["/", "/?variant=oware/6x4&board=4,4,4,4,4,4,4,4,4,4,4,4&stores=0,0",
                 "/index.html"]:
        status, headers, data = srv.request("GET", path)
        check(status == 200 and headers.get("Content-Type", "").startswith("text/html") and
              b"<html" in data, "page: %s is index.html" % path)
    etag = srv.request("GET", "/")[1].get("ETag")
    status, headers, data = srv.request("GET", "/", headers={"If-None-Match": etag})
    check(etag and status == 304 and data == b"", "page: If-None-Match answers 304")
    # Every error status.
    expect_error(srv, "GET", "/api/v1/position?variant=oware&board=4,4,x", 400, "not a whole number")
    expect_error(srv, "GET", "/api/v1/position?variant=oware", 400, "missing parameter 'board'")
    expect_error(srv, "GET", "/api/v1/position?variant=nosuch&board=1", 404, "unknown variant")
    expect_error(srv, "GET", "/api/v2/position", 404, "no such endpoint")
    expect_error(srv, "GET", "/static/nothing.js", 404, "no such file")
    expect_error(srv, "POST", "/api/v1/position?variant=oware&board=1", 405, "use GET")
    expect_error(srv, "GET", "/api/v1/batch", 405, "use POST")
    expect_error(srv, "POST", "/api/v1/batch", 413, "at most 20",
                 body=json.dumps({"variant": "oware", "positions": [{"board": [0] * 12}] * 21}))
    expect_error(srv, "GET", "/api/v1/position?variant=oware&board=9,0,0,0,0,0,0,0,0,0,0,0", 422,
                 "9 seeds")
    expect_error(srv, "GET", "/api/v1/position?variant=oware&board=0,0,0,0,0,0,0,0,0,0,0,1&stores=40,9",
                 422, "")
    status, headers, data = srv.request("POST", "/api/v1/position?variant=oware&board=1")
    check(headers.get("Allow") == "GET, HEAD", "405: an Allow header")
    # HEAD: GET's status and headers, no body.
    for path in ["/", "/api/v1/variants", "/api/v1/position?variant=oware&board=1,0,0,0,0,0,0,0,0,0,0,1",
                 "/api/v1/position?variant=nosuch&board=1"]:
        get_status, get_headers, get_data = srv.request("GET", path)
        status, headers, data = srv.request("HEAD", path)
        check(status == get_status and data == b"" and
              headers.get("Content-Length") == str(len(get_data)) and
              headers.get("Content-Type") == get_headers.get("Content-Type"),
              "HEAD %s: GET's status %d and length %d without a body, got %d %r %r" %
              (path, get_status, len(get_data), status, headers.get("Content-Length"), data[:40]))
    # Started with SIGINT ignored, as a shell starts a background job: Ctrl-C still stops it.
    srv.stop(signal.SIGINT)


def metric(srv, endpoint, status):
    text = srv.request("GET", "/metrics")[2].decode()
    m = re.search(r'^sowdb_http_requests_total\{endpoint="%s",status="%s"\} (\d+)$' % (endpoint, status),
                  text, re.M)
    return int(m.group(1)) if m else 0


def safety_body_size(srv):
    # A Content-Length beyond the bound: 413 before the body is read, counted as a batch request.
    raw = srv.raw(b"POST /api/v1/batch HTTP/1.1\r\nHost: t\r\nContent-Length: 100000000000\r\n\r\n{")
    check(status_of(raw) == 413 and b"larger than" in body_of(raw), "huge Content-Length: 413, got %r" % raw[:200])
    batch, other = metric(srv, "batch", 413), metric(srv, "other", 413)
    check(batch == 1 and other == 0,
          "metrics: the early 413 counted under batch, got batch %d, other %d" % (batch, other))
    # A chunked body that never ends: 413 once past the bound, or the connection closed.
    s = socket.create_connection(("127.0.0.1", srv.port), timeout=10)
    s.sendall(b"POST /api/v1/batch HTTP/1.1\r\nHost: t\r\nTransfer-Encoding: chunked\r\n\r\n")
    chunk = b"4000\r\n" + b" " * 0x4000 + b"\r\n"
    out = b""
    try:
        for _ in range(1000):  # 16 MiB at most; the bound is 16 KiB
            s.sendall(chunk)
    except OSError:
        pass
    try:
        while True:
            data = s.recv(65536)
            if not data:
                break
            out += data
    except OSError:
        pass
    s.close()
    check(out == b"" or status_of(out) == 413, "endless chunked body: 413 or closed, got %r" % out[:100])


def safety_header_size(srv):
    raw = srv.raw(b"GET /api/v1/health HTTP/1.1\r\nHost: t\r\nX-Big: " + b"a" * 100000 + b"\r\n\r\n")
    check(raw == b"" or status_of(raw) == 413, "100 kB header: 413 or closed, got %r" % raw[:100])


def safety_slowloris(srv):
    # A client that trickles a request, a byte at a time, never finishing it: the server still
    # answers others, and the read timeout (2 s for the whole request) closes it.
    s = socket.create_connection(("127.0.0.1", srv.port), timeout=10)
    s.sendall(b"GET /api/v1/health HTTP/1.1\r\nHost: t\r\n")
    srv.healthy("during a slow client")
    start = time.monotonic()
    closed = False
    s.settimeout(0.2)  # the pace of the trickle: each byte waits for the server to close
    while time.monotonic() - start < 15:
        try:
            s.sendall(b"X")
            if s.recv(4096) == b"":
                closed = True
                break
        except socket.timeout:
            continue
        except OSError:
            closed = True
            break
    elapsed = time.monotonic() - start
    check(closed and elapsed < 10, "slow client closed by the read timeout (after %.1f s)" % elapsed)
    s.close()


def safety_malformed(srv):
    raw = srv.raw(b"HELLO THERE\r\n\r\n")
    check(status_of(raw) == 400 and b"malformed HTTP request" in body_of(raw), "garbage request: 400, got %r" % raw[:200])
    srv.healthy("after garbage")
    for path, fragment in [
            ("/api/v1/position?variant=oware&board=%zz", "bad percent escape"),
            ("/api/v1/position?variant=oware&board=4,4,4,4,4,4,4,4,4,4,4", "expected 12 pit counts"),
            ("/api/v1/position?variant=oware&board=1,,1", "not a whole number"),
            ("/api/v1/position?variant=oware&board=-1,0,0,0,0,0,0,0,0,0,0,0", "negative"),
            ("/api/v1/position?variant=oware&board=1&bord=2", "unknown parameter"),
            ("/api/v1/position?variant=oware&board=1&board=2", "given twice"),
            ("/api/v1/position?variant=oware&board=0,0,0,0,0,0,0,0,0,0,0,1&stores=1", "expected 2 numbers"),
            ("/api/v1/position?variant=oware&objective=selfish&board=1", "objective must be")]:
        expect_error(srv, "GET", path, 400, fragment)
    expect_error(srv, "POST", "/api/v1/batch", 400, "not JSON", body="{not json")
    expect_error(srv, "POST", "/api/v1/batch", 400, "nests deeper", body="[" * 5000 + "]" * 5000)
    expect_error(srv, "POST", "/api/v1/batch", 400, "body must be", body='{"variant": 3}')


def safety_path(srv):
    for target in [b"/static/../../etc/passwd", b"/static/%2e%2e/%2e%2e/etc/passwd",
                   b"/..%2f..%2fetc/passwd", b"/static/..%2Findex.html", b"/../index.html"]:
        raw = srv.raw(b"GET " + target + b" HTTP/1.1\r\nHost: t\r\nConnection: close\r\n\r\n")
        j = json.loads(body_of(raw) or b"{}")
        check(status_of(raw) == 404 and j.get("status") == 404 and b"root:" not in raw,
              "%s: 404, got %r" % (target, raw[:120]))
    srv.healthy("after paths outside the page")


def safety_batch(srv):
    many = {"variant": "oware", "positions": [{"board": [0] * 12}] * 100000}
    expect_error(srv, "POST", "/api/v1/batch", 413, "larger than", body=json.dumps(many))
    expect_error(srv, "POST", "/api/v1/batch", 413, "at most 20",
                 body=json.dumps({"variant": "oware", "positions": [{"board": [0] * 12}] * 21}))
    status, headers, data = srv.request("POST", "/api/v1/batch", body=json.dumps(
        {"variant": "oware", "positions": [{"board": [0] * 12}] * 20}))
    check(status == 200 and len(json.loads(data)["results"]) == 20, "a batch at the bound: 200")
    # Unknown or repeated keys are refused, not ignored: a typo must not answer another position.
    board = [1] * 12
    expect_error(srv, "POST", "/api/v1/batch", 400, "unknown key 'foo'",
                 body=json.dumps({"variant": "oware", "positions": [{"board": board}], "foo": 1}))
    expect_error(srv, "POST", "/api/v1/batch", 400, "key 'variant' given twice",
                 body='{"variant": "kalah/4x3", "variant": "oware", "positions": []}')
    expect_error(srv, "POST", "/api/v1/batch", 400, "key 'board' given twice",
                 body='{"variant": "oware", "positions": [{"board": [1], "board": %s}]}' % board)
    board = [1, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 1]
    status, headers, data = srv.request("POST", "/api/v1/batch", body=json.dumps(
        {"variant": "oware", "positions": [{"board": board, "store": [30, 16]},
                                           {"board": board, "stores": [30, 16]}]}))
    results = json.loads(data).get("results", [{}, {}])
    check(status == 200 and results[0].get("status") == 400 and
          "unknown key 'store'" in results[0].get("error", ""),
          "batch: a position's unknown key is 400 in place, got %d %s" % (status, data[:200]))
    check(results[1].get("stores") == [30, 16] and "value" in results[1],
          "batch: the next position is answered with its stores, got %s" % str(results[1])[:200])


def safety_variant(srv):
    expect_error(srv, "GET", "/api/v1/position?variant=nosuch&board=1", 404, "unknown variant")
    for path in ["/api/v1/position?variant=nope&board=1,1", "/api/v1/position?variant=nope/6x4&board=1"]:
        error = srv.get_json(path)[1].get("error", "")
        check(error.startswith("unknown variant '") and error.count("unknown variant") == 1 and
              "(known: " in error and "; served: " in error,
              "%s: says 'unknown variant' once, with the known and served ones: %s" % (path, error))
    expect_error(srv, "GET", "/api/v1/position?variant=oware/5x4&board=1", 404, "is not served")
    expect_error(srv, "GET", "/api/v1/position?variant=kalah/4x3&objective=cooperative&board=1",
                 404, "is not served")
    expect_error(srv, "POST", "/api/v1/batch", 404, "unknown variant",
                 body=json.dumps({"variant": "x" * 5000, "positions": []}))


def safety_seeds(srv):
    expect_error(srv, "GET", "/api/v1/position?variant=oware&board=9,0,0,0,0,0,0,0,0,0,0,0", 422,
                 "position has 9 seeds; the oware/6x4 tables served hold up to 8")
    expect_error(srv, "GET", "/api/v1/position?variant=oware&board=200,200,0,0,0,0,0,0,0,0,0,0",
                 422, "too many seeds")
    expect_error(srv, "GET", "/api/v1/position?variant=oware&board=256,0,0,0,0,0,0,0,0,0,0,0", 400,
                 "more than 255")
    expect_error(srv, "GET", "/api/v1/position?variant=oware&board=99999999999999999999999,0", 400,
                 "more than 255")
    expect_error(srv, "GET",
                 "/api/v1/position?variant=oware&board=1,0,0,0,0,0,0,0,0,0,0,0&stores=40,9", 422,
                 "")


def damaged():
    # A layer damaged under the server: a batch position that needs it is a 500 in place, and
    # the log says which, as it does for the same failure on GET.
    with tempfile.TemporaryDirectory() as tmp:
        tables = os.path.join(tmp, "oware")
        shutil.copytree(OWARE, tables)
        path = os.path.join(tables, "layer-006.sdb")
        with open(path, "r+b") as f:
            f.seek(os.path.getsize(path) // 2)
            f.write(b"\x5a\x5a\x5a\x5a")
        srv = Server(*LIMITS, tables=[tables])
        try:
            board = [1, 1, 1, 1, 1, 1, 0, 0, 0, 0, 0, 0]
            status, headers, data = srv.request("POST", "/api/v1/batch", body=json.dumps(
                {"variant": "oware", "positions": [{"board": board}, {"board": [1] + [0] * 11}]}))
            results = json.loads(data).get("results", [{}, {}])
            check(status == 200 and results[0].get("status") == 500 and
                  "layer-006.sdb" in results[0].get("error", "") and "value" in results[1],
                  "batch on a damaged layer: 500 in place, got %d %s" % (status, data[:200]))
            expect_error(srv, "GET", "/api/v1/position?variant=oware&board=" +
                         ",".join(map(str, board)), 500, "layer-006.sdb")
        finally:
            err = srv.stop()
        logged = [line for line in err.splitlines() if "error 500: " in line]
        check(len(logged) == 2 and all("layer-006.sdb" in line for line in logged) and
              "batch" in logged[0],
              "the batch's and the GET's 500 are both logged, the batch's as such: %s" % logged)


def truncate(path):
    with open(path, "r+b") as f:
        f.truncate(os.path.getsize(path) // 2)


def health():
    with tempfile.TemporaryDirectory() as tmp:
        tables = os.path.join(tmp, "oware")
        shutil.copytree(OWARE, tables)
        truncate(os.path.join(tables, "layer-005.sdb"))
        srv = Server(*LIMITS, tables=[tables])
        bodies = []
        try:
            status, headers, data = srv.request("GET", "/api/v1/health")
            bodies.append(data)
            j = json.loads(data)
            check(status == 200 and j.get("status") == "degraded" and
                  j.get("damaged") == [{"variant": "oware/6x4", "objective": "competitive",
                                        "layers": [5], "served": {"min": 0, "max": 8}}],
                  "started on a truncated layer: health degraded, got %s" % data)
        finally:
            err = srv.stop()
        check(any("warning" in line and "layer 5" in line for line in err.splitlines()),
              "started on a truncated layer: says so on stderr, got %r" % err)
        # Truncated while it runs: health tells once a request has touched the layer.
        shutil.rmtree(tables)
        shutil.copytree(OWARE, tables)
        srv = Server(*LIMITS, tables=[tables])
        try:
            status, j = srv.get_json("/api/v1/health")
            check(status == 200 and j.get("status") == "ok" and j.get("damaged") == [],
                  "sound tables: health ok, got %s" % j)
            truncate(os.path.join(tables, "layer-006.sdb"))
            status, headers, data = srv.request(
                "GET", "/api/v1/position?variant=oware&board=1,1,1,1,1,1,0,0,0,0,0,0")
            bodies.append(data)
            check(status == 500, "a position on the truncated layer: 500, got %d %s" % (status, data))
            positions = [{"board": [1, 1, 1, 1, 1, 0, 0, 0, 0, 0, 0, 1]},
                         {"board": [0, 2, 1, 1, 1, 0, 0, 0, 0, 0, 0, 1]},
                         {"board": [1, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 1]}]
            status, headers, data = srv.request("POST", "/api/v1/batch", body=json.dumps(
                {"variant": "oware", "positions": positions}))
            bodies.append(data)
            results = json.loads(data).get("results", [])
            check(status == 200 and [r.get("status") for r in results] == [500, 500, None],
                  "batch on the truncated layer: 500 in place, got %s" % data[:300])
            status, headers, data = srv.request("GET", "/api/v1/health")
            bodies.append(data)
            j = json.loads(data)
            check(j.get("status") == "degraded" and len(j.get("damaged", [])) == 1 and
                  j["damaged"][0]["layers"] == [6],
                  "truncated while running: health degraded naming layer 6, got %s" % data)
            for path in ["/api/v1/variants", "/metrics"]:
                bodies.append(srv.request("GET", path)[2])
        finally:
            err = srv.stop()
        for body in bodies:
            check(tmp.encode() not in body and tables.encode() not in body,
                  "no answer names a file path: %s" % body[:200])
        logged = [line for line in err.splitlines() if "error 500" in line]
        check(len(logged) == 2 and "2 of 3 positions failed" in logged[1],
              "one log line per request (the GET's, the batch's), got %s" % logged)


def metric_value(srv, name):
    text = srv.request("GET", "/metrics")[2].decode()
    m = re.search(r"^%s (\d+)$" % re.escape(name), text, re.M)
    return int(m.group(1)) if m else -1


def idle_connection(srv, source):
    s = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
    s.settimeout(30)
    s.bind((source, 0))
    s.connect(("127.0.0.1", srv.port))
    return s


def fair_connections():
    table, cap, flood, spread = 64, 16, 96, 8
    soft, hard = resource.getrlimit(resource.RLIMIT_NOFILE)
    want = 4 * (table + flood)
    if soft < want:
        if hard != resource.RLIM_INFINITY and hard < want:
            print("SKIP: the open-file limit (hard %d) is below the %d this case needs" % (hard, want))
            return
        resource.setrlimit(resource.RLIMIT_NOFILE, (want, hard))
    srv = Server(*LIMITS, "--max-connections", str(table), "--max-connections-per-client", str(cap))
    idle = []
    try:
        # More idle connections than the table holds, spread over 127.0.0.2..9: each beyond the
        # bound closes the longest idle one; none is refused.
        for i in range(flood):
            idle.append(idle_connection(srv, "127.0.0.%d" % (2 + i % spread)))
        answered = 0
        for _ in range(32):
            c = http.client.HTTPConnection("127.0.0.1", srv.port, timeout=30,
                                           source_address=("127.0.0.2", 0))
            c.request("GET", "/api/v1/health")
            r = c.getresponse()
            j = json.loads(r.read())
            c.close()
            answered += r.status == 200 and j.get("status") == "ok"
        check(answered == 32, "health while the table is full of idle connections: %d of 32" % answered)
        closed = metric_value(srv, "sowdb_idle_connections_closed_total")
        check(closed >= flood - table, "idle connections closed for new ones: %d, want >= %d" %
              (closed, flood - table))
        for s in idle:
            s.close()
        idle = []
        # One address over its cap: 503 with Retry-After and a JSON message, before any request.
        for _ in range(cap):
            idle.append(idle_connection(srv, "127.0.0.20"))
        extra = idle_connection(srv, "127.0.0.20")
        extra.sendall(b"GET /api/v1/health HTTP/1.1\r\nHost: t\r\n\r\n")
        raw = b""
        try:
            while True:
                chunk = extra.recv(65536)
                if not chunk:
                    break
                raw += chunk
        except OSError:
            pass
        extra.close()
        j = json.loads(body_of(raw) or b"{}")
        check(status_of(raw) == 503 and b"\r\nRetry-After: 1\r\n" in raw and j.get("status") == 503 and
              "too many connections from your address" in j.get("error", ""),
              "over the per-address cap: 503 with Retry-After, got %r" % raw[:300])
        text = srv.request("GET", "/metrics")[2].decode()
        check(re.search(r'^sowdb_connections_refused_total\{reason="client_cap"\} [1-9]', text, re.M)
              is not None, "metrics: the cap hit counted")
        check(re.search(r'^sowdb_work_queue_depth\{class="batch"\} \d+$', text, re.M) is not None,
              "metrics: the queue depth by class")
    finally:
        for s in idle:
            s.close()
        srv.stop()


def small_answers():
    site = "https://example.org"
    srv = Server(*LIMITS, "--max-answer-kb", "8", "--cors", site)
    try:
        board = "1,1,1,1,0,0,0,0,1,1,1,1"
        status, full = srv.get_json("/api/v1/position?variant=oware&board=" + board)
        status0, none = srv.get_json("/api/v1/position?variant=oware&board=%s&max_plies=0" % board)
        check(status == 200 and len(full["line"]) > 0, "a position with a line, got %s" % full)
        check(status0 == 200 and none["line"] == [] and none["line_steps"] == [] and
              none["value"] == full["value"] and none["moves"] == full["moves"],
              "max_plies=0: no line, the same value and moves, got %s" % str(none)[:200])
        # Every key of an answer may be asked for, on competitive and co-operative tables.
        for extra in ["", "&objective=cooperative"]:
            path = "/api/v1/position?variant=oware&board=1,0,0,0,1,0,0,0,1,0,0,0" + extra
            status, headers, data = srv.request("GET", path)
            keys = ",".join(json.loads(data).keys())
            status2, headers2, data2 = srv.request("GET", path + "&fields=" + keys)
            check(status == 200 and status2 == 200 and data2 == data,
                  "fields=%s%s: the whole answer, got %d %s" % (keys, extra, status2, data2[:200]))
        status, some = srv.get_json("/api/v1/position?variant=oware&board=%s&fields=value" % board)
        check(status == 200 and some == {"api": 1, "value": full["value"]},
              "fields=value: api and value alone, got %s" % some)
        expect_error(srv, "GET", "/api/v1/position?variant=oware&board=%s&fields=valu" % board, 400,
                     "unknown field 'valu'")
        # A batch gzip-encoded when asked, which decodes to the plain answer.
        rng = random.Random(7)
        body = json.dumps({"variant": "oware", "max_plies": 4,
                           "fields": ["value", "best", "line", "moves_best_first", "pits"],
                           "positions": [
            {"board": random_board(rng, 12, 8)} for _ in range(20)]})
        status, headers, plain = srv.request("POST", "/api/v1/batch", body=body)
        check(status == 200 and "Content-Encoding" not in headers and 1024 <= len(plain) <= 8192 and
              headers.get("Vary") == "Accept-Encoding",
              "batch without Accept-Encoding: plain, 1..8 KiB, got %d %d bytes" % (status, len(plain)))
        status, headers, packed = srv.request("POST", "/api/v1/batch", body=body,
                                              headers={"Accept-Encoding": "gzip"})
        check(status == 200 and headers.get("Content-Encoding") == "gzip" and
              headers.get("Vary") == "Accept-Encoding" and
              headers.get("Content-Length") == str(len(packed)),
              "batch with Accept-Encoding: gzip: encoded, got %d %s" % (status, headers))
        check(packed[:2] == b"\x1f\x8b" and gzip.decompress(packed) == plain and
              len(packed) < len(plain), "the gzip answer decodes to the plain answer")
        # An answer over the bound: 413 with a JSON message, never a cut answer; the same
        # batch asked smaller is answered.
        big = json.dumps({"variant": "oware", "positions": [
            {"board": random_board(rng, 12, 8)} for _ in range(20)]})
        status, headers, data = srv.request("POST", "/api/v1/batch", body=big)
        j = json.loads(data)
        check(status == 413 and j.get("status") == 413 and "larger than 8192 bytes" in j["error"],
              "an answer over --max-answer-kb: 413, got %d %s" % (status, data[:200]))
        status, headers, data = srv.request("POST", "/api/v1/batch", body=json.dumps(
            dict(json.loads(big), fields=["value"])))
        check(status == 200 and len(json.loads(data)["results"]) == 20,
              "the same batch with fields=value: 200")
        srv.healthy("after a 413 answer")
        # --cors: the origin named is answered a preflight and reads answers; no other is.
        status, headers, data = srv.request("OPTIONS", "/api/v1/batch", headers={
            "Origin": site, "Access-Control-Request-Method": "POST"})
        check(status == 204 and headers.get("Access-Control-Allow-Origin") == site and
              "POST" in headers.get("Access-Control-Allow-Methods", "") and data == b"",
              "CORS preflight: 204 with the origin and methods, got %d %s" % (status, headers))
        status, headers, data = srv.request("GET", "/api/v1/health", headers={"Origin": site})
        check(status == 200 and headers.get("Access-Control-Allow-Origin") == site,
              "CORS: an answer to the origin named carries it, got %s" % headers)
        status, headers, data = srv.request("GET", "/api/v1/health",
                                            headers={"Origin": "https://other.example"})
        check(status == 200 and "Access-Control-Allow-Origin" not in headers,
              "CORS: another origin gets no header, got %s" % headers)
    finally:
        srv.stop()


def main():
    if CASE == "tables":
        make_tables()
    elif CASE == "contract":
        contract()
    elif CASE == "damaged":
        damaged()
    elif CASE == "health":
        health()
    elif CASE == "fair_connections":
        fair_connections()
    elif CASE == "small_answers":
        small_answers()
    elif CASE.startswith("safety_"):
        srv = Server(*LIMITS)
        try:
            globals()[CASE](srv)
            srv.healthy(CASE)
        finally:
            srv.stop()
    else:
        raise SystemExit("unknown case " + CASE)
    if failures:
        print("%d check(s) failed" % len(failures))
        sys.exit(1)
    print("ok")


main()
