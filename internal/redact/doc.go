// Package redact is the one rule for keeping secrets out of text the bot
// writes anywhere a person or a machine could read it: comments, logs,
// errors, stored session events and prompts.
//
// Text removes credentials by their published shapes (GitHub, model-provider,
// cloud and chat tokens, JWTs, private keys, Authorization values, passwords
// in URLs, values given to secret-sounding keys) and long random-looking
// words; Secrets also removes the exact values the caller knows (an API key,
// an installation token, a database password); URL hides a URL's password.
// Every cut reads [redacted].
//
// It is a leaf: it imports nothing of issuesmith and reads no environment.
// Plain hex (commit hashes) and ordinary identifiers survive.
package redact
