#!/bin/sh
# Localisation on Python: `bot search` on the 79 qutebrowser issues of
# ../shared/replay/qutebrowser.jsonl, scored by locbench's runner against the
# files each fix changed, with its plain BM25 baseline alongside
# (Acc@1/3/5/10, MRR). The issue text is the problem statement without the
# "Requirements:" part (as locbench's go-dev set does for navidrome); gold
# files are the non-test files the fix changed that exist at the base commit
# (new files are listed apart: no ranker can return them). Where the
# snapshot here lacks a blob of the base tree (two SQLite test fixtures),
# the instance is scored on a commit of that tree without them.
#
#   replay/bench/qutebrowser-search.sh [extra locbench run flags...]
#
# Env: QUTEBROWSER_GIT (default /work/.mirror/qutebrowser+qutebrowser/repo),
# LOCBENCH_DATA (default /work/data/locbench-py).
set -eu
here=$(cd "$(dirname "$0")/../.." && pwd)
src=${QUTEBROWSER_GIT:-/work/.mirror/qutebrowser+qutebrowser/repo}
data=${LOCBENCH_DATA:-/work/data/locbench-py}
mkdir -p "$data/repos"
. "$here/replay/bench/mirror.sh"
overlay_git "$src" "$data/qutebrowser.git"
ln -sfn "$data/qutebrowser.git" "$data/repos/qutebrowser__qutebrowser.git"
python3 - "$here/../shared/replay/qutebrowser.jsonl" "$data/qutebrowser.git" "$data/instances.jsonl" <<'PY'
import json, os, subprocess, sys, tempfile
src, git, out = sys.argv[1], sys.argv[2], sys.argv[3]
def run(*args, env=None, inp=None):
    return subprocess.run(["git", "--git-dir", git, *args], capture_output=True, text=True, check=True,
                          env=env, input=inp).stdout
missing = {l[1:] for l in run("rev-list", "--objects", "--missing=print", "--all").split("\n") if l.startswith("?")}
with open(src) as f, open(out, "w") as w:
    for line in f:
        r = json.loads(line)
        base = r["base_commit"]
        entries = run("ls-tree", "-r", base).splitlines()
        tree = {e.split("\t", 1)[1] for e in entries}
        lost = [e.split("\t", 1)[1] for e in entries if e.split()[2] in missing]
        if lost:
            # The base tree without the blobs the snapshot lacks (test
            # fixtures): a commit of its own, which the runner checks out.
            with tempfile.TemporaryDirectory() as d:
                env = dict(os.environ, GIT_INDEX_FILE=os.path.join(d, "index"), GIT_WORK_TREE=d)
                run("read-tree", base, env=env)
                run("update-index", "--force-remove", *lost, env=env)
                t = run("write-tree", env=env).strip()
                base = run("commit-tree", t, "-p", r["base_commit"], "-m", "base without " + ", ".join(lost),
                           env=dict(env, GIT_AUTHOR_NAME="bench", GIT_AUTHOR_EMAIL="bench@localhost",
                                    GIT_COMMITTER_NAME="bench", GIT_COMMITTER_EMAIL="bench@localhost",
                                    GIT_AUTHOR_DATE="2000-01-01T00:00:00Z", GIT_COMMITTER_DATE="2000-01-01T00:00:00Z")).strip()
        gold = [p for p in r["gold_files"] if p in tree]
        new = [p for p in r["gold_files"] if p not in tree]
        issue = r["problem_statement"].split("\n\nRequirements:")[0]
        w.write(json.dumps({"id": r["instance_id"], "repo": r["repo"], "base_commit": base,
                            "problem_statement": issue, "gold_files": gold, "new_files": new,
                            "source": "SWE-bench_Pro:public"}) + "\n")
PY
(cd "$here" && go build -o "$data/bot" ./cmd/bot)
exec "$here/../shared/locbench/run" --data "$data" --cmd "$data/bot search --repo {repo} --issue {issue} --k 10 --json" "$@"
