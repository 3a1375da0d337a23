package deploy

import (
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"strings"
)

// ImageRepository is where the image `make image` builds is published.
const ImageRepository = "ghcr.io/sparkglance/sparkglance"

// ImageFiles are the files, relative to deploy/, that run the image. `make
// docs` pins every reference in them to the tag `make image` gives: the
// VERSION file's, never "latest", so a deployment runs the build its
// manifests were written for.
var ImageFiles = []string{
	"kubernetes/base/deployment.yaml",
	"kubernetes/base/daemonset.yaml",
	"kubernetes/overlays/sharded/statefulset.yaml",
	"compose/compose.yaml",
}

// imageRef matches the image's name with any tag.
var imageRef = regexp.MustCompile(regexp.QuoteMeta(ImageRepository) + `(:[^\s"'@]*)?`)

// A tag as the OCI distribution spec allows it.
var validTag = regexp.MustCompile(`^[A-Za-z0-9_][A-Za-z0-9_.-]{0,127}$`)

// Image is the image reference for tag.
func Image(tag string) string { return ImageRepository + ":" + tag }

// ReadVersion reads the VERSION file under root: the version `make build`
// stamps and the tag `make image` gives.
func ReadVersion(root string) (string, error) {
	path := filepath.Join(root, "VERSION")
	b, err := os.ReadFile(path)
	if err != nil {
		return "", fmt.Errorf("deploy: %w", err)
	}
	v := strings.TrimSpace(string(b))
	if !validTag.MatchString(v) {
		return "", fmt.Errorf("deploy: %s: %q is not a valid image tag", path, v)
	}
	return v, nil
}

// PinImage returns content with every reference to the image tagged tag.
func PinImage(content []byte, tag string) ([]byte, error) {
	if !validTag.MatchString(tag) {
		return nil, fmt.Errorf("deploy: %q is not a valid image tag", tag)
	}
	return imageRef.ReplaceAll(content, []byte(Image(tag))), nil
}
