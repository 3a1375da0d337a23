package spark

import sm "github.com/sparkglance/sparkglance/internal/metricschema"

// AppClaims tells this collector which applications another collector
// already exports. When the event-log collector and this one both see an
// application, the event log wins: for a claimed application this
// collector leaves out the series whose names both collectors share
// (see [SharedSeries]); its own metrics-system series stay.
type AppClaims interface {
	// Claimed reports whether appID's shared series come from elsewhere.
	// It is called during scrapes, concurrently; it must be cheap.
	Claimed(appID string) bool
}

// SharedSeries are the metric names that the event-log collector emits
// too, with the same meaning and the same labels: the families defined in
// package metricschema ([sm.Shared]).
var SharedSeries = sharedNames()

func sharedNames() []string {
	var names []string
	for _, m := range sm.Shared() {
		names = append(names, m.Name)
	}
	return names
}

// noClaims claims nothing: the default.
type noClaims struct{}

func (noClaims) Claimed(string) bool { return false }
