package main

import (
	"context"
	"errors"

	"github.com/alecthomas/kingpin/v2"
)

type analyzeCommand struct{ paths *[]string }

func newAnalyzeCommand(cmd *kingpin.CmdClause) *analyzeCommand {
	return &analyzeCommand{paths: cmd.Arg("path", "Event log files or directories.").Required().Strings()}
}

func (c *analyzeCommand) run(ctx context.Context) error { return errors.New("not implemented yet") }
