package session

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"sync"
	"syscall"
	"time"

	"github.com/hees-dev/hees/es"
	"github.com/hees-dev/hees/internal/atomicfile"
	"github.com/hees-dev/hees/internal/boundedfile"
	"github.com/hees-dev/hees/internal/statefile"
)

// LockNoticeAfter is how long a Store waits for the lock of its run before
// it calls its Waiting.
const LockNoticeAfter = 3 * time.Second

// MissingError reports a state file that does not exist.
type MissingError struct{ Path string }

// Error names the file and says how to create it.
func (e *MissingError) Error() string {
	return fmt.Sprintf("state file %s does not exist (create it with hees init)", e.Path)
}

// Store is an ask/tell run on disk: the snapshot at Path, the journal
// Path.journal, and the lock, flock(2) on Path.lock or the lock file
// Path.lk (see the package doc). Load reads it without the lock; the
// other methods change it under the lock. A missing state file is a
// *MissingError.
//
// The processes of one machine keep one replica of each run they use: the
// journal as they last read it, so that each operation reads only what
// was appended since. Its operations are serialised within the process,
// and across processes by the lock.
type Store struct {
	Path string
	// Waiting, when not nil, is called once, from another goroutine, when
	// the lock is still held by another process LockNoticeAfter after a
	// method started to wait for it, with the lock file and who holds it
	// (as far as it is known); the method goes on waiting until its
	// context is done.
	Waiting func(lock, holder string)
	// Warn, when not nil, hears of what does not stop an operation: a torn
	// record cut off, a stale lock broken, a journal missing.
	Warn func(msg string)
	// Stale is the stale bound of the lock file (atomicfile.FileLock), 0:
	// atomicfile.DefaultStale.
	Stale time.Duration
	// Background, on a local file system, lets an operation return before
	// its records are flushed to disk: a goroutine of the process flushes
	// them a moment later (on other file systems they are flushed under
	// the lock anyway, for the other machines to see them). A worker sets
	// it: a power loss in that moment costs it what a crash of the worker
	// costs (its leases expire, a value is evaluated again), while a
	// command that reports a tell to its caller (hees tell) must not.
	Background bool
	// Own, when not nil, reports the candidates that the calling process
	// holds and knows to be alive (being evaluated, or being told): a claim
	// does not count their leases as lost, nor hand them out, even when
	// the leases have run out because the process was slow to renew them.
	// Other processes still do, once the leases expire.
	Own func(ID) bool
}

// JournalPath is the journal of the run whose snapshot is at path.
func JournalPath(path string) string { return path + ".journal" }

// replica is what a process knows of a run.
type replica struct {
	mu   sync.Mutex
	view *View       // nil: to be read
	info os.FileInfo // of the journal read
	head []byte      // its first line's checksum, to recognise it
	// open is the journal read, kept open on a local file system (nil
	// elsewhere, or not yet): while it is open its inode number is not
	// given to another file, so a stat of the journal's path tells whether
	// it is still the journal, and a look that finds nothing new costs one
	// stat instead of an open, two reads and a close.
	open  *os.File
	buf   []byte // the records read last, reused for the next
	off   int64  // the bytes of the journal replayed: its header and valid records
	torn  bool   // bytes after off that are not a valid record
	dirty bool   // the journal must be flushed to disk (written since the last flush)

	// sess is the session of the snapshot this process wrote or read last
	// (epoch sessEpoch, sessSize bytes, checksum sessCRC), kept for its
	// next fold until a journal of another epoch is read.
	sess      *Session
	sessEpoch uint64

	// snapInfo is the snapshot checked last (snapSize bytes, checksum
	// snapCRC), nil when none is known.
	snapInfo os.FileInfo
	snapSize int64
	snapCRC  uint32
	// localOnce and isLocal: whether the run is on a local file system
	// (atomicfile.LocalFS), asked once.
	localOnce sync.Once
	isLocal   bool
	path      string

	flushOnce sync.Once
	flushReq  chan string // journals to flush, for Background
	sessSize  int64
	sessCRC   uint32
}

// replicas holds the replica of each run, by the absolute path of its
// snapshot; named holds it by the path as given, so that the operations
// that follow the first do not ask for the working directory again (a
// getwd is two stats, and a poller looks several hundred times a second
// in all). hees does not change its working directory.
var replicas, named sync.Map

