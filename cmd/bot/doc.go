// Command bot is issuesmith: a GitHub App that turns a labelled issue into a
// pull request (issue → spec → editable plan → code → PR → review), and the
// local tools built from the same code (apply, search, summarize, solve),
// plus setup (register the App) and migrate (the database schema).
//
// It owns the command line: one file per subcommand (apply, search,
// summarize, solve, replay, serve, setup, migrate, redeliver, usage, version). The
// App's construction from config lives in package server; the agents'
// adapters to the workflow's ports live in package agents, which `solve` and
// `replay` run too (agents.Local): no type here implements a workflow port.
// It must never hold product
// logic another package can own (exploring, planning, editing, GitHub calls,
// the workflow), never read the environment except through config, and never
// print a secret (private key, webhook secret, tokens, API keys).
package main
