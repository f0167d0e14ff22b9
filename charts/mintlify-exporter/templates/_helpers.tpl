{{/* The chart's name, cut to 63 characters (a label value's limit). */}}
{{- define "mintlify-exporter.name" -}}
{{- default .Chart.Name .Values.nameOverride | trunc 63 | trimSuffix "-" }}
{{- end }}

{{/* The full name of the release's resources. */}}
{{- define "mintlify-exporter.fullname" -}}
{{- if .Values.fullnameOverride }}
{{- .Values.fullnameOverride | trunc 63 | trimSuffix "-" }}
{{- else }}
{{- $name := default .Chart.Name .Values.nameOverride }}
{{- if contains $name .Release.Name }}
{{- .Release.Name | trunc 63 | trimSuffix "-" }}
{{- else }}
{{- printf "%s-%s" .Release.Name $name | trunc 63 | trimSuffix "-" }}
{{- end }}
{{- end }}
{{- end }}

{{/* Labels of every resource. */}}
{{- define "mintlify-exporter.labels" -}}
helm.sh/chart: {{ printf "%s-%s" .Chart.Name .Chart.Version | replace "+" "_" | trunc 63 | trimSuffix "-" }}
{{ include "mintlify-exporter.selectorLabels" . }}
app.kubernetes.io/version: {{ .Values.image.tag | default .Chart.AppVersion | quote }}
app.kubernetes.io/managed-by: {{ .Release.Service }}
{{- with .Values.commonLabels }}
{{ toYaml . }}
{{- end }}
{{- end }}

{{/* Labels that select the exporter's pod. */}}
{{- define "mintlify-exporter.selectorLabels" -}}
app.kubernetes.io/name: {{ include "mintlify-exporter.name" . }}
app.kubernetes.io/instance: {{ .Release.Name }}
{{- end }}

{{/* The Secret holding the API key. */}}
{{- define "mintlify-exporter.secretName" -}}
{{- .Values.apiKey.existingSecret | default (printf "%s-api-key" (include "mintlify-exporter.fullname" .)) }}
{{- end }}

{{/* GOMEMLIMIT: goMemLimitPercent of resources.limits.memory, in MiB; empty without a limit.
A Kubernetes quantity is a number and a suffix (Ki, Mi, Gi, Ti binary; k, M, G, T decimal). */}}
{{- define "mintlify-exporter.goMemLimit" -}}
{{- $limit := toString (dig "limits" "memory" "" (.Values.resources | default dict)) }}
{{- if and $limit .Values.goMemLimitPercent }}
{{- $number := regexFind "^[0-9]+(\\.[0-9]+)?" $limit }}
{{- $suffix := trimPrefix $number $limit }}
{{- $factors := dict "" 1 "k" 1000 "M" 1000000 "G" 1000000000 "T" 1000000000000 "Ki" 1024 "Mi" 1048576 "Gi" 1073741824 "Ti" 1099511627776 }}
{{- if or (not $number) (not (hasKey $factors $suffix)) }}
{{- fail (printf "resources.limits.memory=%s: not a quantity the chart can read for GOMEMLIMIT (use Mi or Gi, such as 256Mi), or set goMemLimitPercent=0" $limit) }}
{{- end }}
{{- $mib := floor (divf (mulf (float64 $number) (get $factors $suffix) .Values.goMemLimitPercent) (mulf 100 1048576)) }}
{{- printf "%dMiB" (int64 $mib) }}
{{- end }}
{{- end }}

{{/* Whether the exporter serves HTTPS (webConfig.tlsSecret). */}}
{{- define "mintlify-exporter.tls" -}}
{{- if .Values.webConfig.tlsSecret }}true{{ end }}
{{- end }}

{{/* Whether the chart writes a --web.config.file. */}}
{{- define "mintlify-exporter.webConfig" -}}
{{- if or .Values.webConfig.tlsSecret .Values.webConfig.basicAuthUsers }}true{{ end }}
{{- end }}

{{/* The scheme of the scrapes: the monitor's scheme value, else https with TLS, else http. */}}
{{- define "mintlify-exporter.scheme" -}}
{{- .monitor.scheme | default (ternary "https" "http" (eq (include "mintlify-exporter.tls" .root) "true")) }}
{{- end }}

