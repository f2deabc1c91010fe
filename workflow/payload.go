package workflow

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
)

// PayloadVersion is the version of the job payloads this release writes:
// every job's args carry it as "v". A payload without "v" was written
// before payloads had versions and reads as version 1 (the same fields).
// Raise it when a payload changes in a way an older release would misread,
// and keep decoding the older versions. Version 2: an intake job's event
// may carry CheckWrite, which version 1's releases would skip.
const PayloadVersion = 2

// ErrNewerPayload is the decode error of a job queued by a newer release
// (a payload version above PayloadVersion): the job fails with it rather
// than run on fields this release would misread.
var ErrNewerPayload = errors.New("job payload written by a newer issuesmith")

// encodePayload is plain's JSON with "v":PayloadVersion first. plain is a
// job's args as a type without the MarshalJSON method (no recursion).
func encodePayload(kind string, plain any) ([]byte, error) {
	b, err := json.Marshal(plain)
	if err != nil {
		return nil, fmt.Errorf("encode %s job payload: %w", kind, err)
	}
	if len(b) < 2 || b[0] != '{' {
		return nil, fmt.Errorf("encode %s job payload: not a JSON object", kind)
	}
	head := fmt.Sprintf(`{"v":%d`, PayloadVersion)
	if bytes.Equal(b, []byte("{}")) {
		return []byte(head + "}"), nil
	}
	return append([]byte(head+","), b[1:]...), nil
}

// decodePayload checks b's version and decodes it into plain (a pointer
// to the job's args as a type without the UnmarshalJSON method).
func decodePayload(kind string, b []byte, plain any) error {
	var h struct {
		V *int `json:"v"`
	}
	if err := json.Unmarshal(b, &h); err != nil {
		return fmt.Errorf("decode %s job payload: %w", kind, err)
	}
	switch {
	case h.V == nil: // written before payloads had versions
	case *h.V > PayloadVersion:
		return fmt.Errorf("decode %s job payload: version %d, but this release reads up to %d "+
			"(the job was queued by a newer release; run that release to work it): %w", kind, *h.V, PayloadVersion, ErrNewerPayload)
	case *h.V < 1:
		return fmt.Errorf("decode %s job payload: invalid version %d", kind, *h.V)
	}
	if err := json.Unmarshal(b, plain); err != nil {
		return fmt.Errorf("decode %s job payload: %w", kind, err)
	}
	return nil
}

// Each job kind's payload is its args' JSON with the version (encodePayload)
// and is decoded through decodePayload.

// MarshalJSON writes the versioned payload.
func (a StageArgs) MarshalJSON() ([]byte, error) {
	type plain StageArgs
	return encodePayload(a.Kind(), plain(a))
}

// UnmarshalJSON reads a payload of this or an older release.
func (a *StageArgs) UnmarshalJSON(b []byte) error {
	type plain StageArgs
	return decodePayload(a.Kind(), b, (*plain)(a))
}

// MarshalJSON writes the versioned payload.
func (a LabelArgs) MarshalJSON() ([]byte, error) {
	type plain LabelArgs
	return encodePayload(a.Kind(), plain(a))
}

// UnmarshalJSON reads a payload of this or an older release.
func (a *LabelArgs) UnmarshalJSON(b []byte) error {
	type plain LabelArgs
	return decodePayload(a.Kind(), b, (*plain)(a))
}

// MarshalJSON writes the versioned payload.
func (a IntakeArgs) MarshalJSON() ([]byte, error) {
	type plain IntakeArgs
	return encodePayload(a.Kind(), plain(a))
}

// UnmarshalJSON reads a payload of this or an older release.
func (a *IntakeArgs) UnmarshalJSON(b []byte) error {
	type plain IntakeArgs
	return decodePayload(a.Kind(), b, (*plain)(a))
}

// MarshalJSON writes the versioned payload.
func (a RefreshArgs) MarshalJSON() ([]byte, error) {
	type plain RefreshArgs
	return encodePayload(a.Kind(), plain(a))
}

// UnmarshalJSON reads a payload of this or an older release.
func (a *RefreshArgs) UnmarshalJSON(b []byte) error {
	type plain RefreshArgs
	return decodePayload(a.Kind(), b, (*plain)(a))
}

// MarshalJSON writes the versioned payload.
func (a ProgressArgs) MarshalJSON() ([]byte, error) {
	type plain ProgressArgs
	return encodePayload(a.Kind(), plain(a))
}

// UnmarshalJSON reads a payload of this or an older release.
func (a *ProgressArgs) UnmarshalJSON(b []byte) error {
	type plain ProgressArgs
	return decodePayload(a.Kind(), b, (*plain)(a))
}

// MarshalJSON writes the versioned payload.
func (a IdleStopArgs) MarshalJSON() ([]byte, error) {
	type plain IdleStopArgs
	return encodePayload(a.Kind(), plain(a))
}

// UnmarshalJSON reads a payload of this or an older release.
func (a *IdleStopArgs) UnmarshalJSON(b []byte) error {
	type plain IdleStopArgs
	return decodePayload(a.Kind(), b, (*plain)(a))
}

// MarshalJSON writes the versioned payload.
func (a RefreshAllArgs) MarshalJSON() ([]byte, error) {
	type plain RefreshAllArgs
	return encodePayload(a.Kind(), plain(a))
}

// UnmarshalJSON reads a payload of this or an older release.
func (a *RefreshAllArgs) UnmarshalJSON(b []byte) error {
	type plain RefreshAllArgs
	return decodePayload(a.Kind(), b, (*plain)(a))
}

// MarshalJSON writes the versioned payload.
func (a OrphanArgs) MarshalJSON() ([]byte, error) {
	type plain OrphanArgs
	return encodePayload(a.Kind(), plain(a))
}

// UnmarshalJSON reads a payload of this or an older release.
func (a *OrphanArgs) UnmarshalJSON(b []byte) error {
	type plain OrphanArgs
	return decodePayload(a.Kind(), b, (*plain)(a))
}

// MarshalJSON writes the versioned payload.
func (a RedeliverArgs) MarshalJSON() ([]byte, error) {
	type plain RedeliverArgs
	return encodePayload(a.Kind(), plain(a))
}

// UnmarshalJSON reads a payload of this or an older release.
func (a *RedeliverArgs) UnmarshalJSON(b []byte) error {
	type plain RedeliverArgs
	return decodePayload(a.Kind(), b, (*plain)(a))
}

// MarshalJSON writes the versioned payload.
func (a PruneArgs) MarshalJSON() ([]byte, error) {
	type plain PruneArgs
	return encodePayload(a.Kind(), plain(a))
}

// UnmarshalJSON reads a payload of this or an older release.
func (a *PruneArgs) UnmarshalJSON(b []byte) error {
	type plain PruneArgs
	return decodePayload(a.Kind(), b, (*plain)(a))
}