// replica returns the process's replica of the run.
func (st Store) replica() *replica {
	if r, ok := named.Load(st.Path); ok {
		return r.(*replica)
	}
	key, err := filepath.Abs(st.Path)
	if err != nil {
		key = st.Path
	}
	r, _ := replicas.LoadOrStore(key, &replica{path: key})
	named.Store(st.Path, r)
	return r.(*replica)
}

// Load returns the run as its files have it now, read without the lock.
// The View is a copy that nothing else changes.
func (st Store) Load() (*View, error) {
	rep := st.replica()
	rep.mu.Lock()
	defer rep.mu.Unlock()
	v, err := st.refresh(rep, false)
	if err != nil {
		return nil, err
	}
	// The snapshot is checked whole (its checksum), as the commands that
	// show the run read it: a damaged snapshot is said at once, not at the
	// next fold. Pollers do not pay for it.
	data, err := boundedfile.Read(st.Path, statefile.MaxFileSize)
	if err != nil {
		return nil, err
	}
	if kind, _, err := statefile.Decode(data); err != nil {
		return nil, fmt.Errorf("%s: %w", st.Path, err)
	} else if kind != Kind && kind != kindV2 {
		return nil, fmt.Errorf("%s: %w", st.Path, kindError(kind))
	}
	return v.clone(), nil
}

// peek calls fn with the replica's view brought up to date, without the
// lock and without copying it; fn must not keep it. A journal that does not
// belong to the snapshot (a fold under way) is errStale.
func (st Store) peek(fn func(v *View)) error {
	rep := st.replica()
	rep.mu.Lock()
	defer rep.mu.Unlock()
	err := st.readJournal(rep)
	if err == nil {
		err = st.checkSnapshot(rep)
	}
	if err != nil {
		rep.view = nil
		return err
	}
	fn(rep.view)
	return nil
}

// LoadSession returns the run with its strategy: the snapshot, and the
// current batch as the journal has it. It reads the whole snapshot; hees
// status and the workers need only Load.
func (st Store) LoadSession() (*Session, error) {
	rep := st.replica()
	rep.mu.Lock()
	defer rep.mu.Unlock()
	v, err := st.refresh(rep, false)
	if err != nil {
		return nil, err
	}
	ss, _, err := st.readSnapshot()
	if err != nil {
		return nil, err
	}
	if ss.File.Epoch != v.Epoch {
		// A fold between the two reads: the snapshot is newer.
		return ss, nil
	}
	ss.setView(v.clone())
	return ss, nil
}

// readSnapshot reads and decodes the snapshot.
func (st Store) readSnapshot() (*Session, []byte, error) {
	data, err := boundedfile.Read(st.Path, statefile.MaxFileSize)
	if errors.Is(err, fs.ErrNotExist) {
		return nil, nil, &MissingError{st.Path}
	}
	if err != nil {
		return nil, nil, err
	}
	ss, err := Decode(data)
	if err != nil {
		return nil, nil, fmt.Errorf("%s: %w", st.Path, err)
	}
	return ss, data, nil
}

// errStale reports a journal that does not belong to the snapshot: missing,
// or left behind by a fold that did not finish, or the snapshot is of
// version 2. Under the lock it is made anew; without, the view is built
// from the snapshot.
var errStale = errors.New("the journal does not belong to the snapshot")

// errNoJournal is errStale for a journal that is not there.
var errNoJournal = fmt.Errorf("%w: it is missing", errStale)

// refresh brings the replica up to date with the files and returns its
// view. Without the lock (locked false) a stale journal gives the view
// built from the snapshot, and the replica is left unread; under the lock
// the journal is made anew.
func (st Store) refresh(rep *replica, locked bool) (*View, error) {
	err := st.readJournal(rep)
	if err == nil {
		err = st.checkSnapshot(rep)
	}
	if err == nil {
		return rep.view, nil
	}
	rep.view = nil
	if !errors.Is(err, errStale) {
		return nil, err
	}
	ss, snap, serr := st.readSnapshot()
	if serr != nil {
		return nil, serr
	}
	if errors.Is(err, errNoJournal) && !ss.v2 && st.Warn != nil {
		// hees replaces a journal by a rename and never removes one (a
		// state file of version 2 has none): this one was removed or
		// moved by hand.
		st.Warn(fmt.Sprintf("%s is missing: the values told since the last fold, if there were any, are lost (hees never removes a journal)", JournalPath(st.Path)))
	}
	if !locked {
		return ss.View, nil
	}
	if err := st.checkOrphan(ss); err != nil {
		return nil, err
	}
	return st.writeJournal(rep, ss, snap)
}

