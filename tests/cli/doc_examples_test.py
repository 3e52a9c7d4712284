#!/usr/bin/env python3
"""Runs every `$ sowdb ...` example of the documents and compares its output with the document's.

Usage: doc_examples_test.py SOWDB DOCUMENT...

An example is a ```console block: lines starting with `$ ` are commands (run by bash in one
scratch directory per document, shared by its blocks in document order, so that the tables an
early example builds serve the later ones; `sowdb` is the program under test), the
lines after a command, up to the next command or the end of the block, are its output (standard
output and standard error together). Compared after masking what changes from run to run
(times, rates, memory, the scratch directory): a line `...` stands for any number of lines, and
`...` inside a line for any text. A command exits 0 unless its output ends with a line
`[exit N]` (then it must exit N) or shows a `sowdb: error:` or `sowdb: interrupted` line. Any difference fails the test, naming the document and the line.
"""
import os
import re
import subprocess
import sys
import tempfile

# What changes from run to run, masked in the output and in the document alike.
MASKS = [
    (re.compile(r"\d+(\.\d+)? s\b"), "<T> s"),  # seconds
    (re.compile(r"\b(solve|write|read) \d+\.\d+"), r"\1 <T>"),
    (re.compile(r"\d+\.\d+ M( positions)?/s"), r"<R> M\1/s"),
    (re.compile(r"peak RSS \d+(\.\d+)? [KMG]?i?B"), "peak RSS <M>"),
    (re.compile(r'"(\w*seconds|positions_per_s|peak_rss_bytes)":[-+0-9.eE]+'), r'"\1":<N>'),
    (re.compile(r"\b\d+ threads?$"), "<K> threads"),  # every core by default
    # The search's threads share work in an order that varies, and so its node count.
    (re.compile(r"searched \d+ positions"), "searched <N> positions"),
    (re.compile(r'"threads":\d+'), '"threads":<K>'),
]


def mask(line, scratch):
    line = line.replace(scratch, "<DIR>")
    for pattern, replacement in MASKS:
        line = pattern.sub(replacement, line)
    # Columns are padded to the width of the masked figure (a rate of 9.8 or 12.3 M/s).
    return re.sub(r"(?<=\S) {2,}", " ", line).rstrip()


def line_pattern(expected):
    """A regex for one expected line: `...` inside it matches any text."""
    parts = expected.split("...")
    return re.compile("^" + ".*".join(re.escape(p) for p in parts) + "$")


def matches(expected, actual):
    """Whether the actual lines match the expected ones (`...` lines: any number of lines)."""
    memo = {}

    def go(i, j):
        if (i, j) in memo:
            return memo[(i, j)]
        if i == len(expected):
            result = j == len(actual)
        elif expected[i] == "...":
            result = any(go(i + 1, k) for k in range(j, len(actual) + 1))
        else:
            result = j < len(actual) and line_pattern(expected[i]).match(actual[j]) is not None \
                and go(i + 1, j + 1)
        memo[(i, j)] = result
        return result

    return go(0, 0)


def examples(path):
    """(line number, command, expected lines) for every command of the console blocks."""
    found = []
    in_block = False
    current = None
    with open(path, encoding="utf-8") as f:
        for number, raw in enumerate(f, 1):
            line = raw.rstrip("\n")
            if not in_block:
                in_block = line.strip() == "```console"
                continue
            if line.strip() == "```":
                in_block = False
                current = None
                continue
            if line.startswith("$ "):
                current = (number, line[2:], [])
                found.append(current)
            elif current is not None:
                current[2].append(line)
    return found


def main():
    sowdb = os.path.abspath(sys.argv[1])
    documents = sys.argv[2:]
    failures = 0
    count = 0
    for document in documents:
        name = os.path.basename(document)
        # Each document builds the tables its examples use, in a scratch directory of its own.
        scratch = tempfile.mkdtemp(prefix="sowdb-doc-")
        bindir = os.path.join(scratch, ".bin")
        os.makedirs(bindir)
        os.symlink(sowdb, os.path.join(bindir, "sowdb"))
        env = dict(os.environ)
        env["PATH"] = bindir + os.pathsep + env.get("PATH", "")
        env["SOWDB_CACHE_DIR"] = os.path.join(scratch, "cache")
        env["LC_ALL"] = "C"
        for number, command, expected in examples(document):
            if not re.match(r"(printf .*\| )?sowdb\b", command):
                continue  # not an example of the program (none so far)
            count += 1
            run = subprocess.run(["bash", "-o", "pipefail", "-c", command], cwd=scratch, env=env,
                                 stdin=subprocess.DEVNULL, stdout=subprocess.PIPE,
                                 stderr=subprocess.STDOUT, timeout=300)
            out = run.stdout.decode("utf-8", "replace").splitlines()
            actual = [mask(line, scratch) for line in out]
            want = [mask(line, scratch) for line in expected]
            problem = None
            exit_code = 0
            while want and want[-1] == "":
                want.pop()
            annotated = re.match(r"^\[exit (\d+)\]$", want[-1]) if want else None
            if annotated:
                exit_code = int(annotated.group(1))
                want.pop()
            if run.returncode != exit_code and not (
                    exit_code == 0 and run.returncode != 0 and any(
                        l.startswith(("sowdb: error:", "sowdb: interrupted")) for l in want)):
                problem = "exit code %d, want %d" % (run.returncode, exit_code)
            elif not matches(want, actual):
                problem = "output differs"
            if problem:
                failures += 1
                print("FAIL: %s:%d: $ %s: %s\n--- document\n%s\n--- program\n%s\n" %
                      (name, number, command, problem, "\n".join(want), "\n".join(actual)))
        subprocess.run(["rm", "-rf", scratch])
    if count == 0:
        print("FAIL: no `$ sowdb` example found")
        return 1
    if failures:
        print("%d of %d examples failed" % (failures, count))
        return 1
    print("all %d examples match" % count)
    return 0


if __name__ == "__main__":
    sys.exit(main())
