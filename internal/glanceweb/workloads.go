package glanceweb

import (
	"bytes"
	"encoding/json"
	"net/http"
	"net/url"
	"strings"

	"github.com/sparkglance/sparkglance/internal/report"
	"github.com/sparkglance/sparkglance/internal/workload"
)

// maxKeyLen bounds a workload key in a request; keys only ever select
// among the workloads followed.
const maxKeyLen = 1024

// WorkloadRoutes returns the pages of the recurring workloads and their
// JSON API: /workloads (every workload, the regressed first),
// /workloads/{key} (its runs as charts and a table) and
// /api/v1/workloads[/{key}], with each run's comparison with its baseline
// run at /api/v1/workloads/{key}/compare/{app_id}[/{attempt_id}].
//
// With src (the followed applications), /workloads/{key}/compare/{app_id}
// [/{attempt_id}] is the comparison page of a run with its baseline run,
// while both runs' analyses are still held (--eventlog.retention).
func WorkloadRoutes(h *workload.History, src Source) []Route {
	s := &workloadServer{h: h, src: src}
	return []Route{
		{Pattern: "GET /workloads", Handler: http.HandlerFunc(s.index), Text: "Workloads",
			Description: "Recurring jobs over time: each run against the median of its previous runs, trends and regressions"},
		{Pattern: "GET /workloads/{key}", Handler: http.HandlerFunc(s.page)},
		{Pattern: "GET /workloads/{key}/compare/{app_id}", Handler: http.HandlerFunc(s.comparePage)},
		{Pattern: "GET /workloads/{key}/compare/{app_id}/{attempt_id}", Handler: http.HandlerFunc(s.comparePage)},
		{Pattern: "GET /api/v1/workloads", Handler: http.HandlerFunc(s.list)},
		{Pattern: "GET /api/v1/workloads/{key}", Handler: http.HandlerFunc(s.doc)},
		{Pattern: "GET /api/v1/workloads/{key}/compare/{app_id}", Handler: http.HandlerFunc(s.compare)},
		{Pattern: "GET /api/v1/workloads/{key}/compare/{app_id}/{attempt_id}", Handler: http.HandlerFunc(s.compare)},
	}
}

type workloadServer struct {
	h   *workload.History
	src Source // nil: no comparison pages
}

// runPath is a run's path below /apps/ (and below .../compare/).
func runPath(appID, attemptID string) string {
	p := url.PathEscape(appID)
	if attemptID != "" {
		p += "/" + url.PathEscape(attemptID)
	}
	return p
}

// links are the links of a workload's runs, relative to up (the way to
// the server's root from the page, "" for absolute links from "/").
func links(up string) report.WorkloadLinks {
	return report.WorkloadLinks{
		Workload: func(key string) string { return up + "workloads/" + url.PathEscape(key) },
		Page:     func(s *workload.Summary) string { return up + "apps/" + runPath(s.AppID, s.AttemptID) },
		Compare: func(s *workload.Summary, _ string) string {
			return up + "api/v1/workloads/" + url.PathEscape(s.Workload) + "/compare/" + runPath(s.AppID, s.AttemptID)
		},
	}
}

// key is the workload the request names; ok is false for a key that no
// workload can have.
func requestKey(r *http.Request) (string, bool) {
	k := r.PathValue("key")
	return k, k != "" && len(k) <= maxKeyLen && !strings.ContainsAny(k, "\x00\n\r")
}

func (s *workloadServer) index(w http.ResponseWriter, _ *http.Request) {
	var buf bytes.Buffer
	ix := report.WorkloadsIndex{Title: "Spark workloads", Workloads: report.BuildWorkloads(s.h, links("")), Live: true, AppsURL: "apps"}
	// Relative to /workloads: a workload's page is workloads/{key}, an
	// application's apps/{id}.
	if err := report.WriteWorkloads(&buf, ix); err != nil {
		http.Error(w, err.Error(), http.StatusInternalServerError)
		return
	}
	setPageHeaders(w, report.IndexCSP)
	w.Header().Set("Content-Type", "text/html; charset=utf-8")
	_, _ = w.Write(buf.Bytes())
}

func (s *workloadServer) page(w http.ResponseWriter, r *http.Request) {
	key, ok := requestKey(r)
	if !ok {
		http.Error(w, "invalid workload key", http.StatusNotFound)
		return
	}
	l := links("../")
	if s.src != nil {
		l.Compare = func(run *workload.Summary, _ string) string {
			return url.PathEscape(run.Workload) + "/compare/" + runPath(run.AppID, run.AttemptID)
		}
	}
	wl, ok := report.BuildWorkload(s.h, key, l)
	if !ok {
		http.Error(w, "no workload "+key+" is followed", http.StatusNotFound)
		return
	}
	var buf bytes.Buffer
	if err := report.WriteWorkload(&buf, report.WorkloadPage{Workload: wl, IndexURL: "../workloads", Live: true}); err != nil {
		http.Error(w, err.Error(), http.StatusInternalServerError)
		return
	}
	setPageHeaders(w, report.WorkloadCSP)
	w.Header().Set("Content-Type", "text/html; charset=utf-8")
	_, _ = w.Write(buf.Bytes())
}