// checkOrphan refuses to replace a journal that is of the snapshot's run
// and not older than it: then the snapshot, not the journal, is what does
// not fit.
func (st Store) checkOrphan(ss *Session) error {
	data, err := readPrefix(JournalPath(st.Path), maxJournalLine)
	if err != nil {
		return nil // missing or unreadable: made anew
	}
	h, _, err := decodeHeader(data)
	if err != nil {
		if errors.Is(err, errNotJournal) && len(data) > 0 {
			return fmt.Errorf("%s: %w", JournalPath(st.Path), err)
		}
		return nil
	}
	if h.RunID == ss.File.RunID && h.Epoch >= ss.File.Epoch && ss.File.Epoch > 1 {
		return fmt.Errorf("%s holds epoch %d of run %s, but the snapshot %s holds epoch %d: the snapshot was replaced by an older one or damaged",
			JournalPath(st.Path), h.Epoch, h.RunID, st.Path, ss.File.Epoch)
	}
	return nil
}

// readPrefix reads at most limit bytes of the regular file at path.
func readPrefix(path string, limit int64) ([]byte, error) {
	f, _, err := openRegular(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	return io.ReadAll(io.LimitReader(f, limit))
}

// openRegular opens the file at path for reading, refusing anything but a
// regular file: it opens without blocking (a named pipe without a writer
// would block a plain open) and checks what it opened, whose FileInfo it
// returns.
func openRegular(path string) (*os.File, os.FileInfo, error) {
	f, err := os.OpenFile(path, os.O_RDONLY|syscall.O_NONBLOCK, 0)
	if err != nil {
		return nil, nil, err
	}
	info, err := f.Stat()
	if err != nil {
		f.Close()
		return nil, nil, err
	}
	if !info.Mode().IsRegular() {
		f.Close()
		return nil, nil, fmt.Errorf("%s: %w (it is %s)", path, boundedfile.ErrNotRegular, boundedfile.Kind(info.Mode()))
	}
	return f, info, nil
}

// readJournal reads what was appended to the journal since the replica
// last read it, or the whole journal when it was replaced.
func (st Store) readJournal(rep *replica) error {
	path := JournalPath(st.Path)
	if rep.view != nil && rep.open != nil {
		info, err := os.Stat(path)
		if err == nil && os.SameFile(info, rep.info) && info.Size() >= rep.off && info.Size() <= statefile.MaxFileSize {
			return st.readAppended(rep, rep.open, info)
		}
	}
	rep.keep(nil)
	f, info, err := openRegular(path)
	if errors.Is(err, fs.ErrNotExist) {
		return errNoJournal
	}
	if err != nil {
		return err
	}
	if rep.local() {
		rep.keep(f)
	} else {
		defer f.Close()
	}
	if info.Size() > statefile.MaxFileSize {
		return fmt.Errorf("%s: %w: %d bytes", path, boundedfile.ErrTooLarge, info.Size())
	}
	if rep.view != nil && os.SameFile(info, rep.info) && info.Size() >= rep.off && sameHead(f, rep.head) {
		return st.readAppended(rep, f, info)
	}
	data, err := io.ReadAll(io.LimitReader(f, statefile.MaxFileSize))
	if err != nil {
		return err
	}
	h, n, err := decodeHeader(data)
	if err != nil {
		// A journal is written whole (renamed into place) before anything
		// is appended, so a header that does not decode was damaged or
		// made by hand: nothing of it is guessed.
		return fmt.Errorf("%s: corrupt journal: %w", path, err)
	}
	if rep.sess != nil && rep.sessEpoch != h.Epoch {
		rep.sess = nil // another process folded: its session is of no use, O(d^2) bytes
	}
	rep.view, rep.info, rep.off = newView(h), info, int64(n)
	rep.head = slices.Clone(data[len(journalMagic)+1 : len(journalMagic)+9])
	return st.replayInto(rep, data[n:])
}

// readAppended replays the records appended to the replica's journal f,
// whose FileInfo is info, since it was last read.
func (st Store) readAppended(rep *replica, f *os.File, info os.FileInfo) error {
	if info.Size() == rep.off {
		rep.torn = false
		return nil
	}
	rep.buf = slices.Grow(rep.buf[:0], int(info.Size()-rep.off))[:info.Size()-rep.off]
	data := rep.buf // replay keeps nothing of it
	n, err := f.ReadAt(data, rep.off)
	if err != nil && !errors.Is(err, io.EOF) {
		return err
	}
	return st.replayInto(rep, data[:n])
}

// keep makes f (nil: none) the journal the replica keeps open, closing the
// one it kept.
func (rep *replica) keep(f *os.File) {
	if rep.open != nil && rep.open != f {
		rep.open.Close()
	}
	rep.open = f
}

// replayInto applies the records of data, which follows what rep has read.
func (st Store) replayInto(rep *replica, data []byte) error {
	used, torn, err := rep.view.replay(data)
	rep.off += int64(used)
	rep.torn = torn
	if err != nil {
		rep.view = nil
		return fmt.Errorf("%s: corrupt journal: %v", JournalPath(st.Path), err)
	}
	return nil
}

// sameHead reports whether the journal f opens with the checksum head:
// the journal read before, not another that got its inode number.
func sameHead(f *os.File, head []byte) bool {
	got := make([]byte, len(head))
	if _, err := f.ReadAt(got, int64(len(journalMagic)+1)); err != nil {
		return false
	}
	return bytes.Equal(got, head)
}

// checkSnapshot reports errStale when the snapshot is not the one the
// journal of the replica's view belongs to: its size or its checksum (the
// last 4 bytes) differ. On a local file system, where a stat sees at once
// a file renamed into place, a snapshot that is the file checked last
// (same inode, size and modification time) is not read again.
func (st Store) checkSnapshot(rep *replica) error {
	v := rep.view
	if rep.local() && rep.snapInfo != nil && rep.snapSize == v.SnapSize && rep.snapCRC == v.SnapCRC {
		if info, err := os.Stat(st.Path); err == nil && os.SameFile(info, rep.snapInfo) &&
			info.Size() == rep.snapInfo.Size() && info.ModTime().Equal(rep.snapInfo.ModTime()) {
			return nil
		}
	}
	rep.snapInfo = nil
	f, info, err := openRegular(st.Path)
	if errors.Is(err, fs.ErrNotExist) {
		return &MissingError{st.Path}
	}
	if err != nil {
		return err
	}
	defer f.Close()
	var sum [4]byte
	if info.Size() != v.SnapSize {
		return errStale
	}
	if _, err := f.ReadAt(sum[:], info.Size()-4); err != nil {
		return err
	}
	if snapCRC(sum[:]) != v.SnapCRC {
		return errStale
	}
	rep.snapInfo, rep.snapSize, rep.snapCRC = info, v.SnapSize, v.SnapCRC
	return nil
}

// writeJournal writes the journal of the session ss, whose snapshot holds
// snap (written already), and makes it the replica's. A session read from
// a state file of version 2 first gets its snapshot of version 3.
func (st Store) writeJournal(rep *replica, ss *Session, snap []byte) (*View, error) {
	st.removeStaleTemps()
	var h Header
	if kind, _, _ := statefile.Decode(snap); kind == kindV2 {
		var err error
		if snap, _, err = ss.Snapshot(); err != nil {
			return nil, err
		}
		h = ss.migratedHeader(snap)
		if err := atomicfile.WriteFile(st.Path, snap, 0o644); err != nil {
			return nil, err
		}
	} else {
		h = ss.header(snap)
	}
	journal, err := encodeJournal(&h)
	if err != nil {
		return nil, err
	}
	if err := atomicfile.WriteFile(JournalPath(st.Path), journal, 0o644); err != nil {
		return nil, err
	}
	rep.view = nil
	if err := st.readJournal(rep); err != nil {
		return nil, err
	}
	return rep.view, nil
}

// op is an operation under the lock: it reads the view, and appends
// records with w.add (which applies them to the view), and may fold.
type op func(w *writer) error

// writer holds the records an operation appends.
type writer struct {
	st     Store
	rep    *replica
	buf    []byte
	folded bool
}

// view is the current view of the run.
func (w *writer) view() *View { return w.rep.view }

// add applies the record r to the view and queues it for writing.
func (w *writer) add(r record) error {
	v := w.rep.view
	r.Seq, r.Epoch = v.seq+1, v.Epoch
	if err := applyOp(v.b, r); err != nil {
		return err
	}
	v.seq++
	var err error
	w.buf, err = appendLine(w.buf, "", &r)
	return err
}

// flush appends the queued records to the journal, cutting off a torn
// record first.
func (w *writer) flush() error {
	if len(w.buf) == 0 && !w.rep.torn {
		return nil
	}
	f, err := os.OpenFile(JournalPath(w.st.Path), os.O_WRONLY, 0)
	if err != nil {
		return err
	}
	defer f.Close()
	if w.rep.torn {
		if err := f.Truncate(w.rep.off); err != nil {
			return err
		}
		if w.st.Warn != nil {
			w.st.Warn(fmt.Sprintf("%s: cut off a torn record after byte %d (a write that did not finish)", JournalPath(w.st.Path), w.rep.off))
		}
		w.rep.torn = false
	}
	if len(w.buf) == 0 {
		return nil
	}
	if _, err := f.WriteAt(w.buf, w.rep.off); err != nil {
		f.Truncate(w.rep.off) // best effort: a record cut short is ignored anyway
		return err
	}
	w.rep.off += int64(len(w.buf))
	w.buf = w.buf[:0]
	w.rep.dirty = true
	return nil
}

// fold folds the batch of the view, which its journal says is done, into a
// new snapshot and journal: the queued records are appended first, so that
// a crash before the new snapshot loses nothing that a process saw. They
// are not flushed to disk first: the snapshot, flushed before it replaces
// the old one, holds their values; a power loss before that loses only
// records whose operations had not reported success yet.
func (w *writer) fold(now time.Time) error {
	if err := w.flush(); err != nil {
		return err
	}
	v := w.rep.view
	ss, err := w.session()
	if err != nil {
		return err
	}
	w.rep.sess = nil // the fold changes it
	ss.View = v
	var rows batchRows
	if ss.File.Log != "" {
		rows = ss.logRows()
	}
	if err := ss.fold(now); err != nil {
		return err
	}
	if ss.File.Log != "" {
		cols, err := ss.logColumns()
		if err == nil {
			err = writeLog(ss.File.Log, ss.s.Dim(), cols, rows)
		}
		if err != nil {
			return err
		}
	}
	snap, h, err := ss.Snapshot()
	if err != nil {
		return err
	}
	w.st.removeStaleTemps()
	journal, err := encodeJournal(&h)
	if err != nil {
		return err
	}
	// The snapshot first: a crash between the renames leaves the new
	// snapshot with the old journal, whose records it holds, and the
	// journal is made anew from it. Readers without the lock see the two
	// disagree (errStale) only between the renames.
	path := JournalPath(w.st.Path)
	if err := atomicfile.WriteFiles(atomicfile.File{Path: w.st.Path, Data: snap, Perm: 0o644},
		atomicfile.File{Path: path, Data: journal, Perm: 0o644}); err != nil {
		return err
	}
	w.folded = true
	// The new journal is the replica's: its header need not be decoded
	// again.
	info, err := os.Stat(path)
	if err != nil {
		w.rep.view = nil
		return err
	}
	w.rep.keep(nil)
	w.rep.view, w.rep.info, w.rep.off, w.rep.torn = newView(h), info, int64(len(journal)), false
	w.rep.head = slices.Clone(journal[len(journalMagic)+1 : len(journalMagic)+9])
	w.rep.sess, w.rep.sessEpoch, w.rep.sessSize, w.rep.sessCRC = ss, ss.File.Epoch, int64(len(snap)), snapCRC(snap)
	return nil
}

// session returns the session of the snapshot of the view, which the
// lock keeps from changing. The session this process folded or read last
// is it when its epoch, size and checksum are the view's: then the
// snapshot, O(d^2) bytes, is not read and decoded again.
func (w *writer) session() (*Session, error) {
	v := w.rep.view
	if ss := w.rep.sess; ss != nil && w.rep.sessEpoch == v.Epoch && w.rep.sessSize == v.SnapSize && w.rep.sessCRC == v.SnapCRC {
		return ss, nil
	}
	ss, snap, err := w.st.readSnapshot()
	if err != nil {
		return nil, err
	}
	if ss.File.Epoch != v.Epoch || int64(len(snap)) != v.SnapSize || snapCRC(snap) != v.SnapCRC {
		return nil, fmt.Errorf("%s changed under the lock", w.st.Path)
	}
	w.rep.sess, w.rep.sessEpoch, w.rep.sessSize, w.rep.sessCRC = ss, ss.File.Epoch, int64(len(snap)), snapCRC(snap)
	return ss, nil
}

// check is View.Check, with the snapshot's past batches when a line names
// an older one than the header keeps.
func (w *writer) check(lines []Line) (Told, []BadLine, error) {
	v := w.view()
	if v.older == nil && v.needsOlder(lines) {
		ss, err := w.session()
		if err != nil {
			return Told{}, nil, err
		}
		v.older = append([]Past{}, ss.File.Past...)
	}
	t, bad := v.Check(lines)
	return t, bad, nil
}

// sync flushes the journal to disk when it was written since the last
// flush.
func (w *writer) sync() error {
	if !w.rep.dirty {
		return nil
	}
	f, err := os.OpenFile(JournalPath(w.st.Path), os.O_WRONLY, 0)
	if err != nil {
		return err
	}
	defer f.Close()
	if err := fdatasync(f); err != nil {
		return err
	}
	w.rep.dirty = false
	return nil
}

// fdatasync flushes the data of f (and the size it needs) to disk.
func fdatasync(f *os.File) error {
	for {
		err := syscall.Fdatasync(int(f.Fd()))
		if !errors.Is(err, syscall.EINTR) {
			return err
		}
	}
}

// update runs fn under the lock of the run, appends the records it added,
// and folds the batch when they complete it (fn may go on in the next
// batch: w.foldIfDone). A missing state file is reported before the lock
// is taken, which would create the lock file.
func (st Store) update(ctx context.Context, fn op) error {
	if _, err := os.Stat(st.Path); errors.Is(err, fs.ErrNotExist) {
		return &MissingError{st.Path}
	}
	rep := st.replica()
	rep.mu.Lock()
	for {
		mode, err := st.lockMode(rep)
		if err != nil {
			rep.mu.Unlock()
			return err
		}
		held, err := st.lock(ctx, mode)
		if err != nil {
			rep.mu.Unlock()
			return err
		}
		again, err := st.locked(rep, mode, held, fn)
		if uerr := held.unlock(); err == nil && uerr != nil {
			err = uerr
		}
		if err != nil {
			rep.view = nil
			rep.mu.Unlock()
			return err
		}
		if !again {
			break
		}
	}
	dirty := rep.dirty
	rep.dirty = false
	rep.mu.Unlock()
	if !dirty {
		return nil
	}
	if st.Background {
		rep.flushLater(JournalPath(st.Path))
		return nil
	}
	// Local file systems: the records are seen by every process of the
	// machine once written, and flushed to disk after the lock is
	// released, so that the flushes of several processes overlap; a flush
	// covers every record before the flushed one. Other file systems are
	// flushed before the release (locked).
	f, err := os.OpenFile(JournalPath(st.Path), os.O_WRONLY, 0)
	if err != nil {
		return err
	}
	defer f.Close()
	return fdatasync(f)
}

// locked is update's work under the lock: it reports again when the run's
// lock turned out to be another one than the one taken (hees init -force
// chose another), to be taken anew.
func (st Store) locked(rep *replica, mode string, held heldLock, fn op) (again bool, err error) {
	v, err := st.refresh(rep, true)
	if err != nil {
		return false, err
	}
	if v.Lock != mode {
		return true, nil
	}
	w := &writer{st: st, rep: rep}
	if err := w.foldIfDone(); err != nil {
		return false, err
	}
	if err := fn(w); err != nil {
		return false, err
	}
	if err := w.foldIfDone(); err != nil {
		return false, err
	}
	if err := held.check(); err != nil {
		return false, err
	}
	if err := w.flush(); err != nil {
		return false, err
	}
	if !rep.local() {
		return false, w.sync()
	}
	return false, nil
}

// foldIfDone folds the batch when its journal says it is done: complete,
// or stopped by the policy (by this operation, or by one whose process
// ended before it folded).
func (w *writer) foldIfDone() error {
	if v := w.rep.view; v.b.done() && v.Header.Stop == "" {
		return w.fold(time.Now())
	}
	return nil
}

// lockMode returns the lock of the run: the journal's, or the snapshot's.
// It is checked again under the lock, so a journal that a fold is
// replacing gives it as well as the snapshot would, without reading the
// snapshot.
func (st Store) lockMode(rep *replica) (string, error) {
	if rep.view == nil && st.readJournal(rep) != nil {
		rep.view = nil
	}
	if rep.view != nil {
		return rep.view.Lock, nil
	}
	v, err := st.refresh(rep, false)
	if err != nil {
		return "", err
	}
	return v.Lock, nil
}

// Create writes ss as the run of a new state file. It refuses to replace
// an existing file unless force is true; with force, it takes the lock of
// the run it replaces as well.
func (st Store) Create(ctx context.Context, ss *Session, force bool) error {
	if _, err := os.Lstat(st.Path); err == nil && !force {
		return fmt.Errorf("%s exists (use -force to replace it)", st.Path)
	}
	rep := st.replica()
	rep.mu.Lock()
	defer rep.mu.Unlock()
	rep.sess = nil
	modes := []string{ss.File.Lock}
	if old, err := st.refresh(rep, false); err == nil && old.Lock != ss.File.Lock {
		modes = append(modes, old.Lock)
	}
	slices.Sort(modes) // always in the same order, so two inits cannot deadlock
	var helds []heldLock
	defer func() {
		for _, h := range helds {
			h.unlock()
		}
	}()
	for _, mode := range modes {
		held, err := st.lock(ctx, mode)
		if err != nil {
			return err
		}
		helds = append(helds, held)
	}
	if _, err := os.Lstat(st.Path); err == nil && !force {
		return fmt.Errorf("%s exists (use -force to replace it)", st.Path)
	}
	snap, h, err := ss.Snapshot()
	if err != nil {
		return err
	}
	if err := atomicfile.WriteFile(st.Path, snap, 0o644); err != nil {
		return err
	}
	journal, err := encodeJournal(&h)
	if err != nil {
		return err
	}
	rep.view = nil
	return atomicfile.WriteFile(JournalPath(st.Path), journal, 0o644)
}

// Tell checks lines (read by ReadTold, which found the lines of bad bad)
// against the run and, unless a line blocks the tell (Blocking), applies
// them. It returns the bad lines and those that Check finds.
func (st Store) Tell(ctx context.Context, lines []Line, bad []BadLine) ([]BadLine, error) {
	err := st.update(ctx, func(w *writer) error {
		told, invalid, err := w.check(lines)
		if err != nil {
			return err
		}
		if bad = append(bad, invalid...); Blocking(bad) {
			return nil // bad lines: apply nothing
		}
		return w.tell(told)
	})
	return bad, err
}

// tell appends the records of t, until the batch is done.
func (w *writer) tell(t Told) error {
	for _, r := range toldOps(t) {
		if w.view().b.done() {
			break
		}
		if err := w.add(r); err != nil {
			return err
		}
	}
	return nil
}

// Candidate is a candidate leased by a claim.
type Candidate struct {
	ID ID
	X  []float64
}

// Claimed is the outcome of Store.Claim.
type Claimed struct {
	Candidates []Candidate // the candidates leased to the caller
	Stop       es.Reason   // the stop of the run, "" while it goes on
	StopDetail string      // what stopped it, for a stop by the failure policy
	Bad        []BadLine   // the problems of the lines told
}

// Claim applies the told lines (none: nil; failures with why) unless one
// of them blocks, records the leases that have expired, and leases up to n
// candidates to h for lease. The journal is written only when something
// changed.
func (st Store) Claim(ctx context.Context, told []Line, why map[ID]string, n int, lease time.Duration, h Holder) (Claimed, error) {
	var c Claimed
	err := st.update(ctx, func(w *writer) error {
		if len(told) > 0 {
			t, bad, err := w.check(told)
			if err != nil {
				return err
			}
			if c.Bad = bad; !Blocking(c.Bad) {
				t.Why = map[int]string{}
				for id, msg := range why {
					t.Why[id.Row] = msg
				}
				if err := w.tell(t); err != nil {
					return err
				}
				if err := w.foldIfDone(); err != nil {
					return err
				}
			}
		}
		now := time.Now()
		for _, r := range expireOps(w.view().b, now) {
			if w.view().b.done() {
				break
			}
			if st.Own != nil && st.Own(w.view().ID(r.Rows[0])) {
				continue // this process's own, alive: not lost
			}
			if err := w.add(r); err != nil {
				return err
			}
		}
		if err := w.foldIfDone(); err != nil {
			return err
		}
		v := w.view()
		r, rows := claimOp(v.b, now, n, lease, h, st.own(v))
		if len(rows) > 0 {
			if err := w.add(r); err != nil {
				return err
			}
		}
		for _, row := range rows {
			c.Candidates = append(c.Candidates, Candidate{v.ID(row), slices.Clone(v.Candidate(row))})
		}
		c.Stop, c.StopDetail = v.StopReason(), v.Header.StopDetail
		return nil
	})
	return c, err
}

// ClaimWait claims up to n candidates, as Claim does with no told lines.
// With wait, while none can be claimed and the run goes on, it waits for
// one with a Poller and claims again.
func (st Store) ClaimWait(ctx context.Context, n int, lease time.Duration, h Holder, wait bool) (Claimed, error) {
	poll := Poller{Store: st}
	defer poll.Close()
	for {
		got, err := st.Claim(ctx, nil, nil, n, lease, h)
		if err != nil || len(got.Candidates) > 0 || got.Stop != "" || !wait {
			return got, err
		}
		if err := poll.Wait(ctx); err != nil {
			return got, err
		}
	}
}

// Renew renews the leases of ids and of the worker slots for lease, and
// reports which ids are still pending.
func (st Store) Renew(ctx context.Context, ids []ID, slots []int, lease time.Duration, h Holder) ([]bool, error) {
	var pending []bool
	err := st.update(ctx, func(w *writer) error {
		var r record
		r, pending = renewOp(w.view(), time.Now(), ids, lease, h, slots)
		if len(r.Rows)+len(r.Slots) == 0 {
			return nil
		}
		return w.add(r)
	})
	return pending, err
}

// Release gives the leases of ids and the worker slots back without
// counting an attempt.
func (st Store) Release(ctx context.Context, ids []ID, slots []int) error {
	return st.update(ctx, func(w *writer) error {
		if r, ok := releaseOp(w.view(), ids, slots); ok {
			return w.add(r)
		}
		return nil
	})
}

// TakeSlots leases the n lowest worker slots free now to h for lease: the
// indices HEES_WORKER gives the programs, unique among the workers of the
// run while their leases last.
func (st Store) TakeSlots(ctx context.Context, n int, lease time.Duration, h Holder) ([]int, error) {
	var slots []int
	err := st.update(ctx, func(w *writer) error {
		now := time.Now()
		slots = w.view().b.clone().takeSlots(n, now.UnixNano(), leaseEnd(now, lease), h)
		return w.add(record{Op: opSlots, Slots: slots, Now: now.UnixNano(), Until: leaseEnd(now, lease), Holder: &h})
	})
	return slots, err
}

// removeStaleTemps removes the temporary files that a process killed while
// it wrote the snapshot or the journal left, under the lock, best effort:
// a leftover is only clutter. It lists the directory, so it runs only when
// a fold or a recovery writes these files, not for every operation.
func (st Store) removeStaleTemps() {
	atomicfile.RemoveStaleTemps(st.Path)
	atomicfile.RemoveStaleTemps(JournalPath(st.Path))
}

// flushLater flushes the journal at path to disk from a goroutine of the
// replica: requests that come while a flush runs are served by one more
// flush after it, which covers them all.
func (rep *replica) flushLater(path string) {
	rep.flushOnce.Do(func() {
		rep.flushReq = make(chan string, 1)
		go func() {
			for p := range rep.flushReq {
				if f, err := os.OpenFile(p, os.O_WRONLY, 0); err == nil {
					fdatasync(f)
					f.Close()
				}
			}
		}()
	})
	select {
	case rep.flushReq <- path:
	default: // a flush is pending already, and will cover this write
	}
}

// local reports whether the run is on a local file system.
func (rep *replica) local() bool {
	rep.localOnce.Do(func() { rep.isLocal = atomicfile.LocalFS(filepath.Dir(rep.path)) })
	return rep.isLocal
}

// own returns st.Own as a test of rows of v, nil without it.
func (st Store) own(v *View) func(row int) bool {
	if st.Own == nil {
		return nil
	}
	return func(row int) bool { return st.Own(v.ID(row)) }
}
