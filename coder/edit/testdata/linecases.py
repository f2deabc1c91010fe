#!/usr/bin/env python3
"""linecases.py — line-range edit cases (<replace-lines>/<remove-lines>) cut
from real repository history the way ../shared/editbench/gen.py cuts its
cases, in editbench's case format, for editbench's runner:

    python3 coder/edit/testdata/linecases.py ../shared/editbench > /tmp/lines.jsonl
    python3 ../shared/editbench/run --cases /tmp/lines.jsonl \\
        --cmd 'bot apply --format lines --root {root} --file {path}' -j 2

`--small 40` writes the sample committed as lines.jsonl.gz, which
TestLinesHistory runs through the engine offline.

The units are the real commits of editbench's corpus (each distinct
repo/commit/path of a case that must apply, with its parent and commit
versions; the CRLF and no-final-newline variants left out); hunks come from
`git diff -U0` (myers, indent heuristic) and hunks <= 4 unchanged lines apart
form one range, as in gen.py. A pure insertion becomes a range over the line
above it (or below, at the top). Formats: L1 quotes the range's lines in a
SEARCH section (or as the body of <remove-lines>), L2 gives the hash the read
tool shows for exactly the range. Perturbations, the ways a model gets line
numbers wrong:

    P0  ideal ranges, blocks in a random order (applied bottom-up)     apply
    P1  quoted lines copied with read_file's "  12\\t" number prefixes
        or trailing spaces dropped/added (L1 only)                     apply
    N1  one range off by one (quoted lines / hash from the true range) refuse
    N2  stale read: one line of a range changed since it was read      refuse
    N3  two ranges overlap (each quoting its own true lines)           refuse
    N4  one range's end miscounted by one (quote / hash unchanged)     refuse

A perturbation that leaves the range's text unchanged (an off-by-one onto an
identical line) is undetectable by construction and is not emitted.
"""
import argparse
import gzip
import hashlib
import importlib.util
import json
import os
import random
import subprocess
import sys
import tempfile


def load_gen(shared):
    spec = importlib.util.spec_from_file_location("gen", os.path.join(shared, "gen.py"))
    gen = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(gen)
    return gen


def whash(lines):
    return hashlib.sha256("\n".join(lines).encode()).hexdigest()[:8]


def units(shared):
    seen = set()
    with gzip.open(os.path.join(shared, "cases.jsonl.gz"), "rt", encoding="utf-8") as f:
        for line in f:
            c = json.loads(line)
            # Every case that must apply holds a real commit's parent and
            # commit versions; CRLF and missing-final-newline variants aside.
            if c["expect"] != "apply" or "\r" in c["before"] or not c["before"].endswith("\n") \
                    or not c["after"].endswith("\n"):
                continue
            key = (c["repo"], c["commit"], c["path"])
            if key in seen:
                continue
            seen.add(key)
            yield c


def diff_u0(gen, before, after):
    with tempfile.TemporaryDirectory() as d:
        a, b = os.path.join(d, "a"), os.path.join(d, "b")
        open(a, "w", encoding="utf-8").write(before)
        open(b, "w", encoding="utf-8").write(after)
        p = subprocess.run(["git", "-c", "diff.algorithm=myers", "diff", "--no-index", "-U0", "--no-color",
                            "--no-ext-diff", "--indent-heuristic", a, b], capture_output=True)
        return gen.parse_u0(p.stdout.decode("utf-8"))


def ranges(gen, bl, al, hunks):
    """Merged hunks as (start, end, new_lines): 1-based inclusive old lines."""
    groups = []
    for h in hunks:
        if groups and h[0] - groups[-1][-1][1] <= gen.MERGE_GAP:
            groups[-1].append(h)
        else:
            groups.append([h])
    out = []
    for g in groups:
        olo, ohi, nlo, nhi = g[0][0], g[-1][1], g[0][2], g[-1][3]
        new = al[nlo:nhi]
        if olo == ohi:  # pure insertion: take the line above (or below) along
            if olo > 0:
                olo -= 1
                new = [bl[olo]] + new
            else:
                ohi += 1
                new = new + [bl[0]]
        out.append([olo + 1, ohi, new])
    for a, b in zip(out, out[1:]):
        if a[1] >= b[0]:
            return None
    return out


def render(path, fmt, bl, rs, quote=None):
    """rs: (start, end, new, evidence_lines)."""
    parts = []
    for start, end, new, ev in rs:
        if fmt == "L2":
            tag = "remove-lines" if not new else "replace-lines"
            parts.append(f'<{tag} filePath="{path}" start="{start}" end="{end}" hash="{whash(ev)}">')
            parts.extend(new)
            parts.append(f"</{tag}>")
            continue
        q = quote(ev, start) if quote else ev
        if not new:
            parts.append(f'<remove-lines filePath="{path}" start="{start}" end="{end}">')
            parts.extend(q)
            parts.append("</remove-lines>")
            continue
        parts.append(f'<replace-lines filePath="{path}" start="{start}" end="{end}">')
        parts.append("------- SEARCH")
        parts.extend(q)
        parts.append("=======")
        parts.extend(new)
        parts.append("+++++++ REPLACE")
        parts.append("</replace-lines>")
    return "Edits:\n\n" + "\n".join(parts) + "\n"