{{/* A probe of the values with what the web config asks: tcpSocket on the port with basic auth
(a kubelet probe cannot send a password from a Secret), scheme HTTPS with TLS. */}}
{{- define "mintlify-exporter.probe" -}}
{{- $probe := deepCopy .probe }}
{{- if .root.Values.webConfig.basicAuthUsers }}
{{- $_ := unset $probe "httpGet" }}
{{- $_ := set $probe "tcpSocket" (dict "port" "http") }}
{{- else if and (hasKey $probe "httpGet") (eq (include "mintlify-exporter.tls" .root) "true") }}
{{- $_ := set $probe.httpGet "scheme" "HTTPS" }}
{{- end }}
{{- toYaml $probe }}
{{- end }}

{{/* The scrape settings a monitor's endpoint shares (scheme, TLS, authentication). */}}
{{- define "mintlify-exporter.scrapeAuth" -}}
scheme: {{ include "mintlify-exporter.scheme" . }}
{{- with .monitor.tlsConfig }}
tlsConfig:
  {{- toYaml . | nindent 2 }}
{{- end }}
{{- with .monitor.basicAuth }}
basicAuth:
  {{- toYaml . | nindent 2 }}
{{- end }}
{{- with .monitor.authorization }}
authorization:
  {{- toYaml . | nindent 2 }}
{{- end }}
{{- end }}

{{/* The ServiceAccount of the pod: the chart's (serviceAccount.create), or serviceAccount.name, or
the namespace's default. */}}
{{- define "mintlify-exporter.serviceAccountName" -}}
{{- if .Values.serviceAccount.create }}
{{- .Values.serviceAccount.name | default (include "mintlify-exporter.fullname" .) }}
{{- else }}
{{- .Values.serviceAccount.name | default "default" }}
{{- end }}
{{- end }}

{{/* Refuses the values that render a pod or a scrape that cannot work, each with what to do:
a flag the chart sets itself repeated in extraArgs (the exporter refuses a repeated flag, or two
values of one setting), a monitor's scheme the exporter does not serve, and monitor relabelings
without the job the shipped rules and dashboards select. */}}
{{- define "mintlify-exporter.validate" -}}
{{- $own := dict
  "web.listen-address" "service.port sets it"
  "mintlify.api-key-file" "the key is read from the Secret of apiKey"
  "mintlify.project-id" "list the projects in projectIds"
  "cache.file" "the chart keeps it on the cache volume (persistence.*)" }}
{{- if include "mintlify-exporter.webConfig" . }}
{{- $_ := set $own "web.config.file" "the chart writes it from webConfig.*" }}
{{- end }}
{{- $ownWebConfig := false }}
{{- range .Values.extraArgs }}
{{- $name := regexReplaceAll "=.*$" (trimPrefix "--" .) "" }}
{{- if hasKey $own $name }}
{{- fail (printf "extraArgs: --%s is a flag the chart sets itself (%s): the exporter refuses it twice; remove it from extraArgs" $name (get $own $name)) }}
{{- end }}
{{- if eq $name "web.config.file" }}{{ $ownWebConfig = true }}{{ end }}
{{- end }}
{{- $tls := or .Values.webConfig.tlsSecret (and (include "mintlify-exporter.webConfig" .) (hasKey (.Values.webConfig.extra | default dict) "tls_server_config")) }}
{{- range $kind, $monitor := dict "serviceMonitor" .Values.serviceMonitor "podMonitor" .Values.podMonitor }}
{{- if $monitor.enabled }}
{{- if and $tls (eq $monitor.scheme "http") }}
{{- fail (printf "%s.scheme=http, but the exporter serves HTTPS only (webConfig.tlsSecret): every scrape would fail; set %s.scheme=https or leave it empty" $kind $kind) }}
{{- end }}
{{- if and (not $tls) (not $ownWebConfig) (eq $monitor.scheme "https") }}
{{- fail (printf "%s.scheme=https, but the exporter serves plain HTTP (no webConfig.tlsSecret): every scrape would fail; set webConfig.tlsSecret or %s.scheme=http" $kind $kind) }}
{{- end }}
{{- $job := false }}
{{- range $monitor.relabelings }}{{ if eq (toString .targetLabel) "job" }}{{ $job = true }}{{ end }}{{ end }}
{{- if and (not $job) (not $monitor.jobLabel) }}
{{- fail (printf "%s.relabelings sets no job label: the shipped rules and dashboards select job=\"mintlify\" and would match nothing; keep the relabeling {action: replace, targetLabel: job, replacement: mintlify} among yours" $kind) }}
{{- end }}
{{- end }}
{{- end }}
{{- end }}
