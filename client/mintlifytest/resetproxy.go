package mintlifytest

import (
	"bufio"
	"net"
	"net/http"
	"strings"
	"sync"
)

// ResetProxy is a loopback HTTP/1.1 proxy in front of a server (the fake,
// usually) that counts every request it reads, and resets a connection
// (TCP RST) once it has read a second request on it: what a proxy or load
// balancer with an idle timeout does to a kept-alive connection. A request
// on a fresh connection is forwarded and answered. With RefuseAfterReset
// the proxy stops listening at its first reset, so a client's re-dial is
// refused.
type ResetProxy struct {
	l                net.Listener
	target           string // http://host:port of the server behind
	refuseAfterReset bool
	fwd              *http.Transport

	mu     sync.Mutex
	reads  []string // the path of every request read, in order
	resets int
	conns  map[net.Conn]bool
	closed bool
	wg     sync.WaitGroup
}

// NewResetProxy starts a ResetProxy on 127.0.0.1 in front of target
// (http://host:port).
func NewResetProxy(target string, refuseAfterReset bool) (*ResetProxy, error) {
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return nil, err
	}
	p := &ResetProxy{l: l, target: strings.TrimRight(target, "/"), refuseAfterReset: refuseAfterReset,
		fwd: &http.Transport{DisableKeepAlives: true}, conns: map[net.Conn]bool{}}
	p.wg.Add(1)
	go p.accept()
	return p, nil
}

// URL is the proxy's base URL.
func (p *ResetProxy) URL() string { return "http://" + p.l.Addr().String() }

// Reads returns how many requests the proxy read whose path has prefix
// and contains part (either may be "").
func (p *ResetProxy) Reads(prefix, part string) int {
	p.mu.Lock()
	defer p.mu.Unlock()
	n := 0
	for _, r := range p.reads {
		if strings.HasPrefix(r, prefix) && strings.Contains(r, part) {
			n++
		}
	}
	return n
}

// Resets returns how many connections the proxy reset after reading.
func (p *ResetProxy) Resets() int {
	p.mu.Lock()
	defer p.mu.Unlock()
	return p.resets
}

// Close stops the proxy and closes its connections.
func (p *ResetProxy) Close() {
	p.mu.Lock()
	p.closed = true
	for c := range p.conns {
		c.Close()
	}
	p.mu.Unlock()
	p.l.Close()
	p.wg.Wait()
	p.fwd.CloseIdleConnections()
}

func (p *ResetProxy) accept() {
	defer p.wg.Done()
	for {
		c, err := p.l.Accept()
		if err != nil {
			return
		}
		p.mu.Lock()
		if p.closed {
			p.mu.Unlock()
			c.Close()
			return
		}
		p.conns[c] = true
		p.wg.Add(1)
		p.mu.Unlock()
		go p.serve(c)
	}
}

// serve reads requests from c: the first is forwarded and answered, the
// second read is counted and c is reset.
func (p *ResetProxy) serve(c net.Conn) {
	defer p.wg.Done()
	defer func() {
		p.mu.Lock()
		delete(p.conns, c)
		p.mu.Unlock()
		c.Close()
	}()
	br := bufio.NewReader(c)
	for n := 0; ; n++ {
		req, err := http.ReadRequest(br)
		if err != nil {
			return
		}
		p.mu.Lock()
		p.reads = append(p.reads, req.URL.Path)
		p.mu.Unlock()
		if n > 0 {
			p.reset(c)
			return
		}
		req.RequestURI = ""
		req.URL.Scheme, req.URL.Host = "http", strings.TrimPrefix(p.target, "http://")
		res, err := p.fwd.RoundTrip(req)
		if err != nil {
			return
		}
		res.Close = false
		res.Header.Del("Connection") // the forwarding closes; the client's connection is kept
		err = res.Write(c)
		res.Body.Close()
		if err != nil {
			return
		}
	}
}

// reset closes c with an RST, and stops listening if so configured.
func (p *ResetProxy) reset(c net.Conn) {
	if tc, ok := c.(*net.TCPConn); ok {
		_ = tc.SetLinger(0)
	}
	p.mu.Lock()
	p.resets++
	p.mu.Unlock()
	if p.refuseAfterReset {
		p.l.Close()
	}
	c.Close()
}
