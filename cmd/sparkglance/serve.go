package main

import (
	"context"
	"errors"

	"github.com/alecthomas/kingpin/v2"
)

// PLACEHOLDER until the exporter lands.
type serveCommand struct{}

func newServeCommand(cmd *kingpin.CmdClause) *serveCommand { return &serveCommand{} }

func (c *serveCommand) run(ctx context.Context) error { return errors.New("not implemented yet") }
