package discovery

import (
	"regexp"
	"strings"

	"github.com/prometheus/procfs"
)

// Placement is where a process sits in Kubernetes / a container runtime.
type Placement struct {
	PodUID      string
	ContainerID string
}

var (
	// kubelet writes the pod UID with dashes (cgroupfs driver) or with
	// underscores inside a systemd slice name.
	podUIDRe = regexp.MustCompile(`pod([0-9a-f]{8}[-_][0-9a-f]{4}[-_][0-9a-f]{4}[-_][0-9a-f]{4}[-_][0-9a-f]{12})`)
	// The last path element names the container: a bare id (cgroupfs) or
	// docker-<id>.scope, cri-containerd-<id>.scope, crio-<id>.scope, libpod-<id>.scope.
	containerIDRe = regexp.MustCompile(`^(?:[a-z-]+-)?([0-9a-f]{64})(?:\.scope)?$`)
)

// placementFromCgroups reads pod UID and container id from /proc/<pid>/cgroup
// lines, cgroup v1 (one line per hierarchy) or v2 (the single 0:: line).
func placementFromCgroups(cgroups []procfs.Cgroup) Placement {
	var p Placement
	for _, cg := range cgroups {
		if p.PodUID == "" {
			if m := podUIDRe.FindStringSubmatch(cg.Path); m != nil {
				p.PodUID = strings.ReplaceAll(m[1], "_", "-")
			}
		}
		if p.ContainerID == "" {
			last := cg.Path[strings.LastIndexByte(cg.Path, '/')+1:]
			if m := containerIDRe.FindStringSubmatch(last); m != nil {
				p.ContainerID = m[1]
			}
		}
	}
	return p
}
