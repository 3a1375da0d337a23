package eventlog

import "github.com/sparkglance/sparkglance/collectors/spark"

// Claimed implements spark.AppClaims: an application followed through
// its event log is exported by this collector, so the spark collector
// leaves out the series both would emit.
func (w *Watcher) Claimed(appID string) bool {
	_, ok := w.claimed.Load(appID)
	return ok
}

var _ spark.AppClaims = (*Watcher)(nil)

// claim records that the log at key is application appID.
func (w *Watcher) claim(appID, key string) {
	if appID != "" {
		w.claimed.Store(appID, key)
	}
}

// unclaim forgets the application of a dropped log. Another attempt of the
// same application that is still followed takes the claim over at once, so
// the spark collector never emits that application's series in between.
// w.mu must be held.
func (w *Watcher) unclaim(key string) {
	var ids []string
	w.claimed.Range(func(id, k any) bool {
		if k == key {
			ids = append(ids, id.(string))
		}
		return true
	})
	for _, id := range ids {
		w.claimed.Delete(id)
		for k, a := range w.apps {
			if v := a.view.Load(); k != key && v != nil && v.appID == id {
				w.claimed.Store(id, k)
				break
			}
		}
	}
}
