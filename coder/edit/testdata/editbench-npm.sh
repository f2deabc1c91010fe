#!/bin/bash
# editbench-npm.sh DIR NAME VERSION... — make DIR a git repository whose history
# is the given npm package versions, one commit per changed file, so that
# ../shared/editbench/gen.py can cut fresh JS/TS edit cases from it:
#
#   bash coder/edit/testdata/editbench-npm.sh /tmp/execa execa 9.0.0 9.1.0 9.2.0 9.3.0
#   python3 ../shared/editbench/gen.py --repo execa /tmp/execa HEAD --seed 1 --per-format 100 --out /tmp/js.jsonl
#   python3 ../shared/editbench/run --cases /tmp/js.jsonl --cmd '/tmp/bot apply --root {root} --file {path}' -j 2
set -euo pipefail
dir=$1 name=$2
shift 2
rm -rf "$dir"
mkdir -p "$dir"
cd "$dir"
git init -q
for v in "$@"; do
	tgz=$(npm pack "$name@$v" --silent 2>/dev/null | tail -1)
	find . -mindepth 1 -maxdepth 1 ! -name .git ! -name '*.tgz' -exec rm -rf {} +
	tar xzf "$tgz" --strip-components=1
	rm -f "$tgz"
	git add -A >/dev/null
	git diff --cached --name-only | while read -r f; do
		git -c user.name=editbench -c user.email=editbench@localhost commit -q -m "$name $v: $f" -- "$f"
	done
done
echo "$dir: $(git rev-list --count HEAD) commits"
