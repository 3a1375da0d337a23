package eventlog

import "sync"

// Claims are the applications the event-log collector exports. The command
// builds one, hands it to this collector, which records every application
// it follows, and to the spark collector (as its spark.AppClaims), which
// then leaves out the series both would emit for those applications.
type Claims struct {
	byApp sync.Map // app id → Log.Key of the log that shows it
}

// NewClaims returns an empty set of claims.
func NewClaims() *Claims { return &Claims{} }

// Claimed reports whether the application appID is followed through its
// event log. It is called during scrapes, concurrently, and is cheap.
func (c *Claims) Claimed(appID string) bool {
	_, ok := c.byApp.Load(appID)
	return ok
}

// Claimed reports whether w exports the application appID.
func (w *Watcher) Claimed(appID string) bool { return w.claims.Claimed(appID) }

// claim records that the log at key is application appID.
func (w *Watcher) claim(appID, key string) {
	if appID != "" {
		w.claims.byApp.Store(appID, key)
	}
}

// unclaim forgets the application of a dropped log. Another attempt of the
// same application that is still followed takes the claim over at once, so
// the spark collector never emits that application's series in between.
// w.mu must be held.
func (w *Watcher) unclaim(key string) {
	var ids []string
	w.claims.byApp.Range(func(id, k any) bool {
		if k == key {
			ids = append(ids, id.(string))
		}
		return true
	})
	for _, id := range ids {
		w.claims.byApp.Delete(id)
		for k, a := range w.apps {
			if v := a.view.Load(); k != key && v != nil && v.appID == id {
				w.claims.byApp.Store(id, k)
				break
			}
		}
	}
}
