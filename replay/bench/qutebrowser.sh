#!/bin/sh
# Benchmark `bot replay` on the 79 qutebrowser instances of ../shared/replay
# (Python). Its setup is replay/bench/qutebrowser.yml (written as the
# repository's .github/issuesmith.yml would be, passed as --setup): the Debian
# packages its tests import, which bot replay checks and never installs; this
# script installs those the host lacks (the machines here reach no Python
# package index; the sandbox sees the host's packages read-only), links the
# repository into a --repos folder outside any worktree, builds the bot and
# runs one model mode.
#
#   replay/bench/qutebrowser.sh gold|oracle|NAME [extra bot replay flags...]
#
# Env: QUTEBROWSER_GIT (a git dir or checkout of github:qutebrowser/qutebrowser;
# default /work/.mirror/qutebrowser+qutebrowser/repo), REPLAY_DATA (where the
# repos folder and results go; default /work/data/replay-py), INSTANCES.
set -eu
mode=${1:?usage: qutebrowser.sh gold|oracle|MODEL [flags]}
shift
here=$(cd "$(dirname "$0")/../.." && pwd)
data=${REPLAY_DATA:-/work/data/replay-py}
src=${QUTEBROWSER_GIT:-/work/.mirror/qutebrowser+qutebrowser/repo}
instances=${INSTANCES:-$here/../shared/replay/qutebrowser.jsonl}

setup=$here/replay/bench/qutebrowser.yml
# The setup's packages: the list items under "packages:".
pkgs=$(awk '/^  packages:/ {p = 1; next} /^  [a-z_]+:/ {p = 0} p && /^    - / {print $2}' "$setup")
missing=""
for p in $pkgs; do
	dpkg -s "$p" >/dev/null 2>&1 || missing="$missing $p"
done
if [ -n "$missing" ]; then
	sudo=""
	[ "$(id -u)" = 0 ] || sudo=sudo
	$sudo apt-get update -qq
	# shellcheck disable=SC2086 # a list of package names
	DEBIAN_FRONTEND=noninteractive $sudo apt-get install -y -qq --no-install-recommends $missing
fi

mkdir -p "$data/repos"
. "$here/replay/bench/mirror.sh"
src=$(usable_git "$src" "$data/qutebrowser-complete.git")
ln -sfn "$src" "$data/repos/qutebrowser__qutebrowser.git"
(cd "$here" && go build -o "$data/bot" ./cmd/bot)
exec /usr/bin/time -v "$data/bot" replay --instances "$instances" --repos "$data/repos" \
	--setup "qutebrowser/qutebrowser=$setup" --model "$mode" --out "$data/$mode.jsonl" "$@"
