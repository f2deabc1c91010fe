# Sourced by the bench scripts: usable_git SRC DEST prints a git dir that
# holds every object of SRC's history. The snapshots this machine fetches
# can lack a repository's largest blobs (qutebrowser: two SQLite test
# fixtures); then DEST is made beside SRC (SRC's objects by alternates, its
# refs copied) with each missing blob written as a loose object holding a
# one-line placeholder, so clones and checkouts of any commit succeed. Only
# the tests that read those fixtures see the difference. A complete SRC is
# printed as it is.
usable_git() {
	src=$1 dest=$2
	missing=$(git --git-dir="$src" rev-list --objects --missing=print --all 2>/dev/null | sed -n 's/^?//p')
	if [ -z "$missing" ]; then
		echo "$src"
		return
	fi
	overlay_git "$src" "$dest"
	python3 - "$dest" $missing <<'PY'
import os, sys, zlib
dest, oids = sys.argv[1], sys.argv[2:]
body = b"(this file is missing from the repository snapshot the benchmark runs on)\n"
for oid in oids:
    d = os.path.join(dest, "objects", oid[:2])
    os.makedirs(d, exist_ok=True)
    with open(os.path.join(d, oid[2:]), "wb") as f:
        f.write(zlib.compress(b"blob %d\0" % len(body) + body))
PY
	echo "missing from $src, placeholders in $dest:" $missing >&2
	echo "$dest"
}

# overlay_git SRC DEST makes DEST a git dir of its own that reads SRC's
# objects (alternates) and starts with its refs: what is written there
# leaves SRC untouched.
overlay_git() {
	rm -rf "$2" && mkdir -p "$2" && git init -q --bare "$2"
	echo "$1/objects" >"$2/objects/info/alternates"
	cp "$1/HEAD" "$2/HEAD"
	[ ! -f "$1/packed-refs" ] || cp "$1/packed-refs" "$2/packed-refs"
	cp -r "$1/refs/." "$2/refs/"
}
