// Package sessionweb serves the sessions page on the bot's own listener:
// GET /sessions (runs newest first, filtered by repository and state,
// paged) and GET /sessions/{id} (the timeline: stages, steps, calls, each
// expandable), server-rendered with html/template, usable without
// JavaScript, readable on a phone, dark by prefers-color-scheme.
//
// A person signs in with GitHub through the App's OAuth credentials
// (authorization code with state and PKCE, golang.org/x/oauth2). The sign-in
// lives in an HttpOnly, SameSite=Lax cookie (Secure when the public URL is
// https), sealed with AES-GCM under a key derived from the server's secret:
// it is signed and its GitHub token unreadable, and it expires after
// SignInTTL. A person sees a session only when GitHub, asked with that
// person's own token, says they can read its repository (answers cached
// for at most CacheTTL); operators named in the configuration see all.
// Signed out, only the sign-in page is served.
//
// It only reads sessions (package session decodes them); it never writes
// the store or GitHub, and never logs or renders a token.
package sessionweb
