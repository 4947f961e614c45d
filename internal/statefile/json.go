package statefile

import (
	"bytes"
	"encoding/json"
	"errors"
	"io"
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
