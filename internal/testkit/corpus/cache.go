package corpus

import (
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"os"
	"path/filepath"
)

// version changes whenever Build would write other bytes, so that a cached
// corpus of an older Build is never reused.
const version = "1"

// Cached returns a directory holding Build's n logs of src, built once into
// the user's cache directory (…/sparkglance/corpus-…) and reused while src's
// logs keep their names and sizes: building 2,000 logs re-encodes
// hundreds of megabytes, a benchmark should not pay that every run.
func Cached(src string, n int) (string, error) {
	key, err := sourceKey(src)
	if err != nil {
		return "", err
	}
	base, err := os.UserCacheDir()
	if err != nil {
		return "", fmt.Errorf("corpus: no cache directory: %w", err)
	}
	dir := filepath.Join(base, "sparkglance", fmt.Sprintf("corpus-v%s-%s-%d", version, key, n))
	if _, err := os.Stat(dir); err == nil {
		return dir, nil
	}
	if err := os.MkdirAll(filepath.Dir(dir), 0o755); err != nil {
		return "", err
	}
	tmp, err := os.MkdirTemp(filepath.Dir(dir), ".building-")
	if err != nil {
		return "", err
	}
	if _, err := Build(tmp, src, n); err != nil {
		os.RemoveAll(tmp)
		return "", err
	}
	if err := os.Rename(tmp, dir); err != nil {
		os.RemoveAll(tmp)
		if _, statErr := os.Stat(dir); statErr == nil {
			return dir, nil // built meanwhile by another process
		}
		return "", err
	}
	return dir, nil
}

// sourceKey hashes the names and sizes of src's logs.
func sourceKey(src string) (string, error) {
	paths, err := Inputs(src)
	if err != nil {
		return "", err
	}
	h := sha256.New()
	for _, p := range paths {
		var size int64
		filepath.Walk(p, func(_ string, fi os.FileInfo, err error) error {
			if err == nil && fi.Mode().IsRegular() {
				size += fi.Size()
			}
			return nil
		})
		rel, _ := filepath.Rel(src, p)
		fmt.Fprintf(h, "%s\x00%d\n", rel, size)
	}
	return hex.EncodeToString(h.Sum(nil))[:12], nil
}
