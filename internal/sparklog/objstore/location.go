package objstore

import (
	"fmt"
	"net/url"
	"regexp"
	"sort"
	"strings"

	"github.com/sparkglance/sparkglance/internal/human"
)

// Object stores are reached through gocloud.dev/blob, one code path for
// every store. Spark names them with the Hadoop connectors' schemes, which
// are mapped to gocloud's: s3a/s3n → s3, abfs(s)/wasb(s) → azblob with the
// storage account taken from the host.
var objectSchemes = map[string]string{
	"s3": "s3", "s3a": "s3", "s3n": "s3",
	"gs":     "gs",
	"azblob": "azblob", "abfs": "azblob", "abfss": "azblob", "wasb": "azblob", "wasbs": "azblob",
}

// Schemes lists the URL schemes of the stores, for messages.
func Schemes() string {
	var s []string
	for k := range objectSchemes {
		s = append(s, k+"://")
	}
	sort.Strings(s)
	return strings.Join(s, ", ")
}

// urlScheme matches a location that starts with a URL scheme, as
// sparklog's does (one-letter schemes are Windows drive letters).
var urlScheme = regexp.MustCompile(`^([A-Za-z][A-Za-z0-9+.-]+):/`)

// objectLocation is a location in an object store.
type objectLocation struct {
	// base is "scheme://host" as the user wrote it (s3a://bucket,
	// abfss://container@account.dfs.core.windows.net): the prefix of every
	// path and key that names an object of this bucket.
	base string
	// open is the gocloud URL that opens the bucket, with its options.
	open string
	key  string // the object key or prefix, without a leading slash
	// options: the URL carried query options. Without, a location means
	// its bucket as first opened (canonical paths carry none).
	options bool
}

// ref names the object key of this location's bucket.
func (o objectLocation) ref(key string) string { return o.base + "/" + key }

// IsURL reports whether location names an object store (s3://, gs://,
// abfss://, …) rather than a local path.
func IsURL(location string) bool {
	m := urlScheme.FindStringSubmatch(location)
	return m != nil && objectSchemes[strings.ToLower(m[1])] != ""
}

// Resolve checks an object-store URL (IsURL) and returns its canonical
// form, scheme://bucket/key, by which every function here names an
// object or prefix from then on; its query options are remembered for
// opening the bucket.
func Resolve(location string) (string, error) {
	loc, err := parseObjectLocation(location)
	if err != nil {
		return "", err
	}
	if err := registerBucket(loc); err != nil {
		return "", err
	}
	return strings.TrimSuffix(loc.ref(loc.key), "/"), nil
}

// parseObjectLocation splits an object-store URL into its bucket and key.
func parseObjectLocation(location string) (objectLocation, error) {
	u, err := url.Parse(location)
	if err != nil {
		return objectLocation{}, fmt.Errorf("%s: not a valid URL: %w", human.QuotedName(location), err)
	}
	scheme := strings.ToLower(u.Scheme)
	driver := objectSchemes[scheme]
	if u.Host == "" {
		return objectLocation{}, fmt.Errorf("%s: no bucket or container named (want %s://<bucket>/<prefix>)", human.QuotedName(location), scheme)
	}
	authority := u.Host
	if u.User != nil {
		authority = u.User.Username() + "@" + u.Host
	}
	loc := objectLocation{base: scheme + "://" + authority, key: strings.TrimPrefix(u.Path, "/"), options: u.RawQuery != ""}
	q := u.Query()
	bucket := u.Host
	if driver == "azblob" && scheme != "azblob" {
		// Hadoop's form: container@account.dfs.core.windows.net (abfs) or
		// container@account.blob.core.windows.net (wasb). gocloud speaks the
		// Blob API, which the same account serves on its blob endpoint.
		container := ""
		if u.User != nil {
			container = u.User.Username()
		}
		account, domain, _ := strings.Cut(u.Host, ".")
		if container == "" || account == "" {
			return objectLocation{}, fmt.Errorf("%s: want %s://<container>@<account>.dfs.core.windows.net/<path>", human.QuotedName(location), scheme)
		}
		bucket = container
		if q.Get("storage_account") == "" {
			q.Set("storage_account", account)
		}
		if q.Get("domain") == "" && domain != "" {
			q.Set("domain", strings.Replace(domain, "dfs.", "blob.", 1))
		}
		if (scheme == "wasb" || scheme == "abfs") && q.Get("protocol") == "" {
			q.Set("protocol", "http")
		}
	}
	open := url.URL{Scheme: driver, Host: bucket, RawQuery: q.Encode()}
	loc.open = open.String()
	return loc, nil
}

// splitObjectPath finds the bucket of a canonical object path
// (scheme://bucket/key) among those registered.
func splitObjectPath(p string) (*objectBucket, string, error) {
	m := urlScheme.FindStringSubmatch(p)
	if m == nil {
		return nil, "", fmt.Errorf("%s: not an object URL", human.QuotedName(p))
	}
	rest := p[len(m[1])+3:]
	host, key, _ := strings.Cut(rest, "/")
	base := strings.ToLower(m[1]) + "://" + host
	b := lookupBucket(base)
	if b == nil {
		loc, err := parseObjectLocation(base)
		if err != nil {
			return nil, "", err
		}
		if err := registerBucket(loc); err != nil {
			return nil, "", err
		}
		b = lookupBucket(base)
	}
	return b, key, nil
}
