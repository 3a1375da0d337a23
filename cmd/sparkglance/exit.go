package main

import (
	"errors"
	"fmt"
)

// Exit statuses of every command, listed in --help and the README.
const (
	exitOK          = 0   // everything was read cleanly
	exitNothingRead = 1   // no input could be read (or the command failed)
	exitUsage       = 2   // bad command line: unknown flag, bad value, unsupported location
	exitPartial     = 3   // read, but with problems: damaged lines, unreadable inputs
	exitInterrupted = 130 // stopped by Ctrl-C or SIGTERM (128 + SIGINT, as shells report it)
)

// exitStatusHelp is the exit-status paragraph of --help.
const exitStatusHelp = "Exit status: 0 read cleanly, 1 nothing readable, 2 usage error, 3 read with problems (listed on stderr and in the JSON), 130 interrupted."

// exitCoder is an error that asks for a particular exit status.
type exitCoder interface {
	error
	ExitCode() int
}

func asExitCoder(err error, target *exitCoder) bool { return errors.As(err, target) }

// statusError is an error with the exit status it stands for.
type statusError struct {
	status int
	err    error
}

func (e *statusError) Error() string { return e.err.Error() }
func (e *statusError) Unwrap() error { return e.err }
func (e *statusError) ExitCode() int { return e.status }

// usageErrorf is a bad command line: exit status 2.
func usageErrorf(format string, args ...any) error {
	return &statusError{status: exitUsage, err: fmt.Errorf(format, args...)}
}
