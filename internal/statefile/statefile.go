// Package statefile is the container of the files in which the command line
// keeps an optimisation between two invocations: the ask/tell state file of
// `hees init/ask/tell/status` and the checkpoints
// of `hees run -checkpoint` (RELIABILITY.md, Saved state).
//
// # Format
//
// A file is
//
//	magic    8 bytes  0x89 'H' 'E' 'E' 'S' '\r' '\n' 0x1a
//	version  2 bytes  format version, little endian (currently 1)
//	kind     1 byte   length n (1 … 255), then n bytes of printable ASCII
//	payload  8 bytes  length m, little endian, then m bytes
//	checksum 4 bytes  CRC-32C (Castagnoli) of everything before it, little endian
//
// The magic's first byte has the high bit set and its \r\n catches a
// transfer that rewrote line endings, as in PNG's signature. The kind names
// what the payload is (such as "ask-tell/v2"), so a file of another kind is
// refused before its payload is read.
//
// # Errors
//
// Decode never panics, and tells the causes apart: a file that is not a state
// file at all (ErrForeign), one that ends early (ErrTruncated), one whose
// checksum does not match or that has bytes after its checksum (ErrCorrupt),
// one written by another version of the format (ErrVersion), and one of
// another kind (ErrKind). Each error wraps one of these, to be tested with
// errors.Is, and its message says what was found.
package statefile

import (
	"encoding/binary"
	"errors"
	"fmt"
	"hash/crc32"
	"os"

	"github.com/hees-dev/hees/internal/atomicfile"
	"github.com/hees-dev/hees/internal/boundedfile"
)

// Version is the format version that Encode writes and Decode reads.
const Version = 1

// magic opens every state file.
const magic = "\x89HEES\r\n\x1a"

// MaxKind is the longest kind string.
const MaxKind = 255

// Sizes of the fixed parts of the format.
const (
	versionSize  = 2
	lengthSize   = 8
	checksumSize = 4
	// headerSize is everything before the kind's bytes.
	headerSize = len(magic) + versionSize + 1
)

// castagnoli is the CRC-32C table; CRC-32C has hardware support on amd64 and
// arm64 and better error detection than IEEE for the same cost.
var castagnoli = crc32.MakeTable(crc32.Castagnoli)

// The causes of a Decode error.
var (
	// ErrForeign: the data does not start with the state file magic.
	ErrForeign = errors.New("not a hees state file")
	// ErrTruncated: the data ends before the end its header announces.
	ErrTruncated = errors.New("truncated")
	// ErrCorrupt: the checksum does not match, or bytes follow it.
	ErrCorrupt = errors.New("corrupt")
	// ErrVersion: the format version is not the one this build reads.
	ErrVersion = errors.New("unsupported format version")
	// ErrKind: the file holds another kind of payload than the one asked
	// for.
	ErrKind = errors.New("wrong kind")
)

// Encode returns the state file holding payload under kind. kind must be 1
// to MaxKind bytes of printable ASCII (0x21 … 0x7e).
func Encode(kind string, payload []byte) ([]byte, error) {
	if err := checkKind(kind); err != nil {
		return nil, err
	}
	b := make([]byte, 0, headerSize+len(kind)+lengthSize+len(payload)+checksumSize)
	b = append(b, magic...)
	b = binary.LittleEndian.AppendUint16(b, Version)
	b = append(b, byte(len(kind)))
	b = append(b, kind...)
	b = binary.LittleEndian.AppendUint64(b, uint64(len(payload)))
	b = append(b, payload...)
	return binary.LittleEndian.AppendUint32(b, crc32.Checksum(b, castagnoli)), nil
}

// checkKind reports a kind string that Encode cannot store.
func checkKind(kind string) error {
	if len(kind) == 0 || len(kind) > MaxKind {
		return fmt.Errorf("statefile: kind %q has %d bytes, want 1 to %d", kind, len(kind), MaxKind)
	}
	for i := range len(kind) {
		if c := kind[i]; c < 0x21 || c > 0x7e {
			return fmt.Errorf("statefile: kind %q has byte %#02x at %d, want printable ASCII without spaces", kind, c, i)
		}
	}
	return nil
}

