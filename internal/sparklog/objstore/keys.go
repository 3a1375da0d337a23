package objstore

import (
	"context"
	"fmt"
	"io"
	"net/url"
	"strconv"
	"strings"
	"sync"
	"time"

	azblobblob "github.com/Azure/azure-sdk-for-go/sdk/storage/azblob/blob"
	"github.com/Azure/azure-sdk-for-go/sdk/storage/azblob/container"
	awssdk "github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/s3"
	"github.com/aws/aws-sdk-go-v2/service/s3/types"
	"github.com/aws/smithy-go/middleware"
	"gocloud.dev/blob"
)

// Keys with control characters. S3 accepts any UTF-8 in a key, and
// Spark's S3A connector writes what it is given, but gocloud's s3blob
// rewrites every character below U+0020 (and "../", and text that looks
// like its own escapes, "__0x1__") into its escape form before asking:
// such an object written by anyone else is not found. S3's XML listing,
// for its part, writes those characters as references (&#x1;) that no XML
// parser accepts, so that one such key anywhere under a prefix would fail
// the whole listing. Listings are therefore asked URL-encoded
// (EncodingType=url) and decoded here, and the objects whose key gocloud
// would rewrite are stat'ed and read with the S3 client itself.

// s3Buckets names the S3 bucket behind each opened gocloud bucket.
var s3Buckets sync.Map // *blob.Bucket → bucket name

// s3Of returns the S3 client and bucket name of b; ok is false for
// another store.
func s3Of(b *blob.Bucket) (client *s3.Client, name string, ok bool) {
	v, found := s3Buckets.Load(b)
	if !found || !b.As(&client) {
		return nil, "", false
	}
	return client, v.(string), true
}

// gocloudRewritesS3Key tells the keys that s3blob would not ask for as
// they are (a superset of them: those are read directly, which is right
// for any key).
func gocloudRewritesS3Key(key string) bool {
	return strings.ContainsFunc(key, func(r rune) bool { return r < 0x20 }) ||
		strings.Contains(key, "../") || strings.Contains(key, "__0x")
}

// s3ListOptions asks an S3 listing of prefix URL-encoded, with the prefix
// as it is (not gocloud's escape of it). Other stores get plain options.
func s3ListOptions(b *blob.Bucket, prefix string) *blob.ListOptions {
	opts := &blob.ListOptions{Prefix: prefix}
	if _, _, ok := s3Of(b); !ok {
		return opts
	}
	opts.BeforeList = func(as func(any) bool) error {
		var in *s3.ListObjectsV2Input
		if as(&in) {
			in.EncodingType = types.EncodingTypeUrl
			if prefix != "" {
				in.Prefix = awssdk.String(prefix)
			}
		}
		var optFns *[]func(*s3.Options)
		if as(&optFns) {
			*optFns = append(*optFns, func(o *s3.Options) {
				o.APIOptions = append(o.APIOptions, decodeListedKeys)
			})
		}
		return nil
	}
	return opts
}

// decodeListedKeys URL-decodes the keys of a ListObjectsV2 answer in
// place when the answer says it encoded them: an S3-compatible store that
// ignores EncodingType sends keys as they are, "%" and "+" included.
func decodeListedKeys(stack *middleware.Stack) error {
	return stack.Initialize.Add(middleware.InitializeMiddlewareFunc("sparkglanceDecodeListedKeys",
		func(ctx context.Context, in middleware.InitializeInput, next middleware.InitializeHandler) (middleware.InitializeOutput, middleware.Metadata, error) {
			out, md, err := next.HandleInitialize(ctx, in)
			res, ok := out.Result.(*s3.ListObjectsV2Output)
			if err != nil || !ok || res.EncodingType != types.EncodingTypeUrl {
				return out, md, err
			}
			for i, o := range res.Contents {
				if o.Key == nil {
					continue
				}
				k, derr := url.QueryUnescape(*o.Key)
				if derr != nil {
					return out, md, fmt.Errorf("a listed key is not URL-encoded (%q): %w", *o.Key, derr)
				}
				res.Contents[i].Key = &k
			}
			for i, p := range res.CommonPrefixes {
				if p.Prefix == nil {
					continue
				}
				if k, derr := url.QueryUnescape(*p.Prefix); derr == nil {
					res.CommonPrefixes[i].Prefix = &k
				}
			}
			return out, md, err
		}), middleware.After)
}

