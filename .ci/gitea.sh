#!/usr/bin/env bash
# Builds Gitea v1.26.0 (pinned) for the end-to-end tests of the Gitea forge,
# once: the binary is cached at $ISSUESMITH_GITEA_CACHE (default
# ~/.cache/issuesmith-gitea/1.26.0) and printed on stdout.
# `go install code.gitea.io/gitea@v1.26.0` refuses a module with replace
# directives, so a throwaway module requires it and copies its replace lines.
# Built with cgo and SQLite (the tests' database), without bindata: the tests
# point STATIC_ROOT_PATH at the module's source for its locales and templates.
set -euo pipefail
version=1.26.0
cache="${ISSUESMITH_GITEA_CACHE:-$HOME/.cache/issuesmith-gitea/$version}"
bin="$cache/gitea"
if [ -x "$bin" ] && "$bin" --version 2>/dev/null | grep -q "version $version"; then
	echo "$bin"
	exit 0
fi
command -v gcc >/dev/null || { apt-get update -qq && apt-get install -y -qq --no-install-recommends gcc libc6-dev >&2; }
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
cd "$work"
gomod=$(go mod download -json "code.gitea.io/gitea@v$version" | sed -n 's/^[[:space:]]*"GoMod": "\(.*\)",*$/\1/p')
{
	echo "module giteabuild"
	echo
	echo "go 1.26"
	echo
	echo "require code.gitea.io/gitea v$version"
	grep '^replace ' "$gomod"
} >go.mod
printf '//go:build tools\n\npackage giteabuild\n\nimport _ "code.gitea.io/gitea"\n' >tools.go
go mod tidy >&2
mkdir -p "$cache"
CGO_ENABLED=1 nice go build -tags 'sqlite sqlite_unlock_notify' -ldflags "-X main.Version=$version" \
	-o "$bin.tmp" code.gitea.io/gitea >&2
mv "$bin.tmp" "$bin"
echo "$bin"
