#!/usr/bin/env python3
"""Writes docs/results/: the solved-games tables, per-layer statistics and plots (scripts/report.sh
builds sowdb and runs this). Every figure comes from a run of `sowdb` on this machine; every table
names the exact rule set and the sowdb version.

Usage: report.py SOWDB OUT_DIR WORK_DIR [--solve-timeout SECONDS] [--layers N]
                 [--search-tables N] [--search-time-limit SECONDS] [--oware-boards PxS,...]
                 [--oware-tables DIR] [--coop-layers N]
"""
import argparse
import datetime
import hashlib
import json
import os
import platform
import shutil
import subprocess
import sys
import time


# Where the answers of `sowdb solve` are kept (main sets it; None: not kept), so that a report
# that stopped part of the way (a failed plot, a signal) reruns without searching again. The key
# holds the binary's size and modification time: a rebuilt sowdb searches afresh.
RESULTS = None


def cached(cmd, timeout, run):
    """run() for a `sowdb solve` cmd, kept in RESULTS by cmd, binary and timeout."""
    if RESULTS is None or cmd[1] != "solve":
        return run()
    st = os.stat(cmd[0])
    key = hashlib.sha256(json.dumps([st.st_size, st.st_mtime_ns, timeout, cmd[1:]])
                         .encode()).hexdigest()
    path = os.path.join(RESULTS, key + ".json")
    if os.path.exists(path):
        with open(path) as f:
            return json.load(f)
    result = run()
    os.makedirs(RESULTS, exist_ok=True)
    with open(path + ".tmp", "w") as f:
        json.dump(result, f)
    os.replace(path + ".tmp", path)
    return result


def run_json(cmd, timeout=None, env=None):
    """Runs cmd, returns the JSON objects of its stdout lines; None on a timeout."""
    def run():
        try:
            out = subprocess.run(cmd, check=True, capture_output=True, text=True,
                                 timeout=timeout, env=env).stdout
        except subprocess.TimeoutExpired:
            return None
        return [json.loads(line) for line in out.splitlines() if line.strip()]
    return cached(cmd, timeout, run)


def solve(sowdb, variant, timeout, env):
    """`sowdb solve --json` of variant: its object, 'timeout', or the error line."""
    cmd = [sowdb, "solve", "--variant", variant, "--json"]

    def run():
        try:
            p = subprocess.run(cmd, capture_output=True, text=True, timeout=timeout, env=env)
        except subprocess.TimeoutExpired:
            return "timeout"
        if p.returncode != 0:
            return (p.stderr.strip().splitlines()[-1] if p.stderr.strip()
                    else f"exit {p.returncode}")
        return json.loads(p.stdout)
    return cached(cmd, timeout, run)


def fmt_value(v):
    return f"{v:+d}"


def rules_text(rules):
    return ", ".join(
        f"{k}={('on' if v else 'off') if isinstance(v, bool) else v}"
        for k, v in sorted(rules.items()) if k != "pits_per_side")


