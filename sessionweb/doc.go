// Package sessionweb serves the sessions page on the bot's own listener:
// GET /sessions (runs newest first, filtered by repository and state,
// paged) and GET /sessions/{id} (the timeline: stages, steps, calls, each
// expandable), server-rendered with html/template, usable without
// JavaScript, readable on a phone, dark by prefers-color-scheme.
//
// One Handler serves one forge's page under its own path (Options.Base):
// GitHub's, signed in through the App's OAuth credentials, or a Gitea
// server's, signed in through an OAuth2 application of it (forge.go,
// github.go, gitea.go); each shows its own forge's sessions only
// (Options.InstallationSign) and sends a link to another's on
// (Options.Elsewhere). A person signs in with the forge (authorization
// code with state and PKCE, golang.org/x/oauth2). The sign-in
// lives in an HttpOnly, SameSite=Lax cookie (Secure when the public URL is
// https), sealed with AES-GCM under a key derived from the server's secret:
// it is signed and its token unreadable, bound to its page, and it expires
// after SignInTTL. A person sees a session only when the forge, asked with that
// person's own token, says they can read its repository (answers cached
// for at most CacheTTL); operators named in the configuration see all.
// Signed out, only the sign-in page is served.
//
// It only reads sessions (package session decodes them); it never writes
// the store or a forge, and never logs or renders a token.
package sessionweb
