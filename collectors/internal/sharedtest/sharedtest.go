// Package sharedtest forwards to collectors/sharedtest while imports move.
package sharedtest

import (
	"testing"

	"github.com/sparkglance/sparkglance/collectors/sharedtest"
)

func Dir(t testing.TB) string                    { t.Helper(); return sharedtest.Dir(t) }
func Path(t testing.TB, elem ...string) string   { t.Helper(); return sharedtest.Path(t, elem...) }
func Events(t testing.TB, elem ...string) string { t.Helper(); return sharedtest.Events(t, elem...) }
func RequireTool(t testing.TB, name string) string {
	t.Helper()
	return sharedtest.RequireTool(t, name)
}
func RequireFile(t testing.TB, path string) string {
	t.Helper()
	return sharedtest.RequireFile(t, path)
}
func InCI() bool { return sharedtest.InCI() }