// workloadEntry is one workload in /api/v1/workloads.
type workloadEntry struct {
	Workload  string             `json:"workload"`
	Status    string             `json:"status"`
	Runs      int                `json:"runs"`
	Regressed []string           `json:"regressed"`
	Latest    report.WorkloadRun `json:"latest"`
	// Trend is the wall time (seconds) and efficiency of the latest
	// finished runs, oldest first.
	Trend struct {
		WallTime   []float64 `json:"wallTime"`
		Efficiency []float64 `json:"efficiency"`
	} `json:"trend"`
	Page string `json:"page"`
	Doc  string `json:"doc"`
}

func (s *workloadServer) list(w http.ResponseWriter, _ *http.Request) {
	out := []workloadEntry{}
	for _, wl := range report.BuildWorkloads(s.h, links("/")) {
		e := workloadEntry{Workload: wl.Key, Status: wl.Status, Runs: len(wl.Runs), Regressed: wl.Regressed, Latest: wl.Latest(),
			Page: wl.Page, Doc: "/api/v1/workloads/" + url.PathEscape(wl.Key)}
		e.Trend.WallTime, e.Trend.Efficiency = wl.Trend()
		out = append(out, e)
	}
	writeJSON(w, http.StatusOK, out)
}

func (s *workloadServer) doc(w http.ResponseWriter, r *http.Request) {
	key, ok := requestKey(r)
	if !ok {
		writeJSON(w, http.StatusNotFound, map[string]string{"error": "invalid workload key"})
		return
	}
	wl, ok := report.BuildWorkload(s.h, key, links("/"))
	if !ok {
		writeJSON(w, http.StatusNotFound, map[string]string{"error": "no workload " + key + " is followed"})
		return
	}
	writeJSON(w, http.StatusOK, wl)
}

// runs finds the run the request names and its baseline's closest run;
// why says what is missing.
func (s *workloadServer) runs(r *http.Request) (key string, base, run *workload.Summary, why string) {
	key, ok := requestKey(r)
	id, attempt := r.PathValue("app_id"), r.PathValue("attempt_id")
	if !ok || !validID.MatchString(id) || (attempt != "" && !validID.MatchString(attempt)) {
		return key, nil, nil, "invalid workload key, application or attempt id"
	}
	res, ok := s.h.Evaluate(key, id, attempt)
	if !ok {
		return key, nil, nil, "no run " + id + attemptSuffix(attempt) + " of workload " + key
	}
	if res.Baseline == nil {
		return key, nil, nil, "run " + id + attemptSuffix(attempt) + ": no baseline yet"
	}
	runs := s.h.Runs(key)
	for i := range runs {
		if runs[i].ID() == res.Baseline.Closest {
			base = &runs[i]
		}
		if runs[i].AppID == id && runs[i].AttemptID == attempt {
			run = &runs[i]
		}
	}
	if base == nil || run == nil {
		return key, nil, nil, "the baseline run " + res.Baseline.Closest + " is no longer kept"
	}
	return key, base, run, ""
}

// compare answers the run's comparison with its baseline's closest run.
func (s *workloadServer) compare(w http.ResponseWriter, r *http.Request) {
	_, base, run, why := s.runs(r)
	if why != "" {
		writeJSON(w, http.StatusNotFound, map[string]string{"error": why})
		return
	}
	writeJSON(w, http.StatusOK, workload.Compare(base, run))
}

// comparePage is the comparison page (the one `sparkglance compare` writes)
// of a run with its baseline's closest run, from both runs' analysis
// documents while they are held.
func (s *workloadServer) comparePage(w http.ResponseWriter, r *http.Request) {
	key, base, run, why := s.runs(r)
	if why != "" {
		http.Error(w, why, http.StatusNotFound)
		return
	}
	var apps []App
	if s.src != nil {
		apps = s.src()
	}
	bd, okb := latest(apps, base.AppID, base.AttemptID)
	nd, okn := latest(apps, run.AppID, run.AttemptID)
	if !okb || !okn || (base.AttemptID == "" && bd.Report.AttemptID != "") || (run.AttemptID == "" && nd.Report.AttemptID != "") {
		http.Error(w, "the analyses of "+base.ID()+" and "+run.ID()+" are no longer held (--eventlog.retention); "+
			"their comparison of summaries is at /api/v1/workloads/"+url.PathEscape(key)+"/compare/"+runPath(run.AppID, run.AttemptID), http.StatusNotFound)
		return
	}
	doc, err := json.Marshal(struct {
		Comparison struct {
			Workload string `json:"workload"`
			workload.Comparison
		} `json:"comparison"`
		Base any `json:"baseDoc"`
		New  any `json:"newDoc"`
	}{Comparison: struct {
		Workload string `json:"workload"`
		workload.Comparison
	}{key, workload.Compare(base, run)}, Base: bd.Doc, New: nd.Doc})
	if err != nil {
		http.Error(w, err.Error(), http.StatusInternalServerError)
		return
	}
	var buf bytes.Buffer
	if err := report.WriteCompare(&buf, report.ComparePage{Doc: doc, Title: key + ": " + base.ID() + " vs " + run.ID()}); err != nil {
		http.Error(w, err.Error(), http.StatusInternalServerError)
		return
	}
	setPageHeaders(w, report.CompareCSP)
	w.Header().Set("Content-Type", "text/html; charset=utf-8")
	_, _ = w.Write(buf.Bytes())
}
