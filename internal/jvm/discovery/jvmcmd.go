package discovery

import (
	"fmt"
	"path"
	"strings"
)

// jvmCommand is a java launcher command line split into its parts.
type jvmCommand struct {
	Options   []string // launcher options before the main class, @argfiles expanded
	MainClass string   // "" when started with -jar
	Jar       string   // the -jar file, if any
	Args      []string // the application's arguments
}

// Launcher options whose value is the next argument (java --help, JDK 17).
var jvmOptionsWithValue = map[string]bool{
	"-cp": true, "-classpath": true, "--class-path": true,
	"-p": true, "--module-path": true, "--upgrade-module-path": true,
	"--add-modules": true, "--limit-modules": true, "--enable-native-access": true,
	"--add-reads": true, "--add-exports": true, "--add-opens": true,
	"--patch-module": true, "--source": true,
}

// maxArgFileBytes bounds what one @argfile may add to a command line.
const maxArgFileBytes = 1 << 20

// parseJVMCommand splits argv of a java process. ok is false when argv[0]
// is not a java launcher. @argfiles (JDK 9+) are expanded, as the launcher
// does, only up to the main class; readArgFile resolves their path in the
// process's own view of the file system.
func parseJVMCommand(argv []string, readArgFile func(string) ([]byte, error)) (cmd jvmCommand, ok bool, err error) {
	if len(argv) == 0 || path.Base(argv[0]) != "java" {
		return cmd, false, nil
	}
	expand := true
	pending := append([]string(nil), argv[1:]...)
	for len(pending) > 0 {
		arg := pending[0]
		pending = pending[1:]
		switch {
		case expand && strings.HasPrefix(arg, "@@"):
			arg = arg[1:] // "@@x" is the literal "@x"
		case expand && strings.HasPrefix(arg, "@") && len(arg) > 1:
			data, err := readArgFile(arg[1:])
			if err != nil {
				return cmd, true, fmt.Errorf("argfile %s: %w", arg, err)
			}
			if len(data) > maxArgFileBytes {
				return cmd, true, fmt.Errorf("argfile %s: %d bytes, more than %d", arg, len(data), maxArgFileBytes)
			}
			words, err := splitArgFile(string(data))
			if err != nil {
				return cmd, true, fmt.Errorf("argfile %s: %w", arg, err)
			}
			// Argfiles do not nest, so their words go straight to the parser.
			pending = append(markLiteral(words), pending...)
			continue
		}
		arg = strings.TrimPrefix(arg, literalMark)
		switch {
		case arg == "--disable-@files":
			expand = false
			cmd.Options = append(cmd.Options, arg)
		case arg == "-jar":
			if len(pending) == 0 {
				return cmd, true, fmt.Errorf("-jar without a file")
			}
			cmd.Jar, cmd.Args = pending[0], unmark(pending[1:])
			return cmd, true, nil
		case arg == "-m" || arg == "--module":
			if len(pending) == 0 {
				return cmd, true, fmt.Errorf("%s without a module", arg)
			}
			cmd.MainClass, cmd.Args = moduleMainClass(pending[0]), unmark(pending[1:])
			return cmd, true, nil
		case strings.HasPrefix(arg, "--module="):
			cmd.MainClass, cmd.Args = moduleMainClass(strings.TrimPrefix(arg, "--module=")), unmark(pending)
			return cmd, true, nil
		case jvmOptionsWithValue[arg]:
			if len(pending) == 0 {
				return cmd, true, fmt.Errorf("%s without a value", arg)
			}
			value := strings.TrimPrefix(pending[0], literalMark)
			if expand && strings.HasPrefix(pending[0], "@@") {
				value = value[1:]
			}
			cmd.Options = append(cmd.Options, arg, value)
			pending = pending[1:]
		case strings.HasPrefix(arg, "-"):
			cmd.Options = append(cmd.Options, arg)
		default:
			cmd.MainClass, cmd.Args = arg, unmark(pending)
			return cmd, true, nil
		}
	}
	return cmd, true, nil
}

// literalMark tags words that came out of an argfile so that a word
// starting with "@" there is not expanded again. NUL cannot occur in argv.
const literalMark = "\x00"

func markLiteral(words []string) []string {
	out := make([]string, len(words))
	for i, w := range words {
		out[i] = literalMark + w
	}
	return out
}

func unmark(words []string) []string {
	out := make([]string, len(words))
	for i, w := range words {
		out[i] = strings.TrimPrefix(w, literalMark)
	}
	return out
}

// moduleMainClass returns the class of "module/class", "" for a bare module.
func moduleMainClass(spec string) string {
	spec = strings.TrimPrefix(spec, literalMark)
	if _, class, ok := strings.Cut(spec, "/"); ok {
		return class
	}
	return ""
}

// splitArgFile splits an argfile into words as the java launcher does:
// white space separates, '…' and "…" quote (with \ escapes inside), and
// a # at the start of a word comments out the rest of the line.
func splitArgFile(s string) ([]string, error) {
	var (
		words   []string
		cur     strings.Builder
		inWord  bool
		comment bool
		quote   rune
		escaped bool
		line    = 1
		opened  int // line of the open quote
	)
	for _, r := range s {
		if r == '\n' {
			line++
		}
		switch {
		case comment:
			comment = r != '\n'
		case quote != 0 && escaped:
			cur.WriteRune(unescape(r))
			escaped = false
		case quote != 0 && r == '\\':
			escaped = true
		case quote != 0 && r == quote:
			quote = 0
		case quote != 0:
			cur.WriteRune(r)
		case r == '\'' || r == '"':
			quote, inWord, opened = r, true, line
		case r == ' ' || r == '\t' || r == '\n' || r == '\r' || r == '\f':
			if inWord {
				words = append(words, cur.String())
				cur.Reset()
				inWord = false
			}
		case r == '#' && !inWord:
			comment = true
		default:
			cur.WriteRune(r)
			inWord = true
		}
	}
	if quote != 0 {
		return nil, fmt.Errorf("line %d: unterminated %c quote", opened, quote)
	}
	if inWord {
		words = append(words, cur.String())
	}
	return words, nil
}

func unescape(r rune) rune {
	switch r {
	case 'n':
		return '\n'
	case 't':
		return '\t'
	case 'r':
		return '\r'
	case 'f':
		return '\f'
	}
	return r
}
