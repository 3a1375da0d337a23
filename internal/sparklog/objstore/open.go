package objstore

import (
	"context"
	"fmt"
	"net/http"
	"net/url"
	"os"
	"strconv"
	"sync"
	"time"

	"github.com/Azure/azure-sdk-for-go/sdk/azcore/policy"
	"github.com/Azure/azure-sdk-for-go/sdk/azidentity"
	"github.com/Azure/azure-sdk-for-go/sdk/storage/azblob"
	"github.com/Azure/azure-sdk-for-go/sdk/storage/azblob/container"
	awssdk "github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/s3"
	"gocloud.dev/aws"
	"gocloud.dev/blob"
	"gocloud.dev/blob/azureblob"
	"gocloud.dev/blob/s3blob"
)

// objectRequestTimeout bounds one call to a store (a listing page, a
// stat, opening a read), retries included: a store that hangs must not
// block a scan or a scrape for ever.
const objectRequestTimeout = 2 * time.Minute

// objectBucket is one opened bucket, shared by every log in it. Buckets
// are opened on first use and kept: like an HTTP connection pool, they are
// what makes the next request cheap.
type objectBucket struct {
	loc  objectLocation
	once sync.Once
	b    *blob.Bucket
	err  error
}

var objectBuckets = struct {
	sync.Mutex
	m map[string]*objectBucket // by objectLocation.base
}{m: map[string]*objectBucket{}}

// registerBucket remembers how to open loc's bucket. The first options
// given for a bucket are kept; different ones later are an error rather
// than a silent second meaning of the same name.
func registerBucket(loc objectLocation) error {
	objectBuckets.Lock()
	defer objectBuckets.Unlock()
	if b := objectBuckets.m[loc.base]; b != nil {
		if loc.options && b.loc.open != loc.open {
			return fmt.Errorf("%s: already opened with other options (%s); name each bucket with one set of options", loc.ref(loc.key), b.loc.open)
		}
		return nil
	}
	objectBuckets.m[loc.base] = &objectBucket{loc: loc}
	return nil
}

func lookupBucket(base string) *objectBucket {
	objectBuckets.Lock()
	defer objectBuckets.Unlock()
	return objectBuckets.m[base]
}

// bucket opens the bucket once.
func (ob *objectBucket) bucket(ctx context.Context) (*blob.Bucket, error) {
	ob.once.Do(func() {
		ob.b, ob.err = openObjectBucket(ctx, ob.loc.open)
		if ob.err != nil {
			ob.err = fmt.Errorf("%s: cannot open the bucket: %w", ob.loc.base, ob.err)
		}
	})
	return ob.b, ob.err
}

// openObjectBucket opens a gocloud bucket URL with each SDK's standard
// credential chain, its HTTP traffic counted (objectTransport).
func openObjectBucket(ctx context.Context, rawURL string) (*blob.Bucket, error) {
	u, err := url.Parse(rawURL)
	if err != nil {
		return nil, err
	}
	base := http.DefaultTransport.(*http.Transport).Clone()
	base.ResponseHeaderTimeout = objectRequestTimeout // a store that never answers
	client := &http.Client{Transport: &objectTransport{base: base}}
	switch u.Scheme {
	case "s3":
		return openS3(ctx, u, client)
	case "gs":
		return openGCS(ctx, u, client)
	case "azblob":
		return openAzure(ctx, u, client)
	}
	return nil, fmt.Errorf("no driver for %s", u.Scheme)
}

