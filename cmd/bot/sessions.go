package main

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"text/tabwriter"
	"time"

	"github.com/spf13/cobra"

	"github.com/issuesmith/issuesmith/config"
	"github.com/issuesmith/issuesmith/session"
	"github.com/issuesmith/issuesmith/store"
)

// newSessionsCmd builds `bot sessions`: list the runs' sessions and show
// one, from the database `bot serve` writes (for operators; the page at
// /sessions shows the same to people signed in with GitHub).
func newSessionsCmd() *cobra.Command { return newSessionsCmdWith(os.Environ) }

func newSessionsCmdWith(environ func() []string) *cobra.Command {
	var dsn string
	var asJSON bool
	cmd := &cobra.Command{
		Use:   "sessions",
		Short: "list the sessions of the bot's runs, or show one (from the database)",
		Args:  cobra.NoArgs,
	}
	cmd.PersistentFlags().StringVar(&dsn, "database", "", "database: a SQLite file path or a postgres:// URL "+
		"(default: ISSUESMITH_DATABASE_URL, also from ISSUESMITH_CONFIG_FILE, as bot serve reads it)")
	cmd.PersistentFlags().BoolVar(&asJSON, "json", false, "print JSON instead of text")
	open := func(ctx context.Context) (*store.Store, error) {
		from := "--database"
		if dsn == "" {
			var err error
			if dsn, err = settingsDB(environ()); err != nil {
				return nil, fmt.Errorf("sessions: no database: %w", err)
			}
			from = config.EnvPrefix + "DATABASE_URL"
			if !slices.ContainsFunc(environ(), func(kv string) bool { return strings.HasPrefix(kv, from+"=") }) {
				from = "the default in the state directory"
			}
		}
		if err := existingDB(dsn, from); err != nil {
			return nil, err
		}
		return store.Open(ctx, dsn)
	}
	var f store.SessionFilter
	list := &cobra.Command{
		Use:   "list",
		Short: "list sessions newest first",
		Args:  cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			if err := checkFilter(f); err != nil {
				return err
			}
			st, err := open(cmd.Context())
			if err != nil {
				return err
			}
			defer st.Close()
			rows, err := st.ListSessions(cmd.Context(), f)
			if err != nil {
				return err
			}
			return printSessions(cmd.OutOrStdout(), rows, asJSON)
		},
	}
	list.Flags().StringVar(&f.Repo, "repo", "", "only sessions of this repository (OWNER/NAME)")
	list.Flags().StringVar(&f.State, "state", "", "only sessions in this state (active, waiting, done, failed, cancelled)")
	list.Flags().IntVar(&f.Limit, "limit", 50, "at most this many sessions")
	show := &cobra.Command{
		Use:   "show ID",
		Short: "show one session's events",
		Args:  cobra.ExactArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			id, err := strconv.ParseInt(args[0], 10, 64)
			if err != nil || id <= 0 {
				return usageErr("session id %q: not a number", args[0])
			}
			st, err := open(cmd.Context())
			if err != nil {
				return err
			}
			defer st.Close()
			rec, err := session.Load(cmd.Context(), st, id)
			if errors.Is(err, store.ErrNotFound) {
				return fmt.Errorf("no session %d", id)
			}
			if err != nil {
				return err
			}
			return printSession(cmd.OutOrStdout(), rec, asJSON)
		},
	}
	cmd.AddCommand(list, show)
	return cmd
}

// sessionStates are the states --state takes: a run's, as the database
// records them.
var sessionStates = []string{store.StateActive, store.StateWaiting, store.StateDone, store.StateFailed, store.StateCancelled}

// repoName is OWNER/NAME as GitHub allows them.
var repoName = regexp.MustCompile(`^[A-Za-z0-9](?:[A-Za-z0-9-]{0,38})/[A-Za-z0-9._-]{1,100}$`)

// checkFilter refuses a filter that can match nothing, naming the flag.
func checkFilter(f store.SessionFilter) error {
	if f.State != "" && !slices.Contains(sessionStates, f.State) {
		return usageErr("--state %q: want one of %s", f.State, strings.Join(sessionStates, ", "))
	}
	if f.Repo != "" && !repoName.MatchString(f.Repo) {
		return usageErr("--repo %q: want OWNER/NAME", f.Repo)
	}
	if f.Limit < 1 {
		return usageErr("--limit %d: want 1 or more", f.Limit)
	}
	return nil
}

