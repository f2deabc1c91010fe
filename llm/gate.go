package llm

import (
	"context"
	"errors"
)

// ErrSpendLimit marks a call a Gate refused: a spending limit would be
// passed by it. Nothing was sent to the model.
var ErrSpendLimit = errors.New("spending limit reached")

// DefaultWorstCompletion is the completion a call is assumed to be able to
// reach when neither the request nor the role's settings cap it.
const DefaultWorstCompletion = 32_768

// Gate is asked before every model call whether its worst case still fits
// the spending limits, and told what the call really used. Config.Gate
// puts one in front of a Client; package budget implements it.
type Gate interface {
	// Admit returns an error wrapping ErrSpendLimit when the call must not
	// be made, else the Charge to report its usage with, exactly once.
	Admit(ctx context.Context, c Call) (Charge, error)
}

// Call is a model call as a Gate sees it before it is made.
type Call struct {
	Role  Role
	Model string
	// Worst is the call's worst case: its prompt counted locally and its
	// maximum completion.
	Worst Usage
	// WorstCost is Worst priced with the model's price (0 without one).
	WorstCost float64
	// Priced is false when the model has no configured price: cost limits
	// cannot hold for it.
	Priced bool
}

// Spent is what an admitted call used: zero for a call that failed.
type Spent struct {
	Usage Usage
	Cost  float64
	// Estimated is true when the server reported no usage and Usage is
	// the local count.
	Estimated bool
}

// Charge reports an admitted call's usage.
type Charge func(ctx context.Context, s Spent)

// admit asks the configured Gate about the call req would make.
func (c *Client) admit(ctx context.Context, r resolved, req Request) (Charge, error) {
	if c.cfg.Gate == nil {
		return func(context.Context, Spent) {}, nil
	}
	completion := req.MaxTokens
	if completion == 0 {
		completion = r.maxTokens
	}
	if completion == 0 {
		completion = DefaultWorstCompletion
	}
	worst := Usage{PromptTokens: c.tokens.Messages(req.Messages) + c.countSpecs(req.Tools), CompletionTokens: completion}
	_, priced := c.cfg.Prices[r.model]
	return c.cfg.Gate.Admit(ctx, Call{Role: req.Role, Model: r.model, Worst: worst, WorstCost: r.price.Cost(worst), Priced: priced})
}
