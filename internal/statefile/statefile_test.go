package statefile

import (
	"bytes"
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/hees-dev/hees/internal/boundedfile"
)

// sample is a valid file used by several tests.
func sample(t testing.TB) []byte {
	t.Helper()
	data, err := Encode("ask-tell/v1", []byte(`{"dim":3}`))
	if err != nil {
		t.Fatal(err)
	}
	return data
}

func TestRoundTrip(t *testing.T) {
	for _, c := range []struct {
		kind    string
		payload []byte
	}{
		{"k", nil},
		{"ask-tell/v1", []byte("payload")},
		{strings.Repeat("x", MaxKind), bytes.Repeat([]byte{0, 0xff}, 5000)},
	} {
		data, err := Encode(c.kind, c.payload)
		if err != nil {
			t.Fatalf("Encode(%q): %v", c.kind, err)
		}
		kind, payload, err := Decode(data)
		if err != nil {
			t.Fatalf("Decode(Encode(%q)): %v", c.kind, err)
		}
		if kind != c.kind || !bytes.Equal(payload, c.payload) {
			t.Errorf("Decode(Encode(%q, %d bytes)) = %q, %d bytes", c.kind, len(c.payload), kind, len(payload))
		}
	}
}

// TestLayout pins the bytes of a small file, so that a change of the format
// cannot go unnoticed (files written by earlier builds must stay readable).
func TestLayout(t *testing.T) {
	data, err := Encode("ab", []byte("xyz"))
	if err != nil {
		t.Fatal(err)
	}
	want := []byte("\x89HEES\r\n\x1a" + "\x01\x00" + "\x02ab" + "\x03\x00\x00\x00\x00\x00\x00\x00" + "xyz")
	if !bytes.Equal(data[:len(data)-4], want) {
		t.Fatalf("Encode = %q, want %q followed by the checksum", data, want)
	}
	// CRC-32C of want, computed independently with the bitwise definition
	// (reflected polynomial 0x82F63B78).
	crc := ^uint32(0)
	for _, b := range want {
		crc ^= uint32(b)
		for range 8 {
			if crc&1 != 0 {
				crc = crc>>1 ^ 0x82F63B78
			} else {
				crc >>= 1
			}
		}
	}
	crc = ^crc
	got := uint32(data[len(data)-4]) | uint32(data[len(data)-3])<<8 | uint32(data[len(data)-2])<<16 | uint32(data[len(data)-1])<<24
	if got != crc {
		t.Errorf("checksum %08x, want CRC-32C %08x", got, crc)
	}
}

func TestEncodeRejectsBadKinds(t *testing.T) {
	for _, kind := range []string{"", "two words", "tab\t", "é", "nul\x00", strings.Repeat("x", MaxKind+1)} {
		if _, err := Encode(kind, nil); err == nil {
			t.Errorf("Encode(%q) succeeded, want an error", kind)
		}
	}
}

// TestTruncated checks that every proper prefix of a file is reported as
// truncated.
func TestTruncated(t *testing.T) {
	data := sample(t)
	for n := range len(data) {
		_, _, err := Decode(data[:n])
		if !errors.Is(err, ErrTruncated) {
			t.Errorf("Decode of the first %d of %d bytes: %v, want ErrTruncated", n, len(data), err)
		}
	}
}

// TestEveryBitFlip checks that no single-bit change of a file decodes, and
// that each is reported with the cause that matches where it is.
func TestEveryBitFlip(t *testing.T) {
	data := sample(t)
	versionAt := len(magic)
	for i := range data {
		for bit := range 8 {
			bad := bytes.Clone(data)
			bad[i] ^= 1 << bit
			_, _, err := Decode(bad)
			var want error
			switch {
			case i < versionAt:
				want = ErrForeign
			case i < versionAt+versionSize:
				want = ErrVersion
			}
			switch {
			case err == nil:
				t.Fatalf("byte %d bit %d flipped: Decode succeeded", i, bit)
			case want != nil && !errors.Is(err, want):
				t.Errorf("byte %d bit %d flipped: %v, want %v", i, bit, err, want)
			case want == nil && !errors.Is(err, ErrCorrupt) && !errors.Is(err, ErrTruncated):
				t.Errorf("byte %d bit %d flipped: %v, want ErrCorrupt or ErrTruncated", i, bit, err)
			}
		}
	}
}

