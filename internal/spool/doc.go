// Package spool is a durable first-in, first-out queue of small records in
// one directory, for what must not be lost while the database is away: the
// webhook puts a delivery it could not record here and answers it, and the
// server drains the spool into the database once it answers again.
//
// Put returns only after the record is on disk (written to a temporary
// file, synced, renamed into place, directory synced), so an answered
// delivery survives a crash of the process. Drain hands records oldest
// first to a function and removes each one only after that function
// returned nil; a crash between the two hands the record again, so the
// function must be idempotent (the webhook's intake is: a recorded delivery
// answers "duplicate"). A record the function refuses as unreadable
// (ErrUnreadable) is moved to the "bad" subdirectory and kept for a person
// to look at; any other error stops the drain, to be retried later. The
// spool holds at most Max records and refuses more with ErrFull, so a
// long outage cannot fill the disk.
//
// It imports nothing of the project.
package spool
