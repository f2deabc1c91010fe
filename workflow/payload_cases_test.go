package workflow_test

import (
	"time"

	"github.com/riverqueue/river"

	"github.com/issuesmith/issuesmith/workflow"
)

// payloadCases holds one realistic value per persisted job kind, every
// field set: the goldens under testdata/payloads are these values as a
// release encoded them.
func payloadCases() []river.JobArgs {
	ev := workflow.Event{
		Kind:           workflow.CommandGiven,
		Delivery:       "72d3162e-cc78-11e3-81ab-4c9367dc0958",
		GitHubEvent:    "issue_comment",
		Action:         "created",
		Received:       time.Date(2026, 11, 20, 14, 3, 7, 123456789, time.UTC),
		InstallationID: 41230977,
		Owner:          "octo-org",
		Repo:           "hello-world",
		Number:         1347,
		IsPR:           true,
		Sender:         "mona",
		Label:          "issuesmith",
		CommentID:      1985641230,
		Body:           "Looks close.\n\n/plan keep the CLI flags as they are",
		Command:        workflow.CmdPlan,
		Args:           "keep the CLI flags as they are",
		Path:           "cmd/hello/main.go",
		Line:           42,
		StartLine:      38,
		InReplyTo:      1985640001,
		State:          "changes_requested",
		Head:           "issuesmith/issue-1347",
		Merged:         true,
		Ref:            "refs/heads/main",
		Before:         "6dcb09b5b57875f334f61aebed695e2e4193db5e",
		After:          "9f1f4a1c2b0e8d7a6c5b4a39281706f5e4d3c2b1",
		SHA:            "e5bd3914e2e596debea16f433f57875b5b90bcd6",
		PRs:            []int{1347, 1350},
		Repos:          []string{"octo-org/hello-world", "octo-org/docs"},
		Removed:        []string{"octo-org/old-site"},
	}
	return []river.JobArgs{
		workflow.StageArgs{RunID: 912, Stage: workflow.StageRevise, Gen: 3, CommentID: 1985641230,
			Source: workflow.SourceReview, Author: "mona", Body: "Please rename `greet` to `Greet`.",
			Head: "e5bd3914e2e596debea16f433f57875b5b90bcd6", KeepLabel: true, Issue: "octo-org/hello-world#1347"},
		workflow.LabelArgs{InstallationID: 41230977, Owner: "octo-org", Repo: "hello-world", Issue: 1347,
			Label: "issuesmith", Sender: "mona"},
		workflow.IntakeArgs{Event: ev},
		workflow.RefreshArgs{InstallationID: 41230977, Owner: "octo-org", Repo: "hello-world", Again: true},
		workflow.RefreshAllArgs{},
		workflow.ProgressArgs{RunID: 912},
		workflow.OrphanArgs{},
		workflow.RedeliverArgs{},
		workflow.IdleStopArgs{InstallationID: 41230977, Owner: "octo-org", Repo: "hello-world", Issue: 1347,
			CommentID: 1985641230, Sender: "mona"},
		workflow.PruneArgs{},
	}
}
