// Package config owns issuesmith's configurations: the server's (Server:
// App credentials, webhook secret, a Gitea server's URL, token file and
// webhook secret (gitea.go: all or none; with them the App's are optional),
// database, listen address, model settings),
// parsed once at start-up from ISSUESMITH_* environment variables and an
// optional file, defaulted and validated; the local commands' (Local: the
// same model and database settings without the App's, for `bot solve`,
// `bot summarize` and `bot migrate`); and a repository's versioned .github/issuesmith.yml
// (Repo), decoded strictly so that a wrong key is an error naming the key
// and its line.
//
// AppFiles writes a newly registered App's settings and key (`bot setup`) as
// the env file the server reads, mode 0600, never over an existing file.
//
// Model.LLM and Model.LLMFor turn the model settings (plus a repository's
// per-role overrides) into llm.Config, with SettingName mapping llm's keys
// to the variables and file keys an operator sets.
//
// Limits (limits.go) are the server's spending limits and loop guard;
// Limits.For gives the limits a repository's run works under, its file
// lowering them (limits:, the roles' budgets) but never raising them.
//
// Nothing else in issuesmith reads the environment for a setting; the few
// reads that are not settings (a subprocess's scrubbed environment, the
// command line handing it here, OpenTelemetry's own OTEL_* variables, the
// sandbox's bridge, test-only switches) are named with their reasons in
// internal/archtest, whose test fails on any other. config never fetches
// anything from GitHub or the network, and never prints a secret: Server
// redacts keys, secrets and API keys in String and LogValue, and errors
// name a setting, never its value.
package config
