package testkit

import (
	"net"
	"testing"
)

// FreeLoopbackAddr returns a 127.0.0.1 address whose port was free a moment
// ago, for programs that cannot report the port they bound (Prometheus, a
// command started with --web.listen-address).
func FreeLoopbackAddr(t testing.TB) string {
	t.Helper()
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	addr := l.Addr().String()
	if err := l.Close(); err != nil {
		t.Fatal(err)
	}
	return addr
}
