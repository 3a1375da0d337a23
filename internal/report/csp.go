package report

import (
	"crypto/sha256"
	"encoding/base64"
	"strings"

	"github.com/sparkglance/sparkglance/third_party/uplot"
)

// The pages' Content-Security-Policy: scripts run only if their SHA-256
// is listed (the page's two embedded scripts, the index's one), so markup
// injected through an application's data cannot run; the page fetches
// only its own document's URL (connect-src 'self') and loads nothing.
// frame-ancestors has no effect in a <meta> policy: the served pages send
// it as a header (PageCSP, IndexCSP).
var (
	pageMetaCSP  = metaCSP("connect-src 'self'", uplot.JS, glanceJS)
	indexMetaCSP = metaCSP("", indexJS)
	// The comparison page (compare -o) fetches nothing.
	compareMetaCSP = metaCSP("", uplot.JS, compareJS)
	// A workload's page (serve's /workloads/{key}) fetches nothing; the
	// list of workloads runs the index's script.
	workloadMetaCSP = metaCSP("", uplot.JS, workloadJS)
	// CompareCSP is the Content-Security-Policy header of a served comparison page.
	CompareCSP = compareMetaCSP + "; frame-ancestors 'none'"
	// WorkloadCSP is the Content-Security-Policy header of a workload's page.
	WorkloadCSP = workloadMetaCSP + "; frame-ancestors 'none'"
	// PageCSP and IndexCSP are the Content-Security-Policy headers of an
	// application's page and of the index when served.
	PageCSP  = pageMetaCSP + "; frame-ancestors 'none'"
	IndexCSP = indexMetaCSP + "; frame-ancestors 'none'"
)

func metaCSP(extra string, scripts ...string) string {
	hashes := make([]string, len(scripts))
	for i, s := range scripts {
		sum := sha256.Sum256([]byte(s))
		hashes[i] = "'sha256-" + base64.StdEncoding.EncodeToString(sum[:]) + "'"
	}
	csp := "default-src 'none'; script-src " + strings.Join(hashes, " ") + "; style-src 'unsafe-inline'; img-src data:; base-uri 'none'; form-action 'none'"
	if extra != "" {
		csp += "; " + extra
	}
	return csp
}
