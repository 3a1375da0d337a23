package main

import (
	"fmt"
	"os"
	"regexp"
	"strings"
	"text/template"

	"github.com/alecthomas/kingpin/v2"
)

// The help lists flags by topic, the common ones first: serve has over a
// hundred, analyze thirty finding thresholds. --help shows the common
// flags and one line per topic; --help-long every flag, grouped.

// flagTopic is a group of flags: those named "<prefix>.…".
type flagTopic struct{ prefix, title string }

// flagTopics in the order the help lists them; a prefix not here goes last
// under its own name.
var flagTopics = []flagTopic{
	{"eventlog", "Event-log collector"},
	{"web", "Web server"},
	{"finding", "Finding thresholds"},
	{"sql", "SQL plans"},
	{"streaming", "Structured Streaming"},
	{"energy", "Energy and carbon"},
	{"spark", "Spark metrics collector"},
	{"process", "Process collector (Spark and Flink JVMs on this node)"},
	{"path", "Host paths"},
	{"stacks", "Thread-dump collector"},
	{"profiling", "JVM profiles"},
	{"otlp", "OpenTelemetry push"},
	{"log", "Logging"},
}

// commonFlags are the dotted flags a first run needs, listed with the
// command's own flags by --help: where to listen and read, and which
// collectors run (--collector.*).
var commonFlags = map[string]bool{
	"web.listen-address": true, "web.config.file": true, "eventlog.dir": true, "log.level": true,
}

func isCommon(name string) bool { return commonFlags[name] || strings.HasPrefix(name, "collector.") }

// helpTopic is one group of a command's flags as the templates see it.
type helpTopic struct {
	Title  string
	Prefix string
	Flags  []*kingpin.FlagModel
}

// topicOf is the prefix of a flag's topic; "" for the common ones.
func topicOf(f *kingpin.FlagModel) string {
	prefix, _, dotted := strings.Cut(f.Name, ".")
	if !dotted || isCommon(f.Name) {
		return ""
	}
	return prefix
}

// groupFlags orders a command's visible flags into topics: "Common" first
// (the command's own undotted flags, then the common dotted ones, then
// --help and --version),
// then flagTopics' order, then any other prefix.
func groupFlags(flags []*kingpin.FlagModel) []helpTopic {
	byPrefix := map[string][]*kingpin.FlagModel{}
	var own, common, general []*kingpin.FlagModel
	var others []string
	for _, f := range flags {
		if f.Hidden {
			continue
		}
		switch p := topicOf(f); {
		case f.Name == "help" || f.Name == "version":
			general = append(general, f)
		case p == "" && !strings.Contains(f.Name, "."):
			own = append(own, f)
		case p == "":
			common = append(common, f)
		default:
			if byPrefix[p] == nil && !knownTopic(p) {
				others = append(others, p)
			}
			byPrefix[p] = append(byPrefix[p], f)
		}
	}
	topics := []helpTopic{{Title: "Common", Flags: append(append(own, common...), general...)}}
	for _, t := range flagTopics {
		if fs := byPrefix[t.prefix]; len(fs) > 0 {
			topics = append(topics, helpTopic{Title: t.title, Prefix: t.prefix, Flags: fs})
		}
	}
	for _, p := range others {
		topics = append(topics, helpTopic{Title: p, Prefix: p, Flags: byPrefix[p]})
	}
	return topics
}

func knownTopic(p string) bool {
	for _, t := range flagTopics {
		if t.prefix == p {
			return true
		}
	}
	return false
}

func helpFuncs() template.FuncMap {
	return template.FuncMap{
		"FlagTopics":  groupFlags,
		"CommonFlags": func(fs []*kingpin.FlagModel) []*kingpin.FlagModel { return groupFlags(fs)[0].Flags },
		// TopicRows is --help's one line per topic beyond the common one.
		"TopicRows": func(fs []*kingpin.FlagModel) [][2]string {
			var rows [][2]string
			for _, t := range groupFlags(fs)[1:] {
				word := "flags"
				if len(t.Flags) == 1 {
					word = "flag"
				}
				rows = append(rows, [2]string{"--" + t.Prefix + ".*", fmt.Sprintf("%s (%d %s)", t.Title, len(t.Flags), word)})
			}
			return rows
		},
	}
}

