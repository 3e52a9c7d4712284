#!/usr/bin/python3
"""The two fairness lines of issue 42's acceptance, measured against `sowdb serve` on loopback.

Usage: /usr/bin/python3 bench/server/fairness.py SOWDB TABLES [options] [-- serve flags...]
  fairness.py build/cli/sowdb tables/oware-6     the full run: N 4,500, M 64, T 30 s, 8 clients
  fairness.py build/cli/sowdb tables/oware-6 --idle 300 --seconds 5 --clients 2 \\
      -- --max-connections 256                   a small trial
Each part starts its own server (scripts/local_server.py) with the serve flags after `--`.

1. Idle connections (--part 1). An attacker process opens --idle N TCP connections that send
   nothing, round-robin over 127.0.0.2, 127.0.0.3, ... (--per-address each, default 3/4 of
   --max-connections-per-client, so the cap refuses none), and reopens from the same address each
   one the server closes (--no-reopen: holds the first set only). Meanwhile --health M requests
   GET /api/v1/health, each on a new connection with a 1 s timeout, spread over --health-seconds,
   two at a time: half from 127.0.0.2 (an attacker's address), half from a fresh one. Prints how
   many were answered (200) within 1 s, p50/p95/max (one not answered in time ranks above all),
   what became of the idle connections (open, closed by the server, reset, answered 503,
   reopened) and the connection counters of /metrics.
2. Lookups beside batches (--part 2). Single lookups (GET /api/v1/position, one keep-alive
   client) of random positions for --seconds T alone (the baseline), then as long again while
   --clients processes POST batches of --batch-size random positions in a loop. Prints the
   lookups, p50/p95/p99/max of each run; the batches ended within the second run and their p50.
Random positions: a seed count uniform in --min-seeds..--max-seeds (default the layers served,
at least 1), each seed dropped into a random pit, the game's other seeds split at random between
the stores; fixed seeds (--seed). Whole answers unless --fields.
Exit status 0 once measured (PASS/FAIL lines say whether the acceptance held); 1 on a setup
failure (open-file limit, a server that does not start or dies, no variant served).
"""
import argparse
import contextlib
import http.client
import json
import math
import multiprocessing
import os
import random
import re
import resource
import selectors
import socket
import sys
import threading
import time
import urllib.parse

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", "scripts"))
from local_server import start_server  # noqa: E402

METRICS = re.compile(r"^(sowdb_connections_\w+|sowdb_idle_connections_closed_total|"
                     r"sowdb_work_queue_depth|"
                     r"sowdb_http_requests_total\{endpoint=\"(health|batch|position)\")\S* .*$",
                     re.M)
INF = float("inf")


