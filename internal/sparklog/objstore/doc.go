// Package objstore lists, stats and reads objects in S3, Google Cloud
// Storage and Azure Blob Storage for the event-log readers (package
// sparklog): locations as Spark names them (s3a://, gs://, abfss://, …)
// and their canonical form, buckets opened once with each SDK's standard
// credential chain, listings in pages within a request budget, ranged
// streaming reads cut when the store stops sending, and a count of every
// HTTP request by operation and result. It knows objects, not logs: how a
// listing lays out as logs is sparklog's, as for a local directory.
package objstore
