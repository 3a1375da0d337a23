package objstoretest

import (
	"context"
	"fmt"
	"net"
	"net/http"
	"net/url"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/Azure/azure-sdk-for-go/sdk/storage/azblob"
	"github.com/Azure/azure-sdk-for-go/sdk/storage/azblob/container"

	"github.com/sparkglance/sparkglance/internal/testkit"
)

// Azurite's well-known development account: published in Microsoft's
// Azurite documentation, accepted by every Azurite and by no real account.
const (
	AzuriteAccount = "devstoreaccount1"
	AzuriteKey     = "Eby8vdM02xNOcqFlqUwJPLlmEtlCDXJ1OUzFT50uSRZ6IFsuFq2UVErCz4I6tq/K1SZFPTOtr/KBHBeksoGMGw=="
)

// AzuriteVersion is the Azurite release the tests are written against;
// .ci/run installs exactly this one.
const AzuriteVersion = "3.37.0"

// ToolsDir is where .ci/run installs the npm tools the tests use
// (testkit.ToolsDir).
func ToolsDir() string { return testkit.ToolsDir() }

// azuriteBinary finds azurite-blob on PATH or in ToolsDir, skipping the
// test when it is absent (failing it under CI=true).
func azuriteBinary(t testing.TB) string {
	t.Helper()
	if p, err := exec.LookPath("azurite-blob"); err == nil {
		return p
	}
	return testkit.RequireFile(t, filepath.Join(ToolsDir(), "node_modules", ".bin", "azurite-blob"))
}

// azuriteStartTimeout bounds Azurite's start-up (node loading its modules
// on a loaded machine takes a few seconds).
const azuriteStartTimeout = 60 * time.Second

// Azure is an Azurite Blob service on 127.0.0.1 (a child process) behind
// the fault proxy, reached by the code under test through gocloud's
// azureblob and the real Azure SDK with the development account's shared
// key.
type Azure struct {
	faults
	Endpoint  string // http://127.0.0.1:port: the fault proxy
	Container string
	client    *container.Client // straight to Azurite, for the test's own puts
}

// StartAzurite starts Azurite on a free loopback port, storing in a
// temporary directory, with one empty container, and sets the environment
// gocloud's azureblob reads for the development account. Azurite is
// stopped when the test ends.
func StartAzurite(t testing.TB) *Azure {
	t.Helper()
	bin := azuriteBinary(t)
	port := freePort(t)
	out := &testkit.SyncBuffer{}
	cmd := exec.Command(bin,
		"--blobHost", "127.0.0.1", "--blobPort", strconv.Itoa(port),
		"--location", t.TempDir(),
		"--skipApiVersionCheck", // the Go SDK may be newer than this Azurite
		"--loose",               // ignore headers Azurite does not implement
		"--disableTelemetry",    // else it sends usage data and spools it in $TMPDIR
	)
	// Whatever node writes to its temporary directory goes with the test.
	cmd.Env = append(os.Environ(), "TMPDIR="+t.TempDir())
	cmd.Stdout, cmd.Stderr = out, out
	dieWithTest(cmd)
	if err := cmd.Start(); err != nil {
		t.Fatalf("start %s: %v", bin, err)
	}
	exited := make(chan error, 1)
	go func() { exited <- cmd.Wait() }()
	t.Cleanup(func() {
		_ = cmd.Process.Signal(os.Interrupt)
		select {
		case <-exited:
		case <-time.After(10 * time.Second):
			_ = cmd.Process.Kill()
			<-exited
		}
	})
	direct := fmt.Sprintf("http://127.0.0.1:%d", port)
	waitAzurite(t, direct, exited, out)

	a := &Azure{Container: fmt.Sprintf("sparkglance-test-%d", bucketSeq.Add(1))}
	cred, err := azblob.NewSharedKeyCredential(AzuriteAccount, AzuriteKey)
	if err != nil {
		t.Fatal(err)
	}
	a.client, err = container.NewClientWithSharedKeyCredential(direct+"/"+AzuriteAccount+"/"+a.Container, cred, nil)
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	if _, err := a.client.Create(ctx, nil); err != nil {
		t.Fatalf("create container %s: %v", a.Container, err)
	}
	a.denyBody = `<?xml version="1.0" encoding="utf-8"?><Error><Code>AuthorizationPermissionMismatch</Code><Message>This request is not authorized to perform this operation using this permission.</Message></Error>`
	a.slowBody = `<?xml version="1.0" encoding="utf-8"?><Error><Code>ServerBusy</Code><Message>The server is busy.</Message></Error>`
	a.Endpoint = a.front(t, direct)
	// What a user sets to reach Azurite (docs/object-stores.md): the
	// account and key; the endpoint goes in the URL's options (URL).
	t.Setenv("AZURE_STORAGE_ACCOUNT", AzuriteAccount)
	t.Setenv("AZURE_STORAGE_KEY", AzuriteKey)
	return a
}

