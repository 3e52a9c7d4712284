"""sowdb.generate and sowdb.solve from Python: the same tables as `sowdb gen`, progress, and
interruption (a real SIGINT, and an exception from the progress callback) that leaves only
complete layers."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import threading
from pathlib import Path

import pytest

import sowdb


def layer_files(d: Path):
    return sorted(p.name for p in d.iterdir() if p.name.startswith("layer-"))


def temporaries(d: Path):
    return [p.name for p in d.iterdir() if ".tmp." in p.name]


def test_generate_writes_the_tables_of_the_cli(tmp_path, sowdb_bin):
    seen = []
    summary = sowdb.generate(sowdb.Variant("kalah/4x3"), 9, str(tmp_path / "py"), threads=2,
                             progress=seen.append)
    subprocess.run([sowdb_bin, "gen", "--variant", "kalah/4x3", "--max-stones", "9", "--out",
                    str(tmp_path / "cli")], check=True, capture_output=True)
    assert layer_files(tmp_path / "py") == [f"layer-{n:03d}.sdb" for n in range(10)]
    for name in layer_files(tmp_path / "cli"):
        assert (tmp_path / "py" / name).read_bytes() == (tmp_path / "cli" / name).read_bytes()
    assert summary["summary"] is True and summary["variant"] == "kalah/4x3"
    assert summary["max_stones"] == 9 and summary["layers_reused"] == 0
    v = sowdb.Variant("kalah/4x3")
    assert summary["positions"] == sum(v.layer_size(n) for n in range(10))
    # Progress: every layer's phases, `done` rising to `total`.
    assert {p.kind for p in seen} == {"generate"}
    assert [p.stones for p in seen if p.phase == "done"] == list(range(10))
    dones = [p.done for p in seen]
    assert dones == sorted(dones) and dones[-1] == seen[-1].total == summary["positions"]
    assert {"solve", "write", "done"} <= {p.phase for p in seen}
    again = sowdb.generate("kalah/4x3", 9, str(tmp_path / "py"))
    assert again["layers_reused"] == 10


def test_ctrl_c_stops_generate_cleanly(tmp_path):
    """SIGINT, delivered while layer 9 is solved, raises KeyboardInterrupt; layers 0..8 stay
    valid, layer 9 leaves nothing; a second run completes the directory."""
    out = tmp_path / "t"
    handled = threading.Event()

    def on_sigint(signum, frame):  # Python's own handler, plus a note that it ran
        handled.set()
        raise KeyboardInterrupt

    def interrupt_at_layer_9(p: sowdb.Progress) -> None:
        if p.stones == 9 and p.phase == "solve" and not handled.is_set():
            os.kill(os.getpid(), signal.SIGINT)
            # Without the GIL until the main thread has run the handler: the stop reaches the
            # library before layer 9 can end, whatever the machine's load.
            assert handled.wait(60)

    previous = signal.signal(signal.SIGINT, on_sigint)
    try:
        with pytest.raises(KeyboardInterrupt):
            sowdb.generate("oware/6x4", 10, str(out), progress=interrupt_at_layer_9)
    finally:
        signal.signal(signal.SIGINT, previous)
    assert handled.is_set()
    assert layer_files(out) == [f"layer-{n:03d}.sdb" for n in range(9)]
    assert temporaries(out) == []
    with sowdb.open(out) as tb:
        assert tb.max_stones == 8
    summary = sowdb.generate("oware/6x4", 10, str(out))
    assert summary["layers_reused"] == 9
    assert layer_files(out)[-1] == "layer-010.sdb"


def test_an_exception_in_the_callback_stops_generate(tmp_path):
    class Enough(Exception):
        pass

    def fail_in_write(p: sowdb.Progress) -> None:
        if p.stones == 7 and p.phase == "write":
            raise Enough("enough")

    with pytest.raises(Enough):
        sowdb.generate("kalah/4x3", 9, str(tmp_path / "t"), progress=fail_in_write)
    assert layer_files(tmp_path / "t")[-1] == "layer-006.sdb"
    assert temporaries(tmp_path / "t") == []


def test_generate_refusals(tmp_path):
    with pytest.raises(sowdb.BadVariantError):
        sowdb.generate("nonsense", 3, str(tmp_path / "a"))
    with pytest.raises(sowdb.InvalidRequestError):
        sowdb.generate("oware", 500, str(tmp_path / "a"))
    sowdb.generate("kalah/4x3", 2, str(tmp_path / "b"))
    with pytest.raises(sowdb.InvalidRequestError, match="kalah"):
        sowdb.generate("oware", 2, str(tmp_path / "b"))  # a directory of other tables
    (tmp_path / "file").write_text("x")
    with pytest.raises(sowdb.InvalidRequestError):
        sowdb.generate("oware", 2, str(tmp_path / "file"))
    with pytest.raises(sowdb.InvalidRequestError):
        sowdb.generate("oware", 2, str(tmp_path / "c"), threads=-1)
    with pytest.raises(TypeError):
        sowdb.generate("oware", 2, str(tmp_path / "c"), progress=5)  # type: ignore[arg-type]


@pytest.mark.parametrize("level", [99, 23, -5, -1])
def test_generate_refuses_a_zstd_level_outside_the_clis_range_before_any_work(tmp_path, level):
    # The CLI's `sowdb gen --zstd-level` takes 1..22; 0 is the Python default (the writer's).
    out = tmp_path / "t"
    with pytest.raises(sowdb.InvalidRequestError, match=r"zstd level %d .*1\.\.22" % level):
        sowdb.generate("oware/4x4", 6, str(out), zstd_level=level)
    assert not out.exists()  # refused before the directory, its manifest or its lock


def test_generate_takes_the_clis_zstd_levels(tmp_path):
    for level in (1, 22):
        summary = sowdb.generate("kalah/2x1", 2, str(tmp_path / str(level)), zstd_level=level)
        assert summary["zstd_level"] == level


def test_solve_agrees_with_the_cli(tmp_path, sowdb_bin, table_dirs):
    env = dict(os.environ, SOWDB_CACHE_DIR=str(tmp_path / "cli-cache"))
    cli = json.loads(subprocess.run([sowdb_bin, "solve", "--variant", "kalah/3x2", "--json"],
                                    check=True, capture_output=True, text=True, env=env).stdout)
    seen = []
    r = sowdb.solve("kalah/3x2", cache_dir=str(tmp_path / "py-cache"), progress=seen.append)
    for key in ("value", "best", "complete", "lower", "upper"):
        assert r[key] == cli[key], key
    assert [m["worth"] for m in r["moves"]] == [m["worth"] for m in cli["moves"]]
    assert r["tables_source"] == "cache" and r["tables_built"]
    # From given tables: kalah/4x3's start (24 seeds) over layers 0..12, searched.
    r = sowdb.solve("kalah/4x3", tables=str(table_dirs["kalah/4x3"]), worths=False)
    cli = json.loads(subprocess.run(
        [sowdb_bin, "solve", "--variant", "kalah/4x3", "--tables", str(table_dirs["kalah/4x3"]),
         "--value-only", "--json"], check=True, capture_output=True, text=True).stdout)
    assert (r["value"], r["tables_source"]) == (cli["value"], "given")


def test_solve_refusals(tmp_path, table_dirs):
    with pytest.raises(sowdb.InvalidRequestError):
        sowdb.solve("oware/6x4", tables=str(table_dirs["kalah/4x3"]))
    with pytest.raises(sowdb.BadVariantError):
        sowdb.solve(42)  # type: ignore[arg-type]


@pytest.mark.parametrize("layers", [128, 500, -2])
def test_solve_refuses_cache_layers_outside_the_clis_range_before_any_work(tmp_path, layers):
    # `sowdb solve --cache-layers` takes 0..127; -1 (the default) is the cache policy.
    cache = tmp_path / "cache"
    with pytest.raises(sowdb.InvalidRequestError, match=r"cache_layers %d .*0\.\.127" % layers):
        sowdb.solve("kalah/3x2", cache_dir=str(cache), cache_layers=layers)
    assert not cache.exists()


def test_ctrl_c_stops_solve_while_it_builds_its_cache(tmp_path):
    """SIGINT during the cache build of a solve: KeyboardInterrupt, the layers built so far stay
    in the cache, none is half written; the next solve reuses them."""
    handled = threading.Event()

    def on_sigint(signum, frame):
        handled.set()
        raise KeyboardInterrupt

    def interrupt_at_layer_5(p: sowdb.Progress) -> None:
        if p.kind == "build" and p.stones == 5 and not handled.is_set():
            os.kill(os.getpid(), signal.SIGINT)
            assert handled.wait(60)

    previous = signal.signal(signal.SIGINT, on_sigint)
    try:
        with pytest.raises(KeyboardInterrupt):
            sowdb.solve("kalah/4x3", cache_dir=str(tmp_path), progress=interrupt_at_layer_5)
    finally:
        signal.signal(signal.SIGINT, previous)
    (cache,) = [d for d in tmp_path.iterdir() if d.is_dir()]
    assert layer_files(cache) == [f"layer-{n:03d}.sdb" for n in range(5)]
    assert temporaries(cache) == []
    r = sowdb.solve("kalah/4x3", cache_dir=str(tmp_path), worths=False)
    assert r["complete"] and r["tables_built"]
