package process

// counterDelta is cur − prev for a counter that wraps to 0 after max.
func counterDelta(prev, cur, max uint64) uint64 {
	if cur >= prev {
		return cur - prev
	}
	if max < prev { // max unknown or wrong: count from the wrap only
		return cur
	}
	return max - prev + cur
}