// freePort is a loopback port nothing listens on now.
func freePort(t testing.TB) int {
	t.Helper()
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer l.Close()
	return l.Addr().(*net.TCPAddr).Port
}

// waitAzurite waits until Azurite answers HTTP, failing the test with its
// output if it exits first or does not answer in azuriteStartTimeout.
func waitAzurite(t testing.TB, endpoint string, exited <-chan error, out *testkit.SyncBuffer) {
	t.Helper()
	deadline := time.Now().Add(azuriteStartTimeout)
	client := &http.Client{Timeout: 2 * time.Second}
	for {
		// Any HTTP answer (403 for an unsigned listing) means it serves.
		resp, err := client.Get(endpoint + "/" + AzuriteAccount + "?comp=list")
		if err == nil {
			resp.Body.Close()
			return
		}
		select {
		case err := <-exited:
			t.Fatalf("azurite-blob exited before serving (%v):\n%s", err, out.String())
		case <-time.After(100 * time.Millisecond):
		}
		if time.Now().After(deadline) {
			t.Fatalf("azurite-blob did not answer on %s within %v:\n%s", endpoint, azuriteStartTimeout, out.String())
		}
	}
}

// URL is the location of prefix in the test container as a user reaching
// Azurite gives it: the emulator's address in gocloud's options.
func (a *Azure) URL(prefix string) string {
	q := url.Values{"localemu": {"true"}, "protocol": {"http"}, "domain": {strings.TrimPrefix(a.Endpoint, "http://")}}
	return fmt.Sprintf("azblob://%s/%s?%s", a.Container, prefix, q.Encode())
}

// URLScheme is the location of prefix in Hadoop's form (abfs, abfss,
// wasb, wasbs: container@account.domain), the emulator's address standing
// for the domain, as the ABFS and WASB connectors name Azurite.
// azblob is URL.
func (a *Azure) URLScheme(scheme, prefix string) string {
	if scheme == "azblob" {
		return a.URL(prefix)
	}
	return fmt.Sprintf("%s://%s@%s.%s/%s", scheme, a.Container, AzuriteAccount, strings.TrimPrefix(a.Endpoint, "http://"), prefix)
}

// Ref is how sparklog names key in canonical form.
func (a *Azure) Ref(key string) string { return "azblob://" + a.Container + "/" + key }

// Put uploads one block blob straight to Azurite.
func (a *Azure) Put(t testing.TB, key string, data []byte) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	if _, err := a.client.NewBlockBlobClient(key).UploadBuffer(ctx, data, nil); err != nil {
		t.Fatalf("put %s: %v", key, err)
	}
}

// Delete removes one blob.
func (a *Azure) Delete(t testing.TB, key string) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	if _, err := a.client.NewBlobClient(key).Delete(ctx, nil); err != nil {
		t.Fatalf("delete %s: %v", key, err)
	}
}
