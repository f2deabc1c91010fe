// Package ghtest is a stateful fake of GitHub's REST API for tests, served on
// loopback by httptest. It keeps repositories, issues, comments, reactions,
// labels, collaborator permissions, pull requests, review comments, file
// contents, installation tokens, and accounts with their installations and
// forks (handlers_forks.go, for pull requests from "owner:branch"), check runs with their annotations and
// Actions job logs (handlers_checks.go: the logs behind GitHub's redirect, to a path that refuses
// credentials), and it checks App JWTs and installation tokens the way GitHub does. POST /graphql
// (handlers_graphql.go) validates each query and its variables against GitHub's GraphQL schema (a pruned
// copy of npm @octokit/graphql-schema, loaded with gqlparser) and serves markPullRequestReadyForReview. WebHandler stands in for github.com's new-App
// page of the App manifest flow, whose code the API side converts.
//
// Every request is first validated against GitHub's published OpenAPI
// description (a pruned copy of npm @octokit/openapi, embedded from
// testdata/, loaded with kin-openapi). A request GitHub would reject — an
// unknown operation, a bad parameter or body, a missing or wrong credential —
// fails the test that owns the server, besides getting GitHub's error answer.
// The fake's own answers are completed from the documented response schema
// (fields it does not model get nulls, placeholder URLs, zeros) and checked
// against it, so the code under test decodes what GitHub would send.
// Every installation has GitHub's primary rate limit (ratelimit.go): each
// request with its token uses one of 5,000 an hour, every answer carries
// the X-RateLimit-* headers, and a spent window is answered with GitHub's
// 403 until its reset; SetRateLimit sets a window (how many are left,
// when it resets). Tests inject faults (5xx, rate limits) with Inject and
// read the state the code under test left behind through the snapshot
// methods.
//
// ghtest is for tests, and for `bot try` (package trydemo, through a
// tb.Session): it never talks to the network and never implements more of
// GitHub than issuesmith uses. The bot's real paths must never import it.
package ghtest
