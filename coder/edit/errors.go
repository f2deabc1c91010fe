package edit

import "errors"

// ErrNoEdits is returned by Parse when the text holds no edit block at all.
// Apply reports it as Report.Problem instead: the model can fix it.
var ErrNoEdits = errors.New("no edit blocks found")