def loopback(i):
    """The i-th client address: 127.0.0.2, ..., 127.0.0.251, 127.0.1.2, ..."""
    return "127.0.%d.%d" % (i // 250, 2 + i % 250)


def pct(xs, q):
    """The nearest-rank q-quantile of xs."""
    xs = sorted(xs)
    return xs[max(0, math.ceil(q * len(xs)) - 1)] if xs else float("nan")


def ms(x):
    return "unanswered" if x == INF else "%.1f ms" % (x * 1000)


def spread(xs, qs=(0.5, 0.95, 0.99)):
    return ", ".join("p%d %s" % (q * 100, ms(pct(xs, q))) for q in qs) + ", max " + ms(max(xs))


def fail(message):
    sys.exit("fairness.py: " + message)


def get(port, path, source="127.0.0.1", timeout=10.0):
    c = http.client.HTTPConnection("127.0.0.1", port, timeout=timeout, source_address=(source, 0))
    try:
        c.request("GET", path)
        r = c.getresponse()
        return r.status, r.read()
    finally:
        c.close()


def metrics(port):
    status, body = get(port, "/metrics")
    lines = [m.group(0) for m in METRICS.finditer(body.decode())] if status == 200 else []
    return "\n     ".join(lines)


def random_position(rng, shape):
    seeds = rng.randint(shape["lo"], shape["hi"])
    board = [0] * (2 * shape["pits"])
    for _ in range(seeds):
        board[rng.randrange(len(board))] += 1
    rest = shape["game_seeds"] - seeds
    a = rng.randint(0, rest)
    return board, [a, rest - a]


@contextlib.contextmanager
def serving(sowdb, tables, flags):
    """A server on a free port of 127.0.0.1 for the block (yields its port); stopped after it."""
    proc, url = start_server(sowdb, tables, os.environ.copy(), flags)
    try:
        yield int(re.search(r":(\d+)/?$", url).group(1))
    finally:
        if proc.poll() is not None:
            fail("the server exited during the run (status %d)" % proc.returncode)
        proc.terminate()
        proc.wait()


def attacker(port, n, per_address, reopen, report, stop):
    """Opens n idle connections round-robin over ceil(n / per_address) addresses, reports
    ("ready", ...), keeps them (reopening those the server closes) until `stop`, then reports what
    became of them."""
    sel = selectors.DefaultSelector()
    count = {"closed": 0, "reset": 0, "503": 0, "other": 0, "failed": 0, "reopened": 0}
    error = []

    def open_one(address):
        s = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
        try:
            s.settimeout(3)
            s.bind((address, 0))
            s.connect(("127.0.0.1", port))
            s.setblocking(False)
            sel.register(s, selectors.EVENT_READ, address)
            return True
        except OSError as e:
            s.close()
            count["failed"] += 1
            error[:] = error or [str(e)]
            return False

    def sweep(timeout, again):
        for key, _ in sel.select(timeout):
            try:
                data = key.fileobj.recv(512)
                what = "503" if data.startswith(b"HTTP/1.1 503") else "other" if data else "closed"
            except BlockingIOError:
                continue
            except OSError:
                what = "reset"
            count[what] += 1
            sel.unregister(key.fileobj)
            key.fileobj.close()
            if again and open_one(key.data):
                count["reopened"] += 1

    addresses = max(1, math.ceil(n / per_address))
    t0 = time.monotonic()
    for i in range(n):
        open_one(loopback(i % addresses))
    report.send((addresses, time.monotonic() - t0, dict(count), error[:1]))
    t0 = time.monotonic()
    while not stop.is_set():
        sweep(0.05, reopen)
    sweep(0, False)
    count["open"] = len(sel.get_map())
    report.send((count, time.monotonic() - t0))
    for key in list(sel.get_map().values()):
        key.fileobj.close()


def health_client(port, source, m, interval, out, outcomes):
    """m health requests from `source`, one every `interval`: their seconds into `out` (INF unless
    200 within 1 s), each other outcome (a status, an exception, "late") counted in `outcomes`."""
    for _ in range(m):
        start = time.monotonic()
        try:
            status, _ = get(port, "/api/v1/health", source, timeout=1.0)
            dt = time.monotonic() - start
            what = (None if dt <= 1.0 else "late") if status == 200 else status
        except (OSError, http.client.HTTPException) as e:
            what = type(e).__name__
        out.append(INF if what else dt)
        if what:
            outcomes[what] = outcomes.get(what, 0) + 1
        time.sleep(max(0.0, start + interval - time.monotonic()))


def part_idle(args, flags, cap):
    with serving(args.sowdb, args.tables, flags) as port:
        ctx = multiprocessing.get_context("spawn")
        here, there = ctx.Pipe()
        stop = ctx.Event()
        attack = ctx.Process(target=attacker, args=(port, args.idle, args.per_address,
                                                    not args.no_reopen, there, stop))
        attack.start()
        if not here.poll(600):
            fail("the attacker process did not open its connections within 600 s")
        addresses, took, count, error = here.recv()
        failed = count["failed"]
        shared, fresh = loopback(0), loopback(addresses)
        print("1. Idle connections: %d opened (%d failed%s) in %.1f s over %d addresses %s..%s, at "
              "most %d each (cap per address %d), %s" % (
                  args.idle - failed, failed, ": " + error[0] if error else "", took, addresses,
                  shared, loopback(addresses - 1), args.per_address, cap,
                  "held, not reopened" if args.no_reopen else "each reopened when closed"))
        if args.per_address >= cap:
            print("   (at the cap per address or above: the connections past it get 503)")
        results, outcomes = {shared: [], fresh: []}, {}
        half = args.health // 2
        threads = [threading.Thread(target=health_client, args=(
            port, src, m, args.health_seconds / max(1, half), results[src], outcomes))
            for src, m in ((shared, args.health - half), (fresh, half))]
        for t in threads:
            t.start()
        for t in threads:
            t.join()
        after = metrics(port)
        stop.set()
        if not here.poll(60):
            fail("the attacker process did not report")
        count, held = here.recv()
        attack.join()
        every = results[shared] + results[fresh]
        ok = {src: sum(x != INF for x in xs) for src, xs in results.items()}
        print("   health: %d requests over %.1f s, 2 at a time, timeout 1 s: %d answered within "
              "1 s (%.1f%%; from %s, shared with idle ones, %d of %d; from %s, fresh, %d of %d)" % (
                  len(every), args.health_seconds, sum(ok.values()),
                  100.0 * sum(ok.values()) / len(every), shared, ok[shared], len(results[shared]),
                  fresh, ok[fresh], len(results[fresh])))
        print("   health latency: %s; not answered in time: %s" % (
            spread(every, (0.5, 0.95)), ", ".join("%s x%d" % kv for kv in outcomes.items()) or "0"))
        print("   idle connections after %.1f s: %d open as the attacker sees them (the server's "
              "accept queue included); closed by the server %d, reset %d, answered 503 %d, other "
              "answers %d; reopened %d (%.0f/s), failed to reopen %d" % (
                  held, count["open"], count["closed"], count["reset"], count["503"],
                  count["other"], count["reopened"], count["reopened"] / max(held, 1e-9),
                  count["failed"] - failed))
        print("   /metrics afterwards:\n     " + after)
        print("   acceptance (>= 90%% of health answered within 1 s): %s" %
              ("PASS" if sum(ok.values()) >= 0.9 * len(every) else "FAIL"))


def timed(c, method, path, body=None):
    """One request on the keep-alive connection c: (start, seconds, None or the error)."""
    start = time.monotonic()
    try:
        c.request(method, path, body, {"Content-Type": "application/json"} if body else {})
        r = c.getresponse()
        data = r.read()
        error = None if r.status == 200 else "%d %s" % (r.status, data[:200])
    except (OSError, http.client.HTTPException) as e:
        c.close()  # the next request reconnects
        error = repr(e)
    return start, time.monotonic() - start, error


def batch_client(port, variant, shape, size, fields, seed, report, stop):
    """Posts batches of `size` random positions until `stop`; reports (start, seconds) of each."""
    rng = random.Random(seed)
    done, errors = [], []
    c = http.client.HTTPConnection("127.0.0.1", port, timeout=300)
    report.put("started")
    while not stop.is_set():
        body = {"variant": variant, "positions": [
            dict(zip(("board", "stores"), random_position(rng, shape))) for _ in range(size)]}
        body.update({"fields": fields} if fields else {})
        start, seconds, error = timed(c, "POST", "/api/v1/batch", json.dumps(body))
        (errors if error else done).append(error or (start, seconds))
    report.put((done, errors))


def lookups(port, variant, shape, fields, seconds, seed):
    rng = random.Random(seed)
    times, errors = [], []
    c = http.client.HTTPConnection("127.0.0.1", port, timeout=60)
    end = time.monotonic() + seconds
    while time.monotonic() < end:
        board, stores = random_position(rng, shape)
        query = {"variant": variant, "board": ",".join(map(str, board)),
                 "stores": "%d,%d" % tuple(stores), **({"fields": fields} if fields else {})}
        path = "/api/v1/position?" + urllib.parse.urlencode(query, safe="/,")
        _, dt, error = timed(c, "GET", path)
        (errors if error else times).append(error or dt)
    if not times:
        fail("no lookup answered: %s" % errors[:3])
    text = "%d lookups (%d errors%s), %s" % (
        len(times), len(errors), ": " + errors[0] if errors else "", spread(times))
    return text, pct(times, 0.95)


def part_batches(args, flags):
    with serving(args.sowdb, args.tables, flags) as port:
        status, body = get(port, "/api/v1/variants")
        served = json.loads(body)["tables"] if status == 200 else []
        table = next((t for t in served if args.variant in (None, t["variant"])), None)
        if table is None:
            fail("variant %s not served (served: %s)" % (
                args.variant, ", ".join(t["variant"] for t in served)))
        variant, layers = table["variant"], table["layers"]
        shape = {"pits": table["pits_per_side"], "game_seeds": table["game_seeds"],
                 "lo": max(1, layers["min"], args.min_seeds or 0),
                 "hi": min(layers["max"], args.max_seeds or layers["max"])}
        print("2. Lookups beside batches: %s, %d..%d seeds, %s answers, %g s each" % (
            variant, shape["lo"], shape["hi"], "fields=" + args.fields if args.fields else "whole",
            args.seconds))
        text, _ = lookups(port, variant, shape, args.fields, args.seconds, args.seed)
        print("   alone: " + text)
        ctx = multiprocessing.get_context("spawn")
        report, stop = ctx.Queue(), ctx.Event()
        clients = [ctx.Process(target=batch_client, args=(
            port, variant, shape, args.batch_size, args.fields, args.seed + 1 + i, report, stop))
            for i in range(args.clients)]
        for p in clients:
            p.start()
        for _ in clients:
            report.get(timeout=120)
        start = time.monotonic()
        text, p95 = lookups(port, variant, shape, args.fields, args.seconds, args.seed + 1000)
        end = time.monotonic()
        after = metrics(port)
        stop.set()
        batches, errors = [], []
        for _ in clients:
            done, errs = report.get(timeout=600)
            batches += [dt for t, dt in done if start <= t + dt <= end]
            errors += errs
        for p in clients:
            p.join()
        print("   beside %d clients posting %d-position batches: %s" % (
            args.clients, args.batch_size, text))
        print("   batches ended within that run: %d (%d errors%s), p50 %s" % (
            len(batches), len(errors), ": " + errors[0] if errors else "",
            ms(pct(batches, 0.5)) if batches else "-"))
        print("   /metrics afterwards:\n     " + after)
        print("   acceptance (lookups p95 <= 250 ms beside the batches): %s" %
              ("PASS" if p95 <= 0.25 else "FAIL"))


def main():
    argv = sys.argv[1:]
    cut = argv.index("--") if "--" in argv else len(argv)
    argv, flags = argv[:cut], argv[cut + 1:]
    p = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    p.add_argument("sowdb")
    p.add_argument("tables")
    p.add_argument("--part", choices=("1", "2", "both"), default="both")
    p.add_argument("--idle", type=int, default=4500, help="idle connections N")
    p.add_argument("--per-address", type=int, help="idle connections per address (3/4 of the cap)")
    p.add_argument("--no-reopen", action="store_true", help="hold the first idle set only")
    p.add_argument("--health", type=int, default=64, help="health requests M")
    p.add_argument("--health-seconds", type=float, default=12.0, help="spread over (12 s)")
    p.add_argument("--seconds", type=float, default=30.0, help="lookups, alone and beside (30)")
    p.add_argument("--clients", type=int, default=8, help="batch clients (8)")
    p.add_argument("--batch-size", type=int, default=1000, help="positions per batch (1000)")
    p.add_argument("--variant", help="the variant to ask (default: the first served)")
    p.add_argument("--min-seeds", type=int)
    p.add_argument("--max-seeds", type=int)
    p.add_argument("--fields", help="fields= of every lookup and batch (default: whole answers)")
    p.add_argument("--seed", type=int, default=42)
    args = p.parse_args(argv)
    args.sowdb = os.path.abspath(args.sowdb)
    if not os.access(args.sowdb, os.X_OK) or not os.path.isdir(args.tables):
        fail("%s must be a program and %s a table directory" % (args.sowdb, args.tables))
    given = re.search(r"--max-connections-per-client[= ](\d+)", " ".join(flags))
    cap = int(given.group(1)) if given else 64
    args.per_address = args.per_address or max(1, cap * 3 // 4)
    # This process, the attacker it spawns and the server inherit the raised limit.
    want = args.idle + 1024
    soft, hard = resource.getrlimit(resource.RLIMIT_NOFILE)
    if soft < want:
        if hard != resource.RLIM_INFINITY and hard < want:
            fail("the open-file limit is %d (hard); %d idle connections need %d: raise it "
                 "(ulimit -Hn, limits.conf) or ask for fewer (--idle)" % (hard, args.idle, want))
        resource.setrlimit(resource.RLIMIT_NOFILE, (want, hard))
    print("sowdb fairness benchmark: %s serve --tables %s %s; %d cores; open files %d" % (
        args.sowdb, args.tables, " ".join(flags), os.cpu_count(), max(soft, want)))
    if args.part in ("1", "both"):
        part_idle(args, flags, cap)
    if args.part in ("2", "both"):
        part_batches(args, flags)


if __name__ == "__main__":
    main()
