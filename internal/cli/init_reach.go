package cli

import (
	"context"
	"crypto/tls"
	"crypto/x509"
	"errors"
	"fmt"
	"net"
	"net/http"
	"net/url"
	"os"
	"time"
)

// reachTimeout bounds the one request init makes to learn that the site answers at all.
const reachTimeout = 15 * time.Second

// reachSite asks the site root once, before discovery, whether the host answers: a connection
// refused, a host name that does not resolve or a TLS handshake that fails would fail every
// sitemap path in turn, each after its retries, so they end init at once, in one line with the
// fix. Any HTTP answer, an error status included, and a slow server are left to discovery.
func reachSite(ctx context.Context, client *http.Client, base string) error {
	ctx, cancel := context.WithTimeout(ctx, reachTimeout)
	defer cancel()
	req, err := http.NewRequestWithContext(ctx, http.MethodHead, base+"/", nil)
	if err != nil {
		return err
	}
	resp, err := client.Do(req)
	if err == nil {
		resp.Body.Close()
		return nil
	}
	var ue *url.Error
	if errors.As(err, &ue) {
		err = ue.Err
	}
	return unreachable(base, err)
}

// unreachable words a failed request to base as init's error when the host cannot be reached,
// and returns nil for any other failure.
func unreachable(base string, err error) error {
	var dns *net.DNSError
	var op *net.OpError
	var verify *tls.CertificateVerificationError
	var record tls.RecordHeaderError
	var alert tls.AlertError
	var unknown x509.UnknownAuthorityError
	var host x509.HostnameError
	switch {
	case errors.Is(err, http.ErrSchemeMismatch):
		return fmt.Errorf("%s answers plain HTTP, not HTTPS: write the address with http://, then run sitepush init again (nothing was written)", base)
	case errors.As(err, &dns) && dns.IsNotFound:
		return fmt.Errorf("%s: no such host %s: check the address's spelling, then run sitepush init again (nothing was written)", base, dns.Name)
	case errors.As(err, &op) && op.Op == "dial":
		why := op.Err
		var sys *os.SyscallError
		if errors.As(why, &sys) {
			why = sys.Err
		}
		return fmt.Errorf("%s does not answer (%v): check the address and that the site is up, then run sitepush init again (nothing was written)", base, why)
	case errors.As(err, &verify), errors.As(err, &unknown), errors.As(err, &host):
		return fmt.Errorf("%s: its TLS certificate is not valid (%v): fix the certificate, or give the address the certificate names, then run sitepush init again (nothing was written)", base, err)
	case errors.As(err, &record), errors.As(err, &alert):
		return fmt.Errorf("%s: the TLS handshake failed (%v): check the scheme (http:// or https://) and the server's TLS setup, then run sitepush init again (nothing was written)", base, err)
	}
	return nil
}
