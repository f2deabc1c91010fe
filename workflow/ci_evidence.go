package workflow

import (
	"context"
	"errors"
	"slices"

	"github.com/issuesmith/issuesmith/cievidence"
)

// ciChecks reads the latest check runs of a commit ("" has none).
func (s *runJob) ciChecks(ctx context.Context, sha string) ([]cievidence.Check, error) {
	if sha == "" {
		return nil, nil
	}
	return s.gh.CheckRuns(ctx, s.run.Owner, s.run.Repo, sha)
}

// ciEvidence adds annotations and Actions job logs to the failing checks.
// A log the installation may not read (actions: read not yet accepted) is
// left out with a note; the round goes on with the checks' output. GitHub's
// rate limit is the one error returned: the round waits for the reset
// rather than fix without its evidence.
func (s *runJob) ciEvidence(ctx context.Context, checks []cievidence.Check) ([]cievidence.Check, string, error) {
	o, note := s.run, ""
	out := slices.Clone(checks)
	for i := range out {
		c := &out[i]
		if c.AnnotationCount > 0 {
			anns, err := s.gh.CheckRunAnnotations(ctx, o.Owner, o.Repo, c.ID)
			if _, limited := rateLimited(err); limited {
				return nil, "", err
			}
			if err != nil {
				s.log.Warn("annotations not read", "check", c.Name, "err", err)
			}
			c.Annotations = append(c.Annotations, anns...)
		}
		if c.Actions {
			log, err := s.gh.JobLog(ctx, o.Owner, o.Repo, c.ID)
			if _, limited := rateLimited(err); limited {
				return nil, "", err
			}
			switch {
			case errors.Is(err, ErrNoAccess):
				note = "Job logs were not read: the App's installation has not accepted the `actions: read` permission yet."
			case err != nil:
				s.log.Warn("job log not read", "check", c.Name, "err", err)
			}
			c.Log = log
		}
	}
	return out, note, nil
}

func names(cs []cievidence.Check) []string {
	var out []string
	for _, c := range cs {
		out = append(out, c.Name)
	}
	return out
}

func signatures(cs []cievidence.Check) []string {
	var out []string
	for _, c := range cs {
		out = append(out, cievidence.Signature(c))
	}
	return out
}

// ciRounds counts the fix rounds recorded; ciRetries the /retry requests.
func ciRounds(recs []ciRecord) int {
	n := 0
	for _, r := range recs {
		if r.Round > 0 {
			n++
		}
	}
	return n
}

func ciRetries(recs []ciRecord) int {
	n := 0
	for _, r := range recs {
		if r.Retry != "" && r.Round > 0 {
			n++
		}
	}
	return n
}

// repeated reports whether a failure of sigs was already fixed in the
// latest round: the fix did not work, so another round would not either.
func repeated(recs []ciRecord, sigs []string) bool {
	for i := len(recs) - 1; i >= 0; i-- {
		if recs[i].Round > 0 {
			for _, s := range sigs {
				if slices.Contains(recs[i].Sigs, s) {
					return true
				}
			}
			return false
		}
	}
	return false
}
