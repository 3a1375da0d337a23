package exporter_test

import (
	"context"
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/rand"
	"crypto/tls"
	"crypto/x509"
	"crypto/x509/pkix"
	"encoding/pem"
	"fmt"
	"math/big"
	"net"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"golang.org/x/crypto/bcrypt"

	"github.com/sparkglance/sparkglance/exporter"
	"github.com/sparkglance/sparkglance/exporter/exportertest"
	"github.com/sparkglance/sparkglance/internal/testkit"
)

// selfSignedCert writes a certificate for 127.0.0.1 and its key into dir
// and returns their paths and a pool that trusts the certificate.
func selfSignedCert(t *testing.T, dir string) (certPath, keyPath string, pool *x509.CertPool) {
	t.Helper()
	key, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	if err != nil {
		t.Fatal(err)
	}
	tmpl := &x509.Certificate{
		SerialNumber: big.NewInt(1),
		Subject:      pkix.Name{CommonName: "sparkglance test"},
		NotBefore:    time.Now().Add(-time.Hour),
		NotAfter:     time.Now().Add(time.Hour),
		KeyUsage:     x509.KeyUsageDigitalSignature,
		ExtKeyUsage:  []x509.ExtKeyUsage{x509.ExtKeyUsageServerAuth},
		IPAddresses:  []net.IP{net.IPv4(127, 0, 0, 1)},
	}
	der, err := x509.CreateCertificate(rand.Reader, tmpl, tmpl, &key.PublicKey, key)
	if err != nil {
		t.Fatal(err)
	}
	keyDER, err := x509.MarshalPKCS8PrivateKey(key)
	if err != nil {
		t.Fatal(err)
	}
	certPath, keyPath = filepath.Join(dir, "cert.pem"), filepath.Join(dir, "key.pem")
	writePEM(t, certPath, "CERTIFICATE", der)
	writePEM(t, keyPath, "PRIVATE KEY", keyDER)
	cert, err := x509.ParseCertificate(der)
	if err != nil {
		t.Fatal(err)
	}
	pool = x509.NewCertPool()
	pool.AddCert(cert)
	return certPath, keyPath, pool
}

func writePEM(t *testing.T, path, kind string, der []byte) {
	t.Helper()
	if err := os.WriteFile(path, pem.EncodeToMemory(&pem.Block{Type: kind, Bytes: der}), 0o600); err != nil {
		t.Fatal(err)
	}
}

func TestTLSAndBasicAuth(t *testing.T) {
	dir := t.TempDir()
	certPath, keyPath, pool := selfSignedCert(t, dir)
	hash, err := bcrypt.GenerateFromPassword([]byte("s3cret"), bcrypt.MinCost)
	if err != nil {
		t.Fatal(err)
	}
	webConfig := filepath.Join(dir, "web-config.yml")
	yml := fmt.Sprintf("tls_server_config:\n  cert_file: %s\n  key_file: %s\nbasic_auth_users:\n  prometheus: %s\n", certPath, keyPath, hash)
	if err := os.WriteFile(webConfig, []byte(yml), 0o600); err != nil {
		t.Fatal(err)
	}
	cat := exporter.NewCatalog()
	cat.Register("answer", true, exportertest.Fixed(exporter.FromUpdater(answerCollector{})))
	base := exportertest.Start(t, cat, "--web.config.file="+webConfig).URL
	secure := "https" + strings.TrimPrefix(base, "http")
	client := &http.Client{
		Timeout:   10 * time.Second,
		Transport: &http.Transport{TLSClientConfig: &tls.Config{RootCAs: pool, MinVersion: tls.VersionTLS12}},
	}
	auth := func(user, password string) http.Header {
		req, _ := http.NewRequest(http.MethodGet, "/", nil)
		req.SetBasicAuth(user, password)
		return req.Header
	}

	if status, _ := testkit.HTTPGet(t, client, secure+"/metrics", nil); status != http.StatusUnauthorized {
		t.Errorf("no credentials: status %d, want 401", status)
	}
	if status, _ := testkit.HTTPGet(t, client, secure+"/metrics", auth("prometheus", "wrong")); status != http.StatusUnauthorized {
		t.Errorf("wrong password: status %d, want 401", status)
	}
	status, body := testkit.HTTPGet(t, client, secure+"/metrics", auth("prometheus", "s3cret"))
	if status != http.StatusOK || !strings.Contains(body, `sparkglance_test_answer{source="test"} 42`) {
		t.Errorf("right credentials: status %d, body without the collector's metric", status)
	}
	// Plain HTTP to the TLS port is refused by Go's server with a 400.
	if status, _ := testkit.HTTPGet(t, nil, base+"/metrics", auth("prometheus", "s3cret")); status != http.StatusBadRequest {
		t.Errorf("plain HTTP on the TLS port: status %d, want 400", status)
	}
}

// A web config that cannot be read stops Run with an error naming it.
func TestBadWebConfigStopsRun(t *testing.T) {
	missing := filepath.Join(t.TempDir(), "absent.yml")
	cat := exporter.NewCatalog()
	cfg := exportertest.ParseConfig(t, cat, "--web.listen-address=127.0.0.1:0", "--web.config.file="+missing)
	e, err := exporter.New(*cfg, cat, discard)
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	err = e.Run(ctx)
	if err == nil || !strings.Contains(err.Error(), "absent.yml") {
		t.Errorf("Run = %v, want an error naming absent.yml", err)
	}
	if ctx.Err() != nil {
		t.Error("Run only returned at the 10 s timeout")
	}
}
