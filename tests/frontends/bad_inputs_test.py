#!/usr/bin/env python3
"""One front end against the table of known bad inputs (bad_inputs.tsv): for each input, the
exit code of `sowdb probe`, the HTTP status of `sowdb serve`, the Python exception class or the C
status the table names, and a message that states the cause without the JSON library's, the C++
library's or pybind11's words and without a path the user did not give.

Usage: bad_inputs_test.py cli|http|python|c SOWDB WORKDIR [SOWDB_C_STATUS]
The python case imports sowdb (PYTHONPATH must name the module's directory). Tables are written
into WORKDIR/FRONT_END by `sowdb gen`, then damaged by this script.
"""
import json
import os
import pathlib
import re
import shutil
import subprocess
import sys
import urllib.error
import urllib.request

HERE = pathlib.Path(__file__).resolve().parent
FORBIDDEN = ("json.exception", "std::", "pybind11", "Traceback")

failures = []


def check(cond, what):
    if not cond:
        failures.append(what)
        print("FAIL:", what)


def read_table():
    rows = []
    header = None
    for line in (HERE / "bad_inputs.tsv").read_text().splitlines():
        if not line.strip() or line.startswith("#"):
            continue
        cells = line.split("\t")
        if header is None:
            header = cells
            continue
        if len(cells) != len(header):
            raise SystemExit("bad_inputs.tsv: %d cells, want %d: %r" % (len(cells), len(header), line))
        rows.append(dict(zip(header, cells)))
    if not rows:
        raise SystemExit("bad_inputs.tsv: no rows")
    return rows


