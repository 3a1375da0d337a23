{{- define "sparkglance.name" -}}
{{- default .Chart.Name .Values.nameOverride | trunc 63 | trimSuffix "-" -}}
{{- end -}}

{{- define "sparkglance.fullname" -}}
{{- if .Values.fullnameOverride -}}
{{- .Values.fullnameOverride | trunc 63 | trimSuffix "-" -}}
{{- else -}}
{{- $name := default .Chart.Name .Values.nameOverride -}}
{{- if contains $name .Release.Name -}}
{{- .Release.Name | trunc 63 | trimSuffix "-" -}}
{{- else -}}
{{- printf "%s-%s" .Release.Name $name | trunc 63 | trimSuffix "-" -}}
{{- end -}}
{{- end -}}
{{- end -}}

{{- define "sparkglance.labels" -}}
helm.sh/chart: {{ printf "%s-%s" .Chart.Name .Chart.Version | replace "+" "_" }}
app.kubernetes.io/name: {{ include "sparkglance.name" . }}
app.kubernetes.io/instance: {{ .Release.Name }}
app.kubernetes.io/version: {{ .Chart.AppVersion | quote }}
app.kubernetes.io/managed-by: {{ .Release.Service }}
app.kubernetes.io/part-of: sparkglance
{{- with .Values.commonLabels }}
{{ toYaml . }}
{{- end }}
{{- end -}}

{{/* Selector labels of one component: call with (list $ "eventlog"). */}}
{{- define "sparkglance.selectorLabels" -}}
{{- $top := index . 0 -}}
app.kubernetes.io/name: {{ include "sparkglance.name" $top }}
app.kubernetes.io/instance: {{ $top.Release.Name }}
app.kubernetes.io/component: {{ index . 1 }}
{{- end -}}

{{- define "sparkglance.serviceAccountName" -}}
{{- if .Values.serviceAccount.create -}}
{{- default (include "sparkglance.fullname" .) .Values.serviceAccount.name -}}
{{- else -}}
{{- default "default" .Values.serviceAccount.name -}}
{{- end -}}
{{- end -}}

{{- define "sparkglance.image" -}}
{{- printf "%s:%s" .Values.image.repository (.Values.image.tag | default .Chart.AppVersion) -}}
{{- end -}}

{{- define "sparkglance.monitoringAvailable" -}}
{{- if .Capabilities.APIVersions.Has "monitoring.coreos.com/v1" -}}true{{- end -}}
{{- end -}}

{{/* The web configuration's Secret name, or nothing when it is off. */}}
{{- define "sparkglance.webConfigSecret" -}}
{{- if .Values.webConfig.enabled -}}
{{- default (include "sparkglance.componentName" (list . "web-config")) .Values.webConfig.existingSecret -}}
{{- end -}}
{{- end -}}

{{- define "sparkglance.webTLS" -}}
{{- if and .Values.webConfig.enabled (or .Values.webConfig.tls (hasKey .Values.webConfig.config "tls_server_config")) -}}true{{- end -}}
{{- end -}}

{{- define "sparkglance.webBasicAuth" -}}
{{- if and .Values.webConfig.enabled (or .Values.webConfig.basicAuth (hasKey .Values.webConfig.config "basic_auth_users")) -}}true{{- end -}}
{{- end -}}

{{/* Arguments every serve process takes: the listen address and the web configuration. */}}
{{- define "sparkglance.webArgs" -}}
- serve
- --web.listen-address=:{{ int .Values.port }}
{{- if .Values.webConfig.enabled }}
- --web.config.file=/etc/sparkglance/web/{{ .Values.webConfig.secretKey }}
{{- end }}
{{- end -}}

{{/* The node agent's own basic auth, generated when it serves the profiles
API (which attaches to the executors' JVMs and pauses them) without
webConfig: sparkglance refuses that API on a pod address without a web
config that authenticates. */}}
{{- define "sparkglance.nodeAuth" -}}
{{- $n := .Values.nodeAgent -}}
{{- if and $n.enabled $n.stacks.enabled $n.stacks.profiling (not .Values.webConfig.enabled) -}}true{{- end -}}
{{- end -}}

