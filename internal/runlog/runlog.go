// Package runlog writes the files a run of hees keeps as it goes, so that
// they survive a kill: the evaluation log (hees run -log), one CSV row per
// evaluation, and the head of the trace (hees run -trace). Both start with
// "# name: value" comment lines that describe the run (Field), then a CSV
// header line.
//
// A Log writes each generation's rows with one write to the operating
// system, right after the generation: a kill, even SIGKILL, of the process
// loses at most the generation under way. It does not fsync: after a crash
// of the machine itself the last rows may be missing (Sync flushes them to
// the disk; hees run calls it before each checkpoint and at the end).
package runlog

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strconv"
	"strings"

	"github.com/hees-dev/hees/es"
	"github.com/hees-dev/hees/internal/atomicfile"
	"github.com/hees-dev/hees/internal/boundedfile"
	"github.com/hees-dev/hees/linalg"
	"github.com/hees-dev/hees/space"
)

// CheckDir reports that the directory of path, the file of the flag named
// flag (such as "-trace"), does not exist or is not a directory: found out
// before a run rather than when it first writes the file.
func CheckDir(flag, path string) error {
	dir := filepath.Dir(path)
	if info, err := os.Stat(dir); err != nil || !info.IsDir() {
		return fmt.Errorf("%s %s: no directory %s to write it in", flag, path, dir)
	}
	return nil
}

// Field is one line of metadata, written "# Name: Value".
type Field struct {
	Name, Value string
}

// Comment returns the fields as comment lines, "# name: value" each. A
// newline in a value is written as a space, so that every field stays on
// its line.
func Comment(fields []Field) []byte {
	var b bytes.Buffer
	for _, f := range fields {
		fmt.Fprintf(&b, "# %s: %s\n", f.Name, strings.ReplaceAll(f.Value, "\n", " "))
	}
	return b.Bytes()
}

// FindHeader returns the header of a CSV file with comment lines: the first
// line of head that does not start with '#', without its newline, and false
// when head holds none complete.
func FindHeader(head []byte) (string, bool) {
	for len(head) > 0 {
		line, rest, ok := bytes.Cut(head, []byte("\n"))
		if !ok {
			return "", false
		}
		if !bytes.HasPrefix(line, []byte("#")) {
			return string(line), true
		}
		head = rest
	}
	return "", false
}

// maxHead bounds how much of an existing file is read to find its header:
// the comment lines of one run take far less.
const maxHead = 1 << 20

// ReadHeader returns the header of the CSV file f (see FindHeader), read
// from its first maxHead bytes; an error says that it has none.
func ReadHeader(f io.ReaderAt) (string, error) {
	head := make([]byte, maxHead)
	n, err := f.ReadAt(head, 0)
	if err != nil && err != io.EOF {
		return "", err
	}
	header, ok := FindHeader(head[:n])
	if !ok {
		return "", errors.New("no CSV header line after the comment lines")
	}
	return header, nil
}

// Status is the status column of a log row.
type Status string

// The statuses of an evaluation.
const (
	// StatusOK: the objective returned the value in column f.
	StatusOK Status = "ok"
	// StatusFailed: the evaluation failed; f holds the value the
	// strategy was told in its place (NaN ranks worst).
	StatusFailed Status = "failed"
	// StatusAbandoned: the objective returned the value in column f, but
	// a failure stopped the run before the generation was told: the
	// strategy never saw it, and it counts for no best point.
	StatusAbandoned Status = "abandoned"
)

// InjectedGeneration is the generation column of the rows of known points
// (es.Run.Inject), which belong to no generation of the strategy.
const InjectedGeneration = -1

// Log is an evaluation log: a CSV file with the columns
//
//	evaluation,generation,row,status,f,x1,...,xd
//
// evaluation counts the evaluations of the run from 1, generation and row
// name the candidate (row r of generation g, the strategy's count before
// the generation's Tell; generation InjectedGeneration for a known point
// of hees run -inject, row r of its batch), status is a Status, f the
// value and x1 ... xd the point. Floats are written in the shortest form
// that reads back to the same float64 ("NaN", "+Inf" and "-Inf" for those
// values).
type Log struct {
	file *os.File
	dim  int
	cols Columns
	buf  []byte
}

