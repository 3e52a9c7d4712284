"""Fixtures of the Python module's tests: small tables built once per session with
sowdb.generate, and the sowdb program (SOWDB_BIN) to compare against."""

from __future__ import annotations

import os
import shutil
from pathlib import Path
from typing import Dict

import pytest

import sowdb

# The presets the tests probe, each with the largest layer they build: a few seconds in all.
TABLES = {
    "oware/6x4": 9,
    "kalah/4x3": 12,
    "abapa/4x3": 10,
    "wari-us/4x2": 10,
}


@pytest.fixture(scope="session")
def sowdb_bin() -> str:
    path = os.environ.get("SOWDB_BIN") or shutil.which("sowdb")
    if not path:
        pytest.skip("the sowdb program is not known (set SOWDB_BIN)")
    return path


@pytest.fixture(scope="session")
def table_dirs(tmp_path_factory: pytest.TempPathFactory) -> Dict[str, Path]:
    root = tmp_path_factory.mktemp("tables")
    dirs = {}
    for variant, max_stones in TABLES.items():
        out = root / variant.replace("/", "_")
        sowdb.generate(variant, max_stones, str(out))
        dirs[variant] = out
    return dirs


@pytest.fixture(params=sorted(TABLES))
def tables(request: pytest.FixtureRequest, table_dirs: Dict[str, Path]):
    with sowdb.open(table_dirs[request.param]) as tb:
        yield tb


@pytest.fixture
def oware(table_dirs: Dict[str, Path]):
    with sowdb.open(table_dirs["oware/6x4"]) as tb:
        yield tb
