package profiles

import (
	"io"

	"github.com/google/pprof/profile"
)

// WritePprof writes the profile as gzip-compressed pprof protobuf: sample
// types samples/count and wall/nanoseconds (count × interval), one sample
// per distinct stack and thread state (label thread_state), functions
// "pkg.Class.method" with their source file, locations per (function,
// line).
func (p *Profile) WritePprof(w io.Writer) error {
	return p.BuildPprof().Write(w)
}

// BuildPprof builds the pprof profile.
func (p *Profile) BuildPprof() *profile.Profile {
	stacks, start, end, interval := p.Stacks()
	info := p.Info()
	prof := &profile.Profile{
		SampleType: []*profile.ValueType{
			{Type: "samples", Unit: "count"},
			{Type: "wall", Unit: "nanoseconds"},
		},
		PeriodType:    &profile.ValueType{Type: "wall", Unit: "nanoseconds"},
		Period:        interval.Nanoseconds(),
		TimeNanos:     start.UnixNano(),
		DurationNanos: end.Sub(start).Nanoseconds(),
		Comments:      []string{"sparkglance JVM thread-dump profile " + info.ID + " of " + describe(info)},
	}
	mapping := &profile.Mapping{ID: 1, HasFunctions: true, HasFilenames: true, HasLineNumbers: true, File: "jvm"}
	prof.Mapping = []*profile.Mapping{mapping}
	type funcKey struct{ name, file string }
	type locKey struct {
		fn   *profile.Function
		line int
	}
	funcs := map[funcKey]*profile.Function{}
	locs := map[locKey]*profile.Location{}
	for _, s := range stacks {
		sample := &profile.Sample{
			Value: []int64{s.Count, s.Count * interval.Nanoseconds()},
			Label: map[string][]string{"thread_state": {s.State}},
		}
		for _, f := range s.Frames { // leaf first, as pprof wants
			fk := funcKey{f.Func(), f.File}
			fn := funcs[fk]
			if fn == nil {
				fn = &profile.Function{ID: uint64(len(funcs) + 1), Name: fk.name, SystemName: fk.name, Filename: fk.file}
				funcs[fk] = fn
				prof.Function = append(prof.Function, fn)
			}
			lk := locKey{fn, f.Line}
			loc := locs[lk]
			if loc == nil {
				loc = &profile.Location{ID: uint64(len(locs) + 1), Mapping: mapping,
					Line: []profile.Line{{Function: fn, Line: int64(f.Line)}}}
				locs[lk] = loc
				prof.Location = append(prof.Location, loc)
			}
			sample.Location = append(sample.Location, loc)
		}
		prof.Sample = append(prof.Sample, sample)
	}
	return prof
}

func describe(i Info) string {
	s := ""
	if i.AppID != "" {
		s = i.Framework + " " + i.AppID + " executor " + i.ExecutorID
	}
	if i.PID > 0 {
		if s != "" {
			s += " "
		}
		s += "pid " + itoa(i.PID)
	}
	return s
}
