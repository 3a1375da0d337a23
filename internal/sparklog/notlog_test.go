package sparklog

import "testing"

// A file is "not an event log" only when the reader said so and said
// nothing else but that its name has no codec; any damage makes it a log.
func TestNotEventLog(t *testing.T) {
	not := Problem{File: "README.md", Kind: ProblemNotEventLog, Reason: "not a Spark event log"}
	codec := Problem{File: "x.json", Kind: ProblemUnknownCodec}
	damage := Problem{File: "x", Kind: ProblemMalformedJSON}
	for _, tc := range []struct {
		problems []Problem
		want     bool
	}{
		{nil, false},
		{[]Problem{not}, true},
		{[]Problem{codec, not}, true},
		{[]Problem{codec}, false},
		{[]Problem{not, damage}, false},
		{[]Problem{{Kind: ProblemEmptyFile}}, false},
	} {
		p, got := NotEventLog(tc.problems)
		if got != tc.want || (got && p != not) {
			t.Errorf("NotEventLog(%v) = %v, %v; want %v", tc.problems, p, got, tc.want)
		}
	}
}
