package gitea

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"strconv"
	"strings"

	"github.com/issuesmith/issuesmith/ghapp"
	"github.com/issuesmith/issuesmith/internal/clip"
)

// Defaults of Options.
const (
	// DefaultPageSize is Gitea's largest page by default
	// ([api] MAX_RESPONSE_ITEMS); a server set lower sends smaller pages,
	// which the Link header still leads through.
	DefaultPageSize = 50
	// DefaultMaxPages bounds a list call: 100 pages of 50.
	DefaultMaxPages = 100
	// DefaultMaxBody bounds a raw file read (RawFile fails past it) and a
	// job log kept (JobLog keeps its tail).
	DefaultMaxBody = 8 << 20
)

// Options configures a Client. Zero values get the defaults noted.
type Options struct {
	// HTTPClient supplies the base transport and the timeout
	// (http.DefaultClient when nil); the rate-aware transport goes over it.
	HTTPClient *http.Client
	// Transport configures the rate-aware transport (ghapp.NewTransport).
	Transport ghapp.TransportOptions
	// PageSize is the limit asked per page (DefaultPageSize).
	PageSize int
	// MaxPages bounds the pages a list call reads (DefaultMaxPages); the
	// items past them are not returned.
	MaxPages int
	// MaxBody bounds a raw file and a job log (DefaultMaxBody).
	MaxBody int
}

// Client calls one Gitea server's API v1 as one user (the token's). It is
// safe for concurrent use.
type Client struct {
	api   *url.URL // the server's root + /api/v1
	token string
	http  *http.Client
	opts  Options
}

// New returns a client of the server at baseURL (its root URL, which may
// have a sub-path: https://host/gitea) with token. It makes no request.
func New(baseURL, token string, opts Options) (*Client, error) {
	u, err := url.Parse(strings.TrimRight(baseURL, "/"))
	if err != nil || u.Host == "" || (u.Scheme != "http" && u.Scheme != "https") {
		return nil, fmt.Errorf("new gitea client: base url %q is not an absolute http(s) url", baseURL)
	}
	if token == "" {
		return nil, errors.New("new gitea client: the token is empty")
	}
	u.Path += "/api/v1"
	u.RawPath, u.RawQuery, u.Fragment = "", "", ""
	base := opts.HTTPClient
	if base == nil {
		base = http.DefaultClient
	}
	if opts.PageSize <= 0 {
		opts.PageSize = DefaultPageSize
	}
	if opts.MaxPages <= 0 {
		opts.MaxPages = DefaultMaxPages
	}
	if opts.MaxBody <= 0 {
		opts.MaxBody = DefaultMaxBody
	}
	hc := &http.Client{Transport: ghapp.NewTransport(base.Transport, opts.Transport), Timeout: base.Timeout,
		CheckRedirect: base.CheckRedirect, Jar: base.Jar}
	return &Client{api: u, token: token, http: hc, opts: opts}, nil
}

// path joins segments under the API root, each escaped as one segment; a
// segment that is a path of its own (a file, a branch) is passed through
// splitPath first.
func path(segments ...string) string {
	var b strings.Builder
	for _, s := range segments {
		b.WriteByte('/')
		b.WriteString(url.PathEscape(s))
	}
	return b.String()
}

// splitPath escapes each slash-separated part of p and keeps the slashes.
func splitPath(p string) string {
	parts := strings.Split(strings.Trim(p, "/"), "/")
	for i, s := range parts {
		parts[i] = url.PathEscape(s)
	}
	return strings.Join(parts, "/")
}

// repoPath is /repos/{owner}/{repo} followed by escaped segments.
func repoPath(owner, repo string, rest ...string) string {
	return path(append([]string{"repos", owner, repo}, rest...)...)
}

func itoa(n int) string     { return strconv.Itoa(n) }
func i64toa(n int64) string { return strconv.FormatInt(n, 10) }
func query(kv ...string) url.Values {
	q := url.Values{}
	for i := 0; i+1 < len(kv); i += 2 {
		if kv[i+1] != "" {
			q.Set(kv[i], kv[i+1])
		}
	}
	return q
}

