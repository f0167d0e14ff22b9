package client

import (
	"crypto/tls"
	"crypto/x509"
	"errors"
	"fmt"
	"net"
	"strings"
)

// CertificateError is a TLS handshake with the API that failed over a
// certificate: unknown authority (an intercepting proxy), wrong name,
// expired, or a certificate alert. It lasts until the configuration changes,
// so it is not retried; the API never saw the request (nothing was written).
type CertificateError struct {
	Endpoint Endpoint
	Err      error
}

// Error is one line naming the flag and what to do.
func (e *CertificateError) Error() string {
	return fmt.Sprintf("%s: TLS certificate refused: %s: not retried until the configuration changes; check --mintlify.api-url, or add the CA of an intercepting proxy to the system's trust store (SSL_CERT_FILE)",
		e.Endpoint, e.Reason())
}

// Reason is the certificate's problem on one line, without the request's
// URL: "x509: certificate signed by unknown authority".
func (e *CertificateError) Reason() string {
	reason, _ := certProblem(e.Err)
	return strings.Join(strings.Fields(reason), " ")
}

// Unwrap returns the TLS or x509 error.
func (e *CertificateError) Unwrap() error { return e.Err }

// IsCertificateError reports whether err is a *CertificateError.
func IsCertificateError(err error) bool {
	_, ok := errors.AsType[*CertificateError](err)
	return ok
}

// certificateAlerts are the TLS alerts about certificates (RFC 8446 6.2):
// bad_certificate, unsupported_certificate, certificate_revoked,
// certificate_expired, certificate_unknown, unknown_ca,
// certificate_required.
var certificateAlerts = map[tls.AlertError]bool{42: true, 43: true, 44: true, 45: true, 46: true, 48: true, 116: true}

// certProblem reports whether err is a failed TLS handshake over a
// certificate, and the problem, without the request's URL. An alert
// received from the server comes from crypto/tls as a *net.OpError "remote
// error" around an unexported type whose text names the alert; every
// certificate alert's text says "certificate".
func certProblem(err error) (reason string, ok bool) {
	_, unknown := errors.AsType[x509.UnknownAuthorityError](err)
	_, hostname := errors.AsType[x509.HostnameError](err)
	_, invalid := errors.AsType[x509.CertificateInvalidError](err)
	isX509 := unknown || hostname || invalid
	if verify, ok := errors.AsType[*tls.CertificateVerificationError](err); ok {
		return verify.Err.Error(), true
	}
	if alert, ok := errors.AsType[tls.AlertError](err); ok {
		return "the server sent the TLS alert " + alert.Error(), isX509 || certificateAlerts[alert]
	}
	if op, ok := errors.AsType[*net.OpError](err); ok && op.Op == "remote error" && op.Err != nil && strings.Contains(op.Err.Error(), "certificate") {
		return "the server sent the TLS alert " + op.Err.Error(), true
	}
	return err.Error(), isX509
}
