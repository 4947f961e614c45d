// Package boundedfile reads whole files whose names come from the user
// (a checkpoint to resume, a state file, a trace to plot) without being
// led into an endless or blocking read: a device such as /dev/zero, a named
// pipe that no one writes, or a file larger than the caller can hold is an
// error that says so, before anything is read.
package boundedfile

import (
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
)

// Errors that Read's errors wrap, to be tested with errors.Is.
var (
	// ErrNotRegular: the path names a directory, a device, a named pipe, a
	// socket or another file that is not a regular file.
	ErrNotRegular = errors.New("not a regular file")
	// ErrTooLarge: the file holds more bytes than the caller's limit.
	ErrTooLarge = errors.New("file too large")
)

// Read returns the content of the regular file at path (a symbolic link is
// followed), which must hold at most limit bytes. Another kind of file is
// an error wrapping ErrNotRegular that names the kind, without opening it
// (opening a named pipe would wait for a writer); a larger file is an
// error wrapping ErrTooLarge. A missing file satisfies
// errors.Is(err, fs.ErrNotExist). Read never reads more than limit+1
// bytes, even from a file that grows while it is read.
func Read(path string, limit int64) ([]byte, error) {
	info, err := os.Stat(path)
	if err != nil {
		return nil, err
	}
	if !info.Mode().IsRegular() {
		return nil, fmt.Errorf("%s: %w (it is %s)", path, ErrNotRegular, Kind(info.Mode()))
	}
	if info.Size() > limit {
		return nil, fmt.Errorf("%s: %w: %d bytes, more than %d", path, ErrTooLarge, info.Size(), limit)
	}
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	// Stat and Open may see different files; the type of what was opened
	// is checked again before reading it.
	if info, err := f.Stat(); err != nil {
		return nil, err
	} else if !info.Mode().IsRegular() {
		return nil, fmt.Errorf("%s: %w (it is %s)", path, ErrNotRegular, Kind(info.Mode()))
	}
	data, err := io.ReadAll(io.LimitReader(f, limit+1))
	if err != nil {
		return nil, err
	}
	if int64(len(data)) > limit {
		return nil, fmt.Errorf("%s: %w: more than %d bytes", path, ErrTooLarge, limit)
	}
	return data, nil
}

// Kind names the type of a file that is not regular, as in "it is a named
// pipe".
func Kind(m fs.FileMode) string {
	switch {
	case m.IsDir():
		return "a directory"
	case m&fs.ModeNamedPipe != 0:
		return "a named pipe"
	case m&fs.ModeSocket != 0:
		return "a socket"
	case m&fs.ModeCharDevice != 0:
		return "a character device"
	case m&fs.ModeDevice != 0:
		return "a device"
	}
	return "not a regular file: " + m.Type().String()
}
