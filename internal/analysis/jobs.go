package analysis

import (
	"cmp"
	"slices"
)

// Spark's job statuses (JobExecutionStatus), as the REST API spells them.
const (
	JobRunning   = "RUNNING"
	JobSucceeded = "SUCCEEDED"
	JobFailed    = "FAILED"
)

// maxJobsKept bounds the jobs listed per application: a long-running one
// runs jobs without end. The oldest finished jobs go first; the counts by
// status keep them all.
const maxJobsKept = 1000

// Job is one job with the REST API's JobData field names and units (epoch
// ms, 0 = absent).
type Job struct {
	JobID          int    `json:"jobId"`
	Status         string `json:"status"`
	SubmissionTime int64  `json:"submissionTime,omitempty"`
	CompletionTime int64  `json:"completionTime,omitempty"`
	StageIDs       []int  `json:"stageIds"`
}

// DurationMs is the job's wall time, or 0 while it runs or when a time is
// missing or the clock went backwards.
func (j *Job) DurationMs() int64 {
	if j.SubmissionTime <= 0 || j.CompletionTime < j.SubmissionTime {
		return 0
	}
	return j.CompletionTime - j.SubmissionTime
}

// JobCounts counts every job the log started, by status, dropped ones
// included.
type JobCounts struct {
	Running   int64 `json:"running"`
	Succeeded int64 `json:"succeeded"`
	Failed    int64 `json:"failed"`
}

// jobLog keeps the jobs in start order; its zero value is ready.
type jobLog struct {
	byID   map[int]*Job
	order  []int // job ids in start order
	counts JobCounts
}

func (l *jobLog) start(id int, submission int64, stageIDs []int) {
	if l.byID == nil {
		l.byID = map[int]*Job{}
	}
	if old := l.byID[id]; old != nil { // a repeated start replaces the job, as Spark's store does
		l.uncount(old.Status)
	} else {
		l.order = append(l.order, id)
	}
	l.byID[id] = &Job{JobID: id, Status: JobRunning, SubmissionTime: submission, StageIDs: slices.Clone(stageIDs)}
	l.counts.Running++
	l.trim()
}

func (l *jobLog) end(id int, completion int64, result string) {
	j := l.byID[id]
	if j == nil || j.Status != JobRunning {
		return
	}
	l.uncount(JobRunning)
	j.CompletionTime = completion
	if result == "JobSucceeded" {
		j.Status = JobSucceeded
		l.counts.Succeeded++
	} else {
		j.Status = JobFailed
		l.counts.Failed++
	}
}

func (l *jobLog) uncount(status string) {
	switch status {
	case JobRunning:
		l.counts.Running--
	case JobSucceeded:
		l.counts.Succeeded--
	case JobFailed:
		l.counts.Failed--
	}
}

// trim drops the oldest finished jobs beyond maxJobsKept; running ones stay.
func (l *jobLog) trim() {
	over := len(l.order) - maxJobsKept
	if over <= 0 {
		return
	}
	kept := l.order[:0]
	for _, id := range l.order {
		if over > 0 && l.byID[id].Status != JobRunning {
			delete(l.byID, id)
			over--
			continue
		}
		kept = append(kept, id)
	}
	l.order = kept
}

// report lists the kept jobs, newest first as the REST API does.
func (l *jobLog) report() []Job {
	out := make([]Job, 0, len(l.order))
	for _, id := range l.order {
		j := *l.byID[id]
		j.StageIDs = slices.Clone(j.StageIDs)
		out = append(out, j)
	}
	slices.SortFunc(out, func(x, y Job) int { return cmp.Compare(y.JobID, x.JobID) })
	return out
}
