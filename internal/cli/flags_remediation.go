package cli

import (
	"errors"
	"fmt"
	"strings"

	"github.com/alecthomas/kingpin/v2"

	"github.com/mintlify-exporter/mintlify_exporter/client"
	"github.com/mintlify-exporter/mintlify_exporter/exporter"
	"github.com/mintlify-exporter/mintlify_exporter/remediation"
)

type remediationFlags struct {
	config, tokenFile string
}

func (r *remediationFlags) register(app *kingpin.Application) {
	app.Flag("remediation.config", "Remediation rules (YAML, re-read when it changes): turns on POST "+remediation.Path+", which turns chosen Alertmanager alerts into agent jobs; dry run unless the file says dry_run: false (docs/remediation.md).").PlaceHolder("FILE").StringVar(&r.config)
	app.Flag("remediation.token-file", "File holding the bearer token the remediation webhook requires (or use basic auth in --web.config.file).").PlaceHolder("FILE").StringVar(&r.tokenFile)
}

// webhook checks the remediation flags and sets the webhook's configuration
// in cfg, nil without --remediation.config. Basic auth in the web
// configuration (checked by webFlags.check) counts as authentication.
func (r *remediationFlags) webhook(cfg *exporter.Config, basicAuth bool) error {
	if r.config == "" {
		if r.tokenFile != "" {
			return errors.New("--remediation.token-file is set but --remediation.config is not: add the rules file, or remove the token")
		}
		return nil
	}
	rules, err := remediation.LoadConfig(r.config)
	if err != nil {
		return fmt.Errorf("--remediation.config=%s: %v", r.config, oneLine(err))
	}
	rc := &remediation.Options{ConfigPath: r.config, BasicAuth: basicAuth}
	if cfg.CacheFile != "" {
		rc.LedgerPath = cfg.CacheFile + remediation.LedgerSuffix
	}
	if r.tokenFile != "" {
		if rc.Token, err = readToken(r.tokenFile); err != nil {
			return fmt.Errorf("--remediation.token-file=%s: %v", r.tokenFile, err)
		}
	}
	if err := remediation.CheckAuth(rules, rc.Token, rc.BasicAuth, rc.LedgerPath != ""); err != nil {
		return fmt.Errorf("--remediation.config=%s: %v", r.config, err)
	}
	cfg.Remediation = rc
	return nil
}

// Sizes of the small files the exporter reads whole.
const (
	// maxTokenFileBytes bounds --remediation.token-file.
	maxTokenFileBytes = 4096
	// maxWebConfigBytes bounds --web.config.file and its TLS files.
	maxWebConfigBytes = 1 << 20
)

// readToken reads a bearer token file: one line of at least 16 visible
// characters, not an API key.
func readToken(path string) (string, error) {
	b, err := readSmallFile(path, maxTokenFileBytes)
	if err != nil {
		return "", err
	}
	tok := strings.TrimSpace(string(b))
	switch {
	case tok == "":
		return "", errors.New("is empty: write a random token in it, such as the output of 'openssl rand -hex 32'")
	case strings.ContainsAny(tok, " \t\r\n"):
		return "", errors.New("holds more than one word: write the token alone")
	case len(tok) < 16:
		return "", errors.New("holds a token shorter than 16 characters: use a long random one, such as the output of 'openssl rand -hex 32'")
	case holdsKey(tok):
		return "", errors.New("holds what looks like a Mintlify API key (mint_...): the webhook's token must be a secret of its own")
	case strings.ContainsFunc(tok, func(r rune) bool { return r <= ' ' || r > '~' }):
		return "", errors.New("holds characters other than printable ASCII (a byte order mark?): write the token alone, such as the output of 'openssl rand -hex 32'")
	}
	return tok, nil
}

// holdsKey reports whether s holds what looks like an admin API key
// anywhere, behind a byte order mark or any other prefix.
func holdsKey(s string) bool {
	for i := range len(s) {
		if strings.HasPrefix(s[i:], "mint_") && looksLikeKey(s[i:]) {
			return true
		}
	}
	return false
}

// checkTokenIsNotKey refuses a webhook token that holds the API key in
// use: Alertmanager's configuration would then hold the key.
func checkTokenIsNotKey(rc *remediation.Options, key client.KeySource, tokenFile string) error {
	if rc == nil || rc.Token == "" || key == nil {
		return nil
	}
	if k, err := key.Key(); err == nil && k != "" && strings.Contains(rc.Token, k) {
		return fmt.Errorf("--remediation.token-file=%s: holds the Mintlify API key in use: the webhook's token must be a secret of its own", tokenFile)
	}
	return nil
}
