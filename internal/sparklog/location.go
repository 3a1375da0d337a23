package sparklog

import (
	"fmt"
	"net/url"
	"regexp"
	"strings"

	"github.com/sparkglance/sparkglance/internal/human"
	"github.com/sparkglance/sparkglance/internal/sparklog/objstore"
)

// urlScheme matches a location that starts with a URL scheme ("hdfs://",
// "s3a://", "file:/"). One-letter schemes are left out so that Windows
// drive letters ("C:/logs") stay paths.
var urlScheme = regexp.MustCompile(`^([A-Za-z][A-Za-z0-9+.-]+):/`)

// LocalPath turns an event-log location as Spark writes it
// (spark.eventLog.dir) into a local path: a plain path is returned as is, a
// file:// URL becomes its path. Any other scheme (hdfs, s3a, gs, abfs, …) is
// an error that says what is supported and how to get there, since this
// reader opens files only through the local file system.
func LocalPath(location string) (string, error) {
	m := urlScheme.FindStringSubmatch(location)
	if m == nil {
		return location, nil
	}
	if m[1] != "file" {
		return "", fmt.Errorf("%s: the %s:// scheme is not supported: event logs are read from local paths and file:// URLs only; mount the store (e.g. an HDFS NFS gateway, mountpoint-s3, gcsfuse, blobfuse2) and give the mounted path", location, m[1])
	}
	u, err := url.Parse(location)
	if err != nil {
		return "", fmt.Errorf("%s: not a valid file:// URL: %w", location, err)
	}
	if u.Host != "" && u.Host != "localhost" {
		return "", fmt.Errorf("%s: a file:// URL must name a local file (file:///path), not host %q", location, u.Host)
	}
	if u.Path == "" {
		return "", fmt.Errorf("%s: the file:// URL has no path", location)
	}
	return u.Path, nil
}

// DiscoverGiven finds the logs at a location a user named (a local path, a
// file:// URL or an object-store URL): links in it are followed wherever
// they lead, since the user chose it, but never to a pipe or device, which
// discovery refuses.
func DiscoverGiven(location string) ([]Log, error) {
	if objstore.IsURL(location) {
		return discoverObject(location, DiscoverOptions{})
	}
	local, err := LocalPath(location)
	if err != nil {
		return nil, err
	}
	return DiscoverWith(local, DiscoverOptions{FollowExternalLinks: true})
}

// SupportedSchemes lists the location schemes read, for messages.
func SupportedSchemes() string { return "local paths, file://, " + objstore.Schemes() }

// ResolveLocation checks an event-log location as Spark writes it
// (spark.eventLog.dir) and returns how to name it from then on: a plain
// path as is, a file:// URL as its path, an object-store URL in its
// canonical form (objstore.Resolve). Any other scheme (hdfs://, …) is an
// error that names what is supported and the mount alternative.
func ResolveLocation(location string) (string, error) {
	m := urlScheme.FindStringSubmatch(location)
	if m != nil && !strings.EqualFold(m[1], "file") && !objstore.IsURL(location) {
		return "", fmt.Errorf("%s: the %s:// scheme is not supported: event logs are read from %s; for another store, mount it (e.g. an HDFS NFS gateway, mountpoint-s3, gcsfuse, blobfuse2) and give the mounted path", human.QuotedName(location), m[1], SupportedSchemes())
	}
	if m == nil || strings.EqualFold(m[1], "file") {
		return LocalPath(location)
	}
	return objstore.Resolve(location)
}

// isObjectPath reports whether a log's path names an object.
func isObjectPath(p string) bool { return objstore.IsURL(p) }
