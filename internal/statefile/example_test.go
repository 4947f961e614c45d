package statefile_test

import (
	"errors"
	"fmt"

	"github.com/hees-dev/hees/internal/statefile"
)

func Example() {
	data, err := statefile.Encode("notes/v1", []byte("generation 12"))
	if err != nil {
		panic(err)
	}
	payload, err := statefile.DecodeKind(data, "notes/v1")
	fmt.Printf("%s %v\n", payload, err)

	_, err = statefile.DecodeKind(data[:len(data)-1], "notes/v1")
	fmt.Println(errors.Is(err, statefile.ErrTruncated), err)

	data[len(data)-6] ^= 1 // flip a bit of the payload
	_, err = statefile.DecodeKind(data, "notes/v1")
	fmt.Println(errors.Is(err, statefile.ErrCorrupt))

	_, err = statefile.DecodeKind([]byte("x = 1\n"), "notes/v1")
	fmt.Println(err)
	// Output:
	// generation 12 <nil>
	// true statefile: truncated: 43 bytes, the header announces 13 bytes of payload and a 4-byte checksum
	// true
	// statefile: not a hees state file (it does not start with the state file signature)
}
