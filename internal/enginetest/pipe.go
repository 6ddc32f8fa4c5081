package enginetest

import (
	"context"
	"net"
	"net/http"
	"sync"
	"testing"
)

// Served returns an HTTP client that reaches h through a real HTTP server and net/http's own
// transport over in-memory connections (net.Pipe), without a network. Unlike Client, the answer
// streams as h writes it — headers first, the body as h flushes it — so a handler that drips its
// body meets the client's deadlines as a real engine would; inside a testing/synctest bubble its
// waits run on the bubble's fake clock. The server and the connections close when t ends.
func Served(t testing.TB, h http.Handler) *http.Client {
	l := &pipeListener{conns: make(chan net.Conn), done: make(chan struct{})}
	srv := &http.Server{Handler: h}
	served := make(chan struct{})
	go func() {
		defer close(served)
		srv.Serve(l)
	}()
	// An https URL is served alike, in the clear: the test's engine has no certificate.
	tr := &http.Transport{DialContext: l.dial, DialTLSContext: l.dial}
	t.Cleanup(func() {
		tr.CloseIdleConnections()
		srv.Close()
		<-served
	})
	return &http.Client{Transport: tr}
}

// pipeListener hands the server end of each connection dialed to the server.
type pipeListener struct {
	conns chan net.Conn
	done  chan struct{}
	once  sync.Once
}

// dial makes a connection to the server, as a client's transport dials one.
func (l *pipeListener) dial(ctx context.Context, _, _ string) (net.Conn, error) {
	srv, cli := net.Pipe()
	select {
	case l.conns <- srv:
		return cli, nil
	case <-l.done:
		return nil, net.ErrClosed
	case <-ctx.Done():
		return nil, ctx.Err()
	}
}

func (l *pipeListener) Accept() (net.Conn, error) {
	select {
	case c := <-l.conns:
		return c, nil
	case <-l.done:
		return nil, net.ErrClosed
	}
}

func (l *pipeListener) Close() error {
	l.once.Do(func() { close(l.done) })
	return nil
}

func (l *pipeListener) Addr() net.Addr { return pipeAddr{} }

// pipeAddr is the address of an in-memory connection.
type pipeAddr struct{}

func (pipeAddr) Network() string { return "pipe" }
func (pipeAddr) String() string  { return "pipe" }
