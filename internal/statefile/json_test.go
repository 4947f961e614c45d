package statefile

import (
	"encoding/json"
	"reflect"
	"testing"
)

// bulky is an object shaped like the ones UnmarshalJSONBytes is for: fields
// before and after the bytes, one of arbitrary JSON, maps and slices.
type bulky struct {
	ID    string            `json:"id"`
	Inner struct{ A []int } `json:"inner"`
	Raw   json.RawMessage   `json:"raw,omitempty"`
	Rows  int               `json:"rows"`
	X     []byte            `json:"x"`
	Names []string          `json:"names,omitempty"`
	Map   map[int]string    `json:"map,omitempty"`
}

// TestUnmarshalJSONBytes decodes an object as json.Marshal writes it, the
// same with its bytes field at the end, and objects that the fast way must
// leave to UnmarshalJSON: each gives UnmarshalJSON's result.
func TestUnmarshalJSONBytes(t *testing.T) {
	b := bulky{ID: "a", Raw: json.RawMessage(`{"x":"AAAA","y":[1]}`), Rows: 2, X: []byte{1, 2, 3, 250}, Names: []string{"p"}, Map: map[int]string{1: "q"}}
	b.Inner.A = []int{4}
	js, err := json.Marshal(&b)
	if err != nil {
		t.Fatal(err)
	}
	for _, data := range []string{
		string(js),
		`{"id":"a","x":"AQID"}`,
		`{"id":"a","x":"AQID","x":"BA=="}`,
		`{"id":"a","x":"AQID" }`,
		`{"id":"a","x":"AQ\u003d\u003d"}`,
		`{"id":"a","x":"AQ==",}`,
		`{"id":"a","x":"AQ==","rows":1} {}`,
		`{,"x":"AQ=="}`,
		`{"id":"a","x":"A"}`,
	} {
		var got, want bulky
		gotErr := UnmarshalJSONBytes([]byte(data), &got, "x", &got.X)
		wantErr := UnmarshalJSON([]byte(data), &want)
		if (gotErr == nil) != (wantErr == nil) || !reflect.DeepEqual(got, want) && wantErr == nil {
			t.Errorf("%s: got %+v, %v; want %+v, %v", data, got, gotErr, want, wantErr)
		}
	}
	var got bulky
	if !unmarshalSplit(js, &got, "x", &got.X) || !reflect.DeepEqual(got, b) {
		t.Errorf("json.Marshal's form did not take the fast way, or gave %+v", got)
	}
}

// FuzzUnmarshalSplit decodes arbitrary bytes: wherever the fast way of
// UnmarshalJSONBytes applies, UnmarshalJSON must accept them too and give
// the same value.
func FuzzUnmarshalSplit(f *testing.F) {
	f.Add([]byte(`{"id":"a","inner":{"A":[1]},"raw":{"x":"AAAA"},"rows":2,"x":"AQID","names":["p"],"map":{"1":"q"}}`))
	f.Add([]byte(`{"id":"a","x":"AQID","x":"BA==","rows":1}`))
	f.Add([]byte(`{"raw":{"a":[{"b":1,"x":"AAAA"}]},"x":"AQ=="}`))
	f.Add([]byte(`{ ,"x":"AQ=="}`))
	f.Add([]byte("{\"rows\":1,\"x\":\"AQ\n==\"}"))
	f.Add([]byte(`{"rows":1,"x":"AQ==","rows":2,}`))
	f.Add([]byte(`{"rows":1,"x":"AQ==" "rows":2}`))
	f.Add([]byte(`{"rows":1,"x":"AQ\u003d\u003d"}`))
	f.Fuzz(func(t *testing.T, data []byte) {
		var fast bulky
		if !unmarshalSplit(data, &fast, "x", &fast.X) {
			return
		}
		var want bulky
		if err := UnmarshalJSON(data, &want); err != nil {
			t.Fatalf("the fast way accepted %q, which UnmarshalJSON refuses: %v", data, err)
		}
		if !reflect.DeepEqual(fast, want) {
			t.Fatalf("the fast way gives %+v for %q, UnmarshalJSON %+v", fast, data, want)
		}
	})
}

// TestMarshalJSONBytes gives what json.Marshal gives, for bytes that are
// nil, empty and not, and for an object whose arbitrary JSON before the
// field holds the same key with null.
func TestMarshalJSONBytes(t *testing.T) {
	for _, data := range [][]byte{nil, {}, {1, 2, 3, 250}, make([]byte, 1000)} {
		for _, raw := range []string{"", `{"a":{"b":1,"x":null}}`} {
			b := bulky{ID: "a", Rows: 2, Names: []string{"p"}}
			if raw != "" {
				b.Raw = json.RawMessage(raw)
			}
			got, err := MarshalJSONBytes(&b, "x", &b.X, data)
			if err != nil || b.X != nil {
				t.Fatalf("MarshalJSONBytes: %v, field left %v", err, b.X)
			}
			b.X = data
			want, err := json.Marshal(&b)
			if err != nil {
				t.Fatal(err)
			}
			if string(got) != string(want) {
				t.Errorf("MarshalJSONBytes = %s, json.Marshal %s", got, want)
			}
		}
	}
}
