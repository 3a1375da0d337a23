package spark

import (
	"strings"
)

// sampleKind is the Dropwizard metric type a sample came from.
type sampleKind int

const (
	kindGauge sampleKind = iota
	kindCounter
	kindHistogram
	kindMeter
	kindTimer
)

func (k sampleKind) String() string {
	return [...]string{"gauge", "counter", "histogram", "meter", "timer"}[k]
}

// dropwizardQuantiles are the percentiles Dropwizard reports, in the order
// of snapshot.quantiles.
var dropwizardQuantiles = [...]float64{0.5, 0.75, 0.95, 0.98, 0.99, 0.999}

// snapshot is a histogram's or timer's distribution. Timer values are in
// milliseconds whichever format they were read from.
type snapshot struct {
	count     uint64
	mean      float64
	quantiles [len(dropwizardQuantiles)]float64
}

// sample is one metric of Spark's metrics system, its registry key split
// into the namespace (app id or spark.metrics.namespace; "" for master,
// worker and shuffle-service keys), the instance ("driver" or an executor
// id) and the sanitized "<source>_<name>" rest.
type sample struct {
	namespace string
	instance  string
	key       string
	raw       string // key before sanitizing (JSON only), for label values
	kind      sampleKind
	value     float64   // gauge value, counter or meter count
	dist      *snapshot // histograms and timers
}

// splitKey splits a dotted registry key. Driver and executor keys are
// <namespace>.<instance>.<source>.<name...>; other instances carry only
// <source>.<name...> (apache/spark MetricsSystem.buildRegistryName).
func splitKey(key string) (namespace, instance, rest string) {
	parts := strings.SplitN(key, ".", 3)
	if len(parts) == 3 && strings.Contains(parts[2], ".") && isInstance(parts[1]) {
		return parts[0], parts[1], parts[2]
	}
	return "", "", key
}

// isInstance reports whether s names a driver or executor process.
func isInstance(s string) bool {
	if s == "driver" {
		return true
	}
	if s == "" {
		return false
	}
	for _, r := range s {
		if r < '0' || r > '9' {
			return false
		}
	}
	return true
}