# Published values (Irving, Donkers & Uiterwijk 2000), by preset and board.
PUBLISHED = {
    ("kalah-irving", "6x4"): 10, ("kalah-irving", "6x5"): 12, ("kalah-irving", "4x3"): 8,
    ("kalah-tournament", "6x4"): 8, ("kalah-tournament", "6x5"): 10,
    ("kalah-tournament", "4x3"): 6,
}


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("sowdb")
    ap.add_argument("out")
    ap.add_argument("work")
    ap.add_argument("--solve-timeout", type=float, default=120)
    ap.add_argument("--layers", type=int, default=20)
    ap.add_argument("--search-tables", type=int, default=28,
                    help="largest layer of the tables the Kalah(6,4)/(6,5) searches probe")
    ap.add_argument("--search-time-limit", type=float, default=600,
                    help="solve --time-limit of each Kalah(6,4)/(6,5) search")
    ap.add_argument("--coop-layers", type=int, default=16,
                    help="layers of the co-operative tables built per rule set (6 pits a side)")
    ap.add_argument("--oware-boards", default="5x2,5x3,6x2",
                    help="Oware-family boards PxS solved by complete tables built first, for "
                         "every Oware-family rule set; PRESET:PxS for that preset's rule set "
                         "only (oware:5x4, the 40-seed goal, takes about an hour)")
    ap.add_argument("--oware-tables", default=None,
                    help="directory holding (or to hold) those tables as RULES-PxS, e.g. "
                         "oware-5x4, so that a later run reuses them (default: WORK)")
    ap.add_argument("--fresh", action="store_true",
                    help="search again rather than reuse the answers of an earlier run of this "
                         "sowdb binary (kept in WORK/results)")
    args = ap.parse_args()
    global RESULTS
    RESULTS = None if args.fresh else os.path.join(args.work, "results")
    os.makedirs(args.out, exist_ok=True)
    os.makedirs(args.work, exist_ok=True)
    env = dict(os.environ, SOWDB_CACHE_DIR=os.path.join(args.work, "cache"))
    version = subprocess.run([args.sowdb, "--version"], capture_output=True,
                             text=True).stdout.strip()
    presets = run_json([args.sowdb, "variants", "--json"])
    lines = []
    started = time.time()
    today = datetime.date.today().isoformat()
    lines += [
        "# Solved games",
        "",
        f"Generated by `scripts/report.sh` on {today} with {version} (Release build) on "
        f"{platform.machine()} Linux, {os.cpu_count()} cores. Do not edit: run the script "
        "again.",
        "",
        "Values are the first player's net seeds (stores count from 0) under perfect play, from "
        "the start position: S seeds in each of the 2P pits. `tables` means complete tables "
        "(every layer up to 2PS) gave the answer; `search` means an exact alpha-beta search "
        "from the start that probed tables of the smaller layers "
        "(`sowdb solve`, README). The rule set of each preset is in its section. Seconds "
        "include building the tables `sowdb solve` keeps in its cache only where this run "
        "built them; tables an earlier run left in the cache are read.",
        "",
    ]

    # 1. Every preset on P = 1..4, S growing until solve refuses (Oware family: complete tables
    # not cheap) or runs past the time limit.
    lines += ["## Every preset on small boards", ""]
    csv_rows = ["preset,pits,seeds,stones,value,best,method,nodes,seconds"]
    for p in presets:
        name = p["name"]
        rules = rules_text(p["rules"])
        lines += [f"### `{name}`", "", f"Rules: {rules}. Source: {p['source']}.", "",
                  "| P \\ S | " + " | ".join(str(s) for s in range(1, 7)) + " |",
                  "|---|" + "---|" * 6]
        for pits in range(1, 5):
            cells = []
            stop = False
            for seeds in range(1, 7):
                if stop:
                    cells.append("")
                    continue
                variant = f"{name}/{pits}x{seeds}"
                r = solve(args.sowdb, variant, args.solve_timeout, env)
                if isinstance(r, str):
                    cells.append("t/o" if r == "timeout" else "—")
                    stop = True
                    continue
                mark = "" if r["method"] == "tables" else "*"
                cells.append(fmt_value(r["value"]) + mark)
                csv_rows.append(",".join(str(x) for x in (
                    name, pits, seeds, r["stones"], r["value"],
                    "" if r["best"] is None else r["best"], r["method"], r["nodes"],
                    f"{r['seconds']:.3f}")))
            lines.append(f"| {pits} | " + " | ".join(cells) + " |")
        lines.append("")
    lines += [
        "`*`: by search. `t/o`: not solved within the time limit of "
        f"{args.solve_timeout:.0f} s. `—`: not solved here: an Oware-family board whose complete "
        "tables are more than `sowdb solve` builds by itself (300 million positions).",
        "",
    ]
    with open(os.path.join(args.out, "solved_games.csv"), "w") as f:
        f.write("\n".join(csv_rows) + "\n")

    # 2. Irving, Donkers & Uiterwijk's table: Kalah(m, n) under their rules, m pits, n seeds.
    irving = next(p for p in presets if p["name"] == "kalah-irving")
    lines += ["## Kalah(m, n), `kalah-irving` rules (Irving, Donkers & Uiterwijk's table)", "",
              f"Rules: {rules_text(irving['rules'])}.", "",
              "| m \\ n | " + " | ".join(str(n) for n in range(1, 7)) + " |",
              "|---|" + "---|" * 6]
    details = []
    for m in range(1, 7):
        cells = []
        stop = False
        for n in range(1, 7):
            if stop:
                cells.append("")
                continue
            r = solve(args.sowdb, f"kalah-irving/{m}x{n}", args.solve_timeout, env)
            if isinstance(r, str):
                cells.append("t/o" if r == "timeout" else "—")
                stop = True
                continue
            cells.append(fmt_value(r["value"]) + ("" if r["method"] == "tables" else "*"))
            details.append(f"| Kalah({m},{n}) | {fmt_value(r['value'])} | pit {r['best']} | "
                           f"{r['method']} | {r['nodes']:,} | {r['seconds']:.2f} |")
        lines.append(f"| {m} | " + " | ".join(cells) + " |")
    lines += ["", "| board | value | best first move | method | positions searched | seconds |",
              "|---|---|---|---|---:|---:|"] + details + [""]

    # 2b. The six-pit boards out of reach of the cache: tables 0..N built first (timed), then
    # Kalah(6,4) with every worth and Kalah(6,5) value only, each with a time limit.
    t = args.search_tables
    lines += [f"## Kalah(6,4) and Kalah(6,5) by search over tables 0..{t}", "",
              f"For each Kalah preset, `sowdb gen --max-stones {t} --block-entries 1024` builds "
              "the tables first (its time is the first column of seconds; blocks of 1024 "
              "entries make the search's first probe of a block a quarter of the default's "
              "decoding); then `sowdb solve --tables` searches "
              "Kalah(6,4) for the value and every first move's worth, and Kalah(6,5) with "
              "`--value-only` (the value and a best move), each stopped after "
              f"{args.search_time_limit:.0f} s if not done (`between L and U`: the bounds "
              "proved by then). Published: Irving, Donkers & Uiterwijk (2000).", "",
              "| preset | board | value | best first move | published | positions searched "
              "| tables (s) | search (s) |", "|---|---|---|---|---|---:|---:|---:|"]
    big_rows = []
    worths = []  # Kalah(6,4): every first move's worth
    for name in ("kalah-irving", "kalah-tournament", "kalah"):
        d = os.path.join(args.work, f"search-{name}-{t}")
        g0 = time.time()
        gen = run_json([args.sowdb, "gen", "--variant", f"{name}/6x4", "--max-stones", str(t),
                        "--out", d, "--json", "--quiet", "--block-entries", "1024"])
        gen_seconds = time.time() - g0
        built = sum(1 for g in gen if not g.get("summary") and not g.get("reused"))
        for board, extra in (("6x4", []), ("6x5", ["--value-only"])):
            cmd = [args.sowdb, "solve", "--variant", f"{name}/{board}", "--tables", d, "--json",
                   "--time-limit", str(args.search_time_limit)] + extra
            r = run_json(cmd)[0]
            value = (fmt_value(r["value"]) if r["value"] is not None else
                     f"between {fmt_value(r['lower'])} and {fmt_value(r['upper'])}")
            pub = PUBLISHED.get((name, board))
            lines.append(
                f"| `{name}` | Kalah({board.replace('x', ',')}) | {value} | "
                f"{'pit ' + str(r['best']) if r['best'] is not None else '—'} | "
                f"{fmt_value(pub) if pub is not None else '—'} | {r['nodes']:,} | "
                f"{gen_seconds:.0f}{'' if built else ' (reused)'} | {r['seconds']:.1f} |")
            big_rows.append(",".join(str(x) for x in (
                name, 6, board[-1], r["stones"], "" if r["value"] is None else r["value"],
                r["lower"], r["upper"], "" if r["best"] is None else r["best"], r["method"],
                r["nodes"], f"{r['seconds']:.3f}", f"{gen_seconds:.1f}",
                "every" if board == "6x4" else "value-only")))
            if board == "6x4" and r["value"] is not None:
                worths.append(f"- `{name}` Kalah(6,4): " + ", ".join(
                    f"pit {m['pit']} {fmt_value(m['worth'])}" for m in r["moves"]) + ".")
    lines += ["", "`tables (s)`: building the tables 0.." + str(t) + " with `sowdb gen` on 2 "
              "threads; `(reused)`: they were there from an earlier run.", "",
              "The worth of every first move of Kalah(6,4) (a move with an extra turn is worth "
              "its best continuation):", ""] + worths + [""]
    with open(os.path.join(args.out, "kalah_six_pits.csv"), "w") as f:
        f.write("preset,pits,seeds,stones,value,lower,upper,best,method,nodes,seconds,"
                "tables_seconds,worths\n" + "\n".join(big_rows) + "\n")

    # 2c. The Oware family on boards whose complete tables are more than `sowdb solve` builds in
    # its cache: `sowdb gen` first (timed), then `sowdb solve --tables`. One row per distinct
    # rule set (the presets that share it named).
    boards = [b for b in args.oware_boards.split(",") if b]
    if boards:
        owares = [p for p in presets if p["rules"]["family"] == "oware"]
        distinct = []
        for p in owares:
            same = next((d for d in distinct if d[0]["rules"] == p["rules"]), None)
            if same:
                same.append(p)
            else:
                distinct.append([p])
        base = args.oware_tables or args.work
        lines += ["## The Oware family by complete tables", "",
                  "For each Oware-family rule set and board, `sowdb gen --max-stones 2PS` builds "
                  "every layer (its time is `tables (s)`), then `sowdb solve --tables` reads the "
                  "value and every first move's worth from them. Endless play counts 0 "
                  "(docs/RULES.md).", "",
                  "| rule set (presets) | board | seeds | positions | value | best first move "
                  "| worths | tables (s) | on disk |",
                  "|---|---|---:|---:|---|---|---|---:|---:|"]
        oware_rows = []
        for group in distinct:
            name = group[0]["name"]
            for spec in boards:
                # "PRESET:PxS" builds that board for the rule set of PRESET only.
                only, _, board = spec.rpartition(":")
                if only and only not in (p["name"] for p in group):
                    continue
                pits, seeds = (int(x) for x in board.split("x"))
                d = os.path.join(base, f"{name}-{board}")
                g0 = time.time()
                gen = run_json([args.sowdb, "gen", "--variant", f"{name}/{board}",
                                "--max-stones", str(2 * pits * seeds), "--out", d, "--json",
                                "--quiet"])
                gen_seconds = time.time() - g0
                summary = gen[-1]
                built = summary["layers_reused"] < summary["layers"]
                r = run_json([args.sowdb, "solve", "--variant", f"{name}/{board}", "--tables", d,
                              "--json"])[0]
                names = ", ".join(f"`{p['name']}`" for p in group)
                worths = " ".join(f"{m['pit']}:{fmt_value(m['worth'])}" for m in r["moves"])
                lines.append(
                    f"| {rules_text(group[0]['rules'])} ({names}) | {board} | "
                    f"{2 * pits * seeds} | {summary['positions']:,} | {fmt_value(r['value'])} | "
                    f"pit {r['best']} | {worths} | "
                    f"{gen_seconds:.0f}{'' if built else ' (reused)'} | "
                    f"{summary['bytes_on_disk'] / 1e9:.2f} GB |")
                oware_rows.append(",".join(str(x) for x in (
                    name, pits, seeds, r["stones"], r["value"], r["best"],
                    " ".join(str(m["worth"]) for m in r["moves"]), summary["positions"],
                    f"{gen_seconds:.1f}", summary["bytes_on_disk"])))
        lines += ["", "`worths`: pit:worth for every first move. `tables (s)`: `sowdb gen` on 2 "
                  "threads; `(reused)`: the tables were there from an earlier run.", ""]
        with open(os.path.join(args.out, "oware_complete.csv"), "w") as f:
            f.write("preset,pits,seeds,stones,value,best,worths,positions,tables_seconds,"
                    "bytes_on_disk\n" + "\n".join(oware_rows) + "\n")

    # 2d. The co-operative objective (seed 002's Win-Win) at the start of small boards: whether a
    # balanced game exists and every difference a joint line of play reaches.
    lines += ["## The co-operative objective at the start (seed 002's Win-Win)", "",
              "`sowdb solve --objective cooperative` for every preset with distinct rules on "
              "P = 1..4 pits a side and S = 1..4 seeds a pit (boards whose layers hold at most "
              "200 million positions): `balanced` says whether some joint line of play ends with "
              "equal takes (possibly by endless play, which splits the seeds left evenly), "
              "`reachable` lists every final difference (first player minus second) that a joint "
              "line reaches (docs/RULES.md, \"The co-operative objective\").", "",
              "| rule set (presets) | board | balanced | reachable | balancing first moves "
              "| seconds |", "|---|---|---|---|---|---:|"]
    coop_rows = []
    groups = []
    for p in presets:
        same = next((g for g in groups if g[0]["rules"] == p["rules"]), None)
        if same:
            same.append(p)
        else:
            groups.append([p])
    for group in groups:
        name = group[0]["name"]
        names = ", ".join(f"`{p['name']}`" for p in group)
        for pits in range(1, 5):
            for seeds in range(1, 5):
                try:
                    r = run_json([args.sowdb, "solve", "--variant", f"{name}/{pits}x{seeds}",
                                  "--objective", "cooperative", "--json"],
                                 timeout=args.solve_timeout)
                except subprocess.CalledProcessError as e:
                    if e.returncode == 2:
                        continue  # more positions than solve keeps in memory
                    raise
                if r is None:
                    continue
                r = r[0]
                reach = r["reachable"]
                text = " ".join(str(d) for d in reach)
                lines.append(f"| {rules_text(group[0]['rules'])} ({names}) | {pits}x{seeds} | "
                             f"{'yes' if r['balanced'] else 'no'} | {text} | "
                             f"{' '.join(str(x) for x in r['balancing_moves']) or '—'} | "
                             f"{r['seconds']:.2f} |")
                coop_rows.append(",".join(str(x) for x in (
                    name, pits, seeds, r["stones"], int(r["balanced"]), text,
                    " ".join(str(x) for x in r["balancing_moves"]), r["positions"],
                    f"{r['seconds']:.3f}")))
    lines.append("")
    with open(os.path.join(args.out, "cooperative_start.csv"), "w") as f:
        f.write("preset,pits,seeds,stones,balanced,reachable,balancing_moves,positions,seconds\n" +
                "\n".join(coop_rows) + "\n")

    # 2e. Co-operative tables layer by layer: how often a balanced end is still reachable.
    lines += [f"## The co-operative objective layer by layer, 6 pits a side", "",
              "`sowdb gen --objective cooperative` for each rule set with distinct rules on 6 "
              f"pits a side, layers 0..{args.coop_layers}, then `sowdb stats --json`: the share "
              "of each layer's positions from which a balanced end (equal takes from here on, "
              "the stores empty) is reachable by joint play. In the Kalah family and wari-us, "
              "which cannot play forever, the seeds of an odd layer cannot split evenly.", ""]
    coop_stats = []
    for group in groups:
        name = group[0]["name"]
        d = os.path.join(args.work, f"coop-{name}")
        shutil.rmtree(d, ignore_errors=True)  # built afresh: the report quotes the build time
        gen = run_json([args.sowdb, "gen", "--variant", f"{name}/6x4", "--max-stones",
                        str(args.coop_layers), "--out", d, "--objective", "cooperative",
                        "--json"])
        st = run_json([args.sowdb, "stats", "--tables", d, "--json"])
        summary = gen[-1]
        coop_stats.append((group, st, summary))
    head = "| n | " + " | ".join(f"`{g[0]['name']}`" for g, _, _ in coop_stats) + " |"
    lines += [head, "|---:|" + "---:|" * len(coop_stats)]
    for n in range(args.coop_layers + 1):
        lines.append(f"| {n} | " + " | ".join(
            f"{100 * st[n]['balanced_share']:.2f} %" for _, st, _ in coop_stats) + " |")
    lines += ["", "Presets with the same rules share a column: " + "; ".join(
        ", ".join(f"`{p['name']}`" for p in g) for g, _, _ in coop_stats if len(g) > 1) + ". "
        "Build time (2 threads) and size of the tables: " + "; ".join(
        f"`{g[0]['name']}` {sm['seconds']:.1f} s, {sm['bytes_on_disk'] / 1024:.0f} KiB "
        f"({sm['bytes_per_position']:.3f} bytes/position)" for g, _, sm in coop_stats) + ".", ""]
    with open(os.path.join(args.out, "cooperative_layers.csv"), "w") as f:
        f.write("preset,n,positions,balanced,balanced_share,mean_reachable,distinct_sets\n")
        for g, st, _ in coop_stats:
            for r in st:
                f.write(f"{g[0]['name']},{r['n']},{r['positions']},{r['balanced']},"
                        f"{r['balanced_share']:.6f},{r['mean_reachable']:.4f},"
                        f"{r['distinct_sets']}\n")
    with open(os.path.join(args.work, "coop.dat"), "w") as f:
        for n in range(args.coop_layers + 1):
            f.write(f"{n} " + " ".join(f"{st[n]['balanced_share']:.6f}"
                                       for _, st, _ in coop_stats) + "\n")

    # 3. Per-layer statistics and the cost of building the tables, standard boards.
    lines += ["## Per-layer statistics, standard boards", ""]
    plots = {}
    for variant in ("oware/6x4", "kalah/6x4"):
        tag = variant.split("/")[0]
        d = os.path.join(args.work, f"tables-{tag}")
        # Built afresh: the cost plot needs every layer's build time (a reused layer has none).
        shutil.rmtree(d, ignore_errors=True)
        gen = run_json([args.sowdb, "gen", "--variant", variant, "--max-stones",
                        str(args.layers), "--out", d, "--json"])
        stats = run_json([args.sowdb, "stats", "--tables", d, "--json"])
        md = subprocess.run([args.sowdb, "stats", "--tables", d, "--markdown"], check=True,
                            capture_output=True, text=True).stdout
        lines += [f"### `{variant}`, layers 0..{args.layers}", "", md.replace(d, f"tables-{tag}"),
                  ""]
        plots[tag] = (gen, stats)
        with open(os.path.join(args.work, f"{tag}.dat"), "w") as f:
            f.write("# n positions win draw loss mean_value seconds bytes\n")
            rows = {g["n"]: g for g in gen if not g.get("summary")}
            for s in stats:
                g = rows[s["n"]]
                f.write(f"{s['n']} {s['positions']} {s['wins'] / s['positions']:.6f} "
                        f"{s['draws'] / s['positions']:.6f} {s['losses'] / s['positions']:.6f} "
                        f"{s['mean_value']:.6f} {g['seconds']:.6f} {g['bytes_on_disk']}\n")
        top = stats[-1]
        with open(os.path.join(args.work, f"{tag}-values.dat"), "w") as f:
            for v in range(-top["n"], top["n"] + 1):
                f.write(f"{v} {top['values'].get(str(v), 0) / top['positions']:.8f}\n")
        decided = sum(top["depths"].values())
        with open(os.path.join(args.work, f"{tag}-depths.dat"), "w") as f:
            for dep in sorted(int(k) for k in top["depths"]):
                f.write(f"{dep} {top['depths'][str(dep)] / decided:.10f}\n")

    # 4. Plots (gnuplot, PNG).
    w = args.work
    o = args.out
    script = f"""
set terminal pngcairo size 900,560 font ',11' noenhanced
set grid
set key outside right
set output '{o}/wdl_shares.png'
set title 'Share of positions the mover wins, draws and loses, by seeds on the board'
set xlabel 'seeds on the board (n)'
set ylabel 'share of the layer'
set yrange [0:1]
plot '{w}/oware.dat' u 1:3 w lp t 'oware win', '' u 1:4 w lp t 'oware draw', \\
     '' u 1:5 w lp t 'oware loss', '{w}/kalah.dat' u 1:3 w lp dt 2 t 'kalah win', \\
     '' u 1:4 w lp dt 2 t 'kalah draw', '' u 1:5 w lp dt 2 t 'kalah loss'
set output '{o}/value_distribution.png'
set title 'Values of layer {args.layers} (the mover net seeds), share of positions'
set xlabel 'value'
set ylabel 'share of the layer'
set autoscale y
set style fill solid 0.5
set boxwidth 0.4
plot '{w}/oware-values.dat' u ($1-0.2):2 w boxes t 'oware/6x4', \\
     '{w}/kalah-values.dat' u ($1+0.2):2 w boxes t 'kalah/6x4'
set output '{o}/cost.png'
set title 'Cost of a layer: sowdb gen time (left) and file size (right) against positions'
set logscale x
set logscale y
set logscale y2
set xlabel 'positions in the layer'
set ylabel 'seconds to solve and write (2 threads)'
set y2label 'bytes on disk'
set ytics nomirror
set y2tics
set style fill empty
set autoscale y
set autoscale y2
plot '{w}/oware.dat' u 2:7 w lp t 'oware seconds', '{w}/kalah.dat' u 2:7 w lp t 'kalah seconds', \\
     '{w}/oware.dat' u 2:8 axes x1y2 w lp dt 2 t 'oware bytes', \\
     '{w}/kalah.dat' u 2:8 axes x1y2 w lp dt 2 t 'kalah bytes'
"""
    script += f"""
set output '{o}/depth_distribution.png'
set title 'Depth to conversion of the decided positions of layer {args.layers}'
unset logscale x
unset y2tics
unset y2label
set logscale y
set xlabel 'depth to conversion (plies)'
set ylabel 'share of the decided positions'
plot '{w}/oware-depths.dat' u 1:2 w lp pt 7 ps 0.5 t 'oware/6x4', \\
     '{w}/kalah-depths.dat' u 1:2 w lp pt 7 ps 0.5 t 'kalah/6x4'
"""
    # Families that cannot play forever never end an odd layer balanced: their even layers only.
    coop_plot = ", ".join(
        f"'{w}/coop.dat' "
        f"{'' if g[0]['rules'].get('family') == 'oware' else 'every 2 '}"
        f"u 1:{i + 2} w lp t '{g[0]['name']}"
        f"{'' if g[0]['rules'].get('family') == 'oware' else ' (even n)'}'"
        for i, (g, _, _) in enumerate(coop_stats))
    script += f"""
set output '{o}/cooperative_balanced.png'
set title 'Co-operative objective: share of positions that can still end balanced (6 pits)'
unset logscale y
set yrange [0:1.05]
set xlabel 'seeds on the board (n)'
set ylabel 'share of the layer'
plot {coop_plot}
"""
    subprocess.run(["gnuplot"], input=script, text=True, check=True)
    lines += ["## Plots", "",
              "![win, draw and loss shares](wdl_shares.png)", "",
              "![value distribution](value_distribution.png)", "",
              "![cost of a layer](cost.png)", "",
              "![depth to conversion](depth_distribution.png)", "",
              "![co-operative: balanced end reachable](cooperative_balanced.png)", "",
              f"The report took {time.time() - started:.0f} s.", ""]
    with open(os.path.join(args.out, "README.md"), "w") as f:
        f.write("\n".join(lines))


if __name__ == "__main__":
    sys.exit(main())
