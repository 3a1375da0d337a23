package discovery

import (
	"log/slog"
	"sync"
)

// Service is the node's one JVM discovery: a Scanner built on first use and
// shared by every collector that needs it. The command builds one Service
// and hands it to each of them; the process collector runs its scans when
// enabled (it reads the processes every interval anyway), and otherwise
// the stack sampler does.
type Service struct {
	// Options are filled by the command line (--path.procfs,
	// --process.discovery-interval, --process.interval) before any
	// collector is built.
	Options Options

	mu      sync.Mutex
	scanner *Scanner
	sampled bool // a sampler runs the scans
}

// NewService returns a discovery with default options; its scanner is not
// built until a collector asks for it.
func NewService() *Service { return &Service{} }

// Scanner returns the shared scanner, building it with logger on first use.
func (d *Service) Scanner(logger *slog.Logger) (*Scanner, error) {
	d.mu.Lock()
	defer d.mu.Unlock()
	if d.scanner != nil {
		return d.scanner, nil
	}
	s, err := NewScanner(d.Options, logger)
	if err != nil {
		return nil, err
	}
	d.scanner = s
	return s, nil
}

// SamplerScanner returns the shared scanner for a sampler that takes over
// running its scans (the process collector); Sampled then reports true.
func (d *Service) SamplerScanner(logger *slog.Logger) (*Scanner, error) {
	s, err := d.Scanner(logger)
	if err == nil {
		d.mu.Lock()
		d.sampled = true
		d.mu.Unlock()
	}
	return s, err
}

// Sampled reports whether a sampler runs the shared scanner's scans; if
// not, a collector using the scanner must run it itself (Scanner.Run).
func (d *Service) Sampled() bool {
	d.mu.Lock()
	defer d.mu.Unlock()
	return d.sampled
}