// listedKey is the key of a listed object as the store has it: for S3 and
// Azure, the SDK's (decoded), not gocloud's, which un-escapes it again as
// if it were in gocloud's escape form.
func listedKey(b *blob.Bucket, o *blob.ListObject) string {
	var item container.BlobItem
	if _, ok := azureOf(b); ok && o.As(&item) && item.Name != nil {
		return *item.Name
	}
	var obj types.Object
	if _, _, ok := s3Of(b); ok && o.As(&obj) && obj.Key != nil {
		return *obj.Key // decoded by decodeListedKeys
	}
	return o.Key
}

// Azure: gocloud's azureblob rewrites more (control characters, \ " # %
// ? DEL, a trailing /, "../", "__0x"); the container client names a blob
// as it is. Azure's own listing marks and URL-encodes a name that XML
// cannot carry (Encoded="true"), which its SDK decodes: only the key
// gocloud's un-escaping would change is taken from the listed item.

// azureOf returns the container client of b; ok is false for another
// store.
func azureOf(b *blob.Bucket) (client *container.Client, ok bool) {
	if b.As(&client) {
		return client, true
	}
	return nil, false
}

// gocloudRewritesAzureKey tells the keys azureblob would not ask for as
// they are (a superset of them).
func gocloudRewritesAzureKey(key string) bool {
	return strings.ContainsFunc(key, func(r rune) bool { return r < 0x20 || r == 0x7f }) ||
		strings.ContainsAny(key, `\"#%?`) || strings.HasSuffix(key, "/") ||
		strings.Contains(key, "../") || strings.Contains(key, "__0x")
}

// objectAttrs is what a stat returns of an object.
type objectAttrs struct {
	size  int64
	mtime time.Time
	etag  string
}

// objectAttributes stats key in b.
func objectAttributes(ctx context.Context, b *blob.Bucket, key string) (objectAttrs, error) {
	if client, name, ok := s3Of(b); ok && gocloudRewritesS3Key(key) {
		out, err := client.HeadObject(ctx, &s3.HeadObjectInput{Bucket: &name, Key: &key})
		if err != nil {
			return objectAttrs{}, err
		}
		return objectAttrs{size: awssdk.ToInt64(out.ContentLength), mtime: awssdk.ToTime(out.LastModified), etag: awssdk.ToString(out.ETag)}, nil
	}
	if client, ok := azureOf(b); ok && gocloudRewritesAzureKey(key) {
		out, err := client.NewBlobClient(key).GetProperties(ctx, nil)
		if err != nil {
			return objectAttrs{}, err
		}
		etag := ""
		if out.ETag != nil {
			etag = string(*out.ETag)
		}
		return objectAttrs{size: awssdk.ToInt64(out.ContentLength), mtime: awssdk.ToTime(out.LastModified), etag: etag}, nil
	}
	a, err := b.Attributes(ctx, key)
	if err != nil {
		return objectAttrs{}, err
	}
	return objectAttrs{size: a.Size, mtime: a.ModTime, etag: a.ETag}, nil
}

// objectRangeReader reads length bytes of key from offset (length < 0: to
// the end).
func objectRangeReader(ctx context.Context, b *blob.Bucket, key string, offset, length int64) (io.ReadCloser, error) {
	if client, name, ok := s3Of(b); ok && gocloudRewritesS3Key(key) {
		in := &s3.GetObjectInput{Bucket: &name, Key: &key}
		switch {
		case length < 0 && offset > 0:
			in.Range = awssdk.String("bytes=" + strconv.FormatInt(offset, 10) + "-")
		case length > 0:
			in.Range = awssdk.String("bytes=" + strconv.FormatInt(offset, 10) + "-" + strconv.FormatInt(offset+length-1, 10))
		case length == 0:
			return io.NopCloser(strings.NewReader("")), nil
		}
		out, err := client.GetObject(ctx, in)
		if err != nil {
			return nil, err
		}
		return out.Body, nil
	}
	if client, ok := azureOf(b); ok && gocloudRewritesAzureKey(key) {
		if length == 0 {
			return io.NopCloser(strings.NewReader("")), nil
		}
		rng := azblobblob.HTTPRange{Offset: offset}
		if length > 0 {
			rng.Count = length
		}
		out, err := client.NewBlobClient(key).DownloadStream(ctx, &azblobblob.DownloadStreamOptions{Range: rng})
		if err != nil {
			return nil, err
		}
		return out.Body, nil
	}
	return b.NewRangeReader(ctx, key, offset, length, nil)
}