// Columns describes the point columns of a log whose points are not
// written as d plain numbers x1 ... xd: the parameters of a search space
// (hees run -space), one column per coordinate.
type Columns struct {
	// Names are the names of the columns, one per coordinate (nil: x1 ...
	// xd); they must be valid CSV fields without quoting.
	Names []string
	// Append appends the cells of the point x to dst, separated by commas
	// (nil: each coordinate in the shortest form that reads back to the
	// same float64). A cell must need no CSV quoting.
	Append func(dst []byte, x []float64) []byte
}

// SpaceColumns are the point columns of a log of a run in the space sp
// (hees run -space): the parameters' names, and their values in the
// user's units.
func SpaceColumns(sp *space.Space) Columns {
	return Columns{Names: sp.Names(), Append: func(dst []byte, x []float64) []byte {
		return sp.AppendText(dst, x, ',')
	}}
}

// header returns the header line of a log in d dimensions with the
// columns c, without its newline.
func (c Columns) header(d int) string {
	if c.Names == nil {
		return LogHeader(d)
	}
	return "evaluation,generation,row,status,f," + strings.Join(c.Names, ",")
}

// LogHeader returns the header line of a log of points of d coordinates,
// without its newline.
func LogHeader(d int) string {
	var b strings.Builder
	b.WriteString("evaluation,generation,row,status,f")
	for i := 1; i <= d; i++ {
		fmt.Fprintf(&b, ",x%d", i)
	}
	return b.String()
}

// OpenLog opens the log at path for a run in d dimensions described by
// meta, creating it when it does not exist. A new or empty file gets the
// comment lines of meta and the header. An existing log is appended to: it
// must be a regular file with the same header (a log of another dimension
// is an error that says so), a last line without its newline (a crash cut
// it short) becomes a comment, and the comment lines of meta are appended
// before the new rows, so that the file tells its runs apart. The log is
// locked while it is open (atomicfile.TryLock): a second run that opens it
// is refused, rather than interleaving its rows (on a file system without
// locks, nothing is locked).
func OpenLog(path string, d int, meta []Field) (*Log, error) {
	return openLog(path, d, meta, -1, Columns{})
}

// ResumeLog opens the log at path as OpenLog does, for a run resumed from
// a checkpoint taken after evals evaluations, whose rows the log must hold.
// The rows of later evaluations (written after that checkpoint, before the
// run was stopped), which the resumed run evaluates again, become comment
// lines that start with RedoneComment, so that every evaluation number
// appears once among the rows. A log whose last row is an earlier
// evaluation lacks rows the resumed run will not write again: that is an
// error, as is a log without rows of the run; an empty or new file is
// started afresh.
func ResumeLog(path string, d int, meta []Field, evals int) (*Log, error) {
	return openLog(path, d, meta, evals, Columns{})
}

// OpenLogColumns is OpenLog for a log with the point columns cols.
func OpenLogColumns(path string, d int, meta []Field, cols Columns) (*Log, error) {
	return openLog(path, d, meta, -1, cols)
}

// ResumeLogColumns is ResumeLog for a log with the point columns cols.
func ResumeLogColumns(path string, d int, meta []Field, evals int, cols Columns) (*Log, error) {
	return openLog(path, d, meta, evals, cols)
}

// RedoneComment starts the comment line that keeps a row a resumed run
// evaluated again (ResumeLog); the row follows it.
const RedoneComment = "# evaluated again after the resume: "