// openS3 is gocloud's s3blob URL opener with the HTTP client set. The AWS
// SDK's default configuration honours AWS_ENDPOINT_URL_S3 and
// AWS_ENDPOINT_URL (S3-compatible stores), the credential chain and
// AWS_REGION; the query options are gocloud's (region, endpoint, profile,
// anonymous, …) plus use_path_style and disable_https.
func openS3(ctx context.Context, u *url.URL, client *http.Client) (*blob.Bucket, error) {
	q := u.Query()
	var opts []func(*s3.Options)
	for _, key := range []string{"use_path_style", "s3ForcePathStyle", "disable_https"} {
		v := q.Get(key)
		if v == "" {
			continue
		}
		q.Del(key)
		on, err := strconv.ParseBool(v)
		if err != nil {
			return nil, fmt.Errorf("invalid value for %q: %w", key, err)
		}
		if key == "disable_https" {
			opts = append(opts, func(o *s3.Options) { o.EndpointOptions.DisableHTTPS = on })
		} else {
			opts = append(opts, func(o *s3.Options) { o.UsePathStyle = on })
		}
	}
	validate := q.Has("response_checksum_validation")
	cfg, err := aws.V2ConfigFromURLParams(ctx, q)
	if err != nil {
		return nil, err
	}
	if !validate {
		// Ranged reads carry no whole-object checksum, and S3-compatible
		// stores often none at all: validating only where S3 requires it
		// avoids a warning per read.
		cfg.ResponseChecksumValidation = awssdk.ResponseChecksumValidationWhenRequired
	}
	cfg.HTTPClient = client
	if cfg.Region == "" {
		// The SDK needs a region to sign with; S3-compatible stores accept
		// any, and AWS redirects a wrong one with an error naming it.
		cfg.Region = "us-east-1"
	}
	b, err := s3blob.OpenBucket(ctx, s3.NewFromConfig(cfg, opts...), u.Host, &s3blob.Options{RequestChecksumCalculation: cfg.RequestChecksumCalculation})
	if err == nil {
		s3Buckets.Store(b, u.Host) // for the keys gocloud would rewrite (keys.go)
	}
	return b, err
}

// openAzure follows gocloud's azureblob URL opener: the account from
// AZURE_STORAGE_ACCOUNT or the storage_account option, credentials from
// AZURE_STORAGE_KEY, AZURE_STORAGE_SAS_TOKEN, a connection string or
// azidentity's default chain (managed identity, workload identity, CLI).
func openAzure(ctx context.Context, u *url.URL, client *http.Client) (*blob.Bucket, error) {
	svcOpts := azureblob.NewDefaultServiceURLOptions()
	q := u.Query()
	for key, vals := range q {
		v := vals[0]
		switch key {
		case "domain":
			svcOpts.StorageDomain = v
		case "protocol":
			svcOpts.Protocol = v
		case "storage_account":
			svcOpts.AccountName = v
		case "localemu":
			on, err := strconv.ParseBool(v)
			if err != nil {
				return nil, fmt.Errorf("invalid value for localemu: %w", err)
			}
			svcOpts.IsLocalEmulator = on
		default:
			return nil, fmt.Errorf("unknown query parameter %q", key)
		}
	}
	svcURL, err := azureblob.NewServiceURL(svcOpts)
	if err != nil {
		return nil, err
	}
	containerURL, err := url.JoinPath(string(svcURL), u.Host)
	if err != nil {
		return nil, err
	}
	copts := &container.ClientOptions{ClientOptions: policy.ClientOptions{Transport: client}}
	var cc *container.Client
	key := os.Getenv("AZURE_STORAGE_KEY")
	conn := os.Getenv("AZURE_STORAGE_CONNECTION_STRING")
	if conn == "" {
		conn = os.Getenv("AZURE_STORAGEBLOB_CONNECTIONSTRING") // gocloud's other name for it
	}
	switch {
	case svcOpts.AccountName != "" && key != "":
		cred, err := azblob.NewSharedKeyCredential(svcOpts.AccountName, key)
		if err != nil {
			return nil, err
		}
		cc, err = container.NewClientWithSharedKeyCredential(containerURL, cred, copts)
		if err != nil {
			return nil, err
		}
	case os.Getenv("AZURE_STORAGE_SAS_TOKEN") != "":
		cc, err = container.NewClientWithNoCredential(containerURL, copts)
	case conn != "":
		cc, err = container.NewClientFromConnectionString(conn, u.Host, copts)
	default:
		cred, cerr := azidentity.NewDefaultAzureCredential(nil)
		if cerr != nil {
			return nil, cerr
		}
		cc, err = container.NewClient(containerURL, cred, copts)
	}
	if err != nil {
		return nil, err
	}
	return azureblob.OpenBucket(ctx, cc, nil)
}

// objectCall bounds one store call in time.
func objectCall(ctx context.Context) (context.Context, context.CancelFunc) {
	if ctx == nil {
		ctx = context.Background()
	}
	return context.WithTimeout(ctx, objectRequestTimeout)
}
