module github.com/mintlify-exporter/mintlify_exporter

go 1.26.0

require (
	github.com/alecthomas/kingpin/v2 v2.4.0
	github.com/aws/aws-sdk-go-v2 v1.48.0 // stream/s3store: the official AWS SDK for Go v2 (SigV4, the standard retryer, bounded there)
	github.com/aws/aws-sdk-go-v2/config v1.33.18 // stream/s3store: LoadDefaultConfig, the standard credential chain (env, profiles, web identity/IRSA, Pod Identity, ECS/EC2 metadata)
	github.com/aws/aws-sdk-go-v2/credentials v1.21.0 // stream/s3store: static credentials injected by tests and the demo (never from a flag)
	github.com/aws/aws-sdk-go-v2/service/s3 v1.114.10 // stream/s3store: ListObjectsV2 and GetObject on the event stream's bucket (AWS or S3-compatible, path-style)
	github.com/aws/smithy-go v1.28.9 // stream/s3store: smithy.APIError, to map S3 error codes onto the stream's sentinels
	github.com/axiomhq/hyperloglog v0.3.0 // stream's visitor sketches: HyperLogLog++ with sparse mode, mergeable per-day sketches, binary encoding for the cache file (newest release; two small deps)
	github.com/go-kit/log v0.2.1
	github.com/go-logfmt/logfmt v0.6.1
	github.com/google/go-jsonnet v0.22.0
	github.com/klauspost/compress v1.20.1 // snappy: backfill's tests decode remote-write requests (client_golang/exp encodes with it)
	github.com/prometheus/client_golang v1.25.0
	github.com/prometheus/client_golang/exp v0.0.0-20261019101427-217707f26b14 // backfill's remote-write client (api/remote): encoding, snappy, 1.0 headers, retries on 5xx/429 only
	github.com/prometheus/client_model v0.6.3
	github.com/prometheus/common v0.73.1
	github.com/prometheus/exporter-toolkit v0.20.0
	github.com/prometheus/prometheus v0.315.1 // prompb only: the remote-write 1.0 WriteRequest types (client_golang/exp has the 2.0 ones only); v0.315.1 is the newest that keeps go 1.26.0
	go.uber.org/goleak v1.3.0 // tests only (jobs, collector fault tests): names each goroutine left after Close by its stack, replacing internal/leakcheck's goroutine count with slack
	go.yaml.in/yaml/v2 v2.4.4 // --remote-write.config: prometheus/common/config's HTTPClientConfig unmarshals with yaml v2, strictly as Prometheus does
	golang.org/x/crypto v0.58.0
	gopkg.in/yaml.v3 v3.0.1
)

require (
	github.com/BurntSushi/toml v1.4.1-0.20240526193622-a339e1f7089c // indirect
	github.com/alecthomas/units v0.0.0-20240927000941-0f3dac36c52b // indirect
	github.com/aws/aws-sdk-go-v2/aws/protocol/eventstream v1.7.27 // indirect
	github.com/aws/aws-sdk-go-v2/feature/ec2/imds v1.20.9 // indirect
	github.com/aws/aws-sdk-go-v2/internal/configsources v1.5.12 // indirect
	github.com/aws/aws-sdk-go-v2/internal/endpoints/v2 v2.8.12 // indirect
	github.com/aws/aws-sdk-go-v2/internal/v4a v1.5.12 // indirect
	github.com/aws/aws-sdk-go-v2/service/internal/accept-encoding v1.13.25 // indirect
	github.com/aws/aws-sdk-go-v2/service/internal/checksum v1.11.13 // indirect
	github.com/aws/aws-sdk-go-v2/service/internal/presigned-url v1.14.12 // indirect
	github.com/aws/aws-sdk-go-v2/service/internal/s3shared v1.20.12 // indirect
	github.com/aws/aws-sdk-go-v2/service/signin v1.13.1 // indirect
	github.com/aws/aws-sdk-go-v2/service/sso v1.39.5 // indirect
	github.com/aws/aws-sdk-go-v2/service/ssooidc v1.44.5 // indirect
	github.com/aws/aws-sdk-go-v2/service/sts v1.52.0 // indirect
	github.com/beorn7/perks v1.0.1 // indirect
	github.com/cespare/xxhash/v2 v2.3.0 // indirect
	github.com/coreos/go-systemd/v22 v22.7.0 // indirect
	github.com/dgryski/go-metro v0.0.0-20250106013310-edb8663e5e33 // indirect
	github.com/fatih/color v1.19.0 // indirect
	github.com/gogo/protobuf v1.3.2 // indirect
	github.com/golang-jwt/jwt/v5 v5.3.1 // indirect
	github.com/google/uuid v1.6.0 // indirect
	github.com/grafana/regexp v0.0.0-20250905093917-f7b3be9d1853 // indirect
	github.com/jpillora/backoff v1.0.0 // indirect
	github.com/kamstrup/intmap v0.5.2 // indirect
	github.com/kr/text v0.2.0 // indirect
	github.com/kylelemons/godebug v1.1.0 // indirect
	github.com/mattn/go-colorable v0.1.15 // indirect
	github.com/mattn/go-isatty v0.0.23 // indirect
	github.com/mdlayher/socket v0.6.0 // indirect
	github.com/mdlayher/vsock v1.3.0 // indirect
	github.com/munnerz/goautoneg v0.0.0-20191010083416-a7dc8b61c822 // indirect
	github.com/mwitkow/go-conntrack v0.0.0-20190716064945-2f068394615f // indirect
	github.com/pandatix/go-abnf v0.5.3 // indirect
	github.com/prometheus/procfs v0.22.0 // indirect
	github.com/xhit/go-str2duration/v2 v2.1.0 // indirect
	golang.org/x/exp/typeparams v0.0.0-20231108232855-2478ac86f678 // indirect
	golang.org/x/mod v0.41.0 // indirect
	golang.org/x/net v0.61.0 // indirect
	golang.org/x/oauth2 v0.37.0 // indirect
	golang.org/x/sync v0.24.0 // indirect
	golang.org/x/sys v0.49.0 // indirect
	golang.org/x/text v0.43.0 // indirect
	golang.org/x/time v0.15.0 // indirect
	golang.org/x/tools v0.51.0 // indirect
	google.golang.org/protobuf v1.36.12 // indirect
	honnef.co/go/tools v0.8.2 // indirect
	sigs.k8s.io/yaml v1.6.0 // indirect
)

tool (
	github.com/google/go-jsonnet/cmd/jsonnet
	honnef.co/go/tools/cmd/staticcheck
)
