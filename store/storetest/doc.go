// Package storetest opens real databases for tests: a SQLite file in the
// test's temp dir, and a PostgreSQL server started by the test itself from
// the Debian binaries (initdb + pg_ctl on a loopback port), run as an
// unprivileged user when the test runs as root. Without those binaries the
// PostgreSQL tests are skipped, unless ISSUESMITH_REQUIRE_POSTGRES=1 (CI)
// makes that a failure.
//
// It owns only test databases: it must never touch a database it did not
// create, never reach a server beyond loopback, and never be imported by
// non-test code.
package storetest
