// Package layers_test checks the module's import layering: domain code under
// internal/ knows nothing of collectors, the exporter, commands or the
// command-line library; a collector knows no other collector and no command;
// inside the event-log reader, the decoder, the codecs and the object stores
// sit below the readers and know nothing of them or of each other.
package layers_test

import (
	"os/exec"
	"strings"
	"testing"

	"github.com/sparkglance/sparkglance/internal/testkit"
)

const module = "github.com/sparkglance/sparkglance"

type pkg struct {
	path          string
	imports, deps []string
}

func listPackages(t *testing.T) []pkg {
	t.Helper()
	goTool := testkit.RequireTool(t, "go")
	root, err := testkit.ModuleRoot()
	if err != nil {
		t.Fatal(err)
	}
	cmd := exec.Command(goTool, "list", "-deps=false", "-f", `{{.ImportPath}}|{{join .Imports ","}}|{{join .Deps ","}}`, "./...")
	cmd.Dir = root
	out, err := cmd.Output()
	if err != nil {
		t.Fatalf("go list: %v", err)
	}
	var pkgs []pkg
	for line := range strings.Lines(strings.TrimSpace(string(out))) {
		f := strings.Split(strings.TrimSpace(line), "|")
		if len(f) != 3 {
			t.Fatalf("go list line %q", line)
		}
		pkgs = append(pkgs, pkg{f[0], strings.Split(f[1], ","), strings.Split(f[2], ",")})
	}
	if len(pkgs) < 10 {
		t.Fatalf("go list found only %d packages", len(pkgs))
	}
	return pkgs
}

// under reports whether p is dir or a package below it, relative to the module.
func under(p, dir string) bool {
	d := module + "/" + dir
	return p == d || strings.HasPrefix(p, d+"/")
}

func TestImportLayers(t *testing.T) {
	forbid := func(from, to, why string) {
		t.Errorf("%s imports %s: %s", from, to, why)
	}
	collector := func(p string) string { // collectors/<name>, or ""
		rest, ok := strings.CutPrefix(p, module+"/collectors/")
		if !ok {
			return ""
		}
		name, _, _ := strings.Cut(rest, "/")
		return name
	}
	// The parts of internal/sparklog below its readers, each with the
	// packages it must not depend on, directly or not.
	sparklogParts := []struct {
		dir, why string
		not      []string
	}{
		{"internal/sparklog/sparkevent", "the decoder turns one line into an event; files, codecs and object stores are the readers' (sparklog), above it",
			[]string{"internal/sparklog", "internal/sparklog/codec", "internal/sparklog/objstore"}},
		{"internal/sparklog/codec", "a codec decompresses bytes; it knows no event, store or log layout",
			[]string{"internal/sparklog", "internal/sparklog/sparkevent", "internal/sparklog/objstore"}},
		{"internal/sparklog/objstore", "an object store lists and reads objects; events, codecs and log layouts are above it",
			[]string{"internal/sparklog", "internal/sparklog/sparkevent", "internal/sparklog/codec"}},
	}
	found := map[string]bool{}
	for _, p := range listPackages(t) {
		for _, part := range sparklogParts {
			if !under(p.path, part.dir) {
				continue
			}
			found[part.dir] = true
			for _, d := range p.deps {
				for _, no := range part.not {
					if d == module+"/"+no {
						forbid(p.path, d, part.why)
					}
				}
			}
		}
		if under(p.path, "internal") {
			// Every dependency, direct or not: a library below internal/
			// must not drag the command line or the serving layers in.
			for _, d := range p.deps {
				switch {
				case under(d, "collectors"), under(d, "exporter"), under(d, "cmd"):
					forbid(p.path, d, "internal/ is the domain layer; collectors, the exporter and commands build on it, not the other way round")
				case strings.HasPrefix(d, "github.com/alecthomas/kingpin"):
					forbid(p.path, d, "only cmd/, exporter and collectors/ declare flags (kingpin); internal/ takes plain config structs")
				}
			}
		}
		if c := collector(p.path); c != "" {
			for _, d := range p.imports {
				if other := collector(d); other != "" && other != c {
					forbid(p.path, d, "a collector must not depend on another collector; cmd wires them")
				}
				if under(d, "cmd") {
					forbid(p.path, d, "collectors must not import commands")
				}
			}
		}
	}
	for _, part := range sparklogParts {
		if !found[part.dir] {
			t.Errorf("no package %s: the layering above names one", part.dir)
		}
	}
}
