package eventlog

import (
	"maps"
	"sync/atomic"

	"github.com/sparkglance/sparkglance/exporter"
	"github.com/sparkglance/sparkglance/internal/analysis"
	"github.com/sparkglance/sparkglance/internal/appdoc"
	"github.com/sparkglance/sparkglance/internal/glanceweb"
	"github.com/sparkglance/sparkglance/internal/sparklog"
)

// liveDocs holds the latest published document of one followed log. Only
// the log's goroutine writes; readers load the immutable pointer.
type liveDocs struct {
	latest atomic.Pointer[appdoc.Doc]
	read   appdoc.Doc // only its problems: those met so far, bounded
}

func (d *liveDocs) keep(p sparklog.Problem) { d.read.Keep(p) }

// publish stores r (a deep copy already) with the follower's counts.
func (d *liveDocs) publish(r *analysis.Report, f *sparklog.Follower) {
	doc := &appdoc.Doc{
		Report: *r, Problems: append([]sparklog.Problem{}, d.read.Problems...), ProblemsOmitted: d.read.ProblemsOmitted,
		Events: map[string]int64{}}
	if f != nil {
		st := f.Stats()
		doc.Log, doc.Lines = f.Log().Path, st.Lines
		maps.Copy(doc.Events, st.ByType)
	}
	d.latest.Store(doc)
}

// LiveApp is a followed application attempt as the live pages show it.
type LiveApp struct {
	Doc     *appdoc.Doc // immutable
	Running bool        // its log is still being written
}

// LiveApps returns the latest document of every followed application
// attempt that has one.
func (w *Watcher) LiveApps() []LiveApp {
	var out []LiveApp
	for _, a := range w.snapshot() {
		if d := a.docs.latest.Load(); d != nil {
			out = append(out, LiveApp{Doc: d, Running: a.running.Load()})
		}
	}
	return out
}

// Routes implements exporter.RouteProvider: the live glance pages, the
// workload pages and their JSON API (package glanceweb).
func (w *Watcher) Routes() []exporter.Route {
	src := func() []glanceweb.App {
		apps := w.LiveApps()
		out := make([]glanceweb.App, len(apps))
		for i, a := range apps {
			out[i] = glanceweb.App{Report: &a.Doc.Report, Doc: a.Doc, Running: a.Running}
		}
		return out
	}
	pages := append(glanceweb.Routes(src), glanceweb.WorkloadRoutes(w.History(), src)...)
	routes := make([]exporter.Route, len(pages))
	for i, p := range pages {
		routes[i] = exporter.Route{Pattern: p.Pattern, Handler: p.Handler, Text: p.Text, Description: p.Description}
	}
	return routes
}
