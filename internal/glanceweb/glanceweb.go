// Package glanceweb serves the live glance of `serve`: /apps (the followed
// applications, running first), /apps/{app_id}[/{attempt_id}] (the report
// page, polling its document while the application runs) and the JSON API
// /api/v1/apps[/{app_id}[/{attempt_id}]] with the same document `analyze
// --json` writes. The routes are mounted by the event-log collector through
// the exporter's RouteProvider, behind the same web config as /metrics.
package glanceweb

import (
	"bytes"
	"encoding/json"
	"net/http"
	"regexp"
	"slices"
	"strings"

	"github.com/sparkglance/sparkglance/internal/analysis"
	"github.com/sparkglance/sparkglance/internal/report"
)

// App is one followed application attempt.
type App struct {
	Report  *analysis.Report // the analysis inside Doc (ids, index row)
	Doc     any              // the analysis document served as JSON
	Running bool             // its log is still being written
}

// Source lists the applications followed right now.
type Source func() []App

// validID is what an application or attempt id may look like here: Spark's
// ids are letters, digits, '-', '_' and '.'. Ids only ever select among the
// followed applications; they never reach the filesystem.
var validID = regexp.MustCompile(`^[A-Za-z0-9][A-Za-z0-9._-]{0,254}$`)

// Route is one endpoint: an http.ServeMux pattern and its handler; Text and
// Description, when set, make a landing-page link. The collector that mounts
// these hands them to the exporter as its routes (this package stays below
// the exporter).
type Route struct {
	Pattern           string
	Handler           http.Handler
	Text, Description string
}

// Routes returns the live pages and the JSON API. They answer GET and
// HEAD only (405 otherwise), and every answer carries nosniff; the pages
// also carry their Content-Security-Policy (report.PageCSP, IndexCSP).
func Routes(src Source) []Route {
	s := &server{src: src, docs: newDocCache()}
	return []Route{
		{Pattern: "/apps", Handler: readOnly(s.index), Text: "Applications",
			Description: "The glance of every followed Spark application: core time by use, spill, stage timeline"},
		{Pattern: "/apps/{app_id}", Handler: readOnly(s.page)},
		{Pattern: "/apps/{app_id}/{attempt_id}", Handler: readOnly(s.page)},
		{Pattern: "/api/v1/apps", Handler: readOnly(s.list)},
		{Pattern: "/api/v1/apps/{app_id}", Handler: readOnly(s.doc)},
		{Pattern: "/api/v1/apps/{app_id}/{attempt_id}", Handler: readOnly(s.doc)},
	}
}

// readOnly answers 405 to anything but GET and HEAD: the pages change
// nothing, and a POST must not be mistaken for a read.
func readOnly(h http.HandlerFunc) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("X-Content-Type-Options", "nosniff")
		if r.Method != http.MethodGet && r.Method != http.MethodHead {
			w.Header().Set("Allow", "GET, HEAD")
			http.Error(w, "method "+r.Method+" not allowed: these pages are read-only", http.StatusMethodNotAllowed)
			return
		}
		h(w, r)
	})
}

// setPageHeaders marks an HTML answer: its policy, and never in a frame.
func setPageHeaders(w http.ResponseWriter, csp string) {
	w.Header().Set("Content-Type", "text/html; charset=utf-8")
	w.Header().Set("Content-Security-Policy", csp)
	w.Header().Set("X-Frame-Options", "DENY")
	w.Header().Set("Referrer-Policy", "no-referrer")
}

type server struct {
	src  Source
	docs *docCache
}

// sorted lists the applications: running first, then the latest started.
func (s *server) sorted() []App {
	apps := s.src()
	slices.SortStableFunc(apps, func(a, b App) int {
		if a.Running != b.Running {
			if a.Running {
				return -1
			}
			return 1
		}
		if a.Report.Start != b.Report.Start {
			if a.Report.Start > b.Report.Start {
				return -1
			}
			return 1
		}
		return strings.Compare(a.Report.AppID+"/"+a.Report.AttemptID, b.Report.AppID+"/"+b.Report.AttemptID)
	})
	return apps
}

// find picks the application attempt the request names: with no attempt id
// the one that started last. ok is false for invalid or unknown ids.
func (s *server) find(r *http.Request) (App, string, bool) {
	id, attempt := r.PathValue("app_id"), r.PathValue("attempt_id")
	if !validID.MatchString(id) || (attempt != "" && !validID.MatchString(attempt)) {
		return App{}, "invalid application or attempt id", false
	}
	if a, ok := latest(s.src(), id, attempt); ok {
		return a, "", true
	}
	return App{}, "no application " + id + attemptSuffix(attempt) + " is followed", false
}