// existingDB refuses a SQLite database that is not there: reading sessions
// must never create an empty database (and then fail on its missing
// tables). from names where dsn came from, for the message.
func existingDB(dsn, from string) error {
	files := store.FilesOf(dsn) // none for PostgreSQL
	if len(files) == 0 {
		return nil
	}
	path := files[0]
	if _, err := os.Stat(path); err != nil {
		return fmt.Errorf("sessions: no database at %s (%s): set %sDATABASE_URL (or --database) to the database "+
			"bot serve uses", path, from, config.EnvPrefix)
	}
	return nil
}

// sessionJSON is a session's row as --json prints it.
type sessionJSON struct {
	ID               int64      `json:"id"`
	Repo             string     `json:"repo"`
	Issue            int        `json:"issue"`
	Requester        string     `json:"requester"`
	State            string     `json:"state"`
	Stage            string     `json:"stage"`
	StartedAt        time.Time  `json:"started_at"`
	EndedAt          *time.Time `json:"ended_at,omitempty"`
	ModelCalls       int64      `json:"model_calls"`
	PromptTokens     int64      `json:"prompt_tokens"`
	CachedTokens     int64      `json:"cached_tokens"`
	CompletionTokens int64      `json:"completion_tokens"`
	Cost             float64    `json:"cost"`
	Bytes            int64      `json:"bytes"`
	Cut              bool       `json:"cut,omitempty"`
}

func toJSON(s *store.Session) sessionJSON {
	j := sessionJSON{ID: s.ID, Repo: s.FullRepo(), Issue: s.Issue, Requester: s.Requester, State: s.State, Stage: s.Stage,
		StartedAt: s.StartedAt.UTC(), ModelCalls: s.ModelCalls, PromptTokens: s.PromptTokens, CachedTokens: s.CachedTokens,
		CompletionTokens: s.CompletionTokens, Cost: s.Cost, Bytes: s.Bytes, Cut: s.Cut}
	if !s.Running() {
		end := s.EndedAt.UTC()
		j.EndedAt = &end
	}
	return j
}

func printSessions(w io.Writer, rows []*store.Session, asJSON bool) error {
	if asJSON {
		out := make([]sessionJSON, 0, len(rows))
		for _, s := range rows {
			out = append(out, toJSON(s))
		}
		return writeJSON(w, out)
	}
	tw := tabwriter.NewWriter(w, 0, 4, 2, ' ', 0)
	fmt.Fprintln(tw, "ID\tREPOSITORY\tISSUE\tREQUESTER\tSTATE\tSTAGE\tSTARTED\tDURATION\tCALLS\tTOKENS\tCOST")
	for _, s := range rows {
		end := s.EndedAt
		if s.Running() {
			end = s.UpdatedAt
		}
		fmt.Fprintf(tw, "%d\t%s\t#%d\t%s\t%s\t%s\t%s\t%s\t%d\t%d\t%.4f\n", s.ID, s.FullRepo(), s.Issue, s.Requester, s.State,
			s.Stage, s.StartedAt.UTC().Format("2006-01-02 15:04"), end.Sub(s.StartedAt).Round(time.Second),
			s.ModelCalls, s.PromptTokens+s.CompletionTokens, s.Cost)
	}
	return tw.Flush()
}

func printSession(w io.Writer, rec *session.Record, asJSON bool) error {
	if asJSON {
		return writeJSON(w, struct {
			Session sessionJSON                  `json:"session"`
			Events  []session.Event              `json:"events"`
			Blobs   map[string]store.SessionBlob `json:"blobs"`
		}{toJSON(rec.Session), rec.Events, rec.Blobs})
	}
	s := rec.Session
	fmt.Fprintf(w, "session %d: %s#%d by %s, %s", s.ID, s.FullRepo(), s.Issue, s.Requester, s.State)
	if title := rec.IssueTitle(); title != "" {
		fmt.Fprintf(w, " (%s)", title)
	}
	fmt.Fprintf(w, "; %s, %d tokens (%d cached), cost %.4f, %d bytes stored\n",
		session.Plural(int(s.ModelCalls), "model call"), s.PromptTokens+s.CompletionTokens, s.CachedTokens, s.Cost, s.Bytes)
	stage, step := "", ""
	for _, e := range rec.Events {
		if e.Stage != stage || e.Step != step {
			stage, step = e.Stage, e.Step
			fmt.Fprintf(w, "\n%s / %s (attempt %d)\n", stage, step, max(e.Attempt, 1))
		}
		fmt.Fprintf(w, "  %4d %-11s %s\n", e.Seq, e.Kind, e.Summary())
	}
	return nil
}

func writeJSON(w io.Writer, v any) error {
	enc := json.NewEncoder(w)
	enc.SetIndent("", "  ")
	return enc.Encode(v)
}