// send makes one request (escaped is the path under /api/v1, already
// escaped) and returns Gitea's answer when it is 2xx; any other answer is
// read into an *Error. in, when set, is sent as JSON.
func (c *Client) send(ctx context.Context, method, escaped string, q url.Values, in any) (*http.Response, error) {
	u := *c.api
	u.RawPath = u.EscapedPath() + escaped
	p, err := url.PathUnescape(u.RawPath)
	if err != nil {
		return nil, fmt.Errorf("gitea %s %s: %w", method, escaped, err)
	}
	u.Path = p
	u.RawQuery = q.Encode()
	var body io.Reader
	var data []byte
	if in != nil {
		if data, err = json.Marshal(in); err != nil {
			return nil, fmt.Errorf("gitea %s %s: encode: %w", method, u.Path, err)
		}
		body = bytes.NewReader(data)
	}
	req, err := http.NewRequestWithContext(ctx, method, u.String(), body)
	if err != nil {
		return nil, fmt.Errorf("gitea %s %s: %w", method, u.Path, err)
	}
	if in != nil {
		req.Header.Set("Content-Type", "application/json")
		req.GetBody = func() (io.ReadCloser, error) { return io.NopCloser(bytes.NewReader(data)), nil }
	}
	req.Header.Set("Accept", "application/json")
	req.Header.Set("Authorization", "token "+c.token)
	resp, err := c.http.Do(req)
	if err != nil {
		return nil, fmt.Errorf("gitea %s %s: %w", method, u.Path, c.redact(err))
	}
	if resp.StatusCode >= 200 && resp.StatusCode < 300 {
		return resp, nil
	}
	defer resp.Body.Close()
	return nil, &Error{Method: method, Path: u.Path, Status: resp.StatusCode, Message: c.message(resp.Body)}
}

// message reads Gitea's {"message": …} (or the body's start), clipped and
// without the token.
func (c *Client) message(r io.Reader) string {
	b, _ := io.ReadAll(io.LimitReader(r, 1<<16))
	var m struct {
		Message string `json:"message"`
	}
	if json.Unmarshal(b, &m) != nil || m.Message == "" {
		m.Message = string(b)
	}
	return clip.Bytes(strings.ReplaceAll(strings.TrimSpace(m.Message), c.token, "[token]"), 300, "…")
}

// redact keeps the token out of an error the transport returned (a URL
// never carries it, but an error is no place to find out).
func (c *Client) redact(err error) error {
	if !strings.Contains(err.Error(), c.token) {
		return err
	}
	return errors.New(strings.ReplaceAll(err.Error(), c.token, "[token]"))
}

// do sends a request and decodes a JSON answer into out (when set).
func (c *Client) do(ctx context.Context, method, escaped string, q url.Values, in, out any) error {
	resp, err := c.send(ctx, method, escaped, q, in)
	if err != nil {
		return err
	}
	if out == nil {
		defer resp.Body.Close()
		_, _ = io.Copy(io.Discard, io.LimitReader(resp.Body, 1<<16))
		return nil
	}
	return decode(resp, out)
}

// decode reads a JSON answer into out and closes it.
func decode(resp *http.Response, out any) error {
	defer resp.Body.Close()
	if err := json.NewDecoder(resp.Body).Decode(out); err != nil {
		return fmt.Errorf("gitea %s %s: decode the answer: %w", resp.Request.Method, resp.Request.URL.Path, err)
	}
	return nil
}

// list reads every page of a list call (up to MaxPages): page and limit
// asked, the next page while Gitea's Link header names one, or while
// X-Total-Count says more remain.
func list[T any](ctx context.Context, c *Client, escaped string, q url.Values) ([]T, error) {
	if q == nil {
		q = url.Values{}
	}
	var all []T
	for page := 1; page <= c.opts.MaxPages; page++ {
		q.Set("page", itoa(page))
		q.Set("limit", itoa(c.opts.PageSize))
		resp, err := c.send(ctx, http.MethodGet, escaped, q, nil)
		if err != nil {
			return nil, err
		}
		var items []T
		if err := decode(resp, &items); err != nil {
			return nil, err
		}
		all = append(all, items...)
		if !more(resp.Header, len(all), len(items)) {
			break
		}
	}
	return all, nil
}

// more says whether a page is followed by another.
func more(h http.Header, got, onPage int) bool {
	if onPage == 0 {
		return false
	}
	for _, link := range h.Values("Link") {
		for part := range strings.SplitSeq(link, ",") {
			if strings.Contains(part, `rel="next"`) {
				return true
			}
		}
	}
	total, err := strconv.Atoi(h.Get("X-Total-Count"))
	return err == nil && got < total
}
