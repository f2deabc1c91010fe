#!/bin/sh
# Benchmark `bot replay` on the 57 navidrome instances of ../shared/replay.
# Installs what the benchmark needs (TagLib for navidrome's scanner), links
# the repository into a --repos folder outside any worktree, builds the bot
# and runs one model mode.
#
#   replay/bench/navidrome.sh gold|oracle|NAME [extra bot replay flags...]
#
# Env: NAVIDROME_GIT (a git dir or checkout of github:navidrome/navidrome;
# default /work/.mirror/navidrome+navidrome/repo), REPLAY_DATA (where the
# repos folder and results go; default /work/data/replay), INSTANCES.
set -eu
mode=${1:?usage: navidrome.sh gold|oracle|MODEL [flags]}
shift
here=$(cd "$(dirname "$0")/../.." && pwd)
data=${REPLAY_DATA:-/work/data/replay}
src=${NAVIDROME_GIT:-/work/.mirror/navidrome+navidrome/repo}
instances=${INSTANCES:-$here/../shared/replay/instances.jsonl}

# navidrome's scanner links TagLib through cgo.
if ! pkg-config --exists taglib 2>/dev/null; then
	if [ "$(id -u)" = 0 ]; then
		apt-get install -y --no-install-recommends libtag1-dev pkg-config
	else
		sudo apt-get install -y --no-install-recommends libtag1-dev pkg-config
	fi
fi

mkdir -p "$data/repos"
ln -sfn "$src" "$data/repos/navidrome__navidrome.git"
(cd "$here" && go build -o "$data/bot" ./cmd/bot)
exec /usr/bin/time -v "$data/bot" replay --instances "$instances" --repos "$data/repos" \
	--model "$mode" --out "$data/$mode.jsonl" "$@"
