package statefile

import (
	"bytes"
	"encoding/base64"
	"encoding/json"
	"errors"
	"io"
	"reflect"
)

// UnmarshalJSON decodes the JSON object of a payload into v, rejecting
// unknown fields and anything after the object.
func UnmarshalJSON(data []byte, v any) error {
	dec := json.NewDecoder(bytes.NewReader(data))
	dec.DisallowUnknownFields()
	if err := dec.Decode(v); err != nil {
		return err
	}
	if _, err := dec.Token(); err != io.EOF {
		return errors.New("data after the JSON object")
	}
	return nil
}

// UnmarshalJSONBytes is UnmarshalJSON for an object whose bulk is the field
// key of type []byte (base64, as json.Marshal writes it), which dst points
// to inside v: where that field is at the top level as json.Marshal writes
// it (`,"key":"BASE64"`), its string is decoded by base64 alone, about ten
// times faster than encoding/json scans it, and the fields before it and
// those after it by UnmarshalJSON as two objects; that the fields before it
// make an object of their own proves the field is at the top level. The
// result, and whether there is an error, are UnmarshalJSON's; otherwise v
// is decoded by UnmarshalJSON.
func UnmarshalJSONBytes(data []byte, v any, key string, dst *[]byte) error {
	if unmarshalSplit(data, v, key, dst) {
		return nil
	}
	reflect.ValueOf(v).Elem().SetZero()
	return UnmarshalJSON(data, v)
}

// unmarshalSplit is the fast way of UnmarshalJSONBytes, and reports
// whether it applied; when not, v is in any state.
func unmarshalSplit(data []byte, v any, key string, dst *[]byte) bool {
	field := []byte(`,"` + key + `":"`)
	at := bytes.Index(data, field)
	if at < 0 {
		return false
	}
	start := at + len(field)
	n := bytes.IndexByte(data[start:], '"')
	if n < 0 {
		return false
	}
	// base64 refuses what is not its alphabet, escapes included, but skips
	// the line ends that a JSON string may not hold.
	b64 := data[start : start+n]
	if bytes.IndexByte(b64, '\n') >= 0 || bytes.IndexByte(b64, '\r') >= 0 {
		return false
	}
	raw := make([]byte, base64.StdEncoding.DecodedLen(len(b64)))
	k, err := base64.StdEncoding.Decode(raw, b64)
	if err != nil {
		return false
	}
	// The object before the field has a member; what follows the field's
	// value is the end of the object, or a comma and another member.
	if bytes.Equal(bytes.TrimSpace(data[:at]), []byte("{")) {
		return false
	}
	before := append(data[:at:at], '}')
	rest := bytes.TrimLeft(data[start+n+1:], " \t\r\n")
	var after []byte
	switch {
	case len(rest) > 0 && rest[0] == '}':
		after = append([]byte{'{'}, rest...)
	case len(rest) > 0 && rest[0] == ',' && !bytes.HasPrefix(bytes.TrimLeft(rest[1:], " \t\r\n"), []byte("}")):
		after = append([]byte{'{'}, rest[1:]...)
	default:
		return false
	}
	if UnmarshalJSON(before, v) != nil {
		return false
	}
	*dst = raw[:k] // before the fields after it, as a repeated field replaces it
	return UnmarshalJSON(after, v) == nil
}

// MarshalJSONBytes returns what json.Marshal(v) returns with the []byte
// field key of v, which field points to, holding data, and leaves the
// field nil: the object is marshalled with the field nil, and data's
// base64 put in place of its null, where that null is at the top level (the
// fields before it make an object of their own). For large data it
// writes each byte once, where json.Marshal copies its base64 more than
// once.
func MarshalJSONBytes(v any, key string, field *[]byte, data []byte) ([]byte, error) {
	*field = nil
	js, err := json.Marshal(v)
	if err != nil || data == nil {
		return js, err
	}
	null := []byte(`,"` + key + `":null`)
	at := bytes.Index(js, null)
	if at < 0 || !json.Valid(append(js[:at:at], '}')) {
		*field = data
		defer func() { *field = nil }()
		return json.Marshal(v)
	}
	end := at + len(null)
	out := make([]byte, 0, len(js)+base64.StdEncoding.EncodedLen(len(data)))
	out = append(out, js[:end-len("null")]...)
	out = append(out, '"')
	out = base64.StdEncoding.AppendEncode(out, data)
	out = append(out, '"')
	return append(out, js[end:]...), nil
}