// openLog is OpenLog, and ResumeLog for resumed >= 0, with the point
// columns cols.
func openLog(path string, d int, meta []Field, resumed int, cols Columns) (*Log, error) {
	if cols.Names != nil && len(cols.Names) != d {
		return nil, fmt.Errorf("runlog: %d column names for a log in %d dimensions", len(cols.Names), d)
	}
	f, err := os.OpenFile(path, os.O_RDWR|os.O_CREATE|os.O_APPEND, 0o644)
	if err != nil {
		return nil, err
	}
	l := &Log{file: f, dim: d, cols: cols}
	if err := l.start(meta, resumed); err != nil {
		f.Close()
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	return l, nil
}

// start checks the file and takes its lock, writes the head of a new log,
// or checks an existing one, keeps a partial last line as a comment and
// (resumed >= 0) turns the rows after that evaluation into comments, then
// writes the comment lines of meta.
func (l *Log) start(meta []Field, resumed int) error {
	info, err := lockRegular(l.file, "log")
	if err != nil {
		return err
	}
	header := l.cols.header(l.dim)
	head := Comment(meta)
	if size := info.Size(); size == 0 {
		head = append(head, header+"\n"...)
	} else {
		got, err := ReadHeader(l.file)
		if err != nil {
			return err
		}
		if got != header && l.cols.Names != nil {
			return fmt.Errorf("its header is not the one of a log of this space's parameters (%.60q...): give another -log file", got)
		}
		if got != header {
			return fmt.Errorf("its header is not the one of a log in %d dimensions (%.60q...): give another -log file", l.dim, got)
		}
		if err := cutPartialLine(l.file, size); err != nil {
			return err
		}
		if resumed >= 0 {
			if err := l.redoAfter(resumed); err != nil {
				return err
			}
		}
	}
	_, err = l.file.Write(head)
	return err
}

// redoAfter turns the rows at the end of the log whose evaluation numbers
// exceed evals into comment lines (ResumeLog), and reports a log whose
// last row is an earlier evaluation. The rows are found from the end of
// the file (scanBack), so a long log is not read whole.
func (l *Log) redoAfter(evals int) error {
	info, err := l.file.Stat()
	if err != nil {
		return err
	}
	end := info.Size()
	cut, last := end, 0 // the start of the first row to comment; the last row kept
	err = scanBack(l.file, end, func(line []byte, at int64) bool {
		if line[0] == '#' {
			return true
		}
		n, err := strconv.Atoi(string(line[:max(0, bytes.IndexByte(line, ','))]))
		if err != nil {
			return false // the header: the log holds no row at or before evals
		}
		if n <= evals {
			last = n
			return false
		}
		cut = at
		return true
	})
	if err != nil {
		return err
	}
	if last < evals {
		return fmt.Errorf("its last row is evaluation %d, but the checkpoint was taken after %d: the rows in between are missing (a write of the log failed, or the file was changed), and the resumed run will not write them; move the log away to start a new one", last, evals)
	}
	if cut == end {
		return nil
	}
	redo := make([]byte, end-cut)
	if _, err := l.file.ReadAt(redo, cut); err != nil {
		return err
	}
	var out []byte
	for line := range bytes.Lines(redo) {
		if line[0] != '#' {
			out = append(out, RedoneComment...)
		}
		out = append(out, line...)
	}
	if err := l.file.Truncate(cut); err != nil {
		return err
	}
	_, err = l.file.Write(out)
	return err
}

// scanBack calls visit with each line of f before end (which follows a
// newline), from the last to the first, with its offset in the file, until
// visit returns false. It reads 64 KiB at a time from the end.
func scanBack(f *os.File, end int64, visit func(line []byte, at int64) bool) error {
	const chunk = 1 << 16
	var carry []byte // the part after pos of a line that starts before pos
	for pos := end; pos > 0; {
		start := max(0, pos-chunk)
		buf := make([]byte, int(pos-start)+len(carry))
		if _, err := f.ReadAt(buf[:pos-start], start); err != nil {
			return err
		}
		copy(buf[pos-start:], carry)
		e := len(buf) // the end of the line to visit
		for e > 0 {
			k := bytes.LastIndexByte(buf[:e-1], '\n')
			if k < 0 && start > 0 {
				break // its start lies in the next chunk back
			}
			if !visit(buf[k+1:e], start+int64(k)+1) {
				return nil
			}
			e = k + 1
		}
		carry = buf[:e]
		pos = start
	}
	return nil
}

// cutPartialLine ends f, of size bytes, with a newline: a last line
// without one (a crash cut it short, or the file was edited) is removed
// from the rows and kept after them as a comment line, PartialComment
// and its text, so that no reader takes it for a row and nothing of it is
// lost. A partial line longer than maxPartial bytes is cut off.
func cutPartialLine(f *os.File, size int64) error {
	var last [1]byte
	if _, err := f.ReadAt(last[:], size-1); err != nil {
		return err
	}
	if last[0] == '\n' {
		return nil
	}
	const chunk = 1 << 16
	buf := make([]byte, chunk)
	start := int64(0) // of the partial line
	for end := size - 1; end > 0; {
		from := max(0, end-chunk)
		n, err := f.ReadAt(buf[:end-from], from)
		if err != nil {
			return err
		}
		if i := bytes.LastIndexByte(buf[:n], '\n'); i >= 0 {
			start = from + int64(i) + 1
			break
		}
		end = from
	}
	var partial []byte
	if size-start <= maxPartial {
		partial = make([]byte, size-start)
		if _, err := f.ReadAt(partial, start); err != nil {
			return err
		}
	}
	if err := f.Truncate(start); err != nil {
		return err
	}
	if partial == nil {
		return nil
	}
	_, err := f.Write(append(append([]byte(PartialComment), partial...), '\n'))
	return err
}

// PartialComment starts the comment line that keeps a last line a log
// had without its newline (cutPartialLine).
const PartialComment = "# a line without its end, kept as a comment: "

// maxPartial is the longest partial last line a log keeps as a comment.
const maxPartial = 64 << 20

// Comment appends comment lines of fields, such as a note that the run
// was resumed.
func (l *Log) Comment(fields []Field) error {
	_, err := l.file.Write(Comment(fields))
	return err
}

// Generation appends the rows of one generation, with one write: the
// candidates x (one per row, d columns) of generation gen, their values f,
// and their statuses (nil: all StatusOK). first is the evaluation number
// of row 0.
func (l *Log) Generation(first, gen int, x *linalg.Dense, f []float64, status []Status) error {
	rows, cols := x.Dims()
	if cols != l.dim || len(f) != rows || (status != nil && len(status) != rows) {
		return fmt.Errorf("runlog: %dx%d candidates, %d values, %d statuses for a log in %d dimensions", rows, cols, len(f), len(status), l.dim)
	}
	buf := l.buf[:0]
	for i := range rows {
		buf = strconv.AppendInt(buf, int64(first+i), 10)
		buf = append(buf, ',')
		buf = strconv.AppendInt(buf, int64(gen), 10)
		buf = append(buf, ',')
		buf = strconv.AppendInt(buf, int64(i), 10)
		buf = append(buf, ',')
		st := StatusOK
		if status != nil {
			st = status[i]
		}
		buf = append(buf, st...)
		buf = append(buf, ',')
		buf = strconv.AppendFloat(buf, f[i], 'g', -1, 64)
		if l.cols.Append != nil {
			buf = append(buf, ',')
			buf = l.cols.Append(buf, x.RawRow(i))
		} else {
			for _, v := range x.RawRow(i) {
				buf = append(buf, ',')
				buf = strconv.AppendFloat(buf, v, 'g', -1, 64)
			}
		}
		buf = append(buf, '\n')
	}
	l.buf = buf
	_, err := l.file.Write(buf)
	return err
}

// Sync flushes the rows written so far to the disk.
func (l *Log) Sync() error { return l.file.Sync() }

// Close closes the file.
func (l *Log) Close() error { return l.file.Close() }

// TraceFile is a trace file (hees run -trace without -checkpoint) written
// as the run goes: the comment lines, the header of es.Trace.WriteCSV,
// then the rows, appended after each generation with one write.
type TraceFile struct {
	file *os.File
	rows int          // rows of the trace already in the file
	buf  bytes.Buffer // the rows of one Append, kept for the next
}

// CreateTrace creates (or empties) the trace file at path and writes the
// comment lines of meta and the header (StartTrace), for a run that
// appends its rows as it goes.
func CreateTrace(path string, meta []Field) (*TraceFile, error) {
	f, _, err := StartTrace(path, meta)
	if err != nil {
		return nil, err
	}
	return &TraceFile{file: f}, nil
}

// StartTrace creates (or empties) the trace file at path and writes the
// comment lines of meta and the header. It must be a regular file, and it
// is locked before it is emptied and while it is open
// (atomicfile.TryLock), as a log is: a file another run holds, as its log
// or its trace, is refused unchanged. It returns the file, which the
// caller closes to release the lock, and the length of what it wrote.
func StartTrace(path string, meta []Field) (*os.File, int64, error) {
	f, err := os.OpenFile(path, os.O_RDWR|os.O_CREATE, 0o644)
	if err != nil {
		return nil, 0, err
	}
	n, err := startTrace(f, meta)
	if err != nil {
		f.Close()
		return nil, 0, fmt.Errorf("%s: %w", path, err)
	}
	return f, n, nil
}

// lockRegular checks that f, the run's what ("log", "trace file"), is a
// regular file and takes its lock (atomicfile.TryLock), which it keeps
// while f is open; on a file system without locks nothing is locked. It
// returns f's FileInfo.
func lockRegular(f *os.File, what string) (os.FileInfo, error) {
	info, err := f.Stat()
	if err != nil {
		return nil, err
	}
	if !info.Mode().IsRegular() {
		return nil, fmt.Errorf("it is %s, not a regular file: give the name of a file", boundedfile.Kind(info.Mode()))
	}
	held, err := atomicfile.TryLock(f)
	switch {
	case err == nil && !held:
		return nil, fmt.Errorf("another run is writing it (its lock is held): give this run another %s", what)
	case err != nil && !errors.Is(err, atomicfile.ErrLockUnsupported) && !errors.Is(err, errors.ErrUnsupported):
		return nil, err
	}
	return info, nil
}

// startTrace checks and locks the trace file f, empties it, writes its
// head and returns the head's length.
func startTrace(f *os.File, meta []Field) (int64, error) {
	if _, err := lockRegular(f, "trace file"); err != nil {
		return 0, err
	}
	if err := f.Truncate(0); err != nil {
		return 0, err
	}
	n, err := f.Write(TraceHead(meta))
	return int64(n), err
}

// LockTrace opens the existing trace file at path for reading and writing
// and takes its lock, as StartTrace does, without changing it: a resumed
// run with a checkpoint writes its trace through this file and holds it so
// while it runs. The caller closes the file to release the lock.
func LockTrace(path string) (*os.File, error) {
	return openLocked(path, os.O_RDWR)
}

// openLocked opens the existing file at path with flag and locks it as a
// trace file (lockRegular).
func openLocked(path string, flag int) (*os.File, error) {
	// A named pipe would block the open: the kind is checked first (and
	// again on the file opened).
	if info, err := os.Stat(path); err != nil {
		return nil, err
	} else if !info.Mode().IsRegular() {
		return nil, fmt.Errorf("%s: it is %s, not a regular file: give the name of a file", path, boundedfile.Kind(info.Mode()))
	}
	f, err := os.OpenFile(path, flag, 0)
	if err != nil {
		return nil, err
	}
	if _, err := lockRegular(f, "trace file"); err != nil {
		f.Close()
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	return f, nil
}

// TraceHead returns the start of a trace file: the comment lines of meta,
// then the header line of es.Trace.WriteCSV.
func TraceHead(meta []Field) []byte {
	head := bytes.NewBuffer(Comment(meta))
	new(es.Trace).WriteCSV(head) // a bytes.Buffer does not fail
	return head.Bytes()
}

// Append writes the rows of t recorded since the last call, with one write.
func (tf *TraceFile) Append(t *es.Trace) error {
	if len(t.Rows) == tf.rows {
		return nil
	}
	tf.buf.Reset()
	t.WriteCSVRows(&tf.buf, tf.rows) // a bytes.Buffer does not fail
	if _, err := tf.file.Write(tf.buf.Bytes()); err != nil {
		return err
	}
	tf.rows = len(t.Rows)
	return nil
}

// Close closes the file.
func (tf *TraceFile) Close() error { return tf.file.Close() }
