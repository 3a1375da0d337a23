//go:build e2e

package sparklog

import (
	"io/fs"
	"path/filepath"
	"testing"

	"github.com/sparkglance/sparkglance/internal/testkit"
	"github.com/sparkglance/sparkglance/internal/testkit/objstoretest"
)

// Every shared log (the 18 of spark-events and every compressed, rolling,
// Databricks and zipped one under extra/), uploaded to S3 as it lies on
// disk, is discovered and read exactly as from disk, directory by
// directory.
func TestS3ReadsEverySharedLogAsOnDisk(t *testing.T) {
	root, dirs := sharedDirs(t)
	compareStoreTree(t, objstoretest.StartS3(t), root, dirs, 40)
}

// The same for Google Cloud Storage.
func TestGCSReadsEverySharedLogAsOnDisk(t *testing.T) {
	root, dirs := sharedDirs(t)
	compareStoreTree(t, objstoretest.StartGCS(t), root, dirs, 40)
}

// The same for Azure Blob Storage (Azurite).
func TestAzureReadsEverySharedLogAsOnDisk(t *testing.T) {
	root, dirs := sharedDirs(t)
	compareStoreTree(t, objstoretest.StartAzurite(t), root, dirs, 40)
}

// sharedDirs is ../shared/spark-events and every directory under it.
func sharedDirs(t *testing.T) (root string, dirs []string) {
	root = testkit.Events(t)
	err := filepath.WalkDir(root, func(p string, d fs.DirEntry, err error) error {
		if err == nil && d.IsDir() {
			dirs = append(dirs, p)
		}
		return err
	})
	if err != nil {
		t.Fatal(err)
	}
	return root, dirs
}
