package extproc

import "sync"

// tailBuffer keeps the last len(buf) bytes written to it, in a ring. It is
// safe for concurrent use.
type tailBuffer struct {
	mu      sync.Mutex
	buf     []byte // the ring; byte k of the stream sits at buf[k % len(buf)]
	written int64  // bytes written in total
}

func newTailBuffer(size int) *tailBuffer {
	return &tailBuffer{buf: make([]byte, size)}
}

// Write appends p, dropping the oldest bytes beyond the buffer's size. It
// never fails.
func (t *tailBuffer) Write(p []byte) (int, error) {
	t.mu.Lock()
	defer t.mu.Unlock()
	n := len(p)
	if skip := len(p) - len(t.buf); skip > 0 {
		t.written += int64(skip)
		p = p[skip:]
	}
	for len(p) > 0 {
		c := copy(t.buf[t.written%int64(len(t.buf)):], p)
		p = p[c:]
		t.written += int64(c)
	}
	return n, nil
}

// snapshot returns the bytes kept, oldest first.
func (t *tailBuffer) snapshot() []byte {
	t.mu.Lock()
	defer t.mu.Unlock()
	if t.written <= int64(len(t.buf)) {
		return append([]byte(nil), t.buf[:t.written]...)
	}
	start := t.written % int64(len(t.buf))
	return append(append([]byte(nil), t.buf[start:]...), t.buf[:start]...)
}
