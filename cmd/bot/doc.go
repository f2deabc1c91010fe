// Command bot is issuesmith: a GitHub App that turns a labelled issue into a
// pull request (issue → spec → editable plan → code → PR → review), and the
// local tools built from the same code (apply, search, summarize, solve),
// plus setup (register the App), migrate (the database schema), try (the
// whole flow on a sample, scripted) and the operator's reports.
//
// It owns the command line: one file per subcommand (apply, search,
// summarize, solve, replay, serve, sessions, setup, migrate, redeliver, try,
// usage, version). The App's construction from config lives in package
// server; the agents' adapters to the workflow's ports live in package
// agents, which `solve` and `replay` run too (agents.Local): no type here
// implements a workflow port. It must never hold product logic another
// package can own (exploring, planning, editing, GitHub calls, the
// workflow) and never print a secret (private key, webhook secret, tokens,
// API keys); it reads the environment only to hand it to config's parsers
// (and bot search's ISSUESMITH_SEARCH_CACHE, a local cache's folder).
package main
