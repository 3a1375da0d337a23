package profiles

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"mime"
	"net/http"
	"regexp"
	"strings"
)

// maxRequestBody bounds a POST body; a valid one is under 200 bytes.
const maxRequestBody = 16 << 10

// Paths of the API.
const (
	CollectionPath = "/api/v1/profiles"
	ItemPrefix     = CollectionPath + "/"
)

var idPattern = regexp.MustCompile(`^[0-9a-f]{16}$`)

// Handler serves the API on CollectionPath and ItemPrefix.
func (m *Manager) Handler() http.Handler {
	mux := http.NewServeMux()
	mux.HandleFunc(CollectionPath, m.serveCollection)
	mux.HandleFunc(ItemPrefix, m.serveItem)
	return mux
}

func (m *Manager) serveCollection(w http.ResponseWriter, r *http.Request) {
	switch r.Method {
	case http.MethodGet, http.MethodHead:
		writeJSON(w, http.StatusOK, map[string]any{"profiles": m.List()})
	case http.MethodPost:
		m.serveCreate(w, r)
	default:
		w.Header().Set("Allow", "GET, HEAD, POST")
		writeError(w, http.StatusMethodNotAllowed, "method "+r.Method+" not allowed on "+CollectionPath)
	}
}

func (m *Manager) serveCreate(w http.ResponseWriter, r *http.Request) {
	// A JSON content type makes a browser ask the server first (CORS
	// preflight), which it never grants: no other site's page can start a
	// profile, whereas text/plain or a form would be sent as is.
	if mt, _, err := mime.ParseMediaType(r.Header.Get("Content-Type")); err != nil || mt != "application/json" {
		w.Header().Set("Accept-Post", "application/json")
		writeError(w, http.StatusUnsupportedMediaType, fmt.Sprintf("Content-Type %q: want application/json", r.Header.Get("Content-Type")))
		return
	}
	body, err := readBody(w, r)
	if err != nil {
		writeError(w, http.StatusBadRequest, err.Error())
		return
	}
	dec := json.NewDecoder(bytes.NewReader(body))
	dec.DisallowUnknownFields()
	var req CreateRequest
	if err := dec.Decode(&req); err != nil {
		writeError(w, http.StatusBadRequest, "request body: "+err.Error())
		return
	}
	if dec.More() {
		writeError(w, http.StatusBadRequest, "request body: more than one JSON value")
		return
	}
	info, err := m.Create(r.Context(), req)
	switch {
	case err == nil:
		w.Header().Set("Location", ItemPrefix+info.ID)
		writeJSON(w, http.StatusAccepted, info)
	case errors.Is(err, ErrInvalid), errors.Is(err, ErrUnknownTarget):
		writeError(w, http.StatusBadRequest, err.Error())
	case errors.Is(err, ErrBusy):
		writeError(w, http.StatusConflict, err.Error())
	case errors.Is(err, ErrFull):
		w.Header().Set("Retry-After", "10")
		writeError(w, http.StatusServiceUnavailable, err.Error())
	default:
		writeError(w, http.StatusInternalServerError, err.Error())
	}
}

func readBody(w http.ResponseWriter, r *http.Request) ([]byte, error) {
	var buf bytes.Buffer
	_, err := buf.ReadFrom(http.MaxBytesReader(w, r.Body, maxRequestBody))
	var tooBig *http.MaxBytesError
	if errors.As(err, &tooBig) {
		return nil, fmt.Errorf("request body over %d bytes", maxRequestBody)
	}
	return buf.Bytes(), err
}

func (m *Manager) serveItem(w http.ResponseWriter, r *http.Request) {
	if r.Method != http.MethodGet && r.Method != http.MethodHead {
		w.Header().Set("Allow", "GET, HEAD")
		writeError(w, http.StatusMethodNotAllowed, "method "+r.Method+" not allowed on a profile")
		return
	}
	id := strings.TrimPrefix(r.URL.Path, ItemPrefix)
	p, ok := (*Profile)(nil), false
	if idPattern.MatchString(id) {
		p, ok = m.Get(id)
	}
	if !ok {
		writeError(w, http.StatusNotFound, "no profile "+fmt.Sprintf("%q", id))
		return
	}
	format := r.URL.Query().Get("format")
	info := p.Info()
	if format == "" {
		writeJSON(w, http.StatusOK, info)
		return
	}
	write, ok := downloads[format]
	if !ok {
		writeError(w, http.StatusBadRequest, fmt.Sprintf("format %q: want pprof, folded or svg", format))
		return
	}
	if info.Status == StatusRunning {
		w.Header().Set("Retry-After", "1")
		writeError(w, http.StatusConflict, "profile "+id+" is still running")
		return
	}
	var buf bytes.Buffer
	if err := write.write(p, &buf); err != nil {
		writeError(w, http.StatusInternalServerError, err.Error())
		return
	}
	w.Header().Set("Content-Type", write.contentType)
	w.Header().Set("Content-Disposition", `attachment; filename="profile-`+id+write.ext+`"`)
	w.Header().Set("X-Content-Type-Options", "nosniff")
	w.WriteHeader(http.StatusOK)
	_, _ = w.Write(buf.Bytes())
}

type download struct {
	contentType, ext string
	write            func(*Profile, *bytes.Buffer) error
}

var downloads = map[string]download{
	"pprof":  {"application/octet-stream", ".pb.gz", func(p *Profile, b *bytes.Buffer) error { return p.WritePprof(b) }},
	"folded": {"text/plain; charset=utf-8", ".folded", func(p *Profile, b *bytes.Buffer) error { return p.WriteFolded(b) }},
	"svg":    {"image/svg+xml", ".svg", func(p *Profile, b *bytes.Buffer) error { return p.WriteSVG(b) }},
}

func writeJSON(w http.ResponseWriter, status int, v any) {
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(status)
	enc := json.NewEncoder(w)
	enc.SetIndent("", "  ")
	_ = enc.Encode(v)
}

func writeError(w http.ResponseWriter, status int, msg string) {
	writeJSON(w, status, map[string]string{"error": msg})
}
