package sparklog

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

const rewriteLines = `{"Event":"SparkListenerLogStart","Spark Version":"3.5.1"}
{"Event":"SparkListenerApplicationStart","App Name":"a","App ID":"app-1","Timestamp":1000,"User":"u"}
`

// A live single-file log that shrinks, or that another file replaces, is
// reported as rewritten and not read further; growing and the final rename
// are not rewrites.
func TestFollowerReportsRewrittenLog(t *testing.T) {
	for _, tc := range []struct {
		name    string
		rewrite func(t *testing.T, live string)
		want    string // in PollResult.Rewritten; "" for none
	}{
		{"grows", func(t *testing.T, live string) { mustAppend(t, live, rewriteLines) }, ""},
		{"renamed at the end", func(t *testing.T, live string) {
			if err := os.Rename(live, strings.TrimSuffix(live, ".inprogress")); err != nil {
				t.Fatal(err)
			}
		}, ""},
		{"shrinks", func(t *testing.T, live string) {
			if err := os.Truncate(live, 10); err != nil {
				t.Fatal(err)
			}
		}, "shrank to 10 bytes"},
		{"replaced", func(t *testing.T, live string) {
			tmp := filepath.Join(t.TempDir(), "other")
			mustAppend(t, tmp, rewriteLines+rewriteLines)
			if err := os.Rename(tmp, live); err != nil {
				t.Fatal(err)
			}
		}, "replaced by another file"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			live := filepath.Join(t.TempDir(), "app-1.inprogress")
			mustAppend(t, live, rewriteLines)
			fo := NewFollower(singleFileLog(live), HandlerFuncs{}, Options{})
			if res, err := fo.Poll(); err != nil || res.Events != 2 {
				t.Fatalf("first poll: %+v, %v", res, err)
			}
			tc.rewrite(t, live)
			res, err := fo.Poll()
			if err != nil {
				t.Fatal(err)
			}
			if tc.want == "" {
				if res.Rewritten != "" {
					t.Fatalf("taken as rewritten: %s", res.Rewritten)
				}
				return
			}
			if !strings.Contains(res.Rewritten, tc.want) || !strings.Contains(res.Rewritten, live) || res.Events != 0 || res.Finished {
				t.Fatalf("poll after the rewrite: %+v, want Rewritten naming %s and %q, no events", res, live, tc.want)
			}
			if again, _ := fo.Poll(); again.Rewritten != res.Rewritten || again.Events != 0 {
				t.Errorf("next poll: %+v, want the same report and nothing read", again)
			}
		})
	}
}

func mustAppend(t *testing.T, path, s string) {
	t.Helper()
	if err := appendTo(path, []byte(s))(); err != nil {
		t.Fatal(err)
	}
}
