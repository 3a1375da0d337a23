package testkit

import (
	"net/http"
	"net/http/httptest"
	"testing"
)

// JSONRoutes answers fixed JSON bodies by path (query ignored); other paths
// get 404, as from Spark's Jetty.
func JSONRoutes(routes map[string][]byte) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		body, ok := routes[r.URL.Path]
		if !ok {
			http.NotFound(w, r)
			return
		}
		w.Header().Set("Content-Type", "application/json")
		_, _ = w.Write(body)
	})
}

// ServeJSON serves JSONRoutes on 127.0.0.1 until the test ends.
func ServeJSON(t testing.TB, routes map[string][]byte) *httptest.Server {
	t.Helper()
	srv := httptest.NewServer(JSONRoutes(routes))
	t.Cleanup(srv.Close)
	return srv
}
