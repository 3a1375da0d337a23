package deploy_test

import (
	"fmt"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	monitoringv1 "github.com/prometheus-operator/prometheus-operator/pkg/apis/monitoring/v1"
	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/labels"
)

// The sharded overlay: a StatefulSet whose pods take their shard from
// their ordinal, as many shards as replicas, the base's Deployment
// deleted, and every pod scraped exactly once by the base's ServiceMonitor.
func TestShardedOverlay(t *testing.T) {
	const dir = "kubernetes/overlays/sharded"
	k := one[*kustomization](t, filepath.Join(dir, "kustomization.yaml"))
	if !slices.Contains(k.Resources, "../../base") {
		t.Errorf("the overlay does not build on the base: %v", k.Resources)
	}
	del := one[*deletePatch](t, filepath.Join(dir, "delete-deployment.yaml"))
	base := one[*appsv1.Deployment](t, "kubernetes/base/deployment.yaml")
	if del.Patch != "delete" || del.Kind != "Deployment" || del.Metadata.Name != base.Name {
		t.Errorf("the overlay does not delete the base's Deployment %s: %+v", base.Name, del)
	}

	sts := one[*appsv1.StatefulSet](t, filepath.Join(dir, "statefulset.yaml"))
	args := sts.Spec.Template.Spec.Containers[0].Args
	replicas := int(*sts.Spec.Replicas)
	if replicas < 2 {
		t.Errorf("%d replicas: not sharded", replicas)
	}
	if !slices.Contains(args, fmt.Sprintf("--eventlog.total-shards=%d", replicas)) {
		t.Errorf("--eventlog.total-shards is not the %d replicas: %v", replicas, args)
	}
	if !slices.Contains(args, "--eventlog.shard-from-hostname") {
		t.Errorf("shards do not come from the pod ordinal: %v", args)
	}
	for _, a := range args {
		if strings.HasPrefix(a, "--eventlog.shard=") || a == "--collector.spark" {
			t.Errorf("%s in a StatefulSet where every pod runs the same arguments", a)
		}
	}
	if sts.Spec.PodManagementPolicy != appsv1.ParallelPodManagement {
		t.Errorf("pod management %q: shards do not wait for each other", sts.Spec.PodManagementPolicy)
	}

	podLabels := labels.Set(sts.Spec.Template.Labels)
	if !labels.SelectorFromSet(sts.Spec.Selector.MatchLabels).Matches(podLabels) {
		t.Error("the StatefulSet's selector does not match its pods")
	}
	headless := one[*corev1.Service](t, filepath.Join(dir, "service-shards.yaml"))
	if sts.Spec.ServiceName != headless.Name || headless.Spec.ClusterIP != corev1.ClusterIPNone {
		t.Errorf("governing service %q, headless service %q (clusterIP %q)", sts.Spec.ServiceName, headless.Name, headless.Spec.ClusterIP)
	}
	svc := one[*corev1.Service](t, "kubernetes/base/service.yaml")
	sm := one[*monitoringv1.ServiceMonitor](t, "kubernetes/base/servicemonitor.yaml")
	scraped := labels.SelectorFromSet(sm.Spec.Selector.MatchLabels)
	if !labels.SelectorFromSet(svc.Spec.Selector).Matches(podLabels) || !scraped.Matches(labels.Set(svc.Labels)) {
		t.Error("the shards are not scraped through the base's Service and ServiceMonitor")
	}
	if scraped.Matches(labels.Set(headless.Labels)) {
		t.Error("the ServiceMonitor also selects the headless Service: every shard would be scraped twice")
	}
	vols := sts.Spec.Template.Spec.Volumes
	if len(vols) == 0 || vols[0].PersistentVolumeClaim == nil || !vols[0].PersistentVolumeClaim.ReadOnly {
		t.Error("shards must mount the event-log volume read-only")
	}
}
