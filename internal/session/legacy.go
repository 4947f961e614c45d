package session

import (
	"fmt"

	"github.com/hees-dev/hees/es"
	"github.com/hees-dev/hees/internal/runspec"
	"github.com/hees-dev/hees/internal/statefile"
)

// kindV2 is the kind of an ask/tell state file of version 2: one file that
// every operation rewrote whole, with the current generation's told
// values, leases and failed attempts in it.
const kindV2 = "ask-tell/v2"

// DefaultLostLeases is the default of hees init -lost-leases, and the
// limit given to a run of a state file of version 2, which counted an
// expired lease as a failed attempt.
const DefaultLostLeases = 10

// fileV2 is the payload of a state file of version 2.
type fileV2 struct {
	RunID     string         `json:"run_id"`
	Algo      string         `json:"algo"`
	Restarts  string         `json:"restarts"`
	Seed      uint64         `json:"seed"`
	MaxEvals  int            `json:"max_evals"`
	Target    *float64       `json:"target"`
	Retries   int            `json:"retries"`
	OnError   es.OnError     `json:"on_error"` // "stop" or "nan"
	Strategy  []byte         `json:"strategy"`
	Inject    [][]float64    `json:"inject,omitempty"`
	Told      map[int]string `json:"told"`
	Leases    map[int]int64  `json:"leases,omitempty"`
	Failures  map[int]int    `json:"failures,omitempty"`
	Past      []Past         `json:"past,omitempty"`
	Stop      es.Reason      `json:"stop"`
	Abandoned int            `json:"abandoned,omitempty"`
}

// parseV2 reads the payload of a state file of version 2 as a Session of
// epoch 1, whose batch holds the told values, leases (of an unnamed
// holder) and failed attempts of the file.
func parseV2(payload []byte) (*Session, error) {
	var old fileV2
	if err := statefile.UnmarshalJSON(payload, &old); err != nil {
		return nil, fmt.Errorf("bad ask/tell state (version 2): %v", err)
	}
	ss := &Session{File: File{RunID: old.RunID, Lock: LockFlock, Epoch: 1, Strategy: old.Strategy, Inject: old.Inject,
		Past: old.Past, Stop: old.Stop, Abandoned: old.Abandoned,
		Spec: runspec.Spec{Algo: old.Algo, Restarts: old.Restarts, Seed: old.Seed, MaxEvals: old.MaxEvals, Target: old.Target,
			Retries: old.Retries, OnError: old.OnError, LostLeases: DefaultLostLeases}}, v2: true}
	if err := ss.restore(); err != nil {
		return nil, fmt.Errorf("bad ask/tell state (version 2): %v", err)
	}
	h := ss.View.Header
	h.Told = old.Told
	h.Leases = map[int]Lease{}
	for row, until := range old.Leases {
		h.Leases[row] = Lease{Until: until}
	}
	h.Attempts = map[int]Attempts{}
	for row, n := range old.Failures {
		h.Attempts[row] = Attempts{Failed: n, Why: "failed (recorded by a version 2 state file)"}
	}
	b, err := h.initial()
	if err != nil {
		return nil, fmt.Errorf("bad ask/tell state (version 2): %v", err)
	}
	ss.setView(&View{Header: h, b: b, x: ss.View.x})
	return ss, nil
}

// migratedHeader is the header of the journal of a session read from a state
// file of version 2: the header of its snapshot snap, with the batch the
// file had.
func (ss *Session) migratedHeader(snap []byte) Header {
	h := ss.header(snap)
	h.Told, h.Leases, h.Attempts = map[int]string{}, map[int]Lease{}, map[int]Attempts{}
	for row, v := range ss.b.told {
		h.Told[row] = formatValue(v)
	}
	for row, l := range ss.b.leases {
		h.Leases[row] = l
	}
	for row, a := range ss.b.attempts {
		h.Attempts[row] = a
	}
	return h
}
