// Package gittest serves real git repositories over HTTP for tests: git's
// own http-backend behind net/http/cgi on a loopback httptest server, with
// an optional required token (HTTP basic auth, as GitHub takes installation
// tokens), helpers to seed a repository from a map of files, to commit as
// someone else, to make the server refuse pushes, and to read a branch's
// files and commits back.
//
// It is for tests only: it fails the test on any setup error and must never
// be imported by production code. It needs the git CLI.
package gittest
