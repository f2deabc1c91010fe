// Package trydemo is `bot try`: the whole flow, from a labelled issue to a
// pull request that passed CI, run by the real `bot serve` code (server.New and
// Serve on a loopback listener) without a model key or GitHub, and shown as
// a web page.
//
// Run creates a small Go module (sample.go) in a real git server
// (repo/gittest's git http-backend), files an issue on an in-process fake
// GitHub (ghapp/ghtest, which checks every request against GitHub's REST
// description) and plays the person: the label and the /implement comment
// reach the server as signed webhook deliveries made from GitHub's
// published examples (payloads/). It plays the repository's CI too (ci.go):
// a failing job on the bot's commit (its log is what go test prints, which
// a test checks), check_suite and check_run deliveries, and the bot's CI
// fix round in between. The model's side is script.yaml, played
// by llm/llmtest and written for this sample; the fakes run through a
// tb.Session, and anything they did not expect fails the run. Render turns
// what the fake GitHub holds at the end — the issue thread with spec, plan
// and progress comments, the pull request with its CI comment and its diff read from the git
// server — into one server-rendered HTML page (GitHub-flavoured Markdown
// by goldmark, sanitized by bluemonday) that says plainly the answers were
// scripted, with the run's session as bot serve recorded it in its
// database (session.go), linked from the issue and shown by stage beside
// it; Handler serves it. With Options.Sessions (sessions.go) the run's
// real /sessions page opens too: bot serve runs with it on, is started
// again once the run is over, and Result.SignIns link two people in through
// the fake GitHub's own sign-in (no password) and the page's OAuth sign-in
// — the person who filed the issue, who can read the repository, and
// mallory, who cannot — so the access rule is seen working.
//
// With Options.Forge ForgeGitea (gitea.go, gitea_payload.go, gitea_ci.go)
// the same flow plays on a fake Gitea (gitea/giteatest, which checks every
// request against Gitea's swagger description) instead, bot serve serving
// that Gitea server alone: the git server accepts the bot user's token, the
// person's label and the plan's ticked approval reach /webhook/gitea as
// Gitea's signed deliveries made from ones a real Gitea 1.26 sent
// (payloads/gitea, copies of webhook/testdata/gitea), the pull request is
// a WIP: title, CI is commit statuses with their status deliveries, and the
// page is rendered from the fake Gitea's state, naming Gitea.
//
// Contracts: nothing leaves loopback; the run's files live in one
// temporary directory removed at the end, but for the sandbox's caches
// (Options.CacheDir, by default issuesmith/try under the user cache dir),
// kept so that only the first run builds; no key, token or webhook secret
// reaches the page or the terminal. It must never mock a stage: if the
// workflow stops, Run fails with the bot's own progress comment.
package trydemo
