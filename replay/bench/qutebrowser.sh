#!/bin/sh
# Benchmark `bot replay` on the 79 qutebrowser instances of ../shared/replay
# (Python). Installs what qutebrowser's tests import from Debian's packages
# (the machines here reach no Python package index; the sandbox sees the
# host's packages read-only), links the repository into a --repos folder
# outside any worktree, builds the bot and runs one model mode.
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

# The packages ../shared/replay/README.md names: pytest and its plugins,
# PyQt5 and PyQt6 with QtWebEngine, the libraries qutebrowser imports, and
# an X server, xauth and a D-Bus session for the tests that want them.
pkgs="python3-pytest python3-pytest-mock python3-pytest-rerunfailures python3-pyqt5 python3-pyqt5.qtwebengine
python3-pyqt5.qtquick python3-pyqt5.qtsql python3-pyqt6 python3-pyqt6.qtwebengine python3-pyqt6.qtqml python3-pyqt6.qtsvg
python3-pytestqt python3-pytest-bdd python3-pytest-benchmark python3-pytest-instafail python3-pytest-xvfb
python3-pytest-repeat python3-hypothesis python3-pil python3-bs4 python3-tldextract python3-flask python3-cheroot
python3-jinja2 python3-yaml python3-pygments python3-pypeg2 xvfb xauth dbus"
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
	--model "$mode" --out "$data/$mode.jsonl" "$@"
