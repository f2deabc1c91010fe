package ghapp

import (
	"github.com/google/go-github/v60/github"
)

// Client acts as one installation of the App. Its methods take the context
// first and return ErrNotFound (wrapped) for anything that does not exist.
// It is safe for concurrent use.
type Client struct {
	gh           *github.Client
	installation int64
	app          *App
}

// GitHub returns the underlying go-github client for calls this package
// does not wrap. It shares the rate-limit aware transport.
func (c *Client) GitHub() *github.Client { return c.gh }

// Installation returns the installation id the client acts as.
func (c *Client) Installation() int64 { return c.installation }
