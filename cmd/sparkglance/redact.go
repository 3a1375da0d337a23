package main

import (
	"net/url"
	"strings"
)

// redactLocations is redactLocation of each location.
func redactLocations(locations []string) []string {
	out := make([]string, len(locations))
	for i, l := range locations {
		out[i] = redactLocation(l)
	}
	return out
}

// redactLocation hides the secrets a location given on the command line
// may carry before it is printed: a password in the URL itself
// (s3://user:secret@bucket) or in one of its query options
// (?endpoint=http://user:secret@minio:9000), and options named for a
// secret (sas_token, secret_key, …). Plain paths come back unchanged.
func redactLocation(location string) string {
	u, err := url.Parse(location)
	if err != nil || u.Scheme == "" {
		return location
	}
	redacted := u.Redacted()
	base, query, hasQuery := strings.Cut(redacted, "?")
	if !hasQuery {
		return redacted
	}
	parts := strings.Split(query, "&")
	for i, part := range parts {
		key, value, _ := strings.Cut(part, "=")
		plainKey, _ := url.QueryUnescape(key)
		plainValue, err := url.QueryUnescape(value)
		switch {
		case secretOption(plainKey):
			parts[i] = key + "=xxxxx"
		case err == nil && strings.Contains(plainValue, "@"):
			if v, err := url.Parse(plainValue); err == nil && v.User != nil {
				if _, has := v.User.Password(); has {
					parts[i] = key + "=" + url.QueryEscape(v.Redacted())
				}
			}
		}
	}
	return base + "?" + strings.Join(parts, "&")
}

// secretOption tells the query options that are secrets by name.
func secretOption(key string) bool {
	k := strings.ToLower(key)
	for _, s := range []string{"secret", "password", "token", "sig", "credential", "access_key", "account_key"} {
		if strings.Contains(k, s) {
			return true
		}
	}
	return false
}
