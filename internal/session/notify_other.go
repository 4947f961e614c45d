//go:build !linux

package session

import "time"

// notifier is unavailable outside Linux: Pollers poll.
type notifier struct{}

func newNotifier(path string) *notifier  { return nil }
func (n *notifier) wait(d time.Duration) { time.Sleep(d) }
func (n *notifier) close()               {}