{{- define "sparkglance.nodeAuthSecret" -}}
{{- include "sparkglance.componentName" (list . "node-auth") -}}
{{- end -}}

{{/* With the profiles API and the values' own web config, that config must
authenticate: basic auth or verified client certificates (an existing
Secret is taken at its word: set webConfig.basicAuth, or sparkglance
refuses to start). */}}
{{- define "sparkglance.checkProfilingAuth" -}}
{{- $n := .Values.nodeAgent -}}
{{- $w := .Values.webConfig -}}
{{- if and $n.enabled $n.stacks.enabled $n.stacks.profiling $w.enabled (not $w.existingSecret) (not (include "sparkglance.webBasicAuth" .)) -}}
{{- $tls := $w.config.tls_server_config | default dict -}}
{{- if ne (toString $tls.client_auth_type) "RequireAndVerifyClientCert" -}}
{{- fail "nodeAgent.stacks.profiling serves the JVM profiles API, which needs a webConfig.config that authenticates: basic_auth_users, or tls_server_config.client_auth_type RequireAndVerifyClientCert (or turn webConfig off and the chart generates basic auth for the node agent)" -}}
{{- end -}}
{{- end -}}
{{- end -}}

{{/* Probes: HTTP(S) on the health endpoints; with basic auth, which covers
every path, only whether the port accepts connections. */}}
{{- define "sparkglance.probe" -}}
{{- $top := index . 0 -}}
{{- if include "sparkglance.webBasicAuth" $top -}}
tcpSocket:
  port: metrics
{{- else -}}
httpGet:
  path: {{ index . 1 }}
  port: metrics
  {{- if include "sparkglance.webTLS" $top }}
  scheme: HTTPS
  {{- end }}
{{- end -}}
{{- end -}}

{{- define "sparkglance.webVolumeMount" -}}
{{- if .Values.webConfig.enabled }}
- name: web-config
  mountPath: /etc/sparkglance/web
  readOnly: true
{{- end }}
{{- end -}}

{{- define "sparkglance.webVolume" -}}
{{- if .Values.webConfig.enabled }}
- name: web-config
  secret:
    secretName: {{ include "sparkglance.webConfigSecret" . }}
{{- end }}
{{- end -}}

{{/* The scrape settings both monitors share; (list $ monitor "node") for
the node agent, which may have its own basic auth. */}}
{{- define "sparkglance.monitorEndpoint" -}}
{{- $top := index . 0 -}}
{{- $m := index . 1 -}}
{{- $node := and (gt (len .) 2) (include "sparkglance.nodeAuth" $top) -}}
- port: metrics
  interval: {{ $m.interval }}
  scrapeTimeout: {{ $m.scrapeTimeout }}
  {{- if include "sparkglance.webTLS" $top }}
  scheme: https
  {{- with $top.Values.webConfig.monitorTLSConfig }}
  tlsConfig:
    {{- toYaml . | nindent 4 }}
  {{- end }}
  {{- end }}
  {{- if $node }}
  basicAuth:
    username:
      name: {{ include "sparkglance.nodeAuthSecret" $top }}
      key: username
    password:
      name: {{ include "sparkglance.nodeAuthSecret" $top }}
      key: password
  {{- else }}
  {{- with $top.Values.webConfig.monitorBasicAuth }}
  basicAuth:
    {{- toYaml . | nindent 4 }}
  {{- end }}
  {{- end }}
{{- end -}}

{{/* The strict container security context of both workloads. */}}
{{- define "sparkglance.containerSecurity" -}}
allowPrivilegeEscalation: false
readOnlyRootFilesystem: true
capabilities:
  drop: ["ALL"]
{{- end -}}

{{/* A component's object name, <fullname>-<suffix>, at most 52 characters:
a StatefulSet's name must leave room in its pods' controller-revision-hash
label (63), and a Service's name is a DNS label. Call with (list $ "suffix"). */}}
{{- define "sparkglance.componentName" -}}
{{- $suffix := index . 1 -}}
{{- $base := include "sparkglance.fullname" (index . 0) | trunc (int (sub 51 (len $suffix))) | trimSuffix "-" -}}
{{- printf "%s-%s" $base $suffix -}}
{{- end -}}
