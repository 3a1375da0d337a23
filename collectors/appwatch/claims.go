package appwatch

import "github.com/sparkglance/sparkglance/collectors/sparkapi"

// Claimed implements sparkapi.AppClaims: an application followed through
// its event log is exported by this collector, so the spark collector
// leaves out the series both would emit.
func (w *Watcher) Claimed(appID string) bool {
	_, ok := w.claimed.Load(appID)
	return ok
}

var _ sparkapi.AppClaims = (*Watcher)(nil)

// claim records that the log at key is application appID.
func (w *Watcher) claim(appID, key string) {
	if appID != "" {
		w.claimed.Store(appID, key)
	}
}

// unclaim forgets the application of a dropped log.
func (w *Watcher) unclaim(key string) {
	w.claimed.Range(func(id, k any) bool {
		if k == key {
			w.claimed.Delete(id)
		}
		return true
	})
}