func TestDecodeErrors(t *testing.T) {
	data := sample(t)
	for _, c := range []struct {
		name string
		data []byte
		want error
		text string
	}{
		{"zip", []byte("PK\x03\x04\x14\x00\x00\x00\x08\x00"), ErrForeign, "not a hees state file"},
		{"text", []byte("g0-1 1.5\n"), ErrForeign, "not a hees state file"},
		{"empty", nil, ErrTruncated, "0 bytes"},
		{"trailing", append(bytes.Clone(data), 0), ErrCorrupt, "1 unexpected bytes after the checksum"},
		{"future", append([]byte(magic+"\x02\x00"), data[len(magic)+2:]...), ErrVersion, "version 2 (this build reads version 1)"},
		{"huge length", func() []byte {
			b := bytes.Clone(data)
			at := headerSize + len("ask-tell/v1")
			for i := range lengthSize {
				b[at+i] = 0xff
			}
			return b
		}(), ErrTruncated, "18446744073709551615 bytes of payload"},
	} {
		_, _, err := Decode(c.data)
		if !errors.Is(err, c.want) || !strings.Contains(err.Error(), c.text) {
			t.Errorf("%s: Decode error %v, want %v saying %q", c.name, err, c.want, c.text)
		}
	}
}

func TestDecodeKind(t *testing.T) {
	data := sample(t)
	if p, err := DecodeKind(data, "ask-tell/v1"); err != nil || string(p) != `{"dim":3}` {
		t.Errorf("DecodeKind = %q, %v", p, err)
	}
	_, err := DecodeKind(data, "checkpoint/v1")
	if !errors.Is(err, ErrKind) || !strings.Contains(err.Error(), `holds "ask-tell/v1", want "checkpoint/v1"`) {
		t.Errorf("DecodeKind of another kind: %v", err)
	}
}

func TestFiles(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "run.hees")
	if err := WriteFile(path, "ask-tell/v1", []byte("one"), 0o600); err != nil {
		t.Fatal(err)
	}
	if err := WriteFile(path, "ask-tell/v1", []byte("two"), 0o600); err != nil {
		t.Fatal(err)
	}
	if p, err := ReadFile(path, "ask-tell/v1"); err != nil || string(p) != "two" {
		t.Errorf("ReadFile = %q, %v, want \"two\"", p, err)
	}
	if err := WriteFile(path, "", nil, 0o600); err == nil {
		t.Error("WriteFile with an empty kind succeeded")
	}
	if _, err := ReadFile(filepath.Join(dir, "missing"), "ask-tell/v1"); !errors.Is(err, fs.ErrNotExist) {
		t.Errorf("ReadFile of a missing file: %v, want fs.ErrNotExist", err)
	}
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(path, data[:len(data)-1], 0o600); err != nil {
		t.Fatal(err)
	}
	_, err = ReadFile(path, "ask-tell/v1")
	if !errors.Is(err, ErrTruncated) || !strings.HasPrefix(err.Error(), path+": ") {
		t.Errorf("ReadFile of a truncated file: %v, want ErrTruncated naming the path", err)
	}
	// A directory, and on Unix an endless device, is refused before it is
	// read.
	for _, p := range []string{dir, "/dev/zero"} {
		if _, err := os.Stat(p); err != nil {
			continue // no /dev/zero here
		}
		if _, err := ReadFile(p, "ask-tell/v1"); !errors.Is(err, boundedfile.ErrNotRegular) {
			t.Errorf("ReadFile(%s): %v, want boundedfile.ErrNotRegular", p, err)
		}
	}
}

// FuzzDecode checks that Decode never panics, that every error has one of
// the documented causes, and that whatever decodes is the canonical encoding
// of its kind and payload.
func FuzzDecode(f *testing.F) {
	f.Add(sample(f))
	for _, s := range []string{"", magic, magic + "\x01\x00\x00", "PK\x03\x04"} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		kind, payload, err := Decode(data)
		if err != nil {
			for _, cause := range []error{ErrForeign, ErrTruncated, ErrCorrupt, ErrVersion} {
				if errors.Is(err, cause) {
					return
				}
			}
			t.Fatalf("Decode error %v has none of the documented causes", err)
		}
		again, err := Encode(kind, payload)
		if err != nil {
			t.Fatalf("Decode gave kind %q, which Encode rejects: %v", kind, err)
		}
		if !bytes.Equal(again, data) {
			t.Fatalf("Encode(Decode(data)) differs from data")
		}
	})
}