// latest is the attempt of id (or the given one) that started last.
func latest(apps []App, id, attempt string) (App, bool) {
	var best App
	found := false
	for _, a := range apps {
		if a.Report.AppID != id || (attempt != "" && a.Report.AttemptID != attempt) {
			continue
		}
		if !found || a.Report.Start > best.Report.Start ||
			(a.Report.Start == best.Report.Start && a.Report.AttemptID > best.Report.AttemptID) {
			best, found = a, true
		}
	}
	return best, found
}

func attemptSuffix(attempt string) string {
	if attempt == "" {
		return ""
	}
	return " attempt " + attempt
}

// pagePath is an application's page below /apps/.
func pagePath(r *analysis.Report) string {
	p := r.AppID
	if r.AttemptID != "" {
		p += "/" + r.AttemptID
	}
	return p
}

func (s *server) index(w http.ResponseWriter, _ *http.Request) {
	apps := s.sorted()
	rows := make([]report.Summary, len(apps))
	for i, a := range apps {
		rows[i] = report.Summarize(a.Report)
		rows[i].Live = a.Running
		rows[i].Href = "apps/" + pagePath(a.Report)
	}
	var buf bytes.Buffer
	if err := report.WriteIndex(&buf, report.Index{Title: "Spark applications", Apps: rows, Live: true, WorkloadsURL: "workloads"}); err != nil {
		http.Error(w, err.Error(), http.StatusInternalServerError)
		return
	}
	setPageHeaders(w, report.IndexCSP)
	_, _ = w.Write(buf.Bytes())
}

func (s *server) page(w http.ResponseWriter, r *http.Request) {
	app, why, ok := s.find(r)
	if !ok {
		http.Error(w, why, http.StatusNotFound)
		return
	}
	doc, err := s.docs.json(pagePath(app.Report), app.Doc)
	if err != nil {
		http.Error(w, err.Error(), http.StatusInternalServerError)
		return
	}
	// Relative links keep working behind a reverse proxy's path prefix.
	up := "../"
	if r.PathValue("attempt_id") != "" {
		up = "../../"
	}
	live := ""
	if app.Running {
		live = up + "api/v1/apps/" + pagePath(app.Report)
	}
	var buf bytes.Buffer
	if err := report.WritePage(&buf, report.Page{Doc: doc, LiveURL: live, IndexURL: up + "apps"}); err != nil {
		http.Error(w, err.Error(), http.StatusInternalServerError)
		return
	}
	setPageHeaders(w, report.PageCSP)
	_, _ = w.Write(buf.Bytes())
}

// listEntry is one application in /api/v1/apps.
type listEntry struct {
	AppID           string  `json:"appId"`
	AttemptID       string  `json:"attemptId,omitempty"`
	AppName         string  `json:"appName"`
	Running         bool    `json:"running"`
	Start           int64   `json:"start"`
	End             int64   `json:"end"`
	MaxCores        int     `json:"maxCores"`
	Efficiency      float64 `json:"efficiency"`
	WastedCoreHours float64 `json:"wastedCoreHours"`
	Findings        int     `json:"findings"`
	Page            string  `json:"page"`
	Doc             string  `json:"doc"`
}

func (s *server) list(w http.ResponseWriter, _ *http.Request) {
	out := []listEntry{}
	for _, a := range s.sorted() {
		sum := report.Summarize(a.Report)
		p := pagePath(a.Report)
		out = append(out, listEntry{AppID: sum.AppID, AttemptID: sum.AttemptID, AppName: sum.AppName, Running: a.Running,
			Start: sum.Start, End: sum.End, MaxCores: sum.MaxCores, Efficiency: sum.Efficiency,
			WastedCoreHours: sum.WastedCoreHours, Findings: sum.Findings, Page: "/apps/" + p, Doc: "/api/v1/apps/" + p})
	}
	writeJSON(w, http.StatusOK, out)
}

func (s *server) doc(w http.ResponseWriter, r *http.Request) {
	app, why, ok := s.find(r)
	if !ok {
		writeJSON(w, http.StatusNotFound, map[string]string{"error": why})
		return
	}
	doc, err := s.docs.json(pagePath(app.Report), app.Doc)
	if err != nil {
		writeJSON(w, http.StatusInternalServerError, map[string]string{"error": err.Error()})
		return
	}
	w.Header().Set("Content-Type", "application/json")
	w.Header().Set("Cache-Control", "no-store")
	_, _ = w.Write(doc)
}

func writeJSON(w http.ResponseWriter, status int, v any) {
	b, err := json.Marshal(v)
	if err != nil {
		status = http.StatusInternalServerError
		b, _ = json.Marshal(map[string]string{"error": err.Error()})
	}
	w.Header().Set("Content-Type", "application/json")
	w.Header().Set("Cache-Control", "no-store")
	w.WriteHeader(status)
	_, _ = w.Write(append(b, '\n'))
}
