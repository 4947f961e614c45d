package runspec

import (
	"encoding/json"
	"errors"
	"strings"
	"testing"

	"github.com/hees-dev/hees/es"
)

// TestDecodeOldFields reads the run settings as checkpoints of kind
// checkpoint/v1 and ask/tell state files of kind ask-tell/v2 wrote them,
// the failure policy in every spelling those files used.
func TestDecodeOldFields(t *testing.T) {
	for _, c := range []struct {
		json string
		want es.OnError
	}{
		{`{"algo":"hees","restarts":"none","seed":3,"problem":"rosenbrock","dim":4,"max_evals":3000,"target":1e-8,"workers":1,"max_time":0,"eval_timeout":0,"trace_every":1}`, es.OnErrorStop},
		{`{"algo":"hees2","restarts":"ipop","seed":7,"command":"./sim","dim":4,"max_evals":0,"target":null,"workers":2,"max_time":25000000,"eval_timeout":0,"trace_every":3,"on_error":"worst","retries":2,"dir":"/tmp/x"}`, es.OnErrorWorst},
		{`{"algo":"cmaes","restarts":"bipop","seed":1,"max_evals":300,"target":0.001,"retries":3,"on_error":"stop"}`, es.OnErrorStop},
		{`{"algo":"hees","restarts":"none","seed":1,"max_evals":0,"target":null,"retries":0,"on_error":"nan"}`, es.OnErrorWorst},
	} {
		s, err := Decode([]byte(c.json))
		if err != nil {
			t.Errorf("%s: %v", c.json, err)
			continue
		}
		if s.OnError != c.want {
			t.Errorf("%s: on_error %q, want %q", c.json, s.OnError, c.want)
		}
		// Written again, it reads back the same.
		data, err := json.Marshal(s)
		if err != nil {
			t.Fatal(err)
		}
		again, err := Decode(data)
		if err != nil || again.OnError != s.OnError || again.Seed != s.Seed || again.Algo != s.Algo {
			t.Errorf("%s: round trip %s: %+v, %v", c.json, data, again, err)
		}
	}
}

// TestDecodeHostile feeds Decode what a damaged or crafted file may hold:
// each is an error naming what is wrong, never a default.
func TestDecodeHostile(t *testing.T) {
	const ok = `"algo":"hees","restarts":"none","seed":1,"max_evals":10,"target":null`
	for _, c := range []struct{ json, want string }{
		{``, "not a run spec"},
		{`null`, "unknown algorithm"},
		{`[]`, "not a run spec"},
		{`{` + ok + `}{}`, "data after"},
		{`{` + ok + `} x`, "not a run spec"},
		{`{` + ok + `,"bogus":1}`, "unknown field"},
		{`{"algo":"nope","restarts":"none","seed":1,"max_evals":1,"target":null}`, "unknown algorithm"},
		{`{"algo":"hees","restarts":"sometimes","seed":1,"max_evals":1,"target":null}`, "restart"},
		{`{` + ok + `,"on_error":"ignore"}`, "want stop or nan"},
		{`{` + ok + `,"on_error":5}`, "not a run spec"},
		{`{` + ok + `,"retries":1001}`, "retries 1001"},
		{`{` + ok + `,"retries":-1}`, "retries -1"},
		{`{` + ok + `,"lost_leases":100000}`, "lost_leases"},
		{`{"algo":"hees","restarts":"none","seed":-1,"max_evals":1,"target":null}`, "not a run spec"},
		{`{"algo":"hees","restarts":"none","seed":1,"max_evals":-5,"target":null}`, "out of range"},
		{`{"algo":"hees","restarts":"none","seed":1,"max_evals":1e99,"target":null}`, "not a run spec"},
		{`{"algo":"hees","restarts":"none","seed":1,"max_evals":1,"target":1e999}`, "not a run spec"},
		{`{"algo":"hees","restarts":"none","seed":1,"max_evals":1,"target":"NaN"}`, "not a run spec"},
		{`{` + ok + `,"workers":100000000}`, "out of range"},
		{`{` + ok + `,"max_time":-1}`, "out of range"},
		{`{` + ok + `,"dir":"relative/dir"}`, "absolute"},
		{`{` + ok + `,"seed":2}`, ""}, // a repeated key: encoding/json keeps the last
		{strings.Repeat("[", 100000), "not a run spec"},
	} {
		_, err := Decode([]byte(c.json))
		switch {
		case c.want == "" && err != nil:
			t.Errorf("%.60s: %v", c.json, err)
		case c.want != "" && (err == nil || !strings.Contains(err.Error(), c.want)):
			t.Errorf("%.60s: error %v, want one saying %q", c.json, err, c.want)
		}
	}
	if _, err := Decode([]byte(`{`)); !errors.Is(err, ErrSyntax) {
		t.Errorf("a cut object: %v, want ErrSyntax", err)
	}
}

// TestPaths resolves the trace and log against Dir.
func TestPaths(t *testing.T) {
	s := Spec{Trace: "t.csv", Log: "/abs/log.csv", Dir: "/run"}
	if s.TracePath() != "/run/t.csv" || s.LogPath() != "/abs/log.csv" {
		t.Errorf("TracePath %q, LogPath %q", s.TracePath(), s.LogPath())
	}
	s.Dir = ""
	if s.TracePath() != "t.csv" {
		t.Errorf("TracePath without Dir %q", s.TracePath())
	}
}
