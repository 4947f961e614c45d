package session

import (
	"os"
	"path/filepath"
	"syscall"
	"time"
	"unsafe"
)

// notifier wakes a Poller when a file is renamed into the directory of the
// journal (a fold, or a new run): inotify(7), which sees what processes of
// this machine do. Writers on other machines (NFS) are seen by polling
// only.
type notifier struct {
	f    *os.File
	name string
	buf  []byte
}

// newNotifier watches the directory of path for renames into it; nil when
// inotify is not available.
func newNotifier(path string) *notifier {
	fd, err := syscall.InotifyInit1(syscall.IN_NONBLOCK | syscall.IN_CLOEXEC)
	if err != nil {
		return nil
	}
	if _, err := syscall.InotifyAddWatch(fd, filepath.Dir(path), syscall.IN_MOVED_TO|syscall.IN_CREATE); err != nil {
		syscall.Close(fd)
		return nil
	}
	return &notifier{f: os.NewFile(uintptr(fd), "inotify"), name: filepath.Base(path), buf: make([]byte, 4096)}
}

// wait returns when the watched file was renamed into its directory, or
// after d.
func (n *notifier) wait(d time.Duration) {
	deadline := time.Now().Add(d)
	for {
		if n.f.SetReadDeadline(deadline) != nil {
			time.Sleep(time.Until(deadline))
			return
		}
		k, err := n.f.Read(n.buf)
		if err != nil || k < syscall.SizeofInotifyEvent {
			return // the deadline, or inotify failing: the poll goes on
		}
		for off := 0; off+syscall.SizeofInotifyEvent <= k; {
			ev := (*syscall.InotifyEvent)(unsafe.Pointer(&n.buf[off]))
			nameAt := off + syscall.SizeofInotifyEvent
			end := min(nameAt+int(ev.Len), k)
			name := string(n.buf[nameAt:end])
			for len(name) > 0 && name[len(name)-1] == 0 {
				name = name[:len(name)-1]
			}
			if name == n.name {
				return
			}
			off = end
		}
	}
}

// close releases the notifier.
func (n *notifier) close() { n.f.Close() }