// Decode checks data and returns its kind and payload. The payload is a
// sub-slice of data. The error wraps ErrForeign, ErrTruncated, ErrCorrupt or
// ErrVersion; the checks run in that order, so a file of a later format
// version is reported as such even though its layout may differ.
func Decode(data []byte) (kind string, payload []byte, err error) {
	n := min(len(data), len(magic))
	if string(data[:n]) != magic[:n] {
		return "", nil, fmt.Errorf("statefile: %w (it does not start with the state file signature)", ErrForeign)
	}
	if len(data) < headerSize {
		return "", nil, fmt.Errorf("statefile: %w: %d bytes, shorter than the header", ErrTruncated, len(data))
	}
	if v := binary.LittleEndian.Uint16(data[len(magic):]); v != Version {
		return "", nil, fmt.Errorf("statefile: %w %d (this build reads version %d)", ErrVersion, v, Version)
	}
	kindLen := int(data[headerSize-1])
	payloadAt := headerSize + kindLen + lengthSize
	if len(data) < payloadAt {
		return "", nil, fmt.Errorf("statefile: %w: %d bytes, shorter than the header", ErrTruncated, len(data))
	}
	payloadLen := binary.LittleEndian.Uint64(data[payloadAt-lengthSize:])
	if rest := uint64(len(data) - payloadAt); payloadLen > rest || rest-payloadLen < checksumSize {
		return "", nil, fmt.Errorf("statefile: %w: %d bytes, the header announces %d bytes of payload and a %d-byte checksum",
			ErrTruncated, len(data), payloadLen, checksumSize)
	}
	end := payloadAt + int(payloadLen)
	if extra := len(data) - end - checksumSize; extra > 0 {
		return "", nil, fmt.Errorf("statefile: %w: %d unexpected bytes after the checksum", ErrCorrupt, extra)
	}
	if got, want := crc32.Checksum(data[:end], castagnoli), binary.LittleEndian.Uint32(data[end:]); got != want {
		return "", nil, fmt.Errorf("statefile: %w: checksum %08x does not match the content (%08x)", ErrCorrupt, want, got)
	}
	kind = string(data[headerSize : headerSize+kindLen])
	if err := checkKind(kind); err != nil {
		// A valid checksum over a bad kind: written by something else.
		return "", nil, fmt.Errorf("statefile: %w: %v", ErrCorrupt, err)
	}
	return kind, data[payloadAt:end], nil
}

// DecodeKind is Decode for a file that must hold kind: another kind is an
// error wrapping ErrKind that names both.
func DecodeKind(data []byte, kind string) ([]byte, error) {
	got, payload, err := Decode(data)
	if err != nil {
		return nil, err
	}
	if got != kind {
		return nil, fmt.Errorf("statefile: %w: the file holds %q, want %q", ErrKind, got, kind)
	}
	return payload, nil
}

// MaxFileSize bounds the state files that ReadFile reads: 16 GiB, twice
// what es lets a strategy hold in memory (es.MaxMemory).
const MaxFileSize = 16 << 30

// ReadFile reads the state file at path and returns its payload, which must
// be of kind. Errors name the path; those of Decode keep their cause
// (errors.Is(err, ErrCorrupt) and so on), and a missing file satisfies
// errors.Is(err, fs.ErrNotExist). A path that names no regular file (a
// device such as /dev/zero, a named pipe) or a file larger than MaxFileSize
// is an error of boundedfile.Read, before anything is read.
func ReadFile(path, kind string) ([]byte, error) {
	data, err := boundedfile.Read(path, MaxFileSize)
	if err != nil {
		return nil, err
	}
	payload, err := DecodeKind(data, kind)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	return payload, nil
}

// WriteFile replaces the file at path with a state file holding payload under
// kind, atomically and durably (atomicfile.WriteFile: temporary file, fsync,
// rename, fsync of the directory), with permission bits perm.
func WriteFile(path, kind string, payload []byte, perm os.FileMode) error {
	data, err := Encode(kind, payload)
	if err != nil {
		return err
	}
	return atomicfile.WriteFile(path, data, perm)
}
