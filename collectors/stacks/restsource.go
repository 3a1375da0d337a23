package stacks

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"strings"
	"sync"
	"time"

	"github.com/sparkglance/sparkglance/internal/jvm/threaddump"
	sm "github.com/sparkglance/sparkglance/internal/metricschema"
)

// maxRESTBody bounds a Spark UI answer (a dump of thousands of threads is
// a few MB).
const maxRESTBody = 64 << 20

// RESTSource reaches executors through Spark UIs' REST API, for
// deployments where the exporter cannot see the executors' processes:
// it lists each UI's application and active executors, and dumps them
// with /api/v1/applications/<app>/executors/<id>/threads.
type RESTSource struct {
	UIs    []string      // base URLs, e.g. "http://driver:4040"
	Client *http.Client  // nil: http.DefaultClient (deadlines come from ctx)
	Every  time.Duration // how often executor lists are refreshed; default 15s

	mu      sync.Mutex
	listed  time.Time
	targets []Target
}

// Targets implements Lister; it asks the UIs at most once per Every and
// keeps the previous answer of a UI that fails.
func (s *RESTSource) Targets(ctx context.Context) ([]Target, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	every := s.Every
	if every <= 0 {
		every = 15 * time.Second
	}
	if !s.listed.IsZero() && time.Since(s.listed) < every {
		return s.targets, nil
	}
	var out []Target
	var errs []error
	for _, ui := range s.UIs {
		ts, err := s.listUI(ctx, ui)
		if err != nil {
			errs = append(errs, err)
			ts = s.previous(ui)
		}
		out = append(out, ts...)
	}
	s.targets, s.listed = out, time.Now()
	return out, errors.Join(errs...)
}

func (s *RESTSource) previous(ui string) []Target {
	var out []Target
	for _, t := range s.targets {
		if t.UI == ui {
			out = append(out, t)
		}
	}
	return out
}

func (s *RESTSource) listUI(ctx context.Context, ui string) ([]Target, error) {
	var apps []struct {
		ID string `json:"id"`
	}
	if err := s.getJSON(ctx, ui, "/api/v1/applications", &apps); err != nil {
		return nil, err
	}
	var out []Target
	for _, app := range apps {
		var execs []struct {
			ID       string `json:"id"`
			IsActive *bool  `json:"isActive"`
		}
		if err := s.getJSON(ctx, ui, "/api/v1/applications/"+url.PathEscape(app.ID)+"/executors", &execs); err != nil {
			return nil, err
		}
		for _, e := range execs {
			if e.IsActive != nil && !*e.IsActive {
				continue
			}
			out = append(out, Target{Framework: Spark, AppID: app.ID, ExecutorID: e.ID, UI: ui})
		}
	}
	return out, nil
}

// Dump implements Dumper for targets with a UI.
func (s *RESTSource) Dump(ctx context.Context, t Target) (*threaddump.Dump, error) {
	var threads []restThread
	path := "/api/v1/applications/" + url.PathEscape(t.AppID) + "/executors/" + url.PathEscape(t.ExecutorID) + "/threads"
	if err := s.getJSON(ctx, t.UI, path, &threads); err != nil {
		return nil, err
	}
	d, err := restDump(threads)
	if err != nil {
		return nil, &SampleError{Reason: string(sm.StacksErrorRESTDecode), Err: fmt.Errorf("%s%s: %w", redactURL(t.UI), path, err)}
	}
	return d, nil
}

// getJSON fetches ui+path and decodes it into v. Errors are SampleErrors
// naming the URL.
func (s *RESTSource) getJSON(ctx context.Context, ui, path string, v any) error {
	raw := strings.TrimRight(ui, "/") + path
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, raw, nil)
	if err != nil {
		return &SampleError{Reason: string(sm.StacksErrorRESTConfig), Err: fmt.Errorf("spark UI %q: %w", redactURL(ui), err)}
	}
	// Errors are logged and shown by the profiles API: never with the
	// user:password a --stacks.spark-ui URL may carry.
	u := req.URL.Redacted()
	req.Header.Set("Accept", "application/json")
	client := s.Client
	if client == nil {
		client = http.DefaultClient
	}
	resp, err := client.Do(req)
	if err != nil {
		reason := string(sm.StacksErrorRESTUnreachable)
		if ctx.Err() != nil || isTimeout(err) {
			reason = string(sm.StacksErrorTimeout)
		}
		return &SampleError{Reason: reason, Err: fmt.Errorf("GET %s: %w", u, err)}
	}
	defer resp.Body.Close()
	body, err := io.ReadAll(io.LimitReader(resp.Body, maxRESTBody+1))
	if err != nil {
		reason := string(sm.StacksErrorRESTUnreachable)
		if ctx.Err() != nil || isTimeout(err) {
			reason = string(sm.StacksErrorTimeout)
		}
		return &SampleError{Reason: reason, Err: fmt.Errorf("GET %s: reading body: %w", u, err)}
	}
	if resp.StatusCode != http.StatusOK {
		return &SampleError{Reason: string(sm.StacksErrorRESTStatus), Err: fmt.Errorf("GET %s: %s: %s", u, resp.Status, clipText(body, 200))}
	}
	if len(body) > maxRESTBody {
		return &SampleError{Reason: string(sm.StacksErrorRESTDecode), Err: fmt.Errorf("GET %s: body over %d bytes", u, maxRESTBody)}
	}
	if err := json.Unmarshal(body, v); err != nil {
		return &SampleError{Reason: string(sm.StacksErrorRESTDecode), Err: fmt.Errorf("GET %s: %w", u, err)}
	}
	return nil
}

// redactURL hides the password of a URL that may not even parse.
func redactURL(s string) string {
	if u, err := url.Parse(s); err == nil {
		return u.Redacted()
	}
	if at := strings.LastIndex(s, "@"); at >= 0 {
		return "…" + s[at:]
	}
	return s
}

func isTimeout(err error) bool {
	var te interface{ Timeout() bool }
	return errors.As(err, &te) && te.Timeout()
}

func clipText(b []byte, n int) string {
	s := strings.TrimSpace(string(b))
	if len(s) > n {
		return s[:n] + "…"
	}
	return s
}