def case(c, fmt, pert, before, after, edit, expect, nblocks, detail=""):
    return {"id": f"{c['repo']}:{c['commit'][:10]}:{c['path']}:{fmt}:{pert}", "repo": c["repo"],
            "commit": c["commit"], "lang": c["lang"], "path": c["path"], "before": before, "after": after,
            "format": fmt, "perturbation": pert, "edit": edit, "expect": expect, "blocks": nblocks,
            "detail": detail}


def emit(gen, c, rng):
    before, after, path = c["before"], c["after"], c["path"]
    bl, al = before.split("\n")[:-1], after.split("\n")[:-1]
    rs = ranges(gen, bl, al, diff_u0(gen, before, after))
    if not rs:
        return
    n = len(bl)
    true = [(s, e, new, bl[s - 1:e]) for s, e, new in rs]
    for fmt in ("L1", "L2"):
        order = true[:]
        rng.shuffle(order)
        yield case(c, fmt, "P0", before, after, render(path, fmt, bl, order), "apply", len(rs))
        if fmt == "L1":
            def quote(ev, start):
                if rng.random() < 0.5:
                    return [f"{start + k:>4}\t{l}" for k, l in enumerate(ev)]
                return [l.rstrip() if l != l.rstrip() else l + "  " for l in ev]
            yield case(c, fmt, "P1", before, after, render(path, fmt, bl, true, quote), "apply", len(rs))
        k = rng.randrange(len(true))
        s, e, new, ev = true[k]
        d = rng.choice((-1, 1))
        if 1 <= s + d and e + d <= n and bl[s - 1 + d:e + d] != ev:
            rs1 = true[:]
            rs1[k] = (s + d, e + d, new, ev)
            if ranges_ok(rs1):
                yield case(c, fmt, "N1", before, before, render(path, fmt, bl, rs1), "refuse", len(rs),
                           f"block {k + 1} shifted by {d}")
        stale = None
        for li in rng.sample(range(s - 1, e), e - s + 1):
            ch = gen.stale_line(bl[li], rng, set())
            if ch is not None and ch != bl[li]:
                stale = (li, ch)
                break
        if stale:
            sb = bl[:]
            sb[stale[0]] = stale[1]
            stale_before = "\n".join(sb) + "\n"
            yield case(c, fmt, "N2", stale_before, stale_before, render(path, fmt, bl, true), "refuse", len(rs),
                       f"line {stale[0] + 1} changed since read")
        if e + 1 <= n:
            o0, o1 = max(s, e - rng.randrange(2)), min(n, e + 1 + rng.randrange(2))
            extra = (o0, o1, bl[o0 - 1:o1] + ["// added"], bl[o0 - 1:o1])
            yield case(c, fmt, "N3", before, before, render(path, fmt, bl, true + [extra]), "refuse",
                       len(rs) + 1, f"block {k + 1} overlaps an extra range")
        if e + 1 <= n and (fmt == "L1" or whash(bl[s - 1:e + 1]) != whash(ev)):
            rs4 = true[:]
            rs4[k] = (s, e + 1, new, ev)
            if ranges_ok(rs4):
                yield case(c, fmt, "N4", before, before, render(path, fmt, bl, rs4), "refuse", len(rs),
                           f"block {k + 1} end miscounted")


def ranges_ok(rs):
    srt = sorted(rs)
    return all(a[1] < b[0] for a, b in zip(srt, srt[1:]))


def main():
    ap = argparse.ArgumentParser(description="line-range edit cases from editbench's real commits")
    ap.add_argument("shared", nargs="?", default=os.path.join(os.path.dirname(__file__), "../../../../shared/editbench"))
    ap.add_argument("--small", type=int, default=0,
                    help="keep only the first N units (by key) whose parent version is under 6000 bytes")
    args = ap.parse_args()
    gen = load_gen(args.shared)
    rng = random.Random(1)
    n = 0
    us = list(units(args.shared))
    if args.small:
        us = sorted((c for c in us if len(c["before"]) < 6000), key=lambda c: (c["repo"], c["commit"], c["path"]))
        us = us[:args.small]
    for c in us:
        for out in emit(gen, c, rng):
            sys.stdout.write(json.dumps(out) + "\n")
            n += 1
    print(f"linecases: {n} cases", file=sys.stderr)


if __name__ == "__main__":
    main()
