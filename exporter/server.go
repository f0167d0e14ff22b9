package exporter

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"net"
	"net/http"
	"slices"
	"strings"
	"syscall"
	"time"

	"github.com/go-kit/log/level"
	"github.com/prometheus/exporter-toolkit/web"
)

// Timeouts of the HTTP server: slow clients cannot hold the scrape slots.
const (
	// ReadHeaderTimeout bounds reading a request's headers.
	ReadHeaderTimeout = 10 * time.Second
	// ReadTimeout bounds reading a whole request, body included.
	ReadTimeout = 30 * time.Second
	// RequestTimeout bounds a request after its headers, and its context.
	RequestTimeout = 2 * time.Minute
	// IdleTimeout bounds a kept-alive connection between requests.
	IdleTimeout = 2 * time.Minute
	// ShutdownGrace bounds how long in-flight requests may take on SIGTERM.
	ShutdownGrace = 4 * time.Second
)

// newServer is the HTTP server of handler, with the timeouts above.
func newServer(handler http.Handler, logger *slog.Logger) *http.Server {
	return &http.Server{Handler: handler, ErrorLog: slog.NewLogLogger(logger.Handler(), slog.LevelError),
		ReadHeaderTimeout: ReadHeaderTimeout, ReadTimeout: ReadTimeout,
		WriteTimeout: RequestTimeout, IdleTimeout: IdleTimeout}
}

// Listeners are the sockets the exporter serves on.
type Listeners struct {
	flags *web.FlagConfig
	ls    []net.Listener // nil when exporter-toolkit listens itself
}

// Listen opens --web.listen-address's sockets first, so a port in use is a
// start-up error; a systemd socket or vsock:// is exporter-toolkit's job.
func Listen(flags *web.FlagConfig) (*Listeners, error) {
	l := &Listeners{flags: flags}
	if flags.WebSystemdSocket != nil && *flags.WebSystemdSocket ||
		slices.ContainsFunc(*flags.WebListenAddresses, func(a string) bool { return strings.HasPrefix(a, "vsock://") }) {
		return l, nil
	}
	for _, a := range *flags.WebListenAddresses {
		s, err := net.Listen("tcp", a)
		if err != nil {
			l.Close()
			if errno, ok := errors.AsType[syscall.Errno](err); ok && listenAdvice[errno] != "" {
				return nil, fmt.Errorf("--web.listen-address=%s: %s", a, listenAdvice[errno])
			}
			return nil, fmt.Errorf("--web.listen-address=%s: %v", a, err)
		}
		l.ls = append(l.ls, s)
	}
	return l, nil
}

// listenAdvice says why an address cannot be listened on, and what to do.
var listenAdvice = map[syscall.Errno]string{
	syscall.EADDRINUSE:    "the address is already in use (another exporter?); stop what listens there or choose another port",
	syscall.EACCES:        "permission denied; ports below 1024 need root or CAP_NET_BIND_SERVICE, choose a higher port",
	syscall.EADDRNOTAVAIL: "no interface of this machine has that address",
}

// Close closes the sockets not yet served.
func (l *Listeners) Close() {
	for _, s := range l.ls {
		s.Close()
	}
}

// Serve serves the exporter on l (TLS and basic auth as --web.config.file
// says) until ctx ends, then stops it, finishing requests in ShutdownGrace.
func (x *Exporter) Serve(ctx context.Context, l *Listeners, logger *slog.Logger) error {
	srv := newServer(x.handler, logger)
	errc := make(chan error, 1)
	go func() {
		if l.ls == nil {
			errc <- web.ListenAndServe(srv, l.flags, logger)
			return
		}
		errc <- web.ServeMultiple(l.ls, srv, l.flags, logger)
	}()
	select {
	case err := <-errc:
		if errors.Is(err, http.ErrServerClosed) {
			return nil
		}
		return err
	case <-ctx.Done():
	}
	level.Info(x.logger).Log("msg", "shutting down: finishing in-flight scrapes, cancelling refreshes")
	sctx, cancel := context.WithTimeout(context.Background(), ShutdownGrace)
	defer cancel()
	x.Close()
	if err := srv.Shutdown(sctx); err != nil {
		return fmt.Errorf("shutdown: %w", err)
	}
	<-errc // the server's goroutine has logged its last line
	level.Info(x.logger).Log("msg", "stopped")
	return nil
}
