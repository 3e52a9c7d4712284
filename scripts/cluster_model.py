#!/usr/bin/env python3
"""The cluster model of docs/CLUSTER.md: sowdb-mpi gen on Oware 0..48 and Kalah(6,6) 0..34.

Layer sizes are binomials (positions of n seeds on 2P pits: C(n + 2P - 1, 2P - 1)); the
per-position figures are the ones measured on the project machine (docs/BENCHMARKS.md,
"Distributed generation", 2026-11-26), passed on the command line so that a new measurement
gives a new model:

    scripts/cluster_model.py [--sent-k4 B] [--solve-bytes B] [--disk-oware B] [--disk-kalah B]
                             [--rate R] [--node-cores C] [--node-gib G] ...

Prints, per table set, the memory the run needs at its peak, the nodes that memory takes, the
network volume, the time of computation and of communication on 10 and 100 Gbit/s, the disk,
and which of them binds. Assumptions are the options' defaults, stated in docs/CLUSTER.md.
"""
import argparse
from math import comb


def positions(n, pits=12):
    return comb(n + pits - 1, pits - 1)


def peak_memory(top, min_gain, solve_bytes):
    """(bytes, layer): the most memory all ranks together hold while one layer is solved."""
    sizes = [positions(n) for n in range(top + 1)]
    peak, peak_layer = 0, 0
    for n in range(top + 1):
        # Every smaller layer kept (1 byte per position); the run's last layer releases the
        # min_gain - 1 layers below it, which its moves cannot reach (gen's rule).
        kept = sum(sizes[:n]) - (sum(sizes[n - min_gain + 1:n]) if n == top else 0)
        need = kept + solve_bytes * sizes[n]
        if need > peak:
            peak, peak_layer = need, n
    return peak, peak_layer


def model(top, min_gain, disk_bpp, rate, k, a):
    """One row: the run on k nodes, one rank of node_cores threads each."""
    total = sum(positions(n) for n in range(top + 1))
    peak, _ = peak_memory(top, min_gain, a.solve_bytes)
    # Bytes sent per position grow as (K - 1) / K of the traffic crosses ranks: from K = 4's
    # figure to K's.
    sent = a.sent_k4 * 4 / 3 * (k - 1) / k
    volume = sent * total
    compute = total / (rate * a.node_cores * k)
    # Every node sends and receives its 1/K of the volume; links are full duplex.
    comm = {g: volume / k / (g / 8 * 1e9 * a.link_efficiency) for g in (10, 100)}
    # Rank 0 receives each compressed layer (gather) or reads it back (MPI-IO): one stream.
    stream = disk_bpp * total / (a.stream_gbs * 1e9)
    # Bulk-synchronous rounds: computation and communication do not overlap.
    total_h = {g: (compute + comm[g] + stream) / 3600 for g in comm}
    parts = {"computation": compute, "network": comm[10], "file stream": stream}
    binds = max(parts, key=parts.get)
    return (f"| {k} | {peak / k / 2**30:,.0f} GiB | {volume / 1e12:,.2f} TB ({sent:.1f} B/pos) "
            f"| {compute / 3600:.2f} h | {comm[10] / 3600:.2f} h | {comm[100] / 3600:.2f} h "
            f"| {stream / 3600:.2f} h | {total_h[10]:.2f} h | {total_h[100]:.2f} h | {binds} |")


def report(name, top, min_gain, disk_bpp, rate, ks, a):
    sizes = [positions(n) for n in range(top + 1)]
    peak, peak_layer = peak_memory(top, min_gain, a.solve_bytes)
    usable = a.node_gib * 2**30 * a.usable
    print(f"### {name}\n")
    print(f"- positions: {sum(sizes):,} (largest layer {top}: {sizes[top]:,})")
    print(f"- peak memory, all ranks: {peak / 1e12:.2f} TB at layer {peak_layer}; nodes of "
          f"{a.node_gib} GiB ({a.usable:.0%} for data) needed: {-(-int(peak) // int(usable))}")
    print(f"- disk: {disk_bpp * sum(sizes) / 1e9:,.0f} GB ({disk_bpp} B/position)")
    print(f"- solve rate assumed: {rate / 1e6:.2f} M positions/s per core, {a.node_cores} cores "
          "a node\n")
    print("| nodes | memory per node | network volume | computation | network 10 Gbit/s "
          "| network 100 Gbit/s | file stream | total, 10 Gbit/s | total, 100 Gbit/s "
          "| binds (10 Gbit/s) |")
    print("|---|---|---|---|---|---|---|---|---|---|")
    for k in ks:
        print(model(top, min_gain, disk_bpp, rate, k, a))
    print()


def main():
    p = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    p.add_argument("--sent-k4", type=float, default=22.0,
                   help="bytes sent per position at K = 4 (measured, large layers)")
    p.add_argument("--solve-bytes", type=float, default=4.0,
                   help="bytes per position of the layer being solved (3.125 + frontier)")
    p.add_argument("--disk-oware", type=float, default=0.65, help="bytes on disk per position")
    p.add_argument("--disk-kalah", type=float, default=0.47, help="bytes on disk per position")
    p.add_argument("--rate", type=float, default=1.8e6,
                   help="positions solved per second per core by sowdb-mpi")
    p.add_argument("--node-cores", type=int, default=32)
    p.add_argument("--node-gib", type=int, default=256)
    p.add_argument("--usable", type=float, default=0.8, help="share of a node's memory for data")
    p.add_argument("--link-efficiency", type=float, default=0.7,
                   help="share of the line rate an all-to-all gets")
    p.add_argument("--stream-gbs", type=float, default=1.0,
                   help="GB/s of one node's stream of a compressed layer (network or file system)")
    p.add_argument("--rate-kalah", type=float, default=1.8e6,
                   help="positions solved per second per core by sowdb-mpi on Kalah")
    a = p.parse_args()
    report("Oware 0..48", 48, 2, a.disk_oware, a.rate, (12, 16, 32, 64), a)
    report("Kalah(6,6) 0..34", 34, 1, a.disk_kalah, a.rate_kalah, (1, 2, 4, 8), a)


if __name__ == "__main__":
    main()