// helpHead is the start of both templates: kingpin's usage line and
// command descriptions.
const helpHead = `{{define "FormatCommand" -}}
{{if .FlagSummary}} {{.FlagSummary}}{{end -}}
{{range .Args}}{{if not .Hidden}} {{if not .Required}}[{{end}}{{if .PlaceHolder}}{{.PlaceHolder}}{{else}}<{{.Name}}>{{end}}{{if .Value|IsCumulative}}...{{end}}{{if not .Required}}]{{end}}{{end}}{{end -}}
{{end -}}

{{define "FormatCommands" -}}
{{range .FlattenedCommands -}}
{{if not .Hidden -}}
  {{.FullCommand}}{{if .Default}}*{{end}}{{template "FormatCommand" .}}
{{.Help|Wrap 4}}
{{end -}}
{{end -}}
{{end -}}

{{define "FormatUsage" -}}
{{template "FormatCommand" .}}{{if .Commands}} <command> [<args> ...]{{end}}
{{if .Help}}
{{.Help|Wrap 0 -}}
{{end -}}

{{end -}}

{{if .Context.SelectedCommand -}}
usage: {{.App.Name}} {{.Context.SelectedCommand}}{{template "FormatUsage" .Context.SelectedCommand}}
{{ else -}}
usage: {{.App.Name}}{{template "FormatUsage" .App}}
{{end}}
{{if .Context.Args -}}
Args:
{{.Context.Args|ArgsToTwoColumns|FormatTwoColumns}}
{{end -}}
`

// helpTail lists the commands, on the top level.
const helpTail = `{{if not .Context.SelectedCommand -}}
{{if .App.Commands -}}
Commands:
{{template "FormatCommands" .App}}
{{end -}}
Flags of a command: sparkglance <command> --help (common ones), --help-long (all, by topic).

{{end -}}
`

// shortHelpTemplate is --help: the common flags, then one line per topic.
const shortHelpTemplate = helpHead + `{{if .Context.Flags -}}
Flags:
{{.Context.Flags|CommonFlags|FlagsToTwoColumns|FormatTwoColumns}}
{{with .Context.Flags|TopicRows -}}
More flags by topic ({{if $.Context.SelectedCommand}}sparkglance {{$.Context.SelectedCommand}} {{end}}--help-long lists them all):
{{.|FormatTwoColumns}}
{{end -}}
{{end -}}
` + helpTail

// longHelpTemplate is --help-long: every flag, under its topic.
const longHelpTemplate = helpHead + `{{range .Context.Flags|FlagTopics -}}
{{.Title}}:
{{.Flags|FlagsToTwoColumns|FormatTwoColumns}}
{{end -}}
` + helpTail

// setUpHelp makes help go to stdout (so it pipes into less and grep),
// grouped by topic.
func setUpHelp(app *kingpin.Application) {
	app.UsageWriter(os.Stdout)
	app.UsageFuncs(helpFuncs())
	app.UsageTemplate(shortHelpTemplate)
	// --help-long is kingpin's own flag, drawn with this package variable.
	kingpin.LongHelpTemplate = longHelpTemplate
}

var (
	unknownCommand = regexp.MustCompile(`^expected command but got "(.*)"$`)
	unknownFlag    = regexp.MustCompile(`^unknown long flag '--(.*)'$`)
)

// suggest adds the closest command or flag to kingpin's parse error for
// a misspelt one ("analyse" → analyze).
func suggest(app *kingpin.Application, args []string, err error) string {
	msg := err.Error()
	var names []string
	var typed, dashes string
	model := app.Model()
	if m := unknownCommand.FindStringSubmatch(msg); m != nil {
		typed = m[1]
		for _, c := range model.Commands {
			if !c.Hidden {
				names = append(names, c.Name)
			}
		}
	} else if m := unknownFlag.FindStringSubmatch(msg); m != nil {
		typed, dashes = strings.TrimPrefix(m[1], "no-"), "--"
		flags := model.Flags
		for _, c := range model.Commands {
			if len(args) > 0 && c.Name == args[0] {
				flags = append(flags, c.Flags...)
			}
		}
		for _, f := range flags {
			if !f.Hidden {
				names = append(names, f.Name)
			}
		}
	}
	best, bestDist := "", 3 // suggest within two edits only
	for _, n := range names {
		if d := editDistance(typed, n); d < bestDist {
			best, bestDist = n, d
		}
	}
	if best == "" {
		return msg
	}
	return fmt.Sprintf("%s (did you mean %q?)", msg, dashes+best)
}

// editDistance is the Levenshtein distance of two short names.
func editDistance(a, b string) int {
	prev := make([]int, len(b)+1)
	cur := make([]int, len(b)+1)
	for j := range prev {
		prev[j] = j
	}
	for i := 1; i <= len(a); i++ {
		cur[0] = i
		for j := 1; j <= len(b); j++ {
			cost := 1
			if a[i-1] == b[j-1] {
				cost = 0
			}
			cur[j] = min(prev[j]+1, cur[j-1]+1, prev[j-1]+cost)
		}
		prev, cur = cur, prev
	}
	return prev[len(b)]
}
