package promtest

import (
	"encoding/json"
	"fmt"
	"net/http"
	"net/url"
	"strconv"
	"time"
)

// Result is the data of a successful instant query.
type Result struct {
	ResultType string `json:"resultType"`
	Result     []struct {
		Metric map[string]string `json:"metric"`
		Value  []any             `json:"value"`
	} `json:"result"`
}

// Sample is one series of an instant vector, its value parsed.
type Sample struct {
	Labels map[string]string
	Value  float64
}

// Query runs an instant query; a parse error comes back as an error
// naming Prometheus' reason.
func (s *Server) Query(expr string) (Result, error) { return s.QueryAt(expr, time.Time{}) }

// QueryAt runs an instant query evaluated at the instant at (now if zero),
// to the millisecond: at a scrape's timestamp, increase() has nothing to
// extrapolate after the last sample.
func (s *Server) QueryAt(expr string, at time.Time) (Result, error) {
	path := "/api/v1/query?query=" + url.QueryEscape(expr)
	if !at.IsZero() {
		path += "&time=" + strconv.FormatFloat(float64(at.UnixMilli())/1e3, 'f', 3, 64)
	}
	var body struct {
		Status    string `json:"status"`
		ErrorType string `json:"errorType"`
		Error     string `json:"error"`
		Data      Result `json:"data"`
	}
	if err := s.Get(path, &body); err != nil {
		return Result{}, fmt.Errorf("query %q: %w", expr, err)
	}
	if body.Status != "success" {
		return Result{}, fmt.Errorf("%s: %s", body.ErrorType, body.Error)
	}
	return body.Data, nil
}

// Samples runs an instant query and parses each series' value. Tests poll
// it: a Prometheus that has not scraped yet answers with no samples.
func (s *Server) Samples(expr string) ([]Sample, error) { return s.SamplesAt(expr, time.Time{}) }

// SamplesAt is Samples evaluated at the instant at (now if zero).
func (s *Server) SamplesAt(expr string, at time.Time) ([]Sample, error) {
	r, err := s.QueryAt(expr, at)
	if err != nil {
		return nil, err
	}
	out := make([]Sample, 0, len(r.Result))
	for _, series := range r.Result {
		if len(series.Value) != 2 {
			return nil, fmt.Errorf("query %q: value %v is not [time, value]", expr, series.Value)
		}
		text, _ := series.Value[1].(string)
		v, err := strconv.ParseFloat(text, 64)
		if err != nil {
			return nil, fmt.Errorf("query %q: value %v: %w", expr, series.Value[1], err)
		}
		out = append(out, Sample{Labels: series.Metric, Value: v})
	}
	return out, nil
}

// Get fetches a JSON API path into v.
func (s *Server) Get(path string, v any) error {
	client := http.Client{Timeout: 20 * time.Second}
	resp, err := client.Get(s.URL + path)
	if err != nil {
		return err
	}
	defer resp.Body.Close()
	if err := json.NewDecoder(resp.Body).Decode(v); err != nil {
		return fmt.Errorf("decoding answer from %s: %w", path, err)
	}
	return nil
}
