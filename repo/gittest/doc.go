// Package gittest serves real git repositories over HTTP for tests: git's
// own http-backend behind net/http/cgi on a loopback httptest server, with
// an optional required token (HTTP basic auth, as GitHub takes installation
// tokens), helpers to seed a repository from a map of files, to commit as
// someone else, to make the server refuse pushes, and to read a branch's
// files and commits back.
//
// It is for tests, and for `bot try` (package trydemo, through a
// tb.Session): it fails the test (or the session) on any setup error, and the
// bot's real paths must never import it. It needs the git CLI.
package gittest
