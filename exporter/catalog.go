package exporter

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"sync"

	"github.com/alecthomas/kingpin/v2"
	"github.com/prometheus/client_golang/prometheus"
)

// Collector is one source of metrics, made from an [Updater] by [FromUpdater]
// or from a [FamilyCollector] by [FromFamilies]; the interface is sealed, so
// the compiler checks that every collector is one of the two. The value it is
// made from may also be a [Runner], a [Readier] or a [RouteProvider].
type Collector interface {
	// source is the value the collector was made from.
	source() any
}

// FromUpdater makes a collector of u, which sends const metrics per scrape.
func FromUpdater(u Updater) Collector { return updaterCollector{u} }

// FromFamilies makes a collector of f, which hands over whole families.
func FromFamilies(f FamilyCollector) Collector { return familyCollector{f} }

type updaterCollector struct{ Updater }

func (c updaterCollector) source() any { return c.Updater }

type familyCollector struct{ FamilyCollector }

func (c familyCollector) source() any { return c.FamilyCollector }

// made reports whether c was made by FromUpdater or FromFamilies of a
// non-nil value (a nil interface, or a type embedding a Collector, is not).
func made(c Collector) bool {
	switch c := c.(type) {
	case updaterCollector:
		return c.Updater != nil
	case familyCollector:
		return c.FamilyCollector != nil
	}
	return false
}

// Updater is a collector that sends const metrics (built with
// prometheus.MustNewConstMetric, never with timestamps) for the current
// scrape and returns when done; it must stop early once ctx is done.
type Updater interface {
	Update(ctx context.Context, ch chan<- prometheus.Metric) error
}

// Runner is implemented by stateful collectors whose model works in the
// background. Run blocks until ctx is cancelled.
type Runner interface {
	Run(ctx context.Context) error
}

// Readier is implemented by collectors that need time before their first
// consistent snapshot. Ready returns nil once they can answer a scrape.
type Readier interface {
	Ready() error
}

// Factory builds a collector after the command line has been parsed.
type Factory func(logger *slog.Logger) (Collector, error)

// FlagGroup is where flags are declared: a *kingpin.Application or a
// *kingpin.CmdClause.
type FlagGroup interface {
	Flag(name, help string) *kingpin.FlagClause
}

// Option adjusts a registration.
type Option func(*registration)

// WithFlags lets a collector declare its own flags (conventionally named
// <collector>.<option>) next to --collector.<name>.
func WithFlags(declare func(FlagGroup)) Option {
	return func(r *registration) { r.declareFlags = declare }
}

// WithCheck adds a start-up check that runs whether or not the collector
// is enabled (enabled says which): a flag of the collector that means
// nothing without it is an error, not a silent no-op.
func WithCheck(check func(enabled bool) error) Option {
	return func(r *registration) { r.check = check }
}

// WithHelp sets the sentence shown in --collector.<name>'s help.
func WithHelp(help string) Option {
	return func(r *registration) { r.help = help }
}

type registration struct {
	name           string
	defaultEnabled bool
	enabled        bool
	explicit       bool // set on the command line, kept by --collector.disable-defaults
	factory        Factory
	help           string
	declareFlags   func(FlagGroup)
	check          func(enabled bool) error
}

// Catalog is a set of registered collectors and whether each is enabled.
// The command builds one and registers every collector in it explicitly,
// handing each the shared services it needs.
type Catalog struct {
	mu              sync.Mutex
	regs            map[string]*registration
	disableDefaults bool
	flagsDeclared   bool
}

// NewCatalog returns an empty catalog.
func NewCatalog() *Catalog {
	return &Catalog{regs: map[string]*registration{}}
}

var collectorName = regexp.MustCompile(`^[a-z][a-z0-9_]*$`)

// Register adds a collector. A bad or duplicate name is a programming error
// caught at start-up, so it panics like prometheus.MustRegister.
func (c *Catalog) Register(name string, defaultEnabled bool, factory Factory, opts ...Option) {
	if !collectorName.MatchString(name) {
		panic(fmt.Sprintf("exporter: collector name %q must match %s", name, collectorName))
	}
	if factory == nil {
		panic(fmt.Sprintf("exporter: collector %q has no factory", name))
	}
	r := &registration{name: name, defaultEnabled: defaultEnabled, enabled: defaultEnabled, factory: factory}
	for _, o := range opts {
		o(r)
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	if _, dup := c.regs[name]; dup {
		panic(fmt.Sprintf("exporter: collector %q registered twice", name))
	}
	if c.flagsDeclared {
		panic(fmt.Sprintf("exporter: collector %q registered after flags were declared", name))
	}
	c.regs[name] = r
}

// Names returns the registered collector names, sorted.
func (c *Catalog) Names() []string {
	c.mu.Lock()
	defer c.mu.Unlock()
	names := make([]string, 0, len(c.regs))
	for n := range c.regs {
		names = append(names, n)
	}
	slices.Sort(names)
	return names
}

// declareFlags adds --collector.<name> for each registration,
// --collector.disable-defaults, and the collectors' own flags.
func (c *Catalog) declareFlags(g FlagGroup) {
	c.mu.Lock()
	c.flagsDeclared = true
	c.mu.Unlock()
	g.Flag("collector.disable-defaults", "Disable every collector not enabled explicitly with --collector.<name>.").
		Default("false").BoolVar(&c.disableDefaults)
	for _, name := range c.Names() {
		r := c.regs[name]
		state := "disabled"
		if r.defaultEnabled {
			state = "enabled"
		}
		help := r.help
		if help == "" {
			help = "Enable the " + name + " collector."
		}
		g.Flag("collector."+name, help+" (default: "+state+")").
			Default(strconv.FormatBool(r.defaultEnabled)).
			Action(func(*kingpin.ParseContext) error { r.explicit = true; return nil }).
			BoolVar(&r.enabled)
		if r.declareFlags != nil {
			r.declareFlags(g)
		}
	}
}

// enabled returns the registrations that will run, sorted by name.
func (c *Catalog) enabled() []*registration {
	c.mu.Lock()
	defer c.mu.Unlock()
	var out []*registration
	for _, r := range c.regs {
		if c.isEnabled(r) {
			out = append(out, r)
		}
	}
	slices.SortFunc(out, func(a, b *registration) int { return strings.Compare(a.name, b.name) })
	return out
}

func (c *Catalog) isEnabled(r *registration) bool {
	return r.enabled && (r.explicit || !c.disableDefaults)
}

// check runs every registration's start-up check, sorted by name.
func (c *Catalog) check() error {
	var errs []error
	for _, name := range c.Names() {
		c.mu.Lock()
		r := c.regs[name]
		enabled := c.isEnabled(r)
		c.mu.Unlock()
		if r.check == nil {
			continue
		}
		if err := r.check(enabled); err != nil {
			errs = append(errs, err)
		}
	}
	return errors.Join(errs...)
}
