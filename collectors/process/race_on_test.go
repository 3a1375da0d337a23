//go:build race

package process

// raceEnabled loosens CPU-time checks: the race detector slows Go code 5-10×.
const raceEnabled = true
