package spark

import (
	"bytes"
	"context"
	"encoding/json"
	"net/url"
	"sort"
	"strings"
	"time"
)

// application is an entry of /api/v1/applications.
type application struct {
	ID       string    `json:"id"`
	Name     string    `json:"name"`
	Attempts []attempt `json:"attempts"`
}

type attempt struct {
	AttemptID       string `json:"attemptId"`
	StartTimeEpoch  int64  `json:"startTimeEpoch"`
	Completed       bool   `json:"completed"`
	SparkUser       string `json:"sparkUser"`
	AppSparkVersion string `json:"appSparkVersion"`
}

// latest is the attempt Spark lists first (the newest).
func (a application) latest() attempt {
	if len(a.Attempts) == 0 {
		return attempt{}
	}
	return a.Attempts[0]
}

func (a application) running() bool { return len(a.Attempts) > 0 && !a.latest().Completed }

// executor is an entry of /api/v1/applications/<id>/allexecutors
// (ExecutorSummary in apache/spark status/api/v1/api.scala).
type executor struct {
	ID                string             `json:"id"`
	IsActive          bool               `json:"isActive"`
	TotalCores        float64            `json:"totalCores"`
	MaxTasks          float64            `json:"maxTasks"`
	ActiveTasks       float64            `json:"activeTasks"`
	FailedTasks       float64            `json:"failedTasks"`
	CompletedTasks    float64            `json:"completedTasks"`
	TotalDuration     float64            `json:"totalDuration"` // ms, launch to finish
	TotalGCTime       float64            `json:"totalGCTime"`   // ms
	TotalInputBytes   float64            `json:"totalInputBytes"`
	TotalShuffleRead  float64            `json:"totalShuffleRead"`
	TotalShuffleWrite float64            `json:"totalShuffleWrite"`
	MemoryUsed        float64            `json:"memoryUsed"`
	DiskUsed          float64            `json:"diskUsed"`
	MaxMemory         float64            `json:"maxMemory"`
	PeakMemoryMetrics map[string]float64 `json:"peakMemoryMetrics"`
	// AddTime is when the executor was added, as Spark's REST API writes
	// dates: 2023-04-27T13:47:33.745GMT.
	AddTime string `json:"addTime"`
}

// restDate is the layout of the REST API's dates (JacksonMessageWriter's
// yyyy-MM-dd'T'HH:mm:ss.SSS'GMT').
const restDate = "2006-01-02T15:04:05.000GMT"

// added is AddTime, or zero if absent or unreadable.
func (x executor) added() time.Time {
	t, err := time.Parse(restDate, x.AddTime)
	if err != nil {
		return time.Time{}
	}
	return t
}

// stage is an entry of /api/v1/applications/<id>/stages?status=active.
type stage struct {
	Status           string  `json:"status"`
	StageID          int     `json:"stageId"`
	AttemptID        int     `json:"attemptId"`
	NumTasks         float64 `json:"numTasks"`
	NumActiveTasks   float64 `json:"numActiveTasks"`
	NumCompleteTasks float64 `json:"numCompleteTasks"`
	NumFailedTasks   float64 `json:"numFailedTasks"`
	NumKilledTasks   float64 `json:"numKilledTasks"`
}

// appState is what one target says about one application.
type appState struct {
	app       application
	executors []executor // running applications only
	stages    []stage    // running applications only, active stages
}

// decodeJSON decodes body into v, with errors naming the byte offset.
func decodeJSON(body []byte, v any) error {
	dec := json.NewDecoder(bytes.NewReader(body))
	if err := dec.Decode(v); err != nil {
		return describeJSONError(body, err)
	}
	return nil
}

// readREST reads the application list, then executors and active stages of
// the running applications, newest first, at most maxApps of each.
func (r *reader) readREST(ctx context.Context, base *url.URL) ([]appState, error) {
	var apps []application
	if err := r.getJSON(ctx, base, "api/v1/applications", nil, &apps); err != nil {
		return nil, err
	}
	sort.SliceStable(apps, func(i, j int) bool { return apps[i].latest().StartTimeEpoch > apps[j].latest().StartTimeEpoch })
	if len(apps) > r.maxApps {
		r.logger.Debug("target lists more applications than --spark.max-apps; keeping the newest",
			"target", displayURL(base), "listed", len(apps), "kept", r.maxApps)
		apps = apps[:r.maxApps]
	}
	out := make([]appState, 0, len(apps))
	for _, a := range apps {
		st := appState{app: a}
		if a.running() && a.ID != "" {
			prefix := "api/v1/applications/" + url.PathEscape(a.ID) + "/"
			if id := a.latest().AttemptID; id != "" {
				prefix += url.PathEscape(id) + "/"
			}
			if err := r.getJSON(ctx, base, prefix+"allexecutors", nil, &st.executors); err != nil {
				return nil, err
			}
			active := url.Values{"status": {"active"}}
			if err := r.getJSON(ctx, base, prefix+"stages", active, &st.stages); err != nil {
				return nil, err
			}
		}
		out = append(out, st)
	}
	return out, nil
}

// getJSON fetches base/path?query and decodes it into v.
func (r *reader) getJSON(ctx context.Context, base *url.URL, path string, query url.Values, v any) error {
	u := endpoint(base, path, query)
	body, err := r.client.get(ctx, u)
	if err != nil {
		return err
	}
	if err := decodeJSON(body, v); err != nil {
		return &fault{reason: reasonInvalidBody, url: displayURL(u), err: err}
	}
	return nil
}

// endpoint joins a relative path to a base URL whose path is a directory
// (a YARN proxy URL such as http://rm:8088/proxy/application_1_2/ keeps
// its prefix).
func endpoint(base *url.URL, path string, query url.Values) *url.URL {
	u := *base
	u.Path = strings.TrimSuffix(base.Path, "/") + "/" + path
	u.RawPath = ""
	u.RawQuery = query.Encode()
	return &u
}