def make_tables(sowdb, work):
    """ok: oware/4x3 layers 0..8; missing: without layer 5; corrupt: a byte of layer 6 flipped;
    coop: co-operative layers 0..6; nodir: no directory at all."""
    if work.exists():
        shutil.rmtree(work)
    work.mkdir(parents=True)
    ok = work / "ok"
    subprocess.run([sowdb, "gen", "--variant", "oware/4x3", "--max-stones", "8", "--out", str(ok),
                    "--threads", "1", "--quiet"], check=True)
    missing = work / "missing"
    shutil.copytree(ok, missing)
    (missing / "layer-005.sdb").unlink()
    corrupt = work / "corrupt"
    shutil.copytree(ok, corrupt)
    layer = corrupt / "layer-006.sdb"
    data = bytearray(layer.read_bytes())
    data[len(data) // 2] ^= 0xFF
    layer.write_bytes(bytes(data))
    coop = work / "coop"
    subprocess.run([sowdb, "gen", "--variant", "oware/4x3", "--max-stones", "6", "--objective",
                    "cooperative", "--out", str(coop), "--threads", "1", "--quiet"], check=True)
    return {"ok": ok, "missing": missing, "corrupt": corrupt, "coop": coop,
            "nodir": work / "no-such-directory"}


def clean_message(name, message, given, work):
    """The message names no library internals and no path but `given` (a directory the user
    named; None for a client that named none)."""
    for word in FORBIDDEN:
        check(word not in message, "%s: the message shows %r: %s" % (name, word, message))
    rest = message.replace(str(given), "") if given else message
    check(str(work) not in rest, "%s: the message names a path not given: %s" % (name, message))
    check(message.strip() != "", "%s: an empty message" % name)


def run_cli(sowdb, rows, tables, work):
    for row in rows:
        if row["exit"] == "-":
            continue
        board = row["board"].split(",")
        directory = tables[row["tables"]]
        if row["variant"] != "oware/4x3":
            cmd = [sowdb, "show", "--variant", row["variant"], "--", *board]
            given = None
        else:
            objective = [] if row["objective"] == "-" else ["--objective", row["objective"]]
            # --search-time 0: the rows are the refusals of a lookup in the tables, as the
            # server (without search_ms) and Python (without search=) make it; a position above
            # the tables is otherwise searched (tests/analysis/position_search_test.cpp).
            cmd = [sowdb, "probe", "--tables", str(directory), "--stores", row["stores"],
                   "--search-time", "0", *objective, "--", *board]
            given = directory
        p = subprocess.run(cmd, capture_output=True, text=True)
        check(p.returncode == int(row["exit"]),
              "%s: exit code %d, want %s (%s)" % (row["name"], p.returncode, row["exit"],
                                                  p.stderr.strip()))
        lines = p.stderr.strip().splitlines()
        check(len(lines) == 1 and lines[0].startswith("sowdb: error: "),
              "%s: not one error line: %r" % (row["name"], p.stderr))
        clean_message(row["name"], p.stderr, given, work)


class Server:
    def __init__(self, sowdb, directory):
        self.proc = subprocess.Popen([sowdb, "serve", "--port", "0", "--tables", str(directory)],
                                     stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
        self.url = None
        for line in self.proc.stdout:
            found = re.search(r"http://[0-9.]+:[0-9]+", line)
            if found:
                self.url = found.group(0)
                break
        if self.url is None:
            raise SystemExit("sowdb serve printed no URL: " + self.proc.stderr.read())

    def get(self, path):
        try:
            with urllib.request.urlopen(self.url + path, timeout=30) as r:
                return r.status, r.read().decode()
        except urllib.error.HTTPError as e:
            return e.code, e.read().decode()

    def stop(self):
        self.proc.terminate()
        self.proc.wait(timeout=30)


def run_http(sowdb, rows, tables, work):
    for kind in ("ok", "missing", "corrupt", "coop"):
        chosen = [r for r in rows if r["tables"] == kind and r["http"] != "-"]
        if not chosen:
            continue
        srv = Server(sowdb, tables[kind])
        try:
            for row in chosen:
                objective = "" if row["objective"] == "-" else "&objective=" + row["objective"]
                status, body = srv.get("/api/v1/position?variant=%s&board=%s&stores=%s%s" %
                                       (row["variant"], row["board"], row["stores"], objective))
                check(status == int(row["http"]),
                      "%s: HTTP %d, want %s (%s)" % (row["name"], status, row["http"], body))
                try:
                    error = json.loads(body)["error"]
                except (ValueError, KeyError):
                    check(False, "%s: the body is not an error object: %s" % (row["name"], body))
                    continue
                clean_message(row["name"], error, None, work)
        finally:
            srv.stop()


def run_python(rows, tables, work):
    import sowdb  # noqa: E402 (PYTHONPATH is set by the test)

    for row in rows:
        if row["python"] == "-":
            continue
        want = getattr(sowdb, row["python"])
        board = [int(x) for x in row["board"].split(",")]
        stores = tuple(int(x) for x in row["stores"].split(","))
        try:
            if row["variant"] != "oware/4x3":
                sowdb.Variant(row["variant"])
                given = None
            else:
                given = tables[row["tables"]]
                with sowdb.open(given) as t:
                    t.probe(board, stores=stores)
            check(False, "%s: no exception, want %s" % (row["name"], row["python"]))
        except sowdb.Error as e:
            check(type(e) is want,
                  "%s: %s, want %s: %s" % (row["name"], type(e).__name__, row["python"], e))
            clean_message(row["name"], str(e), given, work)
        except Exception as e:  # noqa: BLE001 (an escape from sowdb.Error is the failure)
            check(False, "%s: %s escaped sowdb.Error: %s" % (row["name"], type(e).__name__, e))


def run_c(tool, rows, tables, work):
    for row in rows:
        if row["c"] == "-":
            continue
        directory = tables[row["tables"]]
        stores = row["stores"].split(",")
        p = subprocess.run([tool, str(directory), *stores, *row["board"].split(",")],
                           capture_output=True, text=True, check=True)
        lines = p.stdout.split("\n")
        check(lines[0] == row["c"], "%s: %s, want %s (%s)" % (row["name"], lines[0], row["c"],
                                                              lines[1] if len(lines) > 1 else ""))
        clean_message(row["name"], lines[1] if len(lines) > 1 else "", directory, work)


def main():
    if len(sys.argv) < 4 or sys.argv[1] not in ("cli", "http", "python", "c"):
        raise SystemExit(__doc__)
    front_end, sowdb, work = sys.argv[1], sys.argv[2], pathlib.Path(sys.argv[3]) / sys.argv[1]
    rows = read_table()
    tables = make_tables(sowdb, work)
    if front_end == "cli":
        run_cli(sowdb, rows, tables, work)
    elif front_end == "http":
        run_http(sowdb, rows, tables, work)
    elif front_end == "python":
        run_python(rows, tables, work)
    else:
        run_c(sys.argv[4], rows, tables, work)
    asked = sum(1 for r in rows if r[{"cli": "exit", "http": "http", "python": "python",
                                      "c": "c"}[front_end]] != "-")
    if failures:
        raise SystemExit("%d checks failed over %d bad inputs" % (len(failures), asked))
    print("%s: %d bad inputs answered as the table says" % (front_end, asked))


if __name__ == "__main__":
    main()
