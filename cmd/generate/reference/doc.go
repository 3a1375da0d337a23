// Package reference gathers the metric tables of every collector and
// renders docs/metrics.md from them. It imports all the collectors, so
// they must not import it.
package reference
