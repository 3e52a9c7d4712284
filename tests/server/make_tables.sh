#!/usr/bin/env bash
# The tables the page test (page_test.py) serves, generated once into a build-directory cache:
# Oware and Kalah (6x4) layers 0..20, wari-kc/3x2 layers 0..12 of both objectives (the
# co-operative view), abapa/4x3/grand_slam=capture layers 0..12 (a variant with an option
# that differs from its preset's, named by a text the page does not read itself), and kalah/4x3
# layers 0..18 (its start has 24 seeds: the page answers the first plies by search).
# A directory is solved again unless its stamp says a run of this script completed it (gen
# resumes, but even reading 21 complete layers back costs seconds).
#
# Usage: make_tables.sh SOWDB DIR
set -euo pipefail
sowdb="$1"
dir="$2"
mkdir -p "$dir"

make() {
  local name="$1"
  shift
  if [[ -f "$dir/$name/.complete" ]]; then
    echo "tables $dir/$name: present"
    return
  fi
  local start=$SECONDS
  "$sowdb" gen "$@" --out "$dir/$name" --threads 2 --quiet
  touch "$dir/$name/.complete"
  echo "tables $dir/$name: generated in $((SECONDS - start)) s"
}

make oware --variant oware --max-stones 20
make kalah --variant kalah --max-stones 20
make wari-kc --variant wari-kc/3x2 --max-stones 12
make wari-kc-coop --variant wari-kc/3x2 --max-stones 12 --objective cooperative
make abapa-gs --variant abapa/4x3/grand_slam=capture --max-stones 12
make kalah-4x3 --variant kalah/4x3 --max-stones 18
